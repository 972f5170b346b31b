"""CartPole-v1 dynamics, written out from the classic cart-pole equations.

The constants, Euler integration, termination thresholds and reset
distribution match Gymnasium's CartPole-v1, so returns are comparable with
published numbers (a uniformly random policy scores about 20; the ceiling is
``max_steps``, 500 by default). Only the standard library is used.
"""

import math
import random

GRAVITY = 9.8
MASSCART = 1.0
MASSPOLE = 0.1
TOTAL_MASS = MASSCART + MASSPOLE
LENGTH = 0.5  # half the pole's length
POLEMASS_LENGTH = MASSPOLE * LENGTH
FORCE_MAG = 10.0
TAU = 0.02  # seconds between state updates

X_THRESHOLD = 2.4
THETA_THRESHOLD = 12 * 2 * math.pi / 360  # 12 degrees, in radians

OBS_DIM = 4
N_ACTIONS = 2  # 0 pushes the cart left, 1 pushes it right


class CartPoleEnv:
    """A pole hinged on a cart; the agent pushes the cart left or right.

    Observation: ``(x, x_dot, theta, theta_dot)``. Reward: 1.0 for every step
    taken, including the one that ends the episode. An episode terminates
    when the cart leaves the track or the pole tilts past 12 degrees, and is
    truncated after ``max_steps`` steps.

    The interface follows Gymnasium's: ``reset(seed=...)`` reseeds the
    environment's own ``random.Random``, a plain ``reset()`` continues that
    stream, so a run is reproducible from its seeds alone.
    """

    def __init__(self, max_steps=500):
        if max_steps < 1:
            raise ValueError(f"max_steps must be >= 1, got {max_steps}")
        self.max_steps = max_steps
        self._rng = random.Random()
        self._state = None
        self._steps = 0

    def reset(self, seed=None):
        """Start an episode from a state drawn uniformly from [-0.05, 0.05]^4."""
        if seed is not None:
            self._rng.seed(seed)
        self._state = tuple(self._rng.uniform(-0.05, 0.05) for _ in range(OBS_DIM))
        self._steps = 0
        return self._state

    def step(self, action):
        """Advance one time step; return ``(obs, reward, terminated, truncated)``."""
        if self._state is None:
            raise RuntimeError("episode is over (or never started): call reset() first")
        if action not in (0, 1):
            raise ValueError(f"action must be 0 or 1, got {action!r}")

        x, x_dot, theta, theta_dot = self._state
        force = FORCE_MAG if action == 1 else -FORCE_MAG
        costheta = math.cos(theta)
        sintheta = math.sin(theta)

        temp = (force + POLEMASS_LENGTH * theta_dot * theta_dot * sintheta) / TOTAL_MASS
        thetaacc = (GRAVITY * sintheta - costheta * temp) / (
            LENGTH * (4.0 / 3.0 - MASSPOLE * costheta * costheta / TOTAL_MASS)
        )
        xacc = temp - POLEMASS_LENGTH * thetaacc * costheta / TOTAL_MASS

        # Explicit Euler, in the same order as CartPole-v1's "euler" integrator.
        x = x + TAU * x_dot
        x_dot = x_dot + TAU * xacc
        theta = theta + TAU * theta_dot
        theta_dot = theta_dot + TAU * thetaacc

        obs = (x, x_dot, theta, theta_dot)
        self._steps += 1
        terminated = abs(x) > X_THRESHOLD or abs(theta) > THETA_THRESHOLD
        truncated = not terminated and self._steps >= self.max_steps
        self._state = None if (terminated or truncated) else obs
        return obs, 1.0, terminated, truncated
