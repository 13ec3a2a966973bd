"""A version's past on its pages: what changed since the previous version, and each subject's
primary figure across the versions the site published."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.conftest import corpus_of, run_cli


@pytest.fixture(scope="module")
def two_versions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """v1 from the example corpus (after its blind version), then v2 without one agent-dx run."""
    from tests.conftest import CORPUS

    root = tmp_path_factory.mktemp("history")
    runs, out = root / "runs", root / "site"
    shutil.copytree(CORPUS, runs)
    assert run_cli("build", "--runs", runs, "--out", out, "--site-version", "v1", "-q").exit_code == 0
    shutil.rmtree(runs / "agent-dx" / "run-subject-15bb-1")  # run folders are not in the benchmark's seal
    result = run_cli("build", "--runs", runs, "--out", out, "--site-version", "v2", "-q")
    assert result.exit_code == 0, result.output
    return out


def test_release_notes_say_what_changed_since_the_previous_version(two_versions: Path) -> None:
    notes = (two_versions / "v2" / "release-notes.md").read_text(encoding="utf-8")
    assert "## What changed since v1" in notes
    changes = " ".join(notes.split("## What changed since v1")[1].split("\n## ")[0].split())
    assert "**agent-dx** (changed):" in changes
    assert "Removed sealed folder: `agent-dx/run-subject-15bb-1`" in changes
    assert "ready-rate · subject-15bb: 4/11 (36.4%) → gone" in changes
    # the others' figures are the same, but with one subject gone their rank bands narrow
    assert "ready-rate · subject-7c2e: 0/11 (0.0%) → 0/11 (0.0%); rank 2–4 → 2–3" in changes
    assert "vibe-delivery" not in changes  # nothing of it changed


def test_leaderboard_shows_each_subject_across_versions(two_versions: Path) -> None:
    page = (two_versions / "v2" / "b" / "agent-dx" / "index.html").read_text(encoding="utf-8")
    assert '<h2 id="history">Across versions</h2>' in page
    found = re.findall(r'<title id="trend-agent-dx-\d+-t">([^:<]*):', page)
    assert found == ["subject-a3f1", "subject-7c2e", "subject-d940"]  # 15bb is gone from v2
    assert "2026.11-blind: 100%; v1: 100%; v2: 100%." in page


def test_a_site_with_one_version_shows_no_history(tmp_path: Path) -> None:
    corpus = corpus_of(tmp_path / "runs", "agent-dx")  # no reveal, so no blind version before it
    out = tmp_path / "site"
    assert run_cli("build", "--runs", corpus, "--out", out, "--site-version", "only", "-q").exit_code == 0
    page = (out / "only" / "b" / "agent-dx" / "index.html").read_text(encoding="utf-8")
    assert 'id="history"' not in page and "trend-" not in page
    notes = (out / "only" / "release-notes.md").read_text(encoding="utf-8")
    assert "The first version published in this site" in " ".join(notes.split())


def test_badges_sit_at_a_stable_path_and_follow_the_latest_version(two_versions: Path) -> None:
    from xml.etree import ElementTree

    badges = two_versions / "badges"
    names = sorted(p.name for p in (badges / "agent-dx").iterdir())
    assert names == ["subject-7c2e.svg", "subject-a3f1.svg", "subject-d940.svg"]  # 15bb went with its run
    svg = (badges / "agent-dx" / "subject-7c2e.svg").read_bytes()
    root = ElementTree.fromstring(svg)
    title = root.find("{http://www.w3.org/2000/svg}title")
    assert title is not None and title.text == "agent-dx: rank 2–3 · 0% (0/11)"  # v1 said rank 2–4
    lead = (badges / "vibe-delivery" / "P-A.svg").read_text(encoding="utf-8")
    assert "vibe-delivery: rank 1–4 · 73% (8/11)" in lead
    assert not list(two_versions.glob(".benchsite-tmp-*"))  # nothing of the switch left behind


def test_a_version_may_not_be_named_like_the_badges_folder(tmp_path: Path, one_benchmark: Path) -> None:
    result = run_cli("build", "--runs", one_benchmark, "--out", tmp_path / "site", "--site-version", "badges")
    assert result.exit_code != 0 and "reserved for site-level files" in result.output
