"""Component weights as people write them: equal thirds as JSON numbers add up to 0.9999999999999999.

The exact-decimal reading once refused them ("component weights must sum to 1"); a sum within 1e-9 of
1 is accepted, scored with the weights as written, and said in the methodology; a sum further off is
refused with the sum found and what to write instead (issue 44, item 7).
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

from tests.conftest import corpus_of, edit_json, reseal, run_cli

THIRD = 0.3333333333333333


def _weighted(tmp_path: Path, weights: dict[str, float]) -> Path:
    runs = corpus_of(tmp_path / "runs", "je-validation")
    bench = runs / "je-validation"

    def every_task(value: Any) -> None:
        for task in value["tasks"]:
            if task.get("weights"):
                task["weights"] = dict(weights)

    edit_json(bench / "benchmark.json", every_task)
    reseal(bench)
    return runs


def test_equal_thirds_publish_scores_weighted_as_written(tmp_path: Path) -> None:
    runs = _weighted(tmp_path, {"outcome": THIRD, "process": THIRD, "rationale": THIRD})
    out = tmp_path / "site"
    result = run_cli("build", "--runs", runs, "--out", out, "--site-version", "v1", "--no-cache")
    assert result.exit_code == 0, result.output
    data = json.loads((out / "v1" / "data" / "benchmarks" / "je-validation.json").read_bytes())
    readings = {i["id"]: i for i in data["disclosures"]["interpretations"]}
    said = readings["components-weights-as-written"]
    assert "0.9999999999999999" in said["text"] and "as written" in said["reading"]
    third = Fraction("0.3333333333333333")
    checked = 0
    for cell in data["section"]["cells"]:
        spreads = cell["spreads"]
        if spreads["score"]["n"] == 0 or len({spreads[c]["n"] for c in spreads}) != 1:
            continue
        parts = sum(Fraction(spreads[c]["mean"]) for c in ("outcome", "process", "rationale"))
        assert abs(Fraction(spreads["score"]["mean"]) - third * parts) < Fraction(1, 10**12), cell
        checked += 1
    assert checked > 0
    assert "weights-as-written" in (out / "v1" / "b" / "je-validation" / "methodology.html").read_text()


def test_weights_further_off_are_refused_with_the_sum_and_a_fix(tmp_path: Path) -> None:
    runs = _weighted(tmp_path, {"outcome": 0.3, "process": 0.3, "rationale": 0.3})
    result = run_cli("build", "--runs", runs, "--out", tmp_path / "site", "--no-cache")
    assert result.exit_code == 4, result.output
    assert (
        "runs/je-validation/benchmark.json: $.tasks[0].weights: component weights add up to 0.9, not 1 "
        "(a sum within 1e-9 of it is accepted): write weights that add up to 1 (for example 0.4 for the "
        "last one)"
    ) in result.output
    assert not (tmp_path / "site").exists()


def test_exact_weights_take_no_extra_reading(tmp_path: Path) -> None:
    runs = _weighted(tmp_path, {"outcome": 0.5, "process": 0.25, "rationale": 0.25})
    out = tmp_path / "site"
    result = run_cli("build", "--runs", runs, "--out", out, "--site-version", "v1", "--no-cache")
    assert result.exit_code == 0, result.output
    data = json.loads((out / "v1" / "data" / "benchmarks" / "je-validation.json").read_bytes())
    assert "components-weights-as-written" not in {i["id"] for i in data["disclosures"]["interpretations"]}
