"""Unit tests of ``generator.families.rubric`` (``benchsite rubric explain|check``): what a file is read as,
where its rules come from, and the problems a wrong file gets, on tiny temporary files."""

from __future__ import annotations

import copy
import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

from generator.families.points.spec import BUILTIN_FILE as POINTS_SPEC
from generator.families.points.spec import PointsSpec, explain
from generator.families.rubric import read
from tests.conftest import SEEDS

POINTS_SEED = SEEDS / "000_4822e52dd1681ead.txt"


def write(folder: Path, name: str, value: Any) -> Path:
    path = folder / name
    path.write_text(value if isinstance(value, str) else json.dumps(value))
    return path


def test_a_seed_contract_is_explained_by_its_builtin_specification(tmp_path: Path) -> None:
    path = tmp_path / "rubric.json"
    shutil.copyfile(POINTS_SEED, path)
    found = read(path)
    explained = found.value
    assert found.problems == () and explained is not None
    assert explained.family == "points"
    assert explained.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert explained.source == (
        "benchsite's built-in specification of the seed contract (agent-dx-score-contract.scoring.json)"
    )
    assert explained.rules == explain(PointsSpec.model_validate_json(POINTS_SPEC.read_bytes()))


def test_the_seed_adr_text_is_read_by_the_definitions_family() -> None:
    found = read(SEEDS / "004_3e2f1068dfea7cba.txt")
    explained = found.value
    assert found.problems == () and explained is not None and explained.family == "definitions"
    assert "(adr-032.scoring.json)" in explained.source


def test_a_specification_is_explained_as_itself(tmp_path: Path) -> None:
    path = tmp_path / "scoring.json"
    shutil.copyfile(POINTS_SPEC, path)
    explained = read(path).value
    assert explained is not None and explained.source == f"the specification {path}"


def test_a_contract_with_other_rules_and_no_specification_is_refused(tmp_path: Path) -> None:
    raw = json.loads(POINTS_SEED.read_text())
    raw["pointDimensions"][0]["weight"] += 1
    found = read(write(tmp_path, "rubric.json", raw))
    assert found.value is None
    assert [p.where for p in found.problems] == [""]
    assert "no scoring specification" in found.problems[0].message


def test_a_scoring_json_pinned_beside_the_contract_must_match_its_pin(tmp_path: Path) -> None:
    raw = json.loads(POINTS_SEED.read_text())
    raw["pointDimensions"][0]["weight"] += 1  # other rules: only the pinned specification can score it
    contract = write(tmp_path, "rubric.json", raw)
    spec = copy.deepcopy(json.loads(POINTS_SPEC.read_text()))
    spec["dimensions"][0]["weight"] += 1
    spec["deterministic_total"] += 1
    spec_path = write(tmp_path, "scoring.json", spec)
    pin = {"file": "scoring.json", "sha256": hashlib.sha256(spec_path.read_bytes()).hexdigest()}
    write(tmp_path, "benchmark.json", {"rubric": {"file": "rubric.json"}, "scoring": pin})
    found = read(contract)
    explained = found.value
    assert found.problems == () and explained is not None
    assert explained.source == f"the specification {spec_path} pinned in benchmark.json"
    write(
        tmp_path,
        "benchmark.json",
        {"rubric": {"file": "rubric.json"}, "scoring": {**pin, "sha256": "0" * 64}},
    )
    found = read(contract)
    assert found.value is None
    assert [(p.file, p.refused) for p in found.problems] == [(str(spec_path), True)]


def test_files_that_are_neither_a_contract_nor_a_specification(tmp_path: Path) -> None:
    cases = {
        "array.json": ("[1, 2]", "$", "expected a JSON object"),
        "benchmark.json": ({"rubric": {"file": "x"}}, "$.rubric", "a benchmark declaration"),
        "alien.json": ({"family": "golf"}, "$.family", "benchsite knows points, trials"),
        "other.json": ({"hello": 1}, "$", "neither a scoring specification"),
    }
    for name, (value, where, says) in cases.items():
        found = read(write(tmp_path, name, value))
        assert found.value is None
        assert [p.where for p in found.problems] == [where], name
        assert says in found.problems[0].message, name
    found = read(tmp_path / "missing.json")
    assert found.value is None and [p.file for p in found.problems] == [str(tmp_path / "missing.json")]
