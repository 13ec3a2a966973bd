"""Unit tests of ``generator.cluster``: what a worker answers for one run folder (verified against its
seal, then scored unless the client's cache holds it), and the usage error when dask is missing.
The scoring family here is a stand-in, so the tests need neither a cluster nor a corpus."""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import pytest
from pydantic import BaseModel

from generator.cluster import ClusterError, Remote, on_cluster, score_remote
from generator.errors import Problem, Result
from generator.families.base import AnyFamily
from generator.inputs import BenchmarkLayout
from generator.seal import SEAL_NAME, write_seal


class Figure(BaseModel):
    value: int


class Rows(BaseModel):
    rows: list[str]


@dataclass
class Scoring:
    summary: Figure
    part: Figure
    detail: Rows


class StandIn:
    """A family that scores every run alike, or finds one problem with it, and counts its calls."""

    def __init__(self, problem: Problem | None = None) -> None:
        self.problem = problem
        self.calls: list[tuple[Any, Any, str]] = []

    def score_run(self, bench: Any, state: Any, run_id: str, run: Any) -> Result[Scoring]:
        self.calls.append((bench, state, run_id))
        if self.problem is not None:
            return Result(None, (self.problem,))
        return Result(Scoring(Figure(value=7), Figure(value=3), Rows(rows=["é", "b"])))


def sealed_run(tmp_path: Path) -> Path:
    run = tmp_path / "runs" / "r1"
    run.mkdir(parents=True)
    (run / "result.json").write_text(json.dumps({"ok": True}))
    write_seal(run)
    return run


def remote(tmp_path: Path, family: StandIn) -> Remote:
    layout = BenchmarkLayout("bench", tmp_path, ("runs/r1",))
    return Remote(layout, cast(Any, "bench-context"), cast(AnyFamily, family), "state")


def test_a_worker_scores_a_sealed_run_and_returns_its_rows_as_compact_json(tmp_path: Path) -> None:
    run, family = sealed_run(tmp_path), StandIn()
    scored = score_remote(remote(tmp_path, family), "runs/r1", "r1", verify_only=False)
    assert scored.digest == hashlib.sha256((run / SEAL_NAME).read_bytes()).hexdigest()
    assert (scored.summary, scored.part) == (Figure(value=7), Figure(value=3))
    assert scored.detail == '{"rows":["é","b"]}\n'.encode()
    assert scored.problems == ()
    assert family.calls == [("bench-context", "state", "r1")]


def test_a_run_the_client_holds_is_only_verified(tmp_path: Path) -> None:
    run, family = sealed_run(tmp_path), StandIn()
    scored = score_remote(remote(tmp_path, family), "runs/r1", "r1", verify_only=True)
    assert scored.digest == hashlib.sha256((run / SEAL_NAME).read_bytes()).hexdigest()
    assert (scored.summary, scored.part, scored.detail, scored.problems) == (None, None, None, ())
    assert family.calls == []


def test_a_tampered_run_is_refused_before_scoring(tmp_path: Path) -> None:
    run, family = sealed_run(tmp_path), StandIn()
    (run / "result.json").write_text(json.dumps({"ok": False}))
    scored = score_remote(remote(tmp_path, family), "runs/r1", "r1", verify_only=False)
    assert scored.digest is None and scored.summary is None
    assert scored.problems and all(p.refused for p in scored.problems)
    assert family.calls == []


def test_a_scoring_problem_keeps_the_digest_and_no_figures(tmp_path: Path) -> None:
    sealed_run(tmp_path)
    problem = Problem("bench/runs/r1/result.json", "$.ok", "not a result")
    scored = score_remote(remote(tmp_path, StandIn(problem)), "runs/r1", "r1", verify_only=False)
    assert scored.digest is not None
    assert (scored.summary, scored.detail, scored.problems) == (None, None, (problem,))


def test_without_the_dask_extra_a_cluster_build_is_a_usage_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed raises ImportError
    with pytest.raises(ClusterError, match=r"pip install 'benchsite\[dask\]'") as error:
        next(on_cluster(cast(Any, None), [], "tcp://127.0.0.1:1"))
    assert error.value.exit_code == 2
