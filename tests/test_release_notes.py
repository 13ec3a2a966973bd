"""release-notes.md: a summary of headlines, what changed since the previous version, then the
detail; clean under markdownlint-cli2's default rules (installed by scripts/peer-deps)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ROOT

MARKDOWNLINT = ROOT / ".cache" / "peers" / "node_modules" / ".bin" / "markdownlint-cli2"


@pytest.fixture
def site(example_site: Path) -> Path:
    """The example corpus: its blind version is published first, then v1 reveals the providers
    (shared, read only)."""
    return example_site


def _sections(text: str) -> list[str]:
    """Each section heading, Markdown escapes undone (a title's ``_`` is written ``\\_``)."""
    return [line.replace("\\", "") for line in text.splitlines() if line.startswith("## ")]


def test_notes_open_with_the_summary_then_what_changed_then_each_benchmark(site: Path) -> None:
    notes = (site / "v1" / "release-notes.md").read_text(encoding="utf-8")
    report = json.loads((site / "v1" / "data" / "site.json").read_text(encoding="utf-8"))
    titles = [f"## {b['title']}" for b in report["benchmarks"]]
    assert _sections(notes) == ["## Summary", "## What changed since 2026.11-blind", *titles]
    summary = " ".join(notes.split("## What changed")[0].split())
    for bench in report["benchmarks"]:
        assert bench["headline"]["sentence"] in summary
    assert "P-A (Northwind Builder) leads on autonomous success with 73% (8 of 11)" in summary


def test_what_changed_names_the_reveal_and_the_first_version_says_it_is_first(site: Path) -> None:
    notes = " ".join((site / "v1" / "release-notes.md").read_text(encoding="utf-8").split())
    assert "**vibe-delivery** (changed):" in notes
    assert "the scores were frozen in version 2026.11-blind and are unchanged" in notes
    first = " ".join((site / "2026.11-blind" / "release-notes.md").read_text(encoding="utf-8").split())
    assert "## What changed The first version published in this site" in first


def test_interpretations_are_linked_not_repeated(site: Path) -> None:
    notes = (site / "v1" / "release-notes.md").read_text(encoding="utf-8")
    report = json.loads((site / "v1" / "data" / "site.json").read_text(encoding="utf-8"))
    assert "(b/agent-dx/disclosures.html#interpretations)" in notes
    for bench in report["benchmarks"]:
        for i in bench["disclosures"]["interpretations"]:
            assert " ".join(i["reading"].split()) not in " ".join(notes.split())


def test_notes_are_clean_under_markdownlint_default_rules(site: Path, tmp_path: Path) -> None:
    """Fails (never skips) without the linter: scripts/peer-deps installs it."""
    found = os.environ.get("BENCHSITE_MARKDOWNLINT") or (str(MARKDOWNLINT) if MARKDOWNLINT.exists() else None)
    assert found, f"markdownlint-cli2 is missing: run scripts/peer-deps (expected at {MARKDOWNLINT})"
    for version in ("v1", "2026.11-blind"):
        folder = tmp_path / version  # a folder of its own: no config file of any parent applies
        folder.mkdir()
        shutil.copy(site / version / "release-notes.md", folder / "release-notes.md")
        done = subprocess.run(
            [found, "release-notes.md"], cwd=folder, capture_output=True, text=True, timeout=120, check=False
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert "Summary: 0 error(s)" in done.stdout + done.stderr


def test_wrapping_keeps_lines_short_and_never_opens_a_block() -> None:
    from generator.render.pages import LINE, md_wrap

    text = " ".join(["word"] * 15 + ["-", "x", "1.", "y", "#", "z", ">", "q"] * 6)
    wrapped = md_wrap(text, "  ", 2)
    lines = wrapped.split("\n")
    assert len(lines) > 2
    assert " ".join(wrapped.split()) == text
    for line in lines[1:]:
        assert line.startswith("  ") and not line[2:].startswith(("-", "1.", "#", ">"))
    assert all(len(line) <= LINE for line in lines)
    assert md_wrap("a" * 100) == "a" * 100  # a word longer than a line stays whole
