"""Write a large sealed corpus for measuring benchsite: N run folders × M rows, deterministic from a seed.

    .venv/bin/python scripts/make_corpus.py --size small|100k|1m --out /tmp/corpus-1m [--seed 7]
    .venv/bin/python scripts/make_corpus.py --runs 200 --rows 500 --out DIR

The rows are made by the example corpus's own row builders (``scripts/make_example_corpus.py``),
so their shapes and failure mixes are realistic: failing checks, scope overreach, invalid attempts
and their reasons, missing diagnostics (points); missed defects, fabricated citations, hard fails,
missing judges (components). Sizes split the rows between the two families that carry row files:
points gets 80 % of the runs, components 20 %. The trials and definitions benchmarks of ``runs/``
are copied as they are (their rows are tied to a frozen trial plan and to one file per store row;
scaling them is not done yet), so every family is present in every size.

Existing output is never overwritten: the folder must not exist.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from generator.inputs.seal import write_seal
from scripts.make_example_corpus import SUBJECTS, TASKS, attempt, episode, je_tasks

ROOT = Path(__file__).resolve().parent.parent
SIZES = {"small": (20, 50), "100k": (100, 1000), "1m": (10_000, 100)}
"""Size → (run folders, rows per run folder): small (CI), 100,000 rows, 1,000,000 rows in 10,000 runs."""
POINTS_SHARE = 0.8
MODELS = {"m-alpha": 0.85, "m-beta": 0.65, "m-gamma": 0.5, "m-delta": 0.7}


def _copy_benchmark(name: str, out: Path) -> Path:
    """A benchmark folder of the example corpus without its runs: declaration, rubric, seal."""
    source, target = ROOT / "runs" / name, out / name
    target.mkdir()
    for item in source.iterdir():
        if item.is_file() and item.name != "SHA256SUMS":
            shutil.copy2(item, target / item.name)
    return target


def _jsonl(rows: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, sort_keys=True, ensure_ascii=False) + "\n" for r in rows)


def _meta(subject: str, **extra: str) -> str:
    return json.dumps({"schema_version": 1, "subject": subject, **extra, "producer": "scale corpus"}) + "\n"


def make_points(out: Path, runs: int, rows: int, rng: random.Random) -> int:
    bench = _copy_benchmark("agent-dx", out)
    subjects = list(SUBJECTS.items())
    for n in range(runs):
        subject, skill = subjects[n % len(subjects)]
        run = bench / f"run-{n:05d}"
        run.mkdir()
        (run / "run.json").write_text(_meta(subject), encoding="utf-8")
        batch = []
        for i in range(rows):
            row = attempt(rng, f"a{n:05d}-{i:05d}", TASKS[i % len(TASKS)], skill)
            if rng.random() < 0.01:  # an invalid attempt, excluded from every denominator
                invalid = {"reason": "host_infrastructure_failure", "detail": "runner lost"}
                row = {
                    "attempt_id": row["attempt_id"],
                    "task": row["task"],
                    "agent_started": False,
                    "invalid": invalid,
                }
            elif rng.random() < 0.02:
                row["trajectory"] = None  # diagnostics unavailable: excluded, never zero
            batch.append(row)
        (run / "attempts.jsonl").write_text(_jsonl(batch), encoding="utf-8")
        write_seal(run)
    write_seal(bench)
    return runs * rows


def make_components(out: Path, runs: int, rows: int, rng: random.Random) -> int:
    bench = _copy_benchmark("je-validation", out)
    tasks = je_tasks()
    models = list(MODELS.items())
    written = 0
    for n in range(runs):
        model, skill = models[n % len(models)]
        run = bench / f"run-{n:05d}"
        run.mkdir()
        (run / "run.json").write_text(_meta(model, kind="model"), encoding="utf-8")
        seeds = max(1, rows // len(tasks))
        first = n // len(models) * seeds + 1  # one episode per task × model × seed, across runs
        batch = [
            episode(rng, t, f"e{n:05d}-{t['id']}-s{s}", s, skill)
            for t in tasks
            for s in range(first, first + seeds)
        ]
        (run / "episodes.jsonl").write_text(_jsonl(batch), encoding="utf-8")
        write_seal(run)
        written += len(batch)
    for kind in ("flag_everything_baseline", "no_evidence_baseline"):  # the contract's anti-gaming runs
        source = ROOT / "runs" / "je-validation" / f"run-{kind.replace('_', '-')}"
        shutil.copytree(source, bench / source.name)
    write_seal(bench)
    return written


def make(out: Path, runs: int, rows: int, seed: int) -> dict[str, int]:
    out.mkdir(parents=True)
    rng = random.Random(seed)
    points_runs = max(1, round(runs * POINTS_SHARE))
    counts = {
        "points": make_points(out, points_runs, rows, rng),
        "components": make_components(out, max(1, runs - points_runs), rows, rng),
    }
    for name in ("vibe-delivery", "recsys-grounding"):  # copied whole: sealed as they are
        shutil.copytree(ROOT / "runs" / name, out / name)
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", choices=sorted(SIZES), help="a preset: run folders × rows per run")
    parser.add_argument("--runs", type=int, help="run folders (overrides --size)")
    parser.add_argument("--rows", type=int, help="rows per run folder (overrides --size)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, required=True, help="a folder that does not exist yet")
    args = parser.parse_args(argv)
    runs, rows = SIZES[args.size] if args.size else (20, 50)
    runs, rows = args.runs or runs, args.rows or rows
    if args.out.exists():
        parser.error(f"{args.out} exists: the corpus is written into a new folder only")
    started = time.monotonic()
    counts = make(args.out, runs, rows, args.seed)
    total = sum(counts.values())
    shares = ", ".join(f"{family} {n}" for family, n in counts.items())
    print(
        f"wrote {args.out}: {runs} run folders, {total} rows ({shares}) in {time.monotonic() - started:.1f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
