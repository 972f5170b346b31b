"""CartPole REINFORCE example: environment, policy, config and preflight helpers."""
