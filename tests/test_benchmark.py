"""The performance benchmark and the corpus generator, at the small size: a smoke test, not a timing.

Figures come from ``scripts/benchmark.py`` run by hand (README); here it must run end to end and
print every measure, and the generated corpus must be deterministic, sealed and valid.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from scripts import benchmark, make_corpus
from tests.conftest import run_cli, snapshot

pytestmark = pytest.mark.slow  # runs the benchmark script and its corpus builds end to end


def test_the_corpus_generator_is_deterministic_and_its_corpus_builds(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    counts = make_corpus.make(first, 10, 20, seed=3)
    make_corpus.make(second, 10, 20, seed=3)
    assert snapshot(first) == snapshot(second)
    assert counts["points"] == 8 * 20 and counts["components"] > 0
    assert {p.name for p in first.iterdir()} == {
        "agent-dx",
        "je-validation",
        "vibe-delivery",
        "recsys-grounding",
    }
    result = run_cli("build", "--quiet", "--runs", first, "--out", tmp_path / "site")
    assert result.exit_code == 0, result.output


def test_the_benchmark_runs_every_measure(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """On a corpus smaller than ``--size small`` (4 runs of 10 rows, and no reveal, which would rebuild
    a blind version in every measure): what is checked is that each measure runs, not its figure."""
    corpus = tmp_path / "corpus"
    make_corpus.make(corpus, 4, 10, seed=3)
    shutil.rmtree(corpus / "vibe-delivery")
    assert benchmark.main(["--corpus", str(corpus), "--repeat", "1", "--peers"]) == 0
    printed = capsys.readouterr().out
    for measure in (
        "floor: sha256 of every input byte",
        "floor: sha256 + json.loads of every file and line",
        "benchsite build, cold (empty run cache)",
        "benchsite verify --no-cache (parses every run)",
        "benchsite verify, warm run cache",
        "benchsite build, no-op rebuild",
        "benchsite build, one run changed (warm cache)",
        "HTML pages in all versions; largest",
        "benchsite --version",
        "no-op rebuild of the example corpus",
        "peer: mkdocs build, the same report as",
        "peer: allure generate",
    ):
        assert measure in printed, printed


def test_allure_results_are_one_file_per_points_attempt(tmp_path: Path) -> None:
    make_corpus.make(tmp_path / "runs", 10, 20, seed=3)
    count = benchmark.allure_results(tmp_path / "runs", tmp_path / "allure")
    files = sorted((tmp_path / "allure").glob("*-result.json"))
    assert count == len(files) == 8 * 20
    first = json.loads(files[0].read_text(encoding="utf-8"))
    assert first["status"] in ("passed", "failed") and first["labels"][0]["name"] == "suite"
