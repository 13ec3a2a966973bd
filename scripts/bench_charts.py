"""Measure the forest plot two ways: benchsite's templated SVG and matplotlib's SVG backend.

Run: ``.venv/bin/python scripts/bench_charts.py`` (matplotlib is not a dependency: install it in
any venv to include it; without it only the templated SVG is measured). Prints the median time per
chart over repetitions, the bytes per chart, and whether two renders gave identical bytes.
"""

from __future__ import annotations

import io
import statistics
import sys
import time

from generator.figures.model import Rate
from generator.figures.ranking import rate_ranking
from generator.figures.stats import rate
from generator.render.charts import forest

SUBJECTS = 12
REPEATS = 30


def example() -> list[tuple[str, Rate]]:
    return [(f"subject-{i:02d}", rate(3 * i % 50 + 5, 60)) for i in range(SUBJECTS)]


def timed(render: object, repeats: int = REPEATS) -> tuple[float, bytes, bool]:
    assert callable(render)
    samples, outputs = [], []
    for _ in range(repeats):
        start = time.perf_counter()
        outputs.append(render())
        samples.append(time.perf_counter() - start)
    return statistics.median(samples), outputs[0], outputs[0] == outputs[1]


RANKING = rate_ranking(
    "r", "Ready rate", "Ready / valid", example()
)  # figures computed once, outside the timing


def templated() -> bytes:
    return str(forest(RANKING, "forest-r")).encode("utf-8")


def with_matplotlib() -> bytes:
    import matplotlib

    matplotlib.use("svg")
    import matplotlib.pyplot as plt

    matplotlib.rcParams["svg.hashsalt"] = "benchsite"  # stable ids, else bytes differ per run
    entries = RANKING.rows
    figure, axes = plt.subplots(figsize=(7, 0.3 * SUBJECTS + 1))
    for y, row in enumerate(entries):
        assert row.interval is not None and row.estimate is not None
        axes.plot([row.interval.low, row.interval.high], [y, y], color="#0b5cad")
        axes.plot([row.estimate], [y], "s", color="#0b5cad")
    axes.set_yticks(range(len(entries)), [r.subject for r in entries])
    axes.set_xlim(0, 1)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="svg", metadata={"Date": None})
    plt.close(figure)
    return buffer.getvalue()


def main() -> None:
    ours, ours_bytes, ours_same = timed(templated)
    print(f"templated SVG: {ours * 1e6:8.0f} µs/chart, {len(ours_bytes):6d} bytes, deterministic={ours_same}")
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("matplotlib: not installed, not measured")
        return
    theirs, theirs_bytes, theirs_same = timed(with_matplotlib)
    per_chart = f"{theirs * 1e6:8.0f} µs/chart, {len(theirs_bytes):6d} bytes"
    print(f"matplotlib:    {per_chart}, deterministic={theirs_same}")
    size = len(theirs_bytes) / len(ours_bytes)
    print(f"ratio: matplotlib takes {theirs / ours:.0f}× as long and writes {size:.1f}× the bytes")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
