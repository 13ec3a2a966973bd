"""Measure benchsite against the physical floor of its own inputs, in one run, on one corpus.

    .venv/bin/python scripts/benchmark.py --size small|100k|1m [--repeat 3] [--jobs N] [--peers]
    .venv/bin/python scripts/benchmark.py --corpus DIR [--repeat 3] [--jobs N] [--peers]

Generates the corpus with ``scripts/make_corpus.py`` (into a temporary folder, removed at the end)
unless ``--corpus`` names one, then measures, ``--repeat`` times each, reporting the median:

- floor, hash: sha256 of every input byte, in this process;
- floor, hash + parse: the same plus ``json.loads`` of every JSON file and JSONL line;
- a cold ``benchsite build`` (no site, an empty run cache);
- ``benchsite verify --no-cache`` (every run parsed) and ``verify`` with the run cache the cold
  build left (seals unchanged: runs hashed, not parsed);
- a no-op rebuild (the same inputs again) and a rebuild after one run folder changed (its rows
  regenerated and resealed), both with that run cache.

``--peers`` adds ``mkdocs build`` of the same report exported as Markdown (``benchsite build
--format mkdocs``) and Allure 3's ``allure generate`` on the points rows converted to Allure result
files: per-page and per-row figures and ratios, in the same run as the floors. ``scripts/peer-deps``
installs both (Allure 3 from npm into ``.cache/peers/``); without Allure the run stops and says so.

Each benchsite figure runs in a fresh subprocess, timed by wall clock; its peak RSS comes from the
kernel (``wait4``). The checkout is byte-compiled first, as a user's first run leaves it (where
``PYTHONDONTWRITEBYTECODE`` is set nothing would be, and every process would compile the package).
Printed: wall time, rows/s, MB/s, peak RSS, the ratio to the floors, the site's page count and
largest page. Not a timed unit test: figures for the README and notes.
"""

from __future__ import annotations

import argparse
import compileall
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
from generator.inputs.seal import SEAL_NAME, write_seal
from scripts import make_corpus
from scripts.make_example_corpus import SUBJECTS, TASKS, attempt

BENCHSITE = [sys.executable, "-m", "generator"]


@dataclass(frozen=True)
class Figure:
    name: str
    seconds: float
    rss_mb: float | None
    cpu: float | None = None


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


def timed(work: Callable[[], None]) -> tuple[float, None, float]:
    """Wall and CPU seconds of work done in this process."""
    started, cpu = time.perf_counter(), time.process_time()
    work()
    return time.perf_counter() - started, None, time.process_time() - cpu


def benchsite(*args: str) -> tuple[float, float, float]:
    """Wall seconds, peak RSS (MB) and CPU seconds of one benchsite command in a fresh process."""
    return timed_process([*BENCHSITE, *args])


def timed_process(command: list[str], cwd: Path | None = None) -> tuple[float, float, float]:
    """Wall seconds, peak RSS (MB, the largest of the process and its children) and CPU seconds (user
    + system, of the process and its children: ``wait4`` counts the children it reaped) of one command."""
    with tempfile.TemporaryFile() as errors:
        started = time.perf_counter()
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=errors, cwd=cwd)
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait again
        if process.returncode != 0:
            errors.seek(0)
            message = errors.read().decode("utf-8", "replace").strip()[-500:]
            raise SystemExit(f"{' '.join(command)} failed (exit {process.returncode}): {message}")
    return seconds, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


EXAMPLE = Path(__file__).resolve().parent.parent / "runs"
"""The example corpus: what a newcomer's first (and every later, unchanged) build reads."""


def startup(repeat: int, scratch: Path) -> str:
    """Start-up, measured in one run against ``python -c "import click"``: ``--version``, and a no-op
    rebuild of the example corpus (the version exists: seals hashed, nothing parsed)."""
    n = max(repeat, 5)
    click_s, _, _ = median_of(n, lambda _: timed_process([sys.executable, "-c", "import click"]))
    version_s, _, _ = median_of(n, lambda _: benchsite("--version"))
    site = scratch / "startup-site"
    build = ["build", "--quiet", "--runs", str(EXAMPLE), "--out", str(site)]
    benchsite(*build)
    noop_s, _, _ = median_of(n, lambda _: benchsite(*build))
    return (
        f"start-up (median of {n}): python -c 'import click' {click_s:.3f} s; benchsite --version "
        f"{version_s:.3f} s ({version_s / click_s:.1f}× click); no-op rebuild of the example corpus "
        f"{noop_s:.3f} s ({noop_s / click_s:.1f}× click)"
    )


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
    repeat: int, measure: Callable[[int], tuple[float, float | None, float]]
) -> tuple[float, float | None, float]:
    """Median wall seconds, the largest peak RSS and median CPU seconds of ``repeat`` measures."""
    results = [measure(i) for i in range(repeat)]
    rss = [r for _, r, _ in results if r is not None]
    cpu = statistics.median(c for _, _, c in results)
    return statistics.median(s for s, _, _ in results), max(rss) if rss else None, cpu


def measure(corpus: Path, repeat: int, scratch: Path, jobs: list[str]) -> tuple[list[Figure], int]:
    """Every figure, ``repeat`` times each. Cold builds start with an empty run cache of their own;
    the warm figures use the cache the first cold build left (seals unchanged since)."""
    files = input_files(corpus)
    figures = []
    hashed = median_of(repeat, lambda _: timed(lambda: floor_hash(files)))
    figures.append(Figure("floor: sha256 of every input byte", *hashed))
    parsed = median_of(repeat, lambda _: timed(lambda: floor_hash_parse(files)))
    figures.append(Figure("floor: sha256 + json.loads of every file and line", *parsed))
    runs = ["--runs", str(corpus), *jobs]

    def cold(i: int) -> tuple[float, float, float]:
        return benchsite(
            "build",
            "--quiet",
            *runs,
            "--out",
            str(scratch / f"cold-{i}"),
            "--cache",
            str(scratch / f"cache-{i}"),
        )

    figures.append(Figure("benchsite build, cold (empty run cache)", *median_of(repeat, cold)))
    # every page of every version the cold build published (a reveal also publishes the blind one)
    cold_pages = sum(1 for _ in (scratch / "cold-0").rglob("*.html"))
    warm = ["--cache", str(scratch / "cache-0")]
    verify_cold = median_of(repeat, lambda _: benchsite("verify", *runs, "--no-cache"))
    figures.append(Figure("benchsite verify --no-cache (parses every run)", *verify_cold))
    figures.append(
        Figure(
            "benchsite verify, warm run cache",
            *median_of(repeat, lambda _: benchsite("verify", *runs, *warm)),
        )
    )
    site = scratch / "cold-0"
    noop = median_of(repeat, lambda _: benchsite("build", "--quiet", *runs, "--out", str(site), *warm))
    figures.append(Figure("benchsite build, no-op rebuild", *noop))

    def changed(i: int) -> tuple[float, float, float]:
        change_one_run(corpus, i)
        return benchsite("build", "--quiet", *runs, "--out", str(site), *warm)

    figures.append(Figure("benchsite build, one run changed (warm cache)", *median_of(repeat, changed)))
    return figures, cold_pages


def pages(site: Path) -> tuple[int, int, str]:
    versions = [p for p in site.iterdir() if p.is_dir() and (p / "data" / "build.json").is_file()]
    html = [p for v in versions for p in v.rglob("*.html")]
    largest = max(html, key=lambda p: p.stat().st_size)
    return len(html), largest.stat().st_size, largest.relative_to(site).as_posix()


def report(corpus: Path, figures: list[Figure], site: Path, repeat: int, jobs: int | None) -> str:
    rows = count_rows(corpus)
    size = sum(p.stat().st_size for p in input_files(corpus)) / 1e6
    runs = sum(1 for _ in corpus.rglob(SEAL_NAME)) - sum(1 for p in corpus.iterdir() if p.is_dir())
    hashed, parsed = figures[0].seconds, figures[1].seconds
    parsed_cpu = figures[1].cpu or parsed
    lines = [
        f"corpus {corpus.name}: {rows} rows, {runs} run folders, {size:.1f} MB; median of {repeat}; "
        f"{os.cpu_count()} cores; benchsite --jobs {jobs or 'default (every core)'}",
        f"{'measure':<52} {'wall s':>8} {'rows/s':>10} {'MB/s':>8} {'peak MB':>8} "
        f"{'× hash':>7} {'× parse':>8} {'CPU s':>8} {'CPU × parse':>12}",
    ]
    for f in figures:
        rss = "—" if f.rss_mb is None else f"{f.rss_mb:.0f}"
        cpu = "—" if f.cpu is None else f"{f.cpu:.2f}"
        cpu_ratio = "—" if f.cpu is None else f"{f.cpu / parsed_cpu:.1f}"
        lines.append(
            f"{f.name:<52} {f.seconds:8.2f} {rows / f.seconds:10.0f} {size / f.seconds:8.1f} {rss:>8} "
            f"{f.seconds / hashed:7.1f} {f.seconds / parsed:8.1f} {cpu:>8} {cpu_ratio:>12}"
        )
    count, largest, where = pages(site)
    lines.append(f"site: {count} HTML pages in all versions; largest {largest / 1e6:.2f} MB ({where})")
    return "\n".join(lines)


def mkdocs_peer(corpus: Path, scratch: Path, repeat: int) -> tuple[float, float, int]:
    """``mkdocs build`` of the same report, exported as Markdown: (median s, peak MB, pages)."""
    import yaml  # ships with mkdocs (the test extra)

    project = scratch / "mkdocs"
    docs = project / "docs"
    docs.mkdir(parents=True)
    (docs / "index.md").write_text("# Results\n\nSee [the benchmarks](results/index.md).\n", encoding="utf-8")
    benchsite("build", "--quiet", "--runs", str(corpus), "--format", "mkdocs", "--out", str(docs / "results"))
    nav = yaml.safe_load((docs / "results" / "nav.yml").read_text(encoding="utf-8"))
    config = {"site_name": "peer", "docs_dir": "docs", "nav": [{"Home": "index.md"}, *nav]}
    (project / "mkdocs.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    command = [
        sys.executable,
        "-m",
        "mkdocs",
        "build",
        "--quiet",
        "--config-file",
        str(project / "mkdocs.yml"),
    ]
    seconds, rss, _ = median_of(repeat, lambda _: timed_process(command, cwd=project))
    return seconds, rss or 0.0, sum(1 for _ in docs.rglob("*.md"))


def allure_results(corpus: Path, out: Path) -> int:
    """Every points attempt as an Allure result file (passed when every functional and regression
    check passed, else failed); the count."""
    out.mkdir(parents=True)
    count = 0
    for attempts in sorted((corpus / "agent-dx").glob("*/attempts.jsonl")):
        for line in attempts.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            checks = [*row.get("functional", []), *row.get("regression", [])]
            status = "passed" if all(c.get("passed") for c in checks) else "failed"
            uid = hashlib.sha256(f"{attempts.parent.name}/{row['attempt_id']}".encode()).hexdigest()[:32]
            suite = [{"name": "suite", "value": attempts.parent.name}]
            result = {
                "uuid": uid,
                "historyId": uid,
                "name": row["attempt_id"],
                "status": status,
                "start": 0,
                "stop": 1,
                "labels": suite,
            }
            (out / f"{uid}-result.json").write_text(json.dumps(result), encoding="utf-8")
            count += 1
    return count


def peers(corpus: Path, scratch: Path, repeat: int, ours: Figure, pages_built: int) -> list[str]:
    rows = count_rows(corpus)
    seconds, rss, md_pages = mkdocs_peer(corpus, scratch, repeat)
    lines = [
        f"peer: mkdocs build, the same report as {md_pages} Markdown pages: {seconds:.2f} s, "
        f"peak {rss:.0f} MB, {seconds / md_pages * 1e3:.1f} ms/page; benchsite cold: "
        f"{ours.seconds / pages_built * 1e3:.1f} ms/page ({pages_built} HTML pages), "
        f"{ours.seconds / seconds:.2f}× mkdocs' time",
    ]
    allure = allure_command()
    results = scratch / "allure-results"
    count = allure_results(corpus, results)
    report_dir = scratch / "allure-report"

    def generate(_: int) -> tuple[float, float, float]:
        shutil.rmtree(report_dir, ignore_errors=True)  # Allure 3 has no --clean
        return timed_process([allure, "generate", str(results), "--output", str(report_dir)])

    a_seconds, a_rss, _ = median_of(repeat, generate)
    lines.append(
        f"peer: allure generate (Allure {allure_version(allure)}), the points rows as {count} results: "
        f"{a_seconds:.2f} s, peak {a_rss or 0:.0f} MB, {a_seconds / count * 1e6:.0f} µs/row; benchsite "
        f"cold: {ours.seconds / rows * 1e6:.0f} µs/row over all {rows} rows "
        f"({a_seconds / count / (ours.seconds / rows):.1f}× faster per row)"
    )
    return lines


ALLURE = Path(__file__).resolve().parent.parent / ".cache" / "peers" / "node_modules" / ".bin" / "allure"


def allure_command() -> str:
    """Allure 3 as scripts/peer-deps installs it, else on the PATH; a clear stop when absent."""
    found = str(ALLURE) if ALLURE.is_file() else shutil.which("allure")
    if found is None:
        raise SystemExit("--peers needs Allure 3: run scripts/peer-deps first")
    return found


def allure_version(allure: str) -> str:
    done = subprocess.run([allure, "--version"], capture_output=True, text=True, check=False)
    return done.stdout.strip().splitlines()[-1] if done.stdout.strip() else "(version unknown)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--size", choices=sorted(make_corpus.SIZES))
    source.add_argument("--corpus", type=Path, help="an existing corpus (it is copied, never changed)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--jobs", type=int, help="benchsite --jobs (default: benchsite's own, every core)")
    parser.add_argument(
        "--peers", action="store_true", help="also time mkdocs build and, if installed, allure"
    )
    args = parser.parse_args(argv)
    jobs = ["--jobs", str(args.jobs)] if args.jobs else []
    compileall.compile_dir(Path(__file__).resolve().parent.parent / "generator", quiet=1)
    with tempfile.TemporaryDirectory(prefix="benchsite-bench-") as scratch_dir:
        scratch = Path(scratch_dir)
        corpus = scratch / "corpus"
        if args.size:
            runs, rows = make_corpus.SIZES[args.size]
            make_corpus.make(corpus, runs, rows, args.seed)
        else:
            shutil.copytree(args.corpus, corpus)
        figures, cold_pages = measure(corpus, args.repeat, scratch, jobs)
        print(report(corpus, figures, scratch / "cold-0", args.repeat, args.jobs), flush=True)
        print(startup(args.repeat, scratch), flush=True)
        if args.peers:
            cold = next(f for f in figures if f.name.startswith("benchsite build, cold"))
            print("\n".join(peers(corpus, scratch, args.repeat, cold, cold_pages)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
