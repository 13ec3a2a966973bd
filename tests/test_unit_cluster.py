"""Unit tests of ``generator.score.cluster``: what a worker answers for one run folder (verified against its
seal, then scored unless the client's cache holds it, and signed with its generator's digest), which
answers the client takes, the scheduler address's form, and the usage error when dask is missing.
The scoring family and the cluster here are stand-ins, so the tests need neither a cluster nor a
corpus."""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import pytest
from pydantic import BaseModel

from generator.errors import Problem, Result
from generator.families.base import AnyFamily
from generator.inputs.discover import BenchmarkLayout
from generator.inputs.identity import generator_digest
from generator.inputs.seal import SEAL_NAME, write_seal
from generator.score import cluster
from generator.score.cluster import ClusterError, Remote, Scored, on_cluster, scheduler_address, score_remote


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
    assert scored.generator == generator_digest()
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


@pytest.mark.parametrize(
    ("given", "address"),
    [
        ("tcp://10.0.0.5:8786", "tcp://10.0.0.5:8786"),
        ("10.0.0.5:8786", "tcp://10.0.0.5:8786"),
        ("tcp://scheduler.example.org:1", "tcp://scheduler.example.org:1"),
        ("tcp://localhost:65535", "tcp://localhost:65535"),
        ("tcp://[::1]:8786", "tcp://[::1]:8786"),
        ("tcp://[::g]:8786", None),
        ("tcp://-bad-.example:8786", None),
        ("tcp://a b:8786", None),
        ("tcp://10.0.0.5:８７８６", None),  # fullwidth digits: str.isdigit, not a port
        ("TCP://10.0.0.5:8786", None),
        ("tcp://10.0.0.5:8786\n", None),
    ],
)
def test_a_scheduler_address_is_tcp_host_and_port(given: str, address: str | None) -> None:
    if address is None:
        with pytest.raises(ClusterError, match=r"^--scheduler ") as error:
            scheduler_address(given)
        assert error.value.exit_code == 2 and "\n" not in error.value.message
    else:
        assert scheduler_address(given) == address


class Future:
    """A dask future that is done: its answer, or the exception its task raised."""

    key = "score-1"

    def __init__(self, answer: object = None, raised: Exception | None = None) -> None:
        self.answer, self.raised = answer, raised
        self.status = "error" if raised else "finished"

    def result(self, timeout: float | None = None) -> object:
        if self.raised is not None:
            raise self.raised
        return self.answer


class Client:
    """What ``_answer`` asks the client: who holds a result, which workers import benchsite."""

    def who_has(self, futures: list[Future]) -> dict[str, list[str]]:
        return {future.key: ["tcp://10.0.0.7:4000"] for future in futures}

    def run(self, function: object, *args: object, on_error: str) -> dict[str, object]:
        return {"tcp://10.0.0.7:4000": ModuleNotFoundError("No module named 'generator'")}


def answer(raised: Exception | None = None, answer: object = None) -> Scored:
    sent = cluster._Submitted("runs/r1", "r1", "seal", "key", None, Future(answer, raised))
    return cluster._answer(Client(), "tcp://10.0.0.5:8786", sent, 1.0)


def test_an_answer_of_the_clients_generator_is_taken() -> None:
    scored = Scored(generator_digest(), "seal", None, None, None, ())
    assert answer(answer=scored) is scored


@pytest.mark.parametrize("generator", ["0" * 64, "", None], ids=["another", "empty", "none"])
def test_an_answer_of_another_generator_names_the_worker_and_both_digests(generator: str | None) -> None:
    scored = Scored(cast(str, generator), "seal", None, None, None, ())
    if generator is None:
        del scored.__dict__["generator"]  # as pickled by an install that does not say
    with pytest.raises(ClusterError) as error:
        answer(answer=scored)
    message = error.value.message
    assert message.startswith(
        "the dask worker tcp://10.0.0.7:4000 (scheduler tcp://10.0.0.5:8786) runs another"
    )
    assert f"this client is generator {generator_digest()}" in message
    assert ("0" * 64 in message) == (generator == "0" * 64)


@pytest.mark.parametrize("bug", [ValueError("a bug"), OSError("a bug"), TimeoutError("a bug"), KeyError("x")])
def test_an_exception_raised_by_our_code_on_a_worker_stays_a_bug(bug: Exception) -> None:
    with pytest.raises(type(bug)):
        answer(raised=bug)


def test_a_worker_that_cannot_import_benchsite_is_named() -> None:
    with pytest.raises(
        ClusterError, match=r"^the dask worker tcp://10\.0\.0\.7:4000 .* cannot import benchsite"
    ):
        answer(raised=ModuleNotFoundError("No module named 'generator'"))
