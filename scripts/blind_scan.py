"""CPU of the blind scan (``blind_scan.find_revealed``) over a blind version's files, before and after
a change of the scan, in one process.

    .venv/bin/python scripts/blind_scan.py [--site SITE] [--before REV] [--repeat 5]

Without ``--site``, makes the 100k-row corpus (``scripts/make_corpus.py --size 100k``) and builds its
site once in a temporary folder (a cold build, about a minute); with it, scans the blind version of
that site (a folder ``SITE/*-blind``, as the 100k corpus's build writes it). The revealed names are
the corpus's own (``make_example_corpus.REAL_NAMES``).

Every file is read into memory first, then scanned whole ``--repeat`` times each way, alternating:

- before: ``generator/publish/blind_scan.py`` as it is at ``--before`` (read from git, loaded as a
  module of its own);
- after: the module as it is in the work tree.

Timed by ``time.process_time`` (CPU of this process), after a ``gc.collect()``; printed: the best and
the median seconds each way, their ratio, and both answers, which must agree (the script fails
otherwise). Each file is also scanned alone each way, so that the answer is compared for every file,
not only for the first that shows a name. Not a timed unit test: figures for the commit and the
notes.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from types import ModuleType

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from generator.publish import blind_scan
from scripts.make_example_corpus import REAL_NAMES

ROOT = Path(__file__).resolve().parent.parent

Files = list[tuple[str, Callable[[], bytes]]]
BEFORE = "2c36a23b629cdef5cdea6ce25d17cc29ce30edac"
"""The commit of branch fast-scan before the scan's quiet pass (issue 33)."""


def module_at(rev: str) -> ModuleType:
    """``generator/publish/blind_scan.py`` as it is at ``rev``, as a module of its own name."""
    source = subprocess.run(
        ["git", "show", f"{rev}:generator/publish/blind_scan.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    spec = importlib.util.spec_from_loader("blind_scan_before", loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    exec(compile(source, f"{rev[:12]}:blind_scan.py", "exec"), module.__dict__)
    return module


def built_site(work: Path) -> Path:
    """The 100k corpus's site, made and built (cold) in ``work``."""
    python = sys.executable
    corpus, site = work / "corpus", work / "site"
    subprocess.run(
        [python, str(ROOT / "scripts/make_corpus.py"), "--size", "100k", "--out", str(corpus)], check=True
    )
    subprocess.run(
        [
            python,
            "-m",
            "generator",
            "build",
            "--runs",
            str(corpus),
            "--out",
            str(site),
            "--cache",
            str(work / "cache"),
            "-q",
        ],
        check=True,
        cwd=ROOT,
    )
    return site


def blind_files(site: Path) -> Files:
    """Every file of the site's blind version, read once, as the build names them."""
    (version,) = sorted(site.glob("*-blind"))
    files = blind_scan.folder_files(version, f"{version.name}/")
    return [(rel, (lambda data: lambda: data)(read())) for rel, read in files]


def cpu_seconds(work: Callable[[], object]) -> float:
    gc.collect()
    start = time.process_time()
    work()
    return time.process_time() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--site", type=Path, help="a built site holding the blind version (else built here)")
    parser.add_argument("--before", default=BEFORE, help="the git revision of the scan to compare with")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    before = module_at(args.before)
    names = sorted(REAL_NAMES.values())
    with tempfile.TemporaryDirectory() as work:
        files = blind_files(args.site or built_site(Path(work)))
    size = sum(len(read()) for _, read in files)
    ways = {"before": before.find_revealed, "after": blind_scan.find_revealed}
    answers = {way: scan(files, names) for way, scan in ways.items()}  # and warm (the confusables data)
    differ = [
        rel for rel, read in files if len({repr(scan([(rel, read)], names)) for scan in ways.values()}) > 1
    ]
    seconds: dict[str, list[float]] = {way: [] for way in ways}
    for _ in range(args.repeat):
        for way, scan in ways.items():
            seconds[way].append(cpu_seconds(partial(scan, files, names)))
    print(f"{len(files)} files, {size / 1e6:.0f} MB; names {names}; best (median) of {args.repeat}")
    for way, s in seconds.items():
        print(f"  {way:6} {min(s):6.3f} s CPU ({statistics.median(s):.3f})  answer {answers[way]}")
    print(f"  after / before: {min(seconds['after']) / min(seconds['before']):.2f}× the CPU")
    if answers["before"] != answers["after"] or differ:
        print(f"  ANSWERS DIFFER: {differ[:5]}")
        return 1
    print("  the same answer, for the whole version and for every file alone")
    return 0


if __name__ == "__main__":
    sys.exit(main())
