"""``--executor dask`` derives a random sample of each worker's answers again on the client: a worker
that runs the client's generator (the true digest) but rewrites its results is refused by name (exit
2), with nothing published and nothing of it kept in the run cache."""

from __future__ import annotations

import dataclasses
import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, corpus_of
from tests.test_cluster_faults import Patching, cache_entries, local_cluster, one_error_line

pytest.importorskip("distributed")  # the dask extra is part of the test extra

LIED_ON = "run-subject-a3f1-1"


def lie_on(runs: str) -> None:
    """In a worker: every answer for a run whose folder is in ``runs`` (all when empty) keeps the
    true generator digest and seal digest but carries rewritten rows."""
    import generator.score.cluster

    true = generator.score.cluster.score_remote

    def lying(remote: object, rel: str, run_id: str, verify_only: bool) -> object:
        answer = true(remote, rel, run_id, verify_only)  # type: ignore[arg-type]
        if answer.detail is None or (runs and rel not in runs):
            return answer
        return dataclasses.replace(answer, detail=answer.detail.replace(b'"', b'"\\u202e', 1))

    generator.score.cluster.score_remote = lying  # type: ignore[assignment]


def lie_on_every_run() -> None:
    lie_on("")


def lie_on_one_run() -> None:
    lie_on(LIED_ON)


def build(runs: Path, out: Path, scheduler: str, cache: Path) -> tuple[int, str]:
    """The real command in its own process (``test_cluster_faults.build``), from ``runs``."""
    command = [sys.executable, "-m", "generator", "build", "--quiet", "--runs", str(runs), "--out", str(out)]
    command += ["--site-version", "v1", "--executor", "dask", "--scheduler", scheduler]
    command += ["--scheduler-timeout", "5", "--cache", str(cache)]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=120)
    return done.returncode, done.stdout + done.stderr


def only_run(runs: Path, keep: str) -> Path:
    """``runs``'s agent-dx with its run folder ``keep`` alone: the run a worker lies on is then the
    only answer it gives, so any sample holds it."""
    bench = runs / "agent-dx"
    for folder in bench.iterdir():
        if folder.is_dir() and folder.name != keep:
            shutil.rmtree(folder)
    return runs


@pytest.mark.slow
@pytest.mark.parametrize("patch", [lie_on_every_run, lie_on_one_run])
def test_a_worker_that_rewrites_its_results_is_refused_by_name(tmp_path: Path, patch: object) -> None:
    runs = corpus_of(tmp_path / "runs", "agent-dx")
    if patch is lie_on_one_run:
        only_run(runs, LIED_ON)
    cache = tmp_path / "cache"
    with local_cluster() as (address, client):
        client.register_plugin(Patching(patch))  # type: ignore[attr-defined]
        worker = next(iter(client.scheduler_info()["workers"]))  # type: ignore[attr-defined]
        code, output = build(runs, tmp_path / "site", address, cache)
    line = one_error_line(output)
    assert code == 2, output
    assert f"the dask worker {worker} (scheduler {address}) returned figures for " in line
    assert "differ from the client's own derivation" in line
    assert not (tmp_path / "site").exists()
    assert cache_entries(cache) == []


@pytest.mark.slow
def test_an_honest_worker_passes_the_audit(tmp_path: Path) -> None:
    runs = corpus_of(tmp_path / "runs", "agent-dx")
    with local_cluster() as (address, _):
        code, output = build(runs, tmp_path / "site", address, tmp_path / "cache")
    assert code == 0, output
    assert (tmp_path / "site" / "v1" / "data" / "build.json").is_file()
    assert cache_entries(tmp_path / "cache") != []


def chance_of_catching(n: int, k: int, s: int) -> float:
    """The docs' formula: a sample of ``s`` of ``n`` answers holds one of the ``k`` lies."""
    return 1 - math.comb(n - k, s) / math.comb(n, s)


@pytest.mark.parametrize(
    ("answers", "sampled"), [(1, 1), (2, 1), (10, 1), (11, 2), (20, 2), (100, 10), (101, 11)]
)
def test_each_worker_is_sampled_a_tenth_of_its_answers_at_least_one(answers: int, sampled: int) -> None:
    from generator.score.cluster import AUDIT_SHARE, audit_size

    assert AUDIT_SHARE == 0.1
    assert audit_size(answers) == sampled
    assert chance_of_catching(answers, answers, sampled) == 1  # a worker lying on every answer is caught


class _Future:
    def __init__(self, key: str) -> None:
        self.key = key


class _Client:
    """Where each answer is held, as dask's ``Client.who_has`` says it."""

    def __init__(self, holders: dict[str, str]) -> None:
        self.holders = holders

    def who_has(self, futures: list[_Future]) -> dict[str, tuple[str, ...]]:
        return {future.key: (self.holders[future.key],) for future in futures}


def _audited(monkeypatch: pytest.MonkeyPatch, workers: dict[str, tuple[int, bool]]) -> list[str]:
    """``cluster._audit`` of answers from ``workers`` (name → how many answers, whether it lies on all
    of them), the client's own derivation a stand-in that says which runs it derived again."""
    from generator.score import cluster

    derived: list[str] = []

    def own(remote: object, rel: str, run_id: str, verify_only: bool) -> object:
        derived.append(rel)
        return cluster.Scored("generator", "seal", None, None, f"rows of {rel}".encode(), ())

    monkeypatch.setattr(cluster, "score_remote", own)
    submitted, held, holders = [], [], {}
    for worker, (count, lies) in workers.items():
        for n in range(count):
            rel = f"{worker}-run-{n}"
            holders[rel] = worker
            submitted.append(cluster._Submitted(rel, rel, "seal", "", None, _Future(rel)))
            rows = b"rewritten rows" if lies else f"rows of {rel}".encode()
            held.append(cluster._held_apart(cluster.Scored("generator", "seal", None, None, rows, ())))
    cluster._audit(_Client(holders), "tcp://scheduler:8786", object(), submitted, held)  # type: ignore[arg-type]
    return derived


def test_every_worker_has_a_sample_of_its_own_answers_derived_again(monkeypatch: pytest.MonkeyPatch) -> None:
    from generator.score.cluster import audit_size

    workers = {"tcp://a:1": (1, False), "tcp://b:1": (15, False), "tcp://c:1": (100, False)}
    derived = _audited(monkeypatch, workers)
    for worker, (count, _) in workers.items():
        assert sum(rel.startswith(f"{worker}-") for rel in derived) == audit_size(count)


@pytest.mark.parametrize("liar", ["tcp://a:1", "tcp://b:1", "tcp://c:1"])
def test_a_worker_lying_on_all_its_answers_is_named_among_honest_ones(
    monkeypatch: pytest.MonkeyPatch, liar: str
) -> None:
    from generator.score.cluster import ClusterError

    workers = {
        name: (count, name == liar)
        for name, count in (("tcp://a:1", 1), ("tcp://b:1", 15), ("tcp://c:1", 40))
    }
    with pytest.raises(ClusterError) as raised:
        _audited(monkeypatch, workers)
    assert raised.value.message.startswith(
        f"the dask worker {liar} (scheduler tcp://scheduler:8786) returned"
    )
