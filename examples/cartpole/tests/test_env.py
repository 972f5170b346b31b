import math
import unittest

from cartpole.env import THETA_THRESHOLD, CartPoleEnv


def rollout(env, seed, actions):
    obs = [env.reset(seed=seed)]
    for action in actions:
        step_obs, reward, terminated, truncated = env.step(action)
        obs.append(step_obs)
        if terminated or truncated:
            break
    return obs


class CartPoleEnvTest(unittest.TestCase):
    def test_reset_state_is_small_and_seeded(self):
        env = CartPoleEnv()
        first = env.reset(seed=3)
        self.assertEqual(len(first), 4)
        self.assertTrue(all(-0.05 <= v <= 0.05 for v in first))
        self.assertEqual(env.reset(seed=3), first)
        self.assertNotEqual(env.reset(seed=4), first)

    def test_same_seed_same_trajectory(self):
        actions = [0, 1, 1, 0, 1] * 4
        self.assertEqual(rollout(CartPoleEnv(), 7, actions), rollout(CartPoleEnv(), 7, actions))

    def test_one_euler_step_matches_the_equations(self):
        env = CartPoleEnv()
        env._state = (0.0, 0.0, 0.0, 0.0)
        obs, reward, terminated, truncated = env.step(1)
        # From rest, only the velocities change: x_dot += tau * F / m_total, and
        # theta_dot gets the matching (negative) angular acceleration.
        temp = 10.0 / 1.1
        thetaacc = -temp / (0.5 * (4.0 / 3.0 - 0.1 / 1.1))
        xacc = temp - 0.05 * thetaacc / 1.1
        self.assertEqual(obs[0], 0.0)
        self.assertAlmostEqual(obs[1], 0.02 * xacc)
        self.assertEqual(obs[2], 0.0)
        self.assertAlmostEqual(obs[3], 0.02 * thetaacc)
        self.assertEqual((reward, terminated, truncated), (1.0, False, False))

    def test_constant_push_topples_the_pole(self):
        env = CartPoleEnv()
        env.reset(seed=0)
        for steps in range(1, 501):
            obs, _, terminated, truncated = env.step(1)
            if terminated:
                break
        self.assertTrue(terminated)
        self.assertFalse(truncated)
        self.assertLess(steps, 30)
        self.assertGreater(abs(obs[2]), THETA_THRESHOLD)
        self.assertAlmostEqual(THETA_THRESHOLD, math.radians(12))

    def test_truncates_at_max_steps(self):
        env = CartPoleEnv(max_steps=4)
        env.reset(seed=0)
        flags = [env.step(step % 2)[2:] for step in range(4)]
        self.assertEqual(flags, [(False, False)] * 3 + [(False, True)])

    def test_step_after_episode_end_is_an_error(self):
        env = CartPoleEnv(max_steps=1)
        env.reset(seed=0)
        env.step(0)
        with self.assertRaises(RuntimeError):
            env.step(0)


if __name__ == "__main__":
    unittest.main()
