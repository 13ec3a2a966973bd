"""The components rubric family: see docs/components.md."""
