"""The definitions rubric family: see docs/definitions.md."""
