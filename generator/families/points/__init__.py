"""The points rubric family: see docs/points.md."""
