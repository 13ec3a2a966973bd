"""``--executor dask``: the same pure map over sealed run folders on a dask.distributed cluster
(a LocalCluster on 127.0.0.1, workers in separate processes) publishes the same bytes as the
local process pool, with and without the run cache."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import CORPUS, run_cli, snapshot

distributed = pytest.importorskip("distributed")  # the dask extra is part of the test extra


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address="127.0.0.1:0"
    ) as cluster:
        yield cluster.scheduler_address


def build(out: Path, *extra: str | Path) -> dict[str, bytes]:
    result = run_cli("build", "--quiet", "--runs", CORPUS, "--out", out, "--site-version", "v1", *extra)
    assert result.exit_code == 0, result.output
    return snapshot(out)


@pytest.mark.slow
def test_a_cluster_build_publishes_the_local_builds_bytes(scheduler: str, tmp_path: Path) -> None:
    local = build(tmp_path / "local", "--no-cache")
    remote = build(tmp_path / "dask", "--no-cache", "--executor", "dask", "--scheduler", scheduler)
    assert remote == local
    # with the run cache: the first cluster build keeps every run, the second reuses them all
    cache = tmp_path / "cache"
    first = build(tmp_path / "dask-cold", "--cache", cache, "--executor", "dask", "--scheduler", scheduler)
    again = build(tmp_path / "dask-warm", "--cache", cache, "--executor", "dask", "--scheduler", scheduler)
    assert first == again == local


@pytest.mark.slow
def test_a_cluster_verify_checks_every_seal(scheduler: str, corpus: Path) -> None:
    run = next(p for p in (corpus / "agent-dx").iterdir() if p.is_dir())
    (run / "attempts.jsonl").write_bytes((run / "attempts.jsonl").read_bytes() + b"\n")
    result = run_cli("verify", "--runs", corpus, "--no-cache", "--executor", "dask", "--scheduler", scheduler)
    assert result.exit_code == 3 and "hash mismatch" in result.output, result.output


def test_dask_without_a_scheduler_is_a_usage_error(tmp_path: Path) -> None:
    result = run_cli("build", "--runs", CORPUS, "--out", tmp_path / "site", "--executor", "dask")
    assert result.exit_code == 2 and "--executor dask and --scheduler ADDRESS go together" in result.output


def test_an_unreachable_scheduler_is_a_clear_usage_error() -> None:
    address = "tcp://127.0.0.1:9"  # the discard port: nothing listens there
    timeout = ("--scheduler-timeout", "1")  # the client retries until then (10 s by default)
    result = run_cli("verify", "--runs", CORPUS, "--executor", "dask", "--scheduler", address, *timeout)
    assert result.exit_code == 2 and "cannot reach the dask scheduler" in result.output, result.output
    assert "Traceback" not in result.output
