"""Scoring on a dask.distributed cluster (``--executor dask --scheduler ADDRESS``).

Scoring is a pure map over sealed run folders, so a cluster runs exactly what a local worker runs:
each task reads one run folder where the worker is (the inputs must be reachable at the same path
by every worker: a shared or replicated file system), verifies every byte against its seal, and
scores it with the benchmark's prepared state, shipped to every worker once. Everything that
writes stays on the client: the run cache is looked up there by the run's seal digest (a hit is
still verified by a worker, never trusted unread), and the rows a worker returns are spooled and
kept there. Outcomes are taken in job order, so the client folds them exactly as a local build
does and the output bytes do not depend on the executor (tested against a LocalCluster).

dask is imported here only, when a build asks for it (the ``dask`` extra).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from generator.canon import compact_json
from generator.errors import BenchsiteError, Problem
from generator.families.base import AnyFamily, BenchmarkContext
from generator.files import ReadFailure, read_regular
from generator.inputs import BenchmarkLayout
from generator.seal import SEAL_NAME

if TYPE_CHECKING:
    from generator.cache import RunHit
    from generator.workers import Outcome, Shared


class ClusterError(BenchsiteError):
    """The scheduler cannot be reached or the dask extra is missing (a usage error, exit 2)."""

    exit_code = 2


@dataclass(frozen=True)
class Remote:
    """What a worker scores a benchmark's runs with: no cache, no spool (those stay on the client)."""

    layout: BenchmarkLayout
    bench: BenchmarkContext[Any, Any]
    family: AnyFamily
    state: Any


@dataclass(frozen=True)
class Scored:
    """A worker's answer for one run: its seal digest and, when it scored it, its figures and rows."""

    digest: str | None
    summary: BaseModel | None
    part: BaseModel | None
    detail: bytes | None
    problems: tuple[Problem, ...]


def score_remote(remote: Remote, rel: str, run_id: str, verify_only: bool) -> Scored:
    """On a worker: verify one run folder against its seal and, unless the client holds it in its
    run cache (``verify_only``), score it."""
    from generator.workers import verified_run

    verified = verified_run(remote.layout.run_path(rel))
    run = verified.value
    if run is None:
        return Scored(None, None, None, None, verified.problems)
    if verify_only:
        return Scored(run.digest, None, None, None, ())
    scoring = remote.family.score_run(remote.bench, remote.state, run_id, run)
    scored = scoring.value
    if scored is None or scoring.problems:
        return Scored(run.digest, None, None, None, scoring.problems)
    detail = compact_json(scored.detail.model_dump(mode="json", by_alias=True)).encode("utf-8")
    return Scored(run.digest, scored.summary, scored.part, detail, ())


def _seal_digest(shared: Shared, rel: str) -> str | None:
    """The run's seal digest as the client reads it (sha256 of its SHA256SUMS), for a cache lookup."""
    try:
        return hashlib.sha256(read_regular(shared.layout.run_path(rel) / SEAL_NAME)).hexdigest()
    except (OSError, ReadFailure):
        return None  # the worker's verification reports it


@dataclass(frozen=True)
class _Submitted:
    """One job sent to the cluster: the client's cache lookup beside the worker's future answer."""

    rel: str
    run_id: str
    digest: str | None
    """The run's seal digest as the client read it (None: unreadable here)."""
    key: str
    hit: RunHit | None
    future: Any


def _submit(client: Any, remote: Any, shared: Shared, rel: str, run_id: str) -> _Submitted:
    """Look the run up in the client's cache and send it to a worker: to score on a miss, to verify
    against its seal on a hit."""
    family, cache = shared.family, shared.cache
    digest = _seal_digest(shared, rel)
    key = cache.key(shared.cache_bench, rel, digest) if digest else ""
    models = (family.name, family.summary_model, family.part_model, shared.outputs)
    hit = cache.load(key, *models) if digest else None
    future = client.submit(score_remote, remote, rel, run_id, hit is not None, pure=False)
    return _Submitted(rel, run_id, digest, key, hit, future)


def _outcome(shared: Shared, sent: _Submitted, answer: Scored) -> Outcome:
    """The worker's answer for one run as a local build's outcome; its rows spooled and kept here."""
    from generator.workers import Outcome

    rel, run_id, hit, bench = sent.rel, sent.run_id, sent.hit, shared.bench.id
    if answer.digest is None or answer.problems:
        return Outcome(rel, run_id, answer.digest, None, None, answer.problems)
    if hit is not None and answer.digest == sent.digest:
        summary, part = hit.summary, hit.part  # its rows are read from the cache when written
        return Outcome(
            rel, run_id, answer.digest, summary, part, (), reused=True, key=sent.key, kept=hit.kept
        )
    if hit is not None:  # the seal changed between the lookup and the worker's read
        message = "changed while the build read it: its seal differs from the one looked up"
        problem = Problem(f"{shared.bench.label}/{rel}", "", message, refused=True)
        return Outcome(rel, run_id, answer.digest, None, None, (problem,))
    assert answer.summary is not None and answer.part is not None and answer.detail is not None
    if shared.outputs:
        shared.details.put_bytes(bench, run_id, answer.detail)
        shared.cache.store(sent.key, shared.family.name, answer.summary, answer.part, answer.detail)
    return Outcome(rel, run_id, answer.digest, answer.summary, answer.part, (), key=sent.key)


CONNECT_TIMEOUT = "10s"
"""How long the client keeps trying to reach the scheduler before the build stops (exit 2)."""


def on_cluster(shared: Shared, jobs: list[tuple[str, str]], scheduler: str) -> Iterator[Outcome]:
    """Each job's outcome, in job order, scored by the workers of the cluster at ``scheduler``."""
    try:
        from distributed import Client
    except ImportError:
        raise ClusterError("--executor dask needs the dask extra: pip install 'benchsite[dask]'") from None
    try:
        client = Client(scheduler, set_as_default=False, timeout=CONNECT_TIMEOUT)
    except OSError as exc:
        raise ClusterError(f"--scheduler {scheduler}: cannot reach the dask scheduler ({exc})") from None
    with client:
        remote = Remote(shared.layout, shared.bench, shared.family, shared.state)
        scattered = client.scatter(remote, broadcast=True)
        submitted = [_submit(client, scattered, shared, rel, run_id) for rel, run_id in jobs]
        for sent in submitted:
            yield _outcome(shared, sent, sent.future.result())
