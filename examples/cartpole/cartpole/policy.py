"""A softmax policy over CartPole actions, in plain Python.

With ``hidden=0`` the logits are a linear function of the (scaled)
observation, which is already enough to balance the pole; ``hidden>0`` adds
one tanh layer. Gradients are written out by hand, so training needs no
autodiff library.
"""

import json
import math
import os
import random

from cartpole.env import N_ACTIONS, OBS_DIM

# Typical magnitude of (x, x_dot, theta, theta_dot) while balancing. Dividing
# by it puts every input on a similar scale, so one learning rate suits all
# weights (theta alone is ~20x smaller than the velocities).
OBS_SCALE = (2.4, 2.0, 0.21, 2.0)

FORMAT = "cartpole-softmax-policy/v1"


class SoftmaxPolicy:
    """pi(a | s) = softmax(f(s)) where f is linear or a one-hidden-layer tanh MLP.

    Parameters are kept as ``layers``: a list of ``(weights, biases)`` where
    ``weights[j][i]`` connects input ``i`` to output ``j``.
    """

    def __init__(self, hidden=0, rng=None):
        if hidden < 0:
            raise ValueError(f"hidden must be >= 0, got {hidden}")
        self.hidden = hidden
        rng = rng or random.Random(0)
        sizes = [OBS_DIM] + ([hidden] if hidden else []) + [N_ACTIONS]
        self.layers = []
        for k, (fan_in, fan_out) in enumerate(zip(sizes, sizes[1:])):
            last = k == len(sizes) - 2
            # A zero output layer makes the initial policy uniform (maximum
            # entropy); hidden layers need random weights to break symmetry.
            bound = 0.0 if last else 1.0 / math.sqrt(fan_in)
            weights = [[rng.uniform(-bound, bound) for _ in range(fan_in)] for _ in range(fan_out)]
            self.layers.append((weights, [0.0] * fan_out))

    # -- forward / backward -------------------------------------------------

    def forward(self, obs):
        """Return ``(probs, cache)``; ``cache`` holds the activations for ``backward``."""
        activations = [[v / s for v, s in zip(obs, OBS_SCALE)]]
        for k, (weights, biases) in enumerate(self.layers):
            inp = activations[-1]
            out = [b + sum(w * x for w, x in zip(row, inp)) for row, b in zip(weights, biases)]
            if k < len(self.layers) - 1:
                out = [math.tanh(v) for v in out]
            activations.append(out)
        return softmax(activations[-1]), activations

    def backward(self, cache, dlogits, grads):
        """Add d(loss)/d(params) to ``grads``, given d(loss)/d(logits) for one forward pass."""
        delta = dlogits
        for k in range(len(self.layers) - 1, -1, -1):
            weights, _ = self.layers[k]
            gw, gb = grads[k]
            inp = cache[k]
            for j, d in enumerate(delta):
                if d:
                    row = gw[j]
                    for i, x in enumerate(inp):
                        row[i] += d * x
                    gb[j] += d
            if k:  # propagate through the tanh that produced ``inp``
                delta = [
                    (1.0 - h * h) * sum(weights[j][i] * delta[j] for j in range(len(delta)))
                    for i, h in enumerate(inp)
                ]

    def zero_grads(self):
        """Gradient buffers shaped like ``layers``."""
        return [([[0.0] * len(row) for row in w], [0.0] * len(b)) for w, b in self.layers]

    # -- acting ---------------------------------------------------------------

    def act(self, obs, rng=None):
        """Sample an action (``rng`` given) or take the most likely one (``rng=None``)."""
        probs, _ = self.forward(obs)
        if rng is None:
            return max(range(len(probs)), key=probs.__getitem__)
        return sample(probs, rng)

    # -- persistence ----------------------------------------------------------

    def to_dict(self):
        return {
            "format": FORMAT,
            "hidden": self.hidden,
            "layers": [{"weights": w, "biases": b} for w, b in self.layers],
        }

    @classmethod
    def from_dict(cls, data):
        if data.get("format") != FORMAT:
            raise ValueError(f"not a {FORMAT} checkpoint (format={data.get('format')!r})")
        policy = cls(hidden=data["hidden"])
        layers = [(layer["weights"], layer["biases"]) for layer in data["layers"]]
        if shapes(layers) != shapes(policy.layers):
            raise ValueError("checkpoint layer shapes do not match its 'hidden' size")
        policy.layers = layers
        return policy

    def save(self, path, metadata=None):
        """Write the policy, plus free-form ``metadata`` (e.g. training steps), as JSON.

        The file is written to a temporary name and renamed, so a reader never
        sees a half-written checkpoint.
        """
        data = self.to_dict()
        data["metadata"] = metadata or {}
        tmp = f"{path}.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=1)
            f.write("\n")
        os.replace(tmp, path)


def load(path):
    """Return ``(policy, metadata)`` from a checkpoint written by ``SoftmaxPolicy.save``."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    return SoftmaxPolicy.from_dict(data), data.get("metadata", {})


def shapes(layers):
    return [[len(row) for row in weights] + [len(biases)] for weights, biases in layers]


def softmax(logits):
    top = max(logits)
    exps = [math.exp(v - top) for v in logits]
    total = sum(exps)
    return [e / total for e in exps]


def sample(probs, rng):
    """Draw an index with the given probabilities, using one uniform from ``rng``."""
    u = rng.random()
    cumulative = 0.0
    for i, p in enumerate(probs):
        cumulative += p
        if u < cumulative:
            return i
    return len(probs) - 1
