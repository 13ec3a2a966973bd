"""Rubric families. Each is input models plus pure scoring functions, registered by name."""
