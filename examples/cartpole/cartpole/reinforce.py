"""REINFORCE (Monte-Carlo policy gradient) with a running return baseline and Adam."""

import math

from cartpole.policy import sample


def run_episode(env, policy, rng, seed=None):
    """Roll out one episode with actions sampled from ``policy`` using ``rng``.

    ``seed`` reseeds the environment (pass it for the first episode only, as
    with Gymnasium). Returns one ``(cache, probs, action, reward)`` per step.
    """
    trajectory = []
    obs = env.reset(seed=seed)
    done = False
    while not done:
        probs, cache = policy.forward(obs)
        action = sample(probs, rng)
        obs, reward, terminated, truncated = env.step(action)
        trajectory.append((cache, probs, action, reward))
        done = terminated or truncated
    return trajectory


def discounted_returns(rewards, gamma):
    """G_t = r_t + gamma * G_{t+1}, computed backwards in one pass."""
    returns = [0.0] * len(rewards)
    running = 0.0
    for t in range(len(rewards) - 1, -1, -1):
        running = rewards[t] + gamma * running
        returns[t] = running
    return returns


class ReturnNormaliser:
    """Turns discounted returns into advantages using running return statistics.

    Subtracting a running mean of recent returns is the baseline: actions from
    an episode that outlasts recent ones are reinforced, those from a shorter
    one are discouraged. Dividing by a running standard deviation keeps the
    step size steady while episodes grow from ~20 to 500 steps. Normalising
    each episode on its own would only contrast its early steps with its late
    ones, and can leave a run stuck at ~15 steps per episode.
    """

    def __init__(self, decay=0.9):
        self.decay = decay
        self.mean = None
        self.var = None

    def __call__(self, returns):
        mean = sum(returns) / len(returns)
        var = sum((g - mean) ** 2 for g in returns) / len(returns)
        if self.mean is None:
            self.mean, self.var = mean, var
        else:
            self.mean = self.decay * self.mean + (1.0 - self.decay) * mean
            self.var = self.decay * self.var + (1.0 - self.decay) * var
        std = math.sqrt(self.var)
        return [(g - self.mean) / (std + 1e-8) for g in returns]


def entropy(probs):
    return -sum(p * math.log(p) for p in probs if p > 0.0)


def policy_gradient(policy, trajectory, advantages, entropy_coef):
    """Gradient of the per-step mean REINFORCE loss over one episode.

    loss = mean_t[ -A_t * log pi(a_t | s_t) - entropy_coef * H(pi(. | s_t)) ]
    with A_t the advantage of step t. Returns ``(grads, loss, entropy)``.
    """
    grads = policy.zero_grads()
    n = len(trajectory)
    total_loss = total_entropy = 0.0
    for (cache, probs, action, _), adv in zip(trajectory, advantages):
        h = entropy(probs)
        total_loss += -adv * math.log(max(probs[action], 1e-12)) - entropy_coef * h
        total_entropy += h
        # d loss / d logit_k = -A (1[k=a] - p_k) + c * p_k (log p_k + H)
        dlogits = [
            (-adv * ((k == action) - p) + entropy_coef * p * (math.log(max(p, 1e-12)) + h)) / n
            for k, p in enumerate(probs)
        ]
        policy.backward(cache, dlogits, grads)
    return grads, total_loss / n, total_entropy / n


def param_vectors(layers):
    """Every weight row and bias vector, as the mutable lists the optimiser updates."""
    for weights, biases in layers:
        yield from weights
        yield biases


class Adam:
    """Adam (Kingma & Ba, 2015) over the nested-list parameters of a policy.

    Adam's per-parameter step sizes matter here: the policy-gradient scale
    swings by orders of magnitude as episodes grow from ~20 to 500 steps.
    """

    def __init__(self, layers, lr, beta1=0.9, beta2=0.999, eps=1e-8):
        self.lr, self.beta1, self.beta2, self.eps = lr, beta1, beta2, eps
        self.t = 0
        self.m = [[0.0] * len(v) for v in param_vectors(layers)]
        self.v = [[0.0] * len(v) for v in param_vectors(layers)]

    def step(self, layers, grads):
        """Move ``layers`` one step against ``grads`` (same nesting), in place."""
        self.t += 1
        c1 = 1.0 - self.beta1 ** self.t
        c2 = 1.0 - self.beta2 ** self.t
        b1, b2 = self.beta1, self.beta2
        for params, g_vec, m, v in zip(param_vectors(layers), param_vectors(grads), self.m, self.v):
            for i, g in enumerate(g_vec):
                m[i] = b1 * m[i] + (1.0 - b1) * g
                v[i] = b2 * v[i] + (1.0 - b2) * g * g
                params[i] -= self.lr * (m[i] / c1) / (math.sqrt(v[i] / c2) + self.eps)
