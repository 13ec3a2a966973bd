"""Measure benchsite against the physical floor of its own inputs, in one run, on one corpus.

    .venv/bin/python scripts/benchmark.py --size small|100k|1m [--repeat 3]
    .venv/bin/python scripts/benchmark.py --corpus DIR [--repeat 3]

Generates the corpus with ``scripts/make_corpus.py`` (into a temporary folder, removed at the end)
unless ``--corpus`` names one, then measures, ``--repeat`` times each, reporting the median:

- floor, hash: sha256 of every input byte, in this process;
- floor, hash + parse: the same plus ``json.loads`` of every JSON file and JSONL line;
- ``benchsite verify``; a cold ``benchsite build``; a no-op rebuild (the same inputs again);
- a rebuild after one run folder changed (its rows regenerated and resealed).

Each benchsite figure runs in a fresh subprocess, timed by wall clock; its peak RSS comes from the
kernel (``wait4``). Printed: wall time, rows/s, MB/s, peak RSS, the ratio to the floors, the
site's page count and largest page. Not a timed unit test: figures for the README and notes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from generator.seal import SEAL_NAME, write_seal
from scripts import make_corpus
from scripts.make_example_corpus import SUBJECTS, TASKS, attempt

BENCHSITE = [sys.executable, "-m", "generator"]


@dataclass(frozen=True)
class Figure:
    name: str
    seconds: float
    rss_mb: float | None


def input_files(corpus: Path) -> list[Path]:
    return sorted(p for p in corpus.rglob("*") if p.is_file())


def count_rows(corpus: Path) -> int:
    return sum(p.read_bytes().count(b"\n") for p in corpus.rglob("*.jsonl"))


def floor_hash(files: list[Path]) -> None:
    for path in files:
        hashlib.sha256(path.read_bytes()).digest()


def floor_hash_parse(files: list[Path]) -> None:
    for path in files:
        data = path.read_bytes()
        hashlib.sha256(data).digest()
        if path.suffix == ".json":
            json.loads(data)
        elif path.suffix == ".jsonl":
            for line in data.splitlines():
                if line:
                    json.loads(line)


def timed(work: Callable[[], None]) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def benchsite(*args: str) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one benchsite command in a fresh process."""
    with tempfile.TemporaryFile() as errors:
        started = time.perf_counter()
        process = subprocess.Popen([*BENCHSITE, *args], stdout=subprocess.DEVNULL, stderr=errors)
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait again
        if process.returncode != 0:
            errors.seek(0)
            message = errors.read().decode("utf-8", "replace").strip()[-500:]
            raise SystemExit(f"benchsite {' '.join(args)} failed (exit {process.returncode}): {message}")
    return seconds, usage.ru_maxrss / 1024


def change_one_run(corpus: Path, round_: int) -> None:
    """Regenerate the rows of the first points run and reseal it and its benchmark."""
    bench = corpus / "agent-dx"
    run = sorted(p for p in bench.iterdir() if p.is_dir())[0]
    rows = (run / "attempts.jsonl").read_text(encoding="utf-8").count("\n")
    rng = random.Random(1000 + round_)
    skill = SUBJECTS[json.loads((run / "run.json").read_text(encoding="utf-8"))["subject"]]
    text = "".join(
        json.dumps(attempt(rng, f"changed-{round_}-{i:05d}", TASKS[i % len(TASKS)], skill), sort_keys=True)
        + "\n"
        for i in range(rows)
    )
    (run / "attempts.jsonl").write_text(text, encoding="utf-8")
    for folder in (run, bench):
        (folder / SEAL_NAME).unlink()
        write_seal(folder)


def median_of(
    repeat: int, measure: Callable[[int], tuple[float, float | None]]
) -> tuple[float, float | None]:
    results = [measure(i) for i in range(repeat)]
    rss = [r for _, r in results if r is not None]
    return statistics.median(s for s, _ in results), max(rss) if rss else None


def measure(corpus: Path, repeat: int, scratch: Path) -> list[Figure]:
    files = input_files(corpus)
    figures = []
    hashed, _ = median_of(repeat, lambda _: (timed(lambda: floor_hash(files)), None))
    figures.append(Figure("floor: sha256 of every input byte", hashed, None))
    parsed, _ = median_of(repeat, lambda _: (timed(lambda: floor_hash_parse(files)), None))
    figures.append(Figure("floor: sha256 + json.loads of every file and line", parsed, None))
    figures.append(
        Figure("benchsite verify", *median_of(repeat, lambda _: benchsite("verify", "--runs", str(corpus))))
    )

    def cold(i: int) -> tuple[float, float]:
        out = scratch / f"cold-{i}"
        return benchsite("build", "--quiet", "--runs", str(corpus), "--out", str(out))

    figures.append(Figure("benchsite build, cold", *median_of(repeat, cold)))
    site = scratch / "cold-0"
    noop = median_of(
        repeat, lambda _: benchsite("build", "--quiet", "--runs", str(corpus), "--out", str(site))
    )
    figures.append(Figure("benchsite build, no-op rebuild", *noop))

    def changed(i: int) -> tuple[float, float]:
        change_one_run(corpus, i)
        return benchsite("build", "--quiet", "--runs", str(corpus), "--out", str(site))

    figures.append(Figure("benchsite build, one run changed", *median_of(repeat, changed)))
    return figures


def pages(site: Path) -> tuple[int, int, str]:
    versions = [p for p in site.iterdir() if p.is_dir() and (p / "data" / "build.json").is_file()]
    html = [p for v in versions for p in v.rglob("*.html")]
    largest = max(html, key=lambda p: p.stat().st_size)
    return len(html), largest.stat().st_size, largest.relative_to(site).as_posix()


def report(corpus: Path, figures: list[Figure], site: Path, repeat: int) -> str:
    rows = count_rows(corpus)
    size = sum(p.stat().st_size for p in input_files(corpus)) / 1e6
    runs = sum(1 for _ in corpus.rglob(SEAL_NAME)) - sum(1 for p in corpus.iterdir() if p.is_dir())
    hashed, parsed = figures[0].seconds, figures[1].seconds
    lines = [
        f"corpus {corpus}: {rows} rows, {runs} run folders, {size:.1f} MB; median of {repeat}; "
        f"{os.cpu_count()} cores",
        f"{'measure':<52} {'wall s':>8} {'rows/s':>10} {'MB/s':>8} {'peak MB':>8} "
        f"{'× hash':>7} {'× parse':>8}",
    ]
    for f in figures:
        rss = "—" if f.rss_mb is None else f"{f.rss_mb:.0f}"
        lines.append(
            f"{f.name:<52} {f.seconds:8.2f} {rows / f.seconds:10.0f} {size / f.seconds:8.1f} {rss:>8} "
            f"{f.seconds / hashed:7.1f} {f.seconds / parsed:8.1f}"
        )
    count, largest, where = pages(site)
    lines.append(f"site: {count} HTML pages in all versions; largest {largest / 1e6:.2f} MB ({where})")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--size", choices=sorted(make_corpus.SIZES))
    source.add_argument("--corpus", type=Path, help="an existing corpus (it is copied, never changed)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="benchsite-bench-") as scratch_dir:
        scratch = Path(scratch_dir)
        corpus = scratch / "corpus"
        if args.size:
            runs, rows = make_corpus.SIZES[args.size]
            make_corpus.make(corpus, runs, rows, args.seed)
        else:
            shutil.copytree(args.corpus, corpus)
        figures = measure(corpus, args.repeat, scratch)
        print(report(corpus, figures, scratch / "cold-0", args.repeat))
    return 0


if __name__ == "__main__":
    sys.exit(main())
