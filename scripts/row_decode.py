"""CPU per row of reading trials results (``results.jsonl``), before and after the compiled fast path,
in one process.

    .venv/bin/python scripts/row_decode.py [--rows 50000] [--repeat 7] [--seed 7]

Generates ``--rows`` trial results with the example corpus's own row builder
(``scripts/make_example_corpus.trial_result``: three to four checks, two to five interventions,
measured and unavailable costs, written as the example corpus writes them), then reads the whole
file ``--repeat`` times each way, alternating, by ``jsonio.iter_models`` as a build does (every
decoded row kept, as the family keeps them):

- strict: ``TrialResult`` without its fast path (jiter parse, then pydantic), as before;
- fast: ``TrialResult`` with ``fast_row`` (the msgspec decode; a row it does not accept takes the
  strict path).

Timed by ``time.process_time`` (CPU of this process), after a ``gc.collect()``; printed: the best and
the median µs of CPU a row each way, their ratio, and how many rows the fast path took itself. Each
way is timed twice: with the cyclic garbage collector on, as a build runs (pydantic models are
tracked by it and the rows are kept, so its passes grow with the rows read; the fast path's Structs
are not tracked), and with it off, the decode alone. Not a timed unit test: figures for the commit
and the notes.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from generator.errors import Problems
from generator.families.trials.models import TrialResult
from generator.inputs.jsonio import iter_models
from scripts.make_example_corpus import PROMPTS, trial_result


class StrictResult(TrialResult):
    """``TrialResult`` as it was read before: no fast path."""

    fast_row = None


def results_file(rows: int, seed: int) -> bytes:
    """``rows`` trial results, one JSON object a line, keys sorted (as the example corpus writes them)."""
    rng = random.Random(seed)
    prompts = sorted(PROMPTS)
    lines = []
    for n in range(rows):
        trial = {"trial_id": f"t{n:06d}", "prompt_id": prompts[n % len(prompts)]}
        lines.append(json.dumps(trial_result(rng, trial, rng.uniform(0.4, 0.9)), sort_keys=True) + "\n")
    return "".join(lines).encode()


def read(data: bytes, model: type[TrialResult]) -> Callable[[], int]:
    def work() -> int:
        problems = Problems()
        kept = list(iter_models(data, "results.jsonl", model, problems))
        assert not problems, problems.as_list()[:3]
        return len(kept)

    return work


def cpu_seconds(work: Callable[[], int]) -> float:
    gc.collect()
    start = time.process_time()
    work()
    return time.process_time() - start


def per_row(ways: dict[str, Callable[[], int]], rows: int, repeat: int) -> dict[str, tuple[float, float]]:
    """Each way's best and median µs of CPU a row over ``repeat`` reads, the ways alternating."""
    seconds: dict[str, list[float]] = {way: [] for way in ways}
    for _ in range(repeat):
        for way, work in ways.items():
            seconds[way].append(cpu_seconds(work))
    return {way: (min(s) / rows * 1e6, statistics.median(s) / rows * 1e6) for way, s in seconds.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    data = results_file(args.rows, args.seed)
    ways = {"strict": read(data, StrictResult), "fast": read(data, TrialResult)}
    assert {way: work() for way, work in ways.items()} == dict.fromkeys(ways, args.rows)  # and warm
    taken = sum(TrialResult.fast_row(line) is not None for line in data.decode().splitlines())
    print(
        f"{args.rows} trial results, {len(data) / args.rows:.0f} bytes a row; best (median) of {args.repeat}"
    )
    for collector in ("on", "off"):
        if collector == "off":
            gc.disable()
        figures = per_row(ways, args.rows, args.repeat)
        gc.enable()
        for way, (best, median) in figures.items():
            print(f"  gc {collector:3} {way:6} {best:6.2f} µs CPU a row ({median:.2f})")
        print(f"  gc {collector:3} fast / strict: {figures['fast'][0] / figures['strict'][0]:.2f}× the CPU")
    print(f"  rows the fast path took itself: {taken} of {args.rows}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
