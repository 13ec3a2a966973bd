"""``benchsite import lm-eval`` on output lm-eval really wrote, committed in public repositories
(tests/data/lm-eval/real, provenance in its README): each imports and publishes, labelled by the
model's own name, with a success count equal to one made here from the samples file's values."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_cli

REAL = ROOT / "tests" / "data" / "lm-eval" / "real"
KOBEST = REAL / "2024-11-kobest_copa-gpt-4o"
WINOGRANDE = REAL / "2024-12-winogrande-exaone"
RESULTS_ONLY = (REAL / "2025-01-results-only", REAL / "0.4.9.2-results-only")


def _one(folder: Path, pattern: str) -> Path:
    (path,) = folder.glob(pattern)
    return path


def _counted(folder: Path) -> tuple[int, int]:
    """(samples whose exact_match is 1, planned docs): read from the producer's own files."""
    rows = [json.loads(line) for line in _one(folder, "samples_*.jsonl").read_text().splitlines() if line]
    results = json.loads(_one(folder, "results_*.json").read_text())
    (counts,) = results["n-samples"].values()
    return sum(1 for row in rows if row["exact_match"] == 1), counts["effective"]


def _built(tmp_path: Path, *args: str | Path) -> tuple[str, dict[str, object]]:
    """The import's output and the built site's report of the benchmark ``b``."""
    runs = tmp_path / "runs"
    made = run_cli("import", "lm-eval", *args, "--into", runs / "b")
    assert made.exit_code == 0, made.output
    built = run_cli("build", "--runs", runs, "--out", tmp_path / "site", "--site-version", "v1", "--quiet")
    assert built.exit_code == 0, built.output
    site = json.loads((tmp_path / "site" / "v1" / "data" / "site.json").read_text())
    (report,) = site["benchmarks"]
    return made.output, report


@pytest.mark.parametrize(
    ("folder", "model", "label"),
    [
        (KOBEST, "gpt-4o", "gpt-4o"),
        (WINOGRANDE, "LGAI-EXAONE/EXAONE-3.0-7.8B-Instruct", "LGAI-EXAONE-EXAONE-3.0-7.8B-Instruct"),
    ],
    ids=["2024-no-version-no-filter", "2024-get-answer-filter"],
)
def test_a_real_2024_folder_publishes_its_count_under_the_models_name(
    tmp_path: Path, folder: Path, model: str, label: str
) -> None:
    results = json.loads(_one(folder, "results_*.json").read_text())
    assert "lm_eval_version" not in results  # what this case is about
    _, report = _built(tmp_path, folder)
    (row,) = report["section"]["scores"]["leaderboard"]  # type: ignore[index]
    assert row["provider"] == label
    passes, planned = _counted(folder)
    assert (row["metrics"]["success"]["numerator"], row["metrics"]["success"]["denominator"]) == (
        passes,
        planned,
    )
    (meta_path,) = (tmp_path / "runs" / "b").glob("run-*/run.json")
    meta = json.loads(meta_path.read_text())
    assert meta["subject"] == model
    assert meta["producer"] == "lm-eval 0.4 (no lm_eval_version: before 0.4.8)"
    assert any("records no lm_eval_version" in note for note in meta["notes"])
    assert any(results["config"]["model_args"].partition(",")[0] in note for note in meta["notes"])


@pytest.mark.parametrize("folder", RESULTS_ONLY, ids=lambda f: f.name)
def test_a_real_results_file_without_samples_is_refused_once_per_task(tmp_path: Path, folder: Path) -> None:
    results = _one(folder, "results_*.json")
    tasks = json.loads(results.read_text())["configs"]
    made = run_cli("import", "lm-eval", folder, "--into", tmp_path / "b")
    assert made.exit_code == 4, made.output
    for task in tasks:
        assert made.output.count(f"{results}: $.configs.{task}: no samples_{task}_") == 1
    assert "run lm_eval with --log_samples" in made.output
    assert "not one this reader knows" not in made.output  # 0.4.9.2 and no version are both read
    assert "Traceback" not in made.output
    assert not (tmp_path / "b").exists()


def test_a_real_task_without_samples_is_left_out_and_the_other_published(tmp_path: Path) -> None:
    """The kobest folder and January 2025's results-only folder in one --output_path."""
    output = tmp_path / "output"
    for folder in (KOBEST, RESULTS_ONLY[0]):
        shutil.copytree(folder, output / folder.name)
    left = _one(RESULTS_ONLY[0], "results_*.json").name
    said, report = _built(tmp_path, output)
    assert f"left out: mmlu_abstract_algebra of {left}: not derivable: no per-sample file" in said
    (row,) = report["section"]["scores"]["leaderboard"]  # type: ignore[index]
    assert (row["metrics"]["success"]["numerator"], row["metrics"]["success"]["denominator"]) == _counted(
        KOBEST
    )
    limitations = json.dumps(report["disclosures"])
    assert f"task mmlu_abstract_algebra of {left}: not derivable: no per-sample file" in limitations
