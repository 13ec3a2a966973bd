"""Reliability tooling: fuzzing and hardening checks of the build against hostile inputs."""
