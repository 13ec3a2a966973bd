"""benchsite: sealed benchmark runs and their rubric contracts, published as a versioned static site."""

__version__ = "0.1.0"
