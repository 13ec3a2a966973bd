"""The tally rubric family: a tiny fixture family that proves the family seam (tests/test_family_seam.py)."""
