import math
import os
import random
import tempfile
import unittest

from cartpole.policy import SoftmaxPolicy, load
from cartpole.reinforce import param_vectors, policy_gradient

OBSERVATIONS = [(0.01, -0.2, 0.03, 0.4), (-1.0, 0.5, -0.1, -1.2), (2.0, 1.5, 0.18, 0.9)]


def randomise(policy, rng):
    for weights, biases in policy.layers:
        for row in weights:
            row[:] = [rng.uniform(-1, 1) for _ in row]
        biases[:] = [rng.uniform(-1, 1) for _ in biases]


class SoftmaxPolicyTest(unittest.TestCase):
    def test_initial_policy_is_uniform(self):
        for hidden in (0, 4):
            probs, _ = SoftmaxPolicy(hidden, random.Random(0)).forward(OBSERVATIONS[1])
            self.assertEqual(probs, [0.5, 0.5])

    def test_save_load_round_trip(self):
        for hidden in (0, 5):
            policy = SoftmaxPolicy(hidden, random.Random(1))
            randomise(policy, random.Random(2))
            with tempfile.TemporaryDirectory() as tmp:
                path = os.path.join(tmp, "policy.json")
                policy.save(path, {"total_timesteps": 123})
                loaded, metadata = load(path)
            self.assertEqual(metadata, {"total_timesteps": 123})
            self.assertEqual(loaded.hidden, hidden)
            for obs in OBSERVATIONS:
                self.assertEqual(loaded.forward(obs)[0], policy.forward(obs)[0])
                self.assertEqual(loaded.act(obs), policy.act(obs))

    def test_load_rejects_other_files(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "other.json")
            with open(path, "w") as f:
                f.write('{"lr": 0.1}')
            with self.assertRaises(ValueError):
                load(path)

    def test_gradient_matches_finite_differences(self):
        # The hand-written backward pass is all that stands between REINFORCE
        # and a silently wrong update, so check it numerically, biases included.
        policy = SoftmaxPolicy(3, random.Random(0))
        randomise(policy, random.Random(1))
        actions, advantages, entropy_coef = (0, 1, 1), (0.7, -1.1, 0.4), 0.05

        def episode():
            steps = []
            for obs, action in zip(OBSERVATIONS, actions):
                probs, cache = policy.forward(obs)
                steps.append((cache, probs, action, 1.0))
            return steps

        def loss():
            return policy_gradient(policy, episode(), advantages, entropy_coef)[1]

        grads, _, _ = policy_gradient(policy, episode(), advantages, entropy_coef)
        eps = 1e-6
        for params, grad in zip(param_vectors(policy.layers), param_vectors(grads)):
            for i in range(len(params)):
                params[i] += eps
                up = loss()
                params[i] -= 2 * eps
                down = loss()
                params[i] += eps
                self.assertTrue(math.isclose((up - down) / (2 * eps), grad[i], abs_tol=1e-6))


if __name__ == "__main__":
    unittest.main()
