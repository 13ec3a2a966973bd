"""The trials rubric family: see docs/trials.md."""
