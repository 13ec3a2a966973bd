"""Tamper with every sealed file of the example corpus, one byte or one file at a time: all refused.

Run: ``.venv/bin/python -m scripts.reliability.tamper [--sample 64] [--seed 0] [--cli-changes 40]``

Three layers, fastest first, all on a private copy of ``runs/`` (the corpus itself is never touched):

1. **Every single-byte change** to every sealed file — each file under the seal that lists it (the
   run's, the benchmark's, an AgentEval store run's), every seal itself under its own folder. Files
   up to 4 KiB are changed at every position, larger ones at ``sample`` seeded positions, each
   position to each of :data:`VALUES`. Each change is checked with the verification the build runs:
   the file's bytes against its seal (:func:`generator.inputs.seal.read_verified`) for every change, and
   the whole folder (:func:`generator.inputs.discover.verify_folder`: seal format, coverage, every file) for
   a few changes per file and for every change to a seal.
2. **A seeded sample of those changes through the real CLI** (one per sealed folder at least):
   ``benchsite build`` into a site holding a published version must exit 3 and leave that site
   byte-identical.
3. **Structural tampering** of each sealed folder through the CLI: a sealed file renamed, a file
   added, a sealed file removed, a sealed file replaced by a symlink to an identical copy, a hash
   in the seal edited, the seal removed. Each must exit 3 with the site byte-identical.

Prints what was tried and refused; exits 1 when anything was not refused.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from click.testing import CliRunner, Result

from generator.cli import main as benchsite
from generator.errors import EXIT_REFUSED, Problem
from generator.inputs.discover import verify_folder
from generator.inputs.seal import SEAL_NAME, SealedFolder, nested_seals, read_sealed_folder, read_verified

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "runs"
SMALL = 4096
"""Files up to this many bytes are changed at every position; larger ones at a seeded sample."""
VALUES: tuple[tuple[str, Callable[[int], int]], ...] = (
    ("b+1", lambda b: (b + 1) % 256),  # the smallest change: off by one
    ("b^0x20", lambda b: b ^ 0x20),  # letter case: hex case in a seal, 'true' → 'True' in JSON
)
FOLDER_CHECKS = 2
"""Changed positions per file also checked through the whole folder's verification."""
EXAMPLES = 20
"""Failures kept as examples in the report."""


def cli(*args: str | Path) -> Result:
    """``benchsite`` in-process, exactly as the console script parses its arguments."""
    return CliRunner().invoke(benchsite, [str(a) for a in args], catch_exceptions=True)


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file below ``folder`` by relative path, for byte-for-byte comparisons."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


@dataclass(frozen=True)
class SealedFile:
    """One file and the sealed folder whose seal lists it (a seal: its own folder)."""

    folder: Path
    rel: str
    size: int

    @property
    def path(self) -> Path:
        return self.folder / self.rel

    @property
    def is_seal(self) -> bool:
        return self.rel == SEAL_NAME


@dataclass
class TamperReport:
    """What was tried, what was refused. Every ``tried`` must equal its ``refused``."""

    files: int = 0
    """Sealed files tampered with (seals included)."""
    exhaustive_files: int = 0
    """Of those, files changed at every byte position."""
    byte_changes: int = 0
    """Single-byte changes tried at the verification layer."""
    refused: int = 0
    """Of those, refused by the seal that covers the file."""
    undetected: int = 0
    """Byte changes not refused (must be 0)."""
    folder_checks: int = 0
    """Byte changes also checked through the whole folder's verification."""
    cli_changes: int = 0
    """Byte changes also tried through ``benchsite build``."""
    cli_refused: int = 0
    """Of those, exit 3 with the previous site byte-identical."""
    structural: dict[str, list[int]] = field(default_factory=dict)
    """Kind of structural tampering → [tried, refused with exit 3 and the site byte-identical]."""
    examples: list[str] = field(default_factory=list)
    """The first failures of any layer, each with its place."""
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        structural = all(tried == refused for tried, refused in self.structural.values())
        return self.undetected == 0 and self.cli_refused == self.cli_changes and structural

    def fail(self, message: str) -> None:
        if len(self.examples) < EXAMPLES:
            self.examples.append(message)

    def summary(self) -> str:
        lines = [
            f"sealed files {self.files} ({self.exhaustive_files} exhaustive, "
            f"{self.files - self.exhaustive_files} sampled)",
            f"byte changes tried {self.byte_changes} · refused {self.refused} · "
            f"undetected {self.undetected} · whole-folder checks {self.folder_checks}",
            f"through the CLI: byte changes {self.cli_changes} · "
            f"exit 3 with the site intact {self.cli_refused}",
        ]
        lines += [f"  {kind}: tried {t} · refused {r}" for kind, (t, r) in sorted(self.structural.items())]
        lines += [f"NOT REFUSED: {example}" for example in self.examples]
        lines.append(f"time {self.seconds:.1f} s · {'all refused' if self.ok else 'FAILED'}")
        return "\n".join(lines)


def sealed_files(runs: Path) -> list[SealedFile]:
    """Every regular file below ``runs`` with the nearest sealed folder above it, sorted."""
    found = []
    for path in sorted(p for p in runs.rglob("*") if p.is_file() and not p.is_symlink()):
        folder = next((f for f in path.parents if (f / SEAL_NAME).is_file()), None)
        if folder is None or not folder.is_relative_to(runs):
            raise ValueError(f"{path}: no seal covers this file; the corpus itself would be refused")
        found.append(SealedFile(folder, path.relative_to(folder).as_posix(), path.stat().st_size))
    return found


def positions(size: int, sample: int, rng: random.Random) -> list[int]:
    """Every position of a small file; ``sample`` seeded positions of a larger one."""
    if size <= SMALL:
        return list(range(size))
    return sorted(rng.sample(range(size), min(sample, size)))


def _refuses(problems: Iterable[Problem], file: SealedFile) -> bool:
    """A refusal (exit 3) naming the changed file; for a seal, any refusal of its folder."""
    return any(p.refused and (file.is_seal or p.file == str(file.path)) for p in problems)


def _seal_of(folder: Path) -> tuple[SealedFolder, tuple[str, ...]]:
    """The folder's seal and nested sealed folders, after checking the untouched folder verifies."""
    nested = tuple(nested_seals(folder))
    problems = verify_folder(folder, nested).problems
    seal = read_sealed_folder(folder).value
    if problems or seal is None:
        raise ValueError(f"{folder}: does not verify untouched: {[p.render() for p in problems]}")
    return seal, nested


def _byte_refused(file: SealedFile, seal: SealedFolder, nested: tuple[str, ...], whole: bool) -> bool:
    """Is the file, as it now is on disk, refused by the verification the build runs on its folder?"""
    if file.is_seal:
        return _refuses(verify_folder(file.folder, nested).problems, file)
    read = read_verified(seal, file.rel)
    if read.value is not None or not any(problem.refused for problem in read.problems):
        return False
    return not whole or _refuses(verify_folder(file.folder, nested).problems, file)


def tamper_bytes(file: SealedFile, where: list[int], rng: random.Random, report: TamperReport) -> None:
    """Change each position of ``file`` to each value in turn, check, and put the byte back."""
    seal, nested = _seal_of(file.folder)
    original = file.path.read_bytes()
    whole = set(rng.sample(where, min(FOLDER_CHECKS, len(where))))
    fd = os.open(file.path, os.O_RDWR)
    try:
        for pos in where:
            for name, value in VALUES:
                os.pwrite(fd, bytes([value(original[pos])]), pos)
                try:
                    refused = _byte_refused(file, seal, nested, file.is_seal or pos in whole)
                finally:
                    os.pwrite(fd, original[pos : pos + 1], pos)
                report.byte_changes += 1
                report.folder_checks += file.is_seal or pos in whole
                report.refused += refused
                if not refused:
                    report.undetected += 1
                    report.fail(f"{file.path}: byte {pos} {name}: not refused by its seal")
    finally:
        os.close(fd)
    if file.path.read_bytes() != original:
        raise RuntimeError(f"{file.path}: could not restore the original bytes")


class Workbench:
    """A private copy of the corpus and a site built from it, which no refused build may change."""

    def __init__(self, corpus: Path, scratch: Path) -> None:
        self.corpus = corpus
        self.runs = scratch / "runs"
        self.site = scratch / "site"
        self.copies = scratch / "copies"
        shutil.copytree(corpus, self.runs, symlinks=True)
        self.copies.mkdir()
        built = cli("build", "--runs", self.runs, "--out", self.site, "--site-version", "before", "--quiet")
        if built.exit_code != 0:
            raise RuntimeError(f"the untouched corpus does not build: {built.output}")
        self.before = snapshot(self.site)

    def refused(self) -> tuple[bool, str]:
        """Build the (tampered) copy: refused with exit 3, the site byte-identical, no crash?"""
        result = cli(
            "build", "--runs", self.runs, "--out", self.site, "--site-version", "tampered", "--quiet"
        )
        intact = snapshot(self.site) == self.before
        if not intact:
            shutil.rmtree(self.site)
            for rel, data in self.before.items():
                (self.site / rel).parent.mkdir(parents=True, exist_ok=True)
                (self.site / rel).write_bytes(data)
        crashed = result.exception is not None and not isinstance(result.exception, SystemExit)
        ok = result.exit_code == EXIT_REFUSED and intact and not crashed
        crash = f", crashed: {result.exception!r}" if crashed else ""
        detail = f"exit {result.exit_code}, site {'intact' if intact else 'CHANGED'}{crash}"
        return ok, f"{detail}: {result.output.strip()[:300]}"

    def restore(self, folder: Path) -> None:
        """Put a sealed folder (and any folder sealed inside it) back as the corpus has it."""
        rel = folder.relative_to(self.runs)
        shutil.rmtree(folder)
        shutil.copytree(self.corpus / rel, folder, symlinks=True)

    def check_restored(self) -> None:
        if snapshot(self.runs) != snapshot(self.corpus):
            raise RuntimeError(f"{self.runs}: the working copy no longer equals {self.corpus}")


def cli_sample(files: list[SealedFile], count: int, rng: random.Random) -> list[tuple[SealedFile, int]]:
    """A seeded sample of (file, position): one file of each sealed folder first, then any files."""
    folders = sorted({f.folder for f in files})
    firsts = [rng.choice([f for f in files if f.folder == folder]) for folder in folders]
    picked = rng.sample(firsts, min(count, len(firsts)))
    rest = [f for f in files if f not in picked]
    picked += rng.sample(rest, min(count - len(picked), len(rest)))
    return [(f, rng.randrange(f.size)) for f in picked]


def tamper_through_cli(bench: Workbench, file: SealedFile, pos: int, report: TamperReport) -> None:
    """One byte changed (off by one) in the working copy, then the real CLI build."""
    original = file.path.read_bytes()
    file.path.write_bytes(original[:pos] + bytes([(original[pos] + 1) % 256]) + original[pos + 1 :])
    try:
        ok, detail = bench.refused()
        named = file.is_seal or str(file.path) in detail
    finally:
        file.path.write_bytes(original)
    report.cli_changes += 1
    report.cli_refused += ok and named
    if not (ok and named):
        report.fail(f"{file.path}: byte {pos} b+1 through the CLI: {detail}")


def structural_tampers(folder: Path, copies: Path, rng: random.Random) -> dict[str, Callable[[], object]]:
    """Kind → a change to one sealed folder that must be refused (each undone by restoring it)."""
    seal = read_sealed_folder(folder).value
    if seal is None:
        raise ValueError(f"{folder}: unreadable seal")
    victim = folder / rng.choice(sorted(seal.entries))
    line = rng.randrange(len(seal.entries))

    def symlinked() -> None:
        copy = copies / f"{len(list(copies.iterdir()))}-{victim.name}"
        shutil.copyfile(victim, copy)
        victim.unlink()
        victim.symlink_to(copy)

    def hash_edited() -> None:
        lines = (folder / SEAL_NAME).read_bytes().split(b"\n")
        lines[line] = (b"1" if lines[line][:1] == b"0" else b"0") + lines[line][1:]
        (folder / SEAL_NAME).write_bytes(b"\n".join(lines))

    return {
        "file renamed": lambda: victim.rename(victim.with_name("renamed-" + victim.name)),
        "file added": lambda: (folder / "added.txt").write_bytes(b"an unsealed note\n"),
        "file removed": victim.unlink,
        "file replaced by a symlink to an identical copy": symlinked,
        "seal: one hash edited": hash_edited,
        "seal removed": (folder / SEAL_NAME).unlink,
    }


def tamper_structure(bench: Workbench, folder: Path, rng: random.Random, report: TamperReport) -> None:
    for kind, change in structural_tampers(folder, bench.copies, rng).items():
        change()
        try:
            ok, detail = bench.refused()
        finally:
            bench.restore(folder)
        counts = report.structural.setdefault(kind, [0, 0])
        counts[0] += 1
        counts[1] += ok
        if not ok:
            report.fail(f"{folder}: {kind}: {detail}")


def run(
    sample: int,
    seed: int,
    *,
    corpus: Path = CORPUS,
    only: Sequence[str] | None = None,
    cli_changes: int = 40,
    echo: Callable[[str], object] = lambda _: None,
) -> TamperReport:
    """Tamper with every sealed file of ``corpus`` (or only the files ``only`` names, relative to it).

    ``sample`` positions per file larger than :data:`SMALL`; ``cli_changes`` byte changes and every
    structural tampering of each sealed folder (of the chosen files) through the CLI; ``seed`` fixes
    every choice.
    """
    started, rng, report = time.monotonic(), random.Random(seed), TamperReport()
    with tempfile.TemporaryDirectory(prefix="benchsite-tamper-") as scratch:
        bench = Workbench(corpus, Path(scratch))
        files = sealed_files(bench.runs)
        if only is not None:
            files = [f for f in files if f.path.relative_to(bench.runs).as_posix() in only]
            if len(files) != len(set(only)):
                raise ValueError(f"not sealed files of {corpus}: {sorted(only)}")
        for file in files:
            where = positions(file.size, sample, rng)
            report.files += 1
            report.exhaustive_files += len(where) == file.size
            tamper_bytes(file, where, rng, report)
        echo(f"byte changes: {report.byte_changes} tried, {report.undetected} undetected")
        for file, pos in cli_sample(files, cli_changes, rng):
            tamper_through_cli(bench, file, pos, report)
        for folder in sorted({f.folder for f in files}):
            tamper_structure(bench, folder, rng, report)
            echo(f"structural tampering: {folder.relative_to(bench.runs)}")
        bench.check_restored()
    report.seconds = time.monotonic() - started
    return report


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--sample", type=int, default=64, help=f"positions per file over {SMALL} bytes")
    parser.add_argument("--seed", type=int, default=0, help="fixes every sampled position and choice")
    parser.add_argument("--cli-changes", type=int, default=40, help="byte changes also built with the CLI")
    args = parser.parse_args(argv)
    print(f"tamper: corpus {CORPUS}, seed {args.seed}, sample {args.sample}, cli changes {args.cli_changes}")
    report = run(args.sample, args.seed, cli_changes=args.cli_changes, echo=print)
    print(report.summary())
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
