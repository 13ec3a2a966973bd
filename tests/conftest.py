"""Shared fixtures: a private copy of the example corpus and a CLI runner."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from generator.cli import main

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "runs"
SEEDS = ROOT.parent / "shared" / "seeds"


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """A writable copy of ``runs/``."""
    target = tmp_path / "runs"
    shutil.copytree(CORPUS, target)
    return target


def run_cli(*args: str | Path) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=True)


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file below ``folder`` by relative path, for byte-for-byte comparisons."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def corpus_counts(root: Path = CORPUS) -> tuple[int, int]:
    """(sealed folders, benchmarks) of an inputs root, as ``verify`` reports them."""
    return len(list(root.rglob("SHA256SUMS"))), sum(1 for p in root.iterdir() if p.is_dir())
