"""The names of the formats ``benchsite schema`` prints, without importing their models (the
command line lists them at start-up; ``schemas.py`` maps each to its model, and a test keeps the two
in step)."""

SCHEMA_NAMES = (
    "build-record",
    "components-benchmark",
    "components-contract",
    "components-episode",
    "components-run",
    "points-attempt",
    "points-benchmark",
    "points-contract",
    "points-run",
    "points-scoring",
    "report",
    "trials-benchmark",
    "trials-contract",
    "trials-plan",
    "trials-result",
    "trials-reveal",
    "trials-run",
    "trials-scoring",
    "versions",
)
