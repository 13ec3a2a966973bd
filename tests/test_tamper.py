"""Tampered sealed inputs are refused: every single-byte change, and every structural change.

A small sample of ``scripts/reliability/tamper.py``; the full run covers every sealed file of
``runs/``: ``.venv/bin/python -m scripts.reliability.tamper``.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from generator.errors import Result
from scripts.reliability import tamper
from tests.conftest import CORPUS

SMALL_FILES = (
    "agent-dx/run-subject-a3f1-2/run.json",  # listed by a run's seal
    "agent-dx/SHA256SUMS",  # a benchmark's seal itself
    "vibe-delivery/reveal/reveal.json",  # listed by the reveal folder's seal
)
CLI_CHANGES = 3


@pytest.fixture(scope="module")
def report() -> tamper.TamperReport:
    return tamper.run(sample=8, seed=20261129, only=SMALL_FILES, cli_changes=CLI_CHANGES)


@pytest.mark.slow  # they share the tamper harness run: every byte of every small sealed file
def test_every_single_byte_change_to_small_sealed_files_is_refused(report: tamper.TamperReport) -> None:
    size = sum((CORPUS / rel).stat().st_size for rel in SMALL_FILES)
    assert report.files == report.exhaustive_files == len(SMALL_FILES)
    assert report.byte_changes == size * len(tamper.VALUES)
    assert report.undetected == 0, report.examples
    assert report.refused == report.byte_changes


@pytest.mark.slow  # they share the tamper harness run: every byte of every small sealed file
def test_byte_changes_built_with_the_cli_exit_3_and_leave_the_site_intact(
    report: tamper.TamperReport,
) -> None:
    assert report.cli_changes == CLI_CHANGES
    assert report.cli_refused == CLI_CHANGES, report.examples


@pytest.mark.slow  # they share the tamper harness run: every byte of every small sealed file
@pytest.mark.parametrize(
    "kind",
    [
        "file renamed",
        "file added",
        "file removed",
        "file replaced by a symlink to an identical copy",
        "seal: one hash edited",
        "seal removed",
    ],
)
def test_structural_tampering_of_each_sealed_folder_exits_3(report: tamper.TamperReport, kind: str) -> None:
    folders = len({(CORPUS / rel).parent for rel in SMALL_FILES})
    assert report.structural[kind] == [folders, folders], report.examples


def test_the_harness_reports_a_change_its_seal_did_not_refuse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A verification that accepted everything is counted as undetected, and the file is restored."""
    folder = tmp_path / "run"
    shutil.copytree(CORPUS / "agent-dx" / "run-subject-a3f1-2", folder)
    original = (folder / "run.json").read_bytes()
    monkeypatch.setattr(tamper, "read_verified", lambda seal, rel: Result(b"accepted"))
    report = tamper.TamperReport()
    tamper.tamper_bytes(
        tamper.SealedFile(folder, "run.json", len(original)), [0, 7], random.Random(0), report
    )
    assert report.byte_changes == report.undetected == 2 * len(tamper.VALUES)
    assert report.refused == 0 and not report.ok
    assert "byte 7 b+1: not refused" in " ".join(report.examples)
    assert (folder / "run.json").read_bytes() == original


def test_each_file_is_tampered_with_under_the_seal_that_lists_it() -> None:
    files = {f.path.relative_to(CORPUS).as_posix(): f for f in tamper.sealed_files(CORPUS)}
    assert len(files) == sum(1 for p in CORPUS.rglob("*") if p.is_file())
    assert files["agent-dx/benchmark.json"].folder == CORPUS / "agent-dx"
    assert files["agent-dx/run-subject-a3f1-2/run.json"].folder == CORPUS / "agent-dx" / "run-subject-a3f1-2"
    assert files["vibe-delivery/reveal/SHA256SUMS"].is_seal
    store = [f for rel, f in files.items() if "/.agenteval/" in rel and rel.endswith("/manifest.json")]
    assert store and all(f.rel == "manifest.json" and (f.folder / "SHA256SUMS").is_file() for f in store)
    scenario = next(f for rel, f in files.items() if "/scenarios/" in rel)
    assert scenario.rel.startswith("scenarios/")  # listed by the store run's seal, not the benchmark's


def test_small_files_are_changed_everywhere_and_large_ones_at_a_seeded_sample() -> None:
    assert tamper.positions(tamper.SMALL, 5, random.Random(1)) == list(range(tamper.SMALL))
    sampled = tamper.positions(tamper.SMALL + 1, 5, random.Random(1))
    assert len(set(sampled)) == 5 and sampled == tamper.positions(tamper.SMALL + 1, 5, random.Random(1))
