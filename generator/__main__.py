"""``python -m generator`` runs the benchsite command line."""

from generator.cli import main

main()
