"""Kill builds mid-way, race two builds, fill or freeze the output: the site stays whole.

Run as root (the disk checks mount a tmpfs):
``.venv/bin/python -m scripts.reliability.faults [--kills 30] [--pairs 6] [--seed 0]``

Every check starts from a site holding one published version, ``prev`` (built from the corpus
without its last benchmark), and builds the whole corpus as ``next`` — for the example corpus that
publishes two versions: the blind one its reveal applies to, then ``next``.

1. **kill -9 at random points**: ``benchsite build`` as a subprocess, SIGKILLed after a seeded delay
   in [0, one full build's wall time]. Then every version folder present, listed or not, must equal
   a reference build of that version byte for byte; versions.json and index.html must parse and list
   the same versions, all present; and a following normal build must succeed, remove the stale
   staging folders and leave exactly the site an uninterrupted build leaves.
2. **kill -9 after each publishing step**: the same, with the build killing itself right after its
   k-th rename inside the output, for every k, so each window between two steps is hit on purpose.
3. **two concurrent builds** (``--site-version a`` and ``b``) into one site: each publishes or exits
   2 with the lock message; the two never hold the site's writer at the same time (each logs when it
   holds it); the final site holds complete versions only.
4. **a full disk and a read-only output**: a tmpfs too small for the build; free space just below
   what the build needs; the tmpfs remounted read-only; the site folder immutable (``chattr +i``).
   Each must exit 2 naming the path, leaving the site byte-identical.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

from click.testing import CliRunner, Result

from generator.cli import main as benchsite
from generator.errors import EXIT_USAGE
from generator.publish.write import BADGES, LOCK_NAME, TEMP_PREFIX, VERSIONS, temp_prefix
from generator.report.changes import VersionsIndex

CORPUS = Path(__file__).resolve().parents[2] / "runs"
PREVIOUS, NEXT, PAIR = "prev", "next", ("a", "b")
LOCK_MESSAGE = "another benchsite build is writing this site"
PAGE = 4096
REFUSED = "exit 2 naming the path, site byte-identical"
FITTED = "exit 0 (the build fitted), site complete"
EXAMPLES = 20

HOOK = r"""
import os, signal, sys, time
from pathlib import Path
from generator.publish import write
from generator.cli import main

KILL_AFTER = int(os.environ.get("FAULTS_KILL_AFTER", "0"))
LOG = os.environ.get("FAULTS_LOG")
OUT = os.path.abspath(os.environ["FAULTS_OUT"]) + os.sep
steps = 0

def log(event):
    if LOG:
        fd = os.open(LOG, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        os.write(fd, f"{os.getpid()} {time.monotonic_ns()} {event}\n".encode())
        os.close(fd)

def counted(real):
    def step(self, target):
        global steps
        result = real(self, target)
        if not os.path.abspath(target).startswith(OUT):
            return result  # the run cache's own files: not a step of the output
        steps += 1
        log(f"step {Path(target).name}")
        if steps == KILL_AFTER:
            os.kill(os.getpid(), signal.SIGKILL)
        return result
    return step

def holding(enter, leave):
    def entered(self):
        result = enter(self)
        log("holds")
        return result
    def leaving(self, *exc):
        log("releases")
        return leave(self, *exc)
    return entered, leaving

Path.rename, Path.replace = counted(Path.rename), counted(Path.replace)
write.SiteWriter.__enter__, write.SiteWriter.__exit__ = holding(
    write.SiteWriter.__enter__, write.SiteWriter.__exit__)
sys.argv[0] = "benchsite"
main()
"""
"""``benchsite`` with two probes: a log of each rename in the output and of when the process holds
the site's writer (lock taken → released), and a SIGKILL right after the k-th rename."""


def cli(*args: str | Path) -> Result:
    """``benchsite`` in-process (a normal build, the reference builds, the output faults)."""
    return CliRunner().invoke(benchsite, [str(a) for a in args], catch_exceptions=True)


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def benchsite_command() -> list[str]:
    """The venv's console script, or the module when the script is not installed."""
    script = Path(sys.executable).parent / "benchsite"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "generator"]


def leftovers(out: Path) -> list[str]:
    """Staging entries of this site's builds: beside the site folder, or inside it (earlier versions)."""
    parent, prefix = temp_prefix(out)
    inside = [p.name for p in out.iterdir() if p.name.startswith(TEMP_PREFIX)]
    return sorted({*inside, *(p.name for p in parent.iterdir() if p.name.startswith(prefix))})


def site_files(out: Path) -> dict[str, bytes]:
    """A site's files, without the lock file (created empty by the first build, never written)."""
    files = snapshot(out)
    files.pop(LOCK_NAME, None)
    return files


def pages(files: dict[str, bytes]) -> int:
    """How many tmpfs pages the files take (each file rounded up to whole pages)."""
    return sum(-(-len(data) // PAGE) for data in files.values())


@dataclass(frozen=True)
class Lab:
    """The inputs, a site holding one published version, and reference builds of every version."""

    root: Path
    runs: Path
    template: Path
    """A site holding version ``prev`` only."""
    refs: dict[str, list[dict[str, bytes]]]
    """Version → its files as reference builds wrote them, in the template's site: a version's pages
    show what the site published before it (its history, what changed), so each order two versions
    can be published in has its own reference."""
    complete: dict[str, bytes]
    """The template after an uninterrupted build of ``next`` (what every recovery must leave)."""
    full_seconds: float
    """Wall time of one uninterrupted ``benchsite build`` subprocess, interpreter start included."""
    steps: tuple[str, ...]
    """The names an uninterrupted build renames into the output, in order."""

    def fresh_site(self, name: str) -> Path:
        out = self.root / name
        shutil.copytree(self.template, out)
        return out

    def build_args(self, out: Path, version: str = NEXT) -> list[str]:
        return ["build", "--runs", str(self.runs), "--out", str(out), "--site-version", version, "--quiet"]


def _build(runs: Path, out: Path, version: str) -> None:
    result = cli("build", "--runs", runs, "--out", out, "--site-version", version, "--quiet")
    if result.exit_code != 0:
        raise RuntimeError(f"reference build of {version} failed: {result.output}")


def private_tmp(out: Path) -> dict[str, str]:
    """An environment whose TMPDIR is private to one build, so what a killed build leaves there is seen."""
    tmp = out.with_name(out.name + "-tmp")
    tmp.mkdir(exist_ok=True)
    return {**os.environ, "TMPDIR": str(tmp)}


def hooked(lab: Lab, out: Path, version: str, log: Path, kill_after: int = 0) -> subprocess.Popen[str]:
    env = {
        **private_tmp(out),
        "FAULTS_LOG": str(log),
        "FAULTS_KILL_AFTER": str(kill_after),
        "FAULTS_OUT": str(out),
    }
    command = [sys.executable, "-c", HOOK, *lab.build_args(out, version)]
    return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def prepare(scratch: Path, corpus: Path = CORPUS) -> Lab:
    """Copy the corpus, publish ``prev``, build every reference, time one uninterrupted build."""
    runs, earlier = scratch / "runs", scratch / "runs-earlier"
    shutil.copytree(corpus, runs)
    shutil.copytree(corpus, earlier)
    shutil.rmtree(earlier / sorted(p.name for p in earlier.iterdir())[-1])
    template = scratch / "template"
    _build(earlier, template, PREVIOUS)
    refs: dict[str, list[dict[str, bytes]]] = {PREVIOUS: [snapshot(template / PREVIOUS)]}
    for order in ((NEXT,), PAIR, PAIR[::-1]):
        reference = scratch / f"reference-{'-'.join(order)}"
        shutil.copytree(template, reference)
        for version in order:
            _build(runs, reference, version)
        for folder in _version_folders(reference):
            found = refs.setdefault(folder.name, [])
            if (files := snapshot(folder)) not in found:
                found.append(files)
    lab = Lab(scratch, runs, template, refs, {}, 0.0, ())
    out, log = lab.fresh_site("timed"), scratch / "timed.log"
    started = time.monotonic()
    process = hooked(lab, out, NEXT, log)
    _, errors = process.communicate()
    seconds = time.monotonic() - started
    if process.returncode != 0:
        raise RuntimeError(f"the uninterrupted build failed: exit {process.returncode}: {errors}")
    steps = tuple(line.split()[3] for line in log.read_text().splitlines() if line.split()[2] == "step")
    return Lab(scratch, runs, template, refs, site_files(out), seconds, steps)


class _IndexVersions(HTMLParser):
    """The versions ``site/index.html`` lists: one "What changed" heading each, newest first."""

    def __init__(self) -> None:
        super().__init__()
        self.newest_first: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        ident = dict(attrs).get("id") or ""
        if tag == "h3" and ident.startswith("changes-"):
            self.newest_first.append(ident.removeprefix("changes-"))


def _indexed(out: Path) -> tuple[str, ...] | str:
    """The versions index.html lists, oldest first, or why it cannot be read."""
    try:
        text = (out / "index.html").read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return f"index.html unreadable: {exc}"
    if not text.rstrip().endswith("</html>"):
        return "index.html is truncated"
    parser = _IndexVersions()
    parser.feed(text)
    parser.close()
    return tuple(reversed(parser.newest_first))


def _listed(out: Path) -> tuple[str, ...] | str:
    """The versions versions.json lists, in published order, or why it cannot be read."""
    try:
        index = VersionsIndex.model_validate(json.loads((out / VERSIONS).read_bytes()))
    except (OSError, ValueError) as exc:
        return f"versions.json unreadable: {str(exc)[:200]}"
    if [c.version for c in index.changes] != list(index.versions):
        return "versions.json: its changes do not follow its versions"
    return tuple(index.versions)


@dataclass(frozen=True)
class SiteState:
    """What a site holds after a fault, judged against the reference builds."""

    present: tuple[str, ...]
    """Version folders on disk."""
    listed: tuple[str, ...]
    """Versions in versions.json (empty when unreadable: then ``partial`` says why)."""
    partial: tuple[str, ...]
    """Why the site is partial: a version folder that differs from its reference, an unknown folder,
    a listed version with no folder, an unreadable index."""
    mixed: str | None
    """How index.html and versions.json disagree, when they do."""
    staging: tuple[str, ...]
    """Staging entries left behind (``.benchsite-tmp-*``, beside the site): the next build removes them."""

    @property
    def problems(self) -> tuple[str, ...]:
        return (*self.partial, *([self.mixed] if self.mixed else []))

    def describe(self, before: set[str]) -> str:
        """A short name for the state, for counting where kills landed."""
        new = [f"{v}{'' if v in self.listed else ' (unlisted)'}" for v in self.present if v not in before]
        text = "published " + ", ".join(new) if new else "nothing published"
        return text + (" · staging left" if self.staging else "") + (" · MIXED" if self.mixed else "")


def _index_ahead(listed: tuple[str, ...], indexed: tuple[str, ...], partial: list[str]) -> bool:
    """The one documented window: the site-level files are switched by three back-to-back renames,
    index.html before versions.json, so a kill between them leaves index.html listing the versions
    just published (complete) and versions.json not yet; the next build reconciles them."""
    return not partial and len(indexed) > len(listed) and indexed[: len(listed)] == listed


def _version_folders(out: Path) -> list[Path]:
    """The folders of a site that hold versions: not hidden ones, not the site-level badges."""
    return [
        p for p in sorted(out.iterdir()) if p.is_dir() and not p.name.startswith(".") and p.name != BADGES
    ]


def inspect_site(out: Path, refs: dict[str, list[dict[str, bytes]]]) -> SiteState:
    present = tuple(p.name for p in _version_folders(out))
    staging = tuple(leftovers(out))
    partial = [f"{v}/: not a version of any reference build" for v in present if v not in refs]
    for version in (v for v in present if v in refs):
        files = snapshot(out / version)
        if files not in refs[version]:
            ref = refs[version][0]
            wrong = sorted(k for k in files.keys() | ref.keys() if files.get(k) != ref.get(k))
            partial.append(f"{version}/: {len(wrong)} file(s) differ from its reference build: {wrong[:3]}")
    listed, indexed = _listed(out), _indexed(out)
    partial += [problem for problem in (listed, indexed) if isinstance(problem, str)]
    listed = listed if isinstance(listed, tuple) else ()
    partial += [f"versions.json lists {v}, which has no folder" for v in listed if v not in present]
    mixed = None
    if isinstance(indexed, tuple) and listed != indexed and not _index_ahead(listed, indexed, partial):
        mixed = f"versions.json lists {list(listed)}, index.html {list(indexed)}"
    return SiteState(present, listed, tuple(partial), mixed, staging)


def recover(lab: Lab, out: Path) -> str | None:
    """A following normal build: it must succeed and leave exactly what an uninterrupted build leaves."""
    result = cli(*lab.build_args(out))
    if result.exit_code != 0:
        return f"the following build failed: exit {result.exit_code}: {result.output.strip()[:300]}"
    files = site_files(out)
    wrong = sorted(k for k in files.keys() | lab.complete.keys() if files.get(k) != lab.complete.get(k))
    stale = leftovers(out)
    if wrong or stale:
        return f"the following build left a different site: {(wrong + stale)[:5]}"
    return None


@dataclass
class KillTally:
    """Kills of one kind and what they left."""

    kills: int = 0
    """SIGKILLs delivered to a running build."""
    finished_first: int = 0
    """Builds that ended before their kill was due (not counted as kills)."""
    partial: int = 0
    leaked: int = 0
    """Run-details spools (``$TMPDIR/benchsite-details-*``) left behind by a killed build."""
    mixed: int = 0
    recovered: int = 0
    """Following builds that left exactly the uninterrupted site."""
    states: Counter[str] = field(default_factory=Counter)

    def line(self, name: str) -> str:
        return (
            f"{name}: kills injected {self.kills} (finished before the kill {self.finished_first}) · "
            f"partial sites {self.partial} · mixed sites {self.mixed} · "
            f"recovered by the next build {self.recovered}/{self.kills + self.finished_first} · "
            f"run-details spools left after the next build {self.leaked}"
        )


@dataclass
class FaultReport:
    random: KillTally = field(default_factory=KillTally)
    steps: KillTally = field(default_factory=KillTally)
    pairs: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    interleavings: int = 0
    """Pairs whose two builds held the site's writer at the same time (must be 0)."""
    pair_failures: int = 0
    """Pairs with an exit other than 0 or 2-with-the-lock-message, or an incomplete final site."""
    disk: Counter[str] = field(default_factory=Counter)
    """Output fault cases (disk full, read-only, immutable) by outcome."""
    notes: list[str] = field(default_factory=list)
    examples: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def fail(self, message: str) -> None:
        if len(self.examples) < EXAMPLES:
            self.examples.append(message)

    @property
    def ok(self) -> bool:
        tallies = (self.random, self.steps)
        clean = all(t.partial == t.mixed == 0 and t.recovered == t.kills + t.finished_first for t in tallies)
        disk = all(outcome in (REFUSED, FITTED) for outcome in self.disk)
        return clean and self.interleavings == self.pair_failures == 0 and disk and not self.examples


def _judge_kill(lab: Lab, out: Path, tally: KillTally, report: FaultReport, label: str) -> None:
    """Inspect what a killed build left, then recover with a normal build and inspect that."""
    tmp = out.with_name(out.name + "-tmp")
    state = inspect_site(out, lab.refs)
    tally.partial += bool(state.partial)
    tally.mixed += state.mixed is not None
    tally.states[state.describe({PREVIOUS})] += 1
    for problem in state.problems:
        report.fail(f"{label}: {problem}")
    # The following build runs with the killed build's TMPDIR: it must sweep the dead build's spool.
    saved, tempfile.tempdir = tempfile.tempdir, str(tmp)
    try:
        recovery = recover(lab, out)
    finally:
        tempfile.tempdir = saved
    tally.leaked += sum(1 for p in tmp.iterdir() if p.name.startswith("benchsite-details-"))
    shutil.rmtree(tmp)
    tally.recovered += recovery is None
    if recovery:
        report.fail(f"{label}: {recovery}")
    shutil.rmtree(out)


def random_kills(lab: Lab, kills: int, rng: random.Random, report: FaultReport) -> None:
    """``kills`` builds, each SIGKILLed after a seeded delay in [0, one full build's wall time]."""
    for i in range(kills):
        out, delay = lab.fresh_site(f"kill-{i}"), rng.uniform(0.0, lab.full_seconds)
        command = [*benchsite_command(), *lab.build_args(out)]
        process = subprocess.Popen(
            command, env=private_tmp(out), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )
        try:
            _, errors = process.communicate(timeout=delay)
            report.random.finished_first += 1
            if process.returncode != 0:
                report.fail(f"kill {i}: the build ended by itself with exit {process.returncode}: {errors}")
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            report.random.kills += 1
        _judge_kill(lab, out, report.random, report, f"kill {i} after {delay:.2f} s")


def step_kill(lab: Lab, step: int, report: FaultReport) -> None:
    """One build that kills itself right after its ``step``-th rename inside the output."""
    out = lab.fresh_site(f"step-{step}")
    process = hooked(lab, out, NEXT, lab.root / f"step-{step}.log", kill_after=step)
    _, errors = process.communicate()
    if process.returncode == -9:
        report.steps.kills += 1
    else:
        report.steps.finished_first += 1
        report.fail(f"step kill {step}: the build was not killed: exit {process.returncode}: {errors}")
    label = f"kill after step {step} (renamed {lab.steps[step - 1]})"
    _judge_kill(lab, out, report.steps, report, label)


def _holding(log: Path) -> dict[str, tuple[int, int]]:
    """Process id → (took, released) the site's writer, from the probes' log."""
    events: dict[str, dict[str, int]] = {}
    for line in log.read_text().splitlines() if log.exists() else []:
        pid, ns, event = line.split()[:3]
        events.setdefault(pid, {})[event] = int(ns)
    return {pid: (e["holds"], e.get("releases", 2**63)) for pid, e in events.items() if "holds" in e}


def concurrent_pair(lab: Lab, i: int, offset: float, report: FaultReport) -> None:
    """Builds of ``a`` and ``b`` into one site, the second ``offset`` seconds after the first."""
    out, log = lab.fresh_site(f"pair-{i}"), lab.root / f"pair-{i}.log"
    processes: list[tuple[str, subprocess.Popen[str]]] = []
    for version in PAIR:
        if processes:
            time.sleep(offset)
        processes.append((version, hooked(lab, out, version, log)))
    published, outcome = [], []
    for version, process in processes:
        _, errors = process.communicate()
        if process.returncode == 0:
            published.append(version)
            outcome.append(f"{version} published")
        elif process.returncode == EXIT_USAGE and LOCK_MESSAGE in errors:
            outcome.append(f"{version} locked out (exit 2)")
        else:
            outcome.append(f"{version} exit {process.returncode}")
            report.fail(f"pair {i}: {version}: exit {process.returncode}: {errors.strip()[:300]}")
    report.pairs += 1
    report.outcomes[", ".join(outcome)] += 1
    held = sorted(_holding(log).values())
    report.interleavings += any(b[0] < a[1] for a, b in itertools.pairwise(held))
    state = inspect_site(out, lab.refs)
    expected = {PREVIOUS, *(v for v in lab.refs if v not in (NEXT, *PAIR)), *published}
    problems = [*state.problems, *state.staging]
    if set(state.listed) != expected or set(state.present) != expected or len(held) != len(published):
        problems.append(
            f"site lists {list(state.listed)}, holds {list(state.present)}; published {published}"
        )
    report.pair_failures += bool(problems) or not published
    for problem in problems if published else ["neither build published"]:
        report.fail(f"pair {i}: {problem}")
    shutil.rmtree(out)


@contextlib.contextmanager
def tmpfs(target: Path, size_pages: int) -> Iterator[str | None]:
    """Mount a tmpfs of ``size_pages`` pages at ``target``; yields None, or why it could not mount."""
    target.mkdir()
    command = ["mount", "-t", "tmpfs", "-o", f"size={size_pages * PAGE // 1024}k", "tmpfs", str(target)]
    try:
        result = subprocess.run(command, capture_output=True, text=True, check=False)
        reason = None if result.returncode == 0 else (result.stderr.strip() or f"exit {result.returncode}")
    except OSError as exc:
        reason = f"cannot run mount: {exc}"
    try:
        yield reason
    finally:
        if reason is None and subprocess.run(["umount", str(target)], capture_output=True).returncode:
            subprocess.run(["umount", "--lazy", str(target)], check=False, capture_output=True)


def _output_fault(lab: Lab, site: Path, expect: str, label: str, report: FaultReport) -> str:
    """Build into a site on a faulty output: refused naming the path with it byte-identical, or fitted."""
    before = snapshot(site)
    result = cli(*lab.build_args(site))
    stale = leftovers(site)
    if result.exit_code == 0 and site_files(site) == lab.complete:
        outcome = FITTED
    elif result.exit_code != EXIT_USAGE:
        outcome = f"exit {result.exit_code}"
    elif snapshot(site) != before or stale:
        outcome = "exit 2 but the site CHANGED"
    elif expect in result.output and str(site) in result.output:
        outcome = REFUSED
    else:
        outcome = "exit 2 without the path or the reason"
    report.disk[outcome] += 1
    if outcome not in (REFUSED, FITTED):
        state = inspect_site(site, lab.refs)
        found = state.describe({PREVIOUS}) + (f"; {state.mixed}" if state.mixed else "")
        report.fail(f"{label}: {outcome}: {found}: {result.output.strip()[:200]}")
    return outcome


def _fill(mount: Path, free_pages: int) -> None:
    """Leave exactly ``free_pages`` pages free on the tmpfs, with one filler file."""
    filler = mount / "filler"
    filler.unlink(missing_ok=True)
    info = os.statvfs(mount)
    size = info.f_bavail * info.f_frsize - free_pages * PAGE
    if size > 0:
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
        try:
            os.posix_fallocate(fd, 0, size)
        finally:
            os.close(fd)


def _reset(lab: Lab, site: Path) -> None:
    shutil.rmtree(site, ignore_errors=True)
    shutil.copytree(lab.template, site)


def disk_full(lab: Lab, report: FaultReport, *, sweep: bool) -> None:
    """A tmpfs the build cannot fit in; with ``sweep``, free space just below what it needs."""
    added = pages(lab.complete) - pages(site_files(lab.template))
    size = pages(snapshot(lab.template)) + added // 2
    with tmpfs(lab.root / "small-tmpfs", size) as reason:
        if reason:
            report.notes.append(f"disk full: not tested, cannot mount a tmpfs: {reason}")
            return
        site = lab.root / "small-tmpfs" / "site"
        _reset(lab, site)
        _output_fault(lab, site, "No space left on device", f"tmpfs of {size * PAGE // 1024} KiB", report)
    if sweep:
        threshold_sweep(lab, added, report)


def threshold_sweep(lab: Lab, added: int, report: FaultReport, edge: int = 8) -> None:
    """Find the least free space the build fits in, then try each page less, down to ``edge`` below."""
    mount = lab.root / "sweep-tmpfs"
    with tmpfs(mount, pages(snapshot(lab.template)) + 2 * added + 64) as reason:
        if reason:
            report.notes.append(f"disk-full sweep: not tested, cannot mount a tmpfs: {reason}")
            return
        site, tried = mount / "site", dict[int, str]()

        def attempt(free: int) -> str:
            if free not in tried:
                (mount / "filler").unlink(missing_ok=True)
                _reset(lab, site)
                _fill(mount, free)
                label = f"{free} pages free"
                tried[free] = _output_fault(lab, site, "No space left on device", label, report)
            return tried[free]

        low, high = 0, added + 32  # the build fails with `low` pages free and fits with `high`
        if attempt(high) != FITTED:
            report.notes.append(f"disk-full sweep: not run, the build does not fit in {high} free pages")
            return
        while high - low > 1:
            middle = (low + high) // 2
            low, high = (low, middle) if attempt(middle) == FITTED else (middle, high)
        for free in range(high - 1, max(high - 1 - edge, 0), -1):
            attempt(free)
        report.notes.append(f"disk-full sweep: the build needs {high} free pages beyond the site it adds to")


def read_only_tmpfs(lab: Lab, report: FaultReport) -> None:
    """The output on a tmpfs remounted read-only after the site was published there."""
    mount = lab.root / "ro-tmpfs"
    with tmpfs(mount, pages(snapshot(lab.template)) + 64) as reason:
        if reason:
            report.notes.append(f"read-only tmpfs: not tested, cannot mount a tmpfs: {reason}")
            return
        _reset(lab, mount / "site")
        remount = subprocess.run(["mount", "-o", "remount,ro", str(mount)], capture_output=True, text=True)
        if remount.returncode != 0:
            report.notes.append(f"read-only tmpfs: not tested, cannot remount: {remount.stderr.strip()}")
            return
        _output_fault(lab, mount / "site", "Read-only file system", "read-only tmpfs", report)


def immutable_site(lab: Lab, report: FaultReport) -> None:
    """The site folder made immutable (``chattr +i``: root cannot add to it either)."""
    site, chattr = lab.fresh_site("immutable"), shutil.which("chattr")
    frozen = subprocess.run([chattr, "+i", str(site)], capture_output=True, text=True) if chattr else None
    if chattr is None or frozen is None or frozen.returncode != 0:
        why = frozen.stderr.strip() if frozen else "no chattr command"
        report.notes.append(f"immutable site folder: not tested: {why}")
        return
    try:
        _output_fault(lab, site, "Operation not permitted", "chattr +i site folder", report)
    finally:
        subprocess.run([chattr, "-i", str(site)], check=False)


def run(
    kills: int,
    seed: int,
    *,
    corpus: Path = CORPUS,
    pairs: int = 6,
    steps: bool = True,
    sweep: bool = True,
    echo: Callable[[str], object] = lambda _: None,
) -> FaultReport:
    """Every fault of the module docstring; ``seed`` fixes every delay and offset."""
    started, rng, report = time.monotonic(), random.Random(seed), FaultReport()
    with tempfile.TemporaryDirectory(prefix="benchsite-faults-") as scratch:
        lab = prepare(Path(scratch), corpus)
        echo(f"one full build: {lab.full_seconds:.2f} s, renames in the output: {', '.join(lab.steps)}")
        random_kills(lab, kills, rng, report)
        echo(report.random.line("random kills"))
        for step in range(1, len(lab.steps) + 1) if steps else ():
            step_kill(lab, step, report)
        for i in range(pairs):
            concurrent_pair(lab, i, 0.0 if i % 2 == 0 else rng.uniform(0.0, lab.full_seconds), report)
        echo(f"concurrent pairs: {report.pairs}")
        disk_full(lab, report, sweep=sweep)
        read_only_tmpfs(lab, report)
        immutable_site(lab, report)
    report.seconds = time.monotonic() - started
    return report


def summary(report: FaultReport) -> str:
    lines = [report.random.line("kill -9 at random points")]
    lines += [f"  {n} × {state}" for state, n in sorted(report.random.states.items())]
    if report.steps.kills or report.steps.finished_first:
        lines.append(report.steps.line("kill -9 after each rename in the output"))
        lines += [f"  {n} × {state}" for state, n in sorted(report.steps.states.items())]
    lines.append(
        f"concurrent pairs {report.pairs} · interleavings {report.interleavings} · "
        f"failed pairs {report.pair_failures}"
    )
    lines += [f"  {n} × {outcome}" for outcome, n in sorted(report.outcomes.items())]
    lines.append(f"output faults (disk full, read-only, immutable): {sum(report.disk.values())} case(s)")
    lines += [f"  {n} × {outcome}" for outcome, n in sorted(report.disk.items())]
    lines += [f"note: {note}" for note in report.notes]
    lines += [f"FAILED: {example}" for example in report.examples]
    lines.append(f"time {report.seconds:.1f} s · {'all faults contained' if report.ok else 'FAILED'}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--kills", type=int, default=30, help="random SIGKILLs")
    parser.add_argument("--pairs", type=int, default=6, help="concurrent pairs of builds")
    parser.add_argument("--seed", type=int, default=0, help="fixes every delay and offset")
    parser.add_argument("--no-steps", action="store_true", help="skip the kill after each rename")
    parser.add_argument("--no-sweep", action="store_true", help="skip the disk-full threshold sweep")
    args = parser.parse_args(argv)
    print(f"faults: corpus {CORPUS}, seed {args.seed}, kills {args.kills}, pairs {args.pairs}")
    report = run(
        args.kills, args.seed, pairs=args.pairs, steps=not args.no_steps, sweep=not args.no_sweep, echo=print
    )
    print(summary(report))
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
