"""CPU per row of writing a run page's HTML table rows: the generic ``Cells`` writer against the
direct one, in one process, on the same scored rows.

    .venv/bin/python scripts/html_rows.py [--rows 20000] [--repeat 7] [--seed 7]

Scores ``--rows`` points attempts and ``--rows`` components episodes drawn by the example corpus's
own row builders (``scripts/make_example_corpus.attempt`` and ``episode``, as ``make_corpus.py``
draws a scale corpus; a third of the attempts carry a producer's outcome, so some disagree) with
the families' own scoring (``score_attempt``, ``episode_result``), and ``--rows`` trials drawn by
its ``trial_result`` and scored by ``trial_row`` (one in twenty missing; two providers' names
revealed). Then writes each family's rows ``--repeat`` times each way, alternating, as ``b.rows``
does on a run page (``html_rows``: one str of the page's rows):

- generic: the family's writer over ``HtmlCells`` pieces, a Markup per piece (a subclass of
  ``HtmlCells``, which the row writers never take their direct path for);
- direct: the family's writer given ``HtmlCells`` itself (its direct path, where it has one).

Timed by ``time.process_time`` (CPU of this process) after a ``gc.collect()``; printed: the best
and the median µs of CPU a row each way and their ratio. Before timing, asserts the two ways write
the same bytes. Not a timed unit test: figures for the commits and the notes.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from generator.families.components.family import episode_result
from generator.families.components.models import Episode, Task
from generator.families.components.rows import components_rows
from generator.families.points.models import Attempt, PointsTask
from generator.families.points.report import AttemptResult
from generator.families.points.rows import points_rows
from generator.families.points.scoring import score_attempt
from generator.families.points.spec import builtin_spec
from generator.families.rows import HtmlCells, RowWriter
from generator.families.trials.models import PlannedTrial, TrialResult
from generator.families.trials.report import RevealedName, RevealRecord, TrialRow
from generator.families.trials.rows import trials_rows
from generator.families.trials.scoring import trial_row
from generator.render.single import ON_PAGE
from scripts.make_example_corpus import (
    PROMPTS,
    PROVIDERS,
    SUBJECTS,
    TASKS,
    attempt,
    episode,
    je_tasks,
    trial_result,
)

DETERMINISTIC = "Deterministic (of 90)"
DETECTION = "Detection (TP/FP/FN · F1 · type acc. · exactness)"
PROCESS = "Process (coverage · precision · efficiency)"
OUTCOMES = ("Ready", "NeedsReview", "NotReady", "Inconclusive")


class GenericCells(HtmlCells):
    """``HtmlCells`` as every writer took it before its direct path: a piece at a time."""


def labels() -> tuple[str, ...]:
    """The seed rubric's dimension columns, as the points family heads them (``_run_columns``)."""
    return tuple(d.label or d.key.replace("_", " ") for d in builtin_spec()[0].dimensions)


def points(rows: int, rng: random.Random) -> list[AttemptResult]:
    """``rows`` scored attempts, drawn as ``make_corpus.make_points`` draws them."""
    tasks = {t["id"]: PointsTask.model_validate_json(json.dumps(t)) for t in TASKS}
    skills = list(SUBJECTS.values())
    scored = []
    for i in range(rows):
        row = attempt(rng, f"a{i // 1000:05d}-{i % 1000:05d}", TASKS[i % len(TASKS)], skills[i % len(skills)])
        if rng.random() < 0.01:
            invalid = {"reason": "host_infrastructure_failure", "detail": "runner lost"}
            row = {**{k: row[k] for k in ("attempt_id", "task")}, "agent_started": False, "invalid": invalid}
        elif rng.random() < 0.02:
            row["trajectory"] = None
        if rng.random() < 0.3:
            row["producer_outcome"] = rng.choice(OUTCOMES)
        scored.append(score_attempt(Attempt.model_validate_json(json.dumps(row)), tasks[row["task"]]))
    return scored


def components(rows: int, rng: random.Random) -> list[Any]:
    """``rows`` scored episodes, drawn as ``make_corpus.make_components`` draws them."""
    raw = je_tasks()
    tasks = [Task.model_validate_json(json.dumps(t)) for t in raw]
    scored = []
    for i in range(rows):
        n = i % len(raw)
        eid, skill = f"e{i // 100:05d}-{raw[n]['id']}-s{i % 100}", 0.4 + n % 5 / 10
        row = Episode.model_validate_json(json.dumps(episode(rng, raw[n], eid, i % 100 + 1, skill)))
        scored.append(episode_result(row, tasks[n], "m-alpha", "model"))
    return scored


def trials(rows: int, rng: random.Random) -> list[TrialRow]:
    """``rows`` scored trials: results drawn by ``make_example_corpus.trial_result`` for a plan over its
    providers and prompts, one in twenty missing (a failure with its own code)."""
    prompts = sorted(PROMPTS)
    scored = []
    for i in range(rows):
        prompt = prompts[i % len(prompts)]
        planned = PlannedTrial(
            trial_id=f"t{i:06d}",
            prompt_id=prompt,
            prompt_corpus_version="prompts-2026.10",
            provider=PROVIDERS[i % len(PROVIDERS)],
        )
        result = trial_result(rng, planned.model_dump(), rng.uniform(0.4, 0.9))
        read = None if rng.random() < 0.05 else TrialResult.model_validate_json(json.dumps(result))
        scored.append(trial_row(planned, read, None if read is None else "run-1", PROMPTS[prompt]))
    return scored


REVEAL = RevealRecord(
    scores_version="v1",
    scores_sha256="0" * 64,
    names=(RevealedName(provider="P-A", name="Provider <A>"), RevealedName(provider="P-C", name="c_3")),
)
"""Two providers' names revealed, so their cells carry them."""


def page(write: RowWriter, cells: HtmlCells, *args: Any) -> str:
    """What ``html_rows`` makes of a page's rows (without the template's context)."""
    return "".join(write(cells, *args))


def cpu_seconds(work: Callable[[], str]) -> float:
    gc.collect()
    start = time.process_time()
    work()
    return time.process_time() - start


def per_row(ways: dict[str, Callable[[], str]], rows: int, repeat: int) -> dict[str, tuple[float, float]]:
    """Each way's best and median µs of CPU a row over ``repeat`` writes, the ways alternating."""
    seconds: dict[str, list[float]] = {way: [] for way in ways}
    for _ in range(repeat):
        for way, work in ways.items():
            seconds[way].append(cpu_seconds(work))
    return {way: (min(s) / rows * 1e6, statistics.median(s) / rows * 1e6) for way, s in seconds.items()}


def measure(family: str, write: RowWriter, items: Sequence[Any], args: tuple[Any, ...], repeat: int) -> None:
    ways = {
        "generic": lambda: page(write, GenericCells(ON_PAGE), items, *args),
        "direct": lambda: page(write, HtmlCells(ON_PAGE), items, *args),
    }
    written = {way: work() for way, work in ways.items()}  # and warm
    assert written["generic"] == written["direct"], f"{family}: the two ways differ"
    figures = per_row(ways, len(items), repeat)
    for way, (best, median) in figures.items():
        print(f"  {family:10} {way:7} {best:6.2f} µs CPU a row ({median:.2f})")
    print(f"  {family:10} direct / generic: {figures['direct'][0] / figures['generic'][0]:.2f}× the CPU")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    attempts, episodes = points(args.rows, rng), components(args.rows, rng)
    print(f"{args.rows} rows a family; best (median) of {args.repeat}")
    measure("points", points_rows, attempts, (labels(), DETERMINISTIC), args.repeat)
    measure("components", components_rows, episodes, (DETECTION, PROCESS), args.repeat)
    measure("trials", trials_rows, trials(args.rows, rng), (REVEAL,), args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
