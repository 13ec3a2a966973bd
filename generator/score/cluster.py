"""Scoring on a dask.distributed cluster (``--executor dask --scheduler ADDRESS``).

Scoring is a pure map over sealed run folders, so a cluster runs exactly what a local worker runs:
each task reads one run folder where the worker is (the inputs must be reachable at the same path
by every worker: a shared or replicated file system), verifies every byte against its seal, and
scores it with the benchmark's prepared state, shipped to every worker once. Everything that
writes stays on the client: the run cache is looked up there by the run's seal digest (a hit is
still verified by a worker, never trusted unread), and the rows a worker returns are spooled and
kept there. Outcomes are taken in job order, so the client folds them exactly as a local build
does and the output bytes do not depend on the executor (tested against a LocalCluster).

**What the client takes from a worker.** Every answer carries the digest of the generator that
computed it (``identity.generator_digest`` on the worker): an answer from another install (older,
patched) stops the build (:class:`ClusterError`, exit 2) before any of its figures is used, and a
scored run enters the run cache only under the digest of the generator that computed it, which is
then the client's. A worker that runs the client's generator could still rewrite what it returns:
once every answer of a benchmark is in, the client derives a random sample of each worker's answers
again itself (:func:`_audit`, a tenth, at least one a worker) and stops the build naming the worker
when one differs, before any answer is used or kept (docs/architecture.md, "Trust model of
--executor dask").

**How it fails.** The scheduler's address is checked before anything connects
(:func:`scheduler_address`); reaching the scheduler, a first worker joining and every wait while
workers are gone are bounded by ``--scheduler-timeout``. What dask raises for a scheduler or worker
that cannot be reached, is lost, or lacks benchsite becomes one ``ClusterError`` line (exit 2), and
nothing is published; an exception a task raised in benchsite's own code is a bug and shows as one.

dask is imported here only, when a build asks for it (the ``dask`` extra); this module's own imports
are the standard library's and a few of benchsite's small modules, so the CLI checks an address
without loading pydantic.
"""

from __future__ import annotations

import asyncio
import hashlib
import ipaddress
import logging
import math
import re
import secrets
from collections.abc import Iterator
from concurrent.futures import CancelledError
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from generator.errors import BenchsiteError, Problem, printable
from generator.inputs.files import ReadFailure, read_regular
from generator.inputs.seal import SEAL_NAME
from generator.score.details import rows_json

if TYPE_CHECKING:
    from pydantic import BaseModel

    from generator.families.base import AnyFamily, BenchmarkContext
    from generator.inputs.discover import BenchmarkLayout
    from generator.score.cache import RunHit
    from generator.score.workers import Outcome, Shared


class ClusterError(BenchsiteError):
    """The dask extra is missing, the scheduler's address is malformed, the scheduler cannot be
    reached or is lost, no worker joins or one is lost, or a worker runs another generator or none
    (exit 2, as a usage error)."""

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
    """A worker's answer for one run: the digest of the generator that computed it, the run's seal
    digest and, when it scored it, its figures and rows."""

    generator: str
    """``identity.generator_digest()`` where the answer was computed: the client uses an answer only
    when it equals its own."""
    digest: str | None
    summary: BaseModel | None
    part: BaseModel | None
    detail: bytes | None
    problems: tuple[Problem, ...]


def score_remote(remote: Remote, rel: str, run_id: str, verify_only: bool) -> Scored:
    """On a worker: verify one run folder against its seal and, unless the client holds it in its
    run cache (``verify_only``), score it; the answer names the generator that computed it."""
    from generator.inputs import identity
    from generator.score.workers import verified_run

    generator = identity.generator_digest()  # looked up when called: the worker's own
    verified = verified_run(remote.layout.run_path(rel))
    run = verified.value
    if run is None:
        return Scored(generator, None, None, None, None, verified.problems)
    if verify_only:
        return Scored(generator, run.digest, None, None, None, ())
    scoring = remote.family.score_run(remote.bench, remote.state, run_id, run)
    scored = scoring.value
    if scored is None or scoring.problems:
        return Scored(generator, run.digest, None, None, None, scoring.problems)
    detail = rows_json(scored.detail)
    return Scored(generator, run.digest, scored.summary, scored.part, detail, ())


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


@dataclass(frozen=True)
class _Held:
    """A worker's answer as the client holds it until its benchmark's sample is checked (:func:`_audit`):
    its rows spooled when the build keeps them (``Shared.outputs``), and only their sha256 kept here,
    so a benchmark's answers do not sit in memory."""

    answer: Scored
    """The answer without its rows (``detail`` None)."""
    rows: str | None
    """The sha256 of the rows the worker returned (None: it returned none)."""


def _held(shared: Shared, sent: _Submitted, answer: Scored) -> _Held:
    if answer.detail is None:
        return _Held(answer, None)
    if shared.outputs:
        shared.details.put_bytes(shared.bench.id, sent.run_id, answer.detail)
    return _Held(replace(answer, detail=None), hashlib.sha256(answer.detail).hexdigest())


def _outcome(shared: Shared, sent: _Submitted, held: _Held) -> Outcome:
    """The worker's answer for one run (computed by the client's generator, :func:`_answer`, and its
    sample checked, :func:`_audit`) as a local build's outcome; its rows (spooled here, :func:`_held`)
    kept in the run cache under the key of the seal the worker read and the generator that scored it."""
    from generator.score.workers import Outcome

    answer = held.answer
    rel, run_id, hit, bench = sent.rel, sent.run_id, sent.hit, shared.bench.id
    if answer.digest is None or answer.problems:
        return Outcome(rel, run_id, answer.digest, None, None, answer.problems)
    if answer.digest != sent.digest:  # changed between the lookup and the worker's read
        message = "changed while the build read it: its seal differs from the one looked up"
        problem = Problem(f"{shared.bench.label}/{rel}", "", message, refused=True)
        return Outcome(rel, run_id, answer.digest, None, None, (problem,))
    if hit is not None:
        summary, part = hit.summary, hit.part  # its rows are read from the cache when written
        return Outcome(
            rel, run_id, answer.digest, summary, part, (), reused=True, key=sent.key, kept=hit.kept
        )
    assert answer.summary is not None and answer.part is not None and held.rows is not None
    key = shared.cache.key(shared.cache_bench, rel, answer.digest, generator=answer.generator)
    if shared.outputs:
        detail = shared.details.get(bench, run_id)
        shared.cache.store(key, shared.family.name, answer.summary, answer.part, detail)
    return Outcome(rel, run_id, answer.digest, answer.summary, answer.part, (), key=key)


# --- the scheduler's address, checked before anything connects ----------------------------------

SCHEDULER_TIMEOUT = 10.0
"""Seconds (``--scheduler-timeout``) the client waits for the scheduler to answer, for a first
worker to join, and, while an answer is awaited, for a worker to be there at all."""

_HOST_NAME = re.compile(r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)(\.(?!-)[A-Za-z0-9-]{1,63}(?<!-))*\.?")


def scheduler_address(text: str) -> str:
    """``--scheduler`` as ``tcp://HOST:PORT``, checked before anything connects: HOST a name, an
    IPv4 address or an IPv6 one in brackets, PORT 1 to 65535; ``HOST:PORT`` alone means tcp. tcp is
    the one protocol: tls needs certificates this command line does not take, and ucx or inproc
    cannot reach a cluster from here. ClusterError says what is wrong."""
    scheme, sep, rest = text.partition("://")
    if not sep:
        scheme, rest = "tcp", text
    problem = _scheme_problem(scheme) or _host_port_problem(rest)
    if problem:
        raise ClusterError(f"--scheduler {printable(text)}: {problem}")
    return f"tcp://{rest}"


def _scheme_problem(scheme: str) -> str:
    if scheme == "tcp":
        return ""
    if scheme == "tls":
        return "tls:// is not supported (it needs certificates); use tcp:// on a network you trust"
    return f"{printable(scheme)}:// is not a supported protocol; use tcp://HOST:PORT"


def _host_port_problem(rest: str) -> str:
    """What is wrong with ``HOST:PORT`` (empty when nothing is)."""
    if rest.startswith("["):
        inside, closed, after = rest[1:].partition("]")
        if not closed:
            return "an IPv6 address without its closing bracket: write tcp://[ADDRESS]:PORT"
        if not after.startswith(":"):
            return "no port after the address: write tcp://[ADDRESS]:PORT"
        return _ipv6_problem(inside) or _port_problem(after[1:])
    host, colon, port = rest.rpartition(":")
    if not colon or not host:
        return "no host and port: write tcp://HOST:PORT, e.g. tcp://10.0.0.5:8786"
    if ":" in host:
        return "an IPv6 address goes in brackets: tcp://[ADDRESS]:PORT"
    if not _HOST_NAME.fullmatch(host) or len(host) > 253:
        return f"{printable(host)} is not a host name or an IPv4 address"
    return _port_problem(port)


def _ipv6_problem(inside: str) -> str:
    try:
        ipaddress.IPv6Address(inside)
    except ValueError:
        return f"{printable(inside)} is not an IPv6 address"
    return ""


def _port_problem(port: str) -> str:
    if not port.isascii() or not port.isdigit() or not 1 <= int(port) <= 65535:
        return f"port {printable(port)!r} is not a number from 1 to 65535"
    return ""


# --- connecting, waiting, and what dask raises ----------------------------------------------------


def on_cluster(
    shared: Shared, jobs: list[tuple[str, str]], scheduler: str, timeout: float = SCHEDULER_TIMEOUT
) -> Iterator[Outcome]:
    """Each job's outcome, in job order, scored by the workers of the cluster at ``scheduler`` (a
    :func:`scheduler_address`). Reaching the scheduler, a first worker joining, and a cluster left with
    no worker while an answer is awaited are each bounded by ``timeout`` seconds; a run still being
    scored by a worker that is there is waited for."""
    try:
        from distributed import Client
    except ImportError:
        raise ClusterError("--executor dask needs the dask extra: pip install 'benchsite[dask]'") from None
    address = scheduler_address(scheduler)
    with _quiet():
        yield from _scored(shared, jobs, address, timeout, Client)


def _scored(
    shared: Shared, jobs: list[tuple[str, str]], address: str, timeout: float, client_type: Any
) -> Iterator[Outcome]:
    """:func:`on_cluster` once dask is imported (``client_type``: its ``Client``)."""
    _greet(address, timeout)
    try:
        client = client_type(address, set_as_default=False, timeout=timeout)
    except (OSError, ImportError) as exc:  # unreachable, or not a scheduler this dask can talk to
        raise ClusterError(f"--scheduler {address}: cannot reach the dask scheduler ({_said(exc)})") from None
    with _closing(client, timeout):
        remote = Remote(shared.layout, shared.bench, shared.family, shared.state)
        scattered = _dask(address, _started, client, address, remote, timeout)
        submitted = _dask(address, _submitted, client, scattered, shared, jobs)
        held = [_held(shared, sent, _answer(client, address, sent, timeout)) for sent in submitted]
        _audit(client, address, remote, submitted, held)
        for sent, answer in zip(submitted, held, strict=True):
            yield _outcome(shared, sent, answer)


def _started(client: Any, address: str, remote: Remote, timeout: float) -> Any:
    """The prepared state on every worker, once a worker has joined and can import benchsite."""
    from distributed.exceptions import WorkerStartTimeoutError

    try:
        client.wait_for_workers(1, timeout=timeout)
    except WorkerStartTimeoutError:
        raise ClusterError(f"no worker joined the dask scheduler at {address} within {timeout:g} s") from None
    _check_installs(client, address)
    return client.scatter(remote, broadcast=True, timeout=timeout)


def _submitted(client: Any, remote: Any, shared: Shared, jobs: list[tuple[str, str]]) -> list[_Submitted]:
    return [_submit(client, remote, shared, rel, run_id) for rel, run_id in jobs]


async def _hello(address: str, timeout: float) -> str:
    """What answers at ``address``, as it names itself (``Scheduler``, ``Worker``…)."""
    from distributed.comm.core import connect

    comm = await connect(address, timeout=timeout)
    try:
        await comm.write({"op": "identity", "reply": True})
        answer = await comm.read()
    finally:
        await comm.close()
    return str(answer.get("type", "")) if isinstance(answer, dict) else ""


def _greet(address: str, timeout: float) -> None:
    """Connect to ``address``, complete dask's handshake and ask what answers, within ``timeout``
    seconds (dask's own client waits for the handshake without a bound, so a server that accepts and
    never answers would hang the build); ClusterError unless a dask scheduler answers."""
    try:
        kind = asyncio.run(asyncio.wait_for(_hello(address, timeout), timeout))
    except Exception as exc:  # dask's code alone ran, talking to what may be anything: nothing of ours
        problem = _said(exc) if not isinstance(exc, TimeoutError) else f"no answer within {timeout:g} s"
        raise ClusterError(f"--scheduler {address}: cannot reach the dask scheduler ({problem})") from None
    if "Scheduler" not in kind:
        what = f"a dask {printable(kind)}" if kind else "something that speaks dask's protocol"
        raise ClusterError(f"--scheduler {address}: {what} answers there, not a dask scheduler")


_DASK_LOGGERS = ("distributed", "tornado")


@contextmanager
def _quiet() -> Iterator[None]:
    """dask's own log records kept off the terminal while the build uses the cluster, its CRITICAL
    ones too (a message it cannot deserialize): what they report (a lost connection, with its
    traceback) the build says in one line."""
    names = [*_DASK_LOGGERS, *logging.root.manager.loggerDict]  # dask sets levels of some below
    loggers = [logging.getLogger(name) for name in names if name.partition(".")[0] in _DASK_LOGGERS]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)


@contextmanager
def _closing(client: Any, timeout: float) -> Iterator[None]:
    """The client closed however the build ends; closing a client whose scheduler is gone fails
    quietly (the build has already stopped or finished)."""
    try:
        yield
    finally:
        with suppress(OSError, RuntimeError):
            client.close(timeout=timeout)


def _check_installs(client: Any, address: str) -> None:
    """Every worker that has joined imports benchsite's ``generator.score.cluster`` (asked with the
    standard library's ``pkgutil.resolve_name``, which any worker can unpickle, for a plain number of
    the module, which the client can unpickle whatever the worker runs); else ClusterError naming it."""
    import pkgutil

    found = client.run(pkgutil.resolve_name, f"{__name__}:SCHEDULER_TIMEOUT", on_error="return")
    for worker, value in sorted(found.items()):
        if isinstance(value, ImportError):
            raise ClusterError(_lacks_benchsite(worker, address, value))


def _lacks_benchsite(worker: str, address: str, exc: BaseException) -> str:
    return (
        f"the dask worker {worker} (scheduler {address}) cannot import benchsite ({_said(exc)}): "
        "every worker needs the client's install of benchsite"
    )


def _dask(address: str, call: Any, *args: Any) -> Any:
    """``call(*args)``, a step that only talks to the cluster; what dask raises for a lost scheduler
    or worker becomes a ClusterError."""
    from distributed.scheduler import KilledWorker

    try:
        return call(*args)
    except (OSError, CancelledError, KilledWorker) as exc:
        raise ClusterError(_lost(address, exc)) from None


def _answer(client: Any, address: str, sent: _Submitted, timeout: float) -> Scored:
    """The worker's answer for one job, once it is known to be computed by the client's generator.
    While it is awaited, a cluster left with no worker for ``timeout`` seconds stops the build."""
    from distributed.scheduler import KilledWorker

    future = sent.future
    while True:
        try:
            answer: Scored = future.result(timeout=timeout)
            break
        except Exception as exc:  # sorted by where it was raised: the task, or dask
            raised_by_task = future.status == "error" and not isinstance(exc, KilledWorker)
            if raised_by_task and isinstance(exc, ImportError):  # unpickled or imported on the worker
                raise _install_failure(client, address, exc) from None
            if raised_by_task or not isinstance(exc, (OSError, CancelledError, KilledWorker)):
                raise  # raised by benchsite's code on the worker: a bug, shown as one
            if future.status != "pending" or not isinstance(exc, TimeoutError):
                raise ClusterError(_lost(address, exc)) from None
            if not _dask(address, _has_workers, client):
                raise ClusterError(
                    f"no worker left at the dask scheduler {address} for {timeout:g} s"
                ) from None
    _check_generator(client, address, sent, answer)
    return answer


AUDIT_SHARE = 0.1
"""The share of each worker's answers for a benchmark that the client derives again itself (at
least one answer a worker, :func:`audit_size`), chosen with ``secrets`` once every answer is in."""


def audit_size(answers: int) -> int:
    """How many of a worker's ``answers`` the client derives again: ``AUDIT_SHARE`` of them rounded
    up, at least one."""
    return min(answers, max(1, math.ceil(answers * AUDIT_SHARE)))


def _audit(client: Any, address: str, remote: Remote, submitted: list[_Submitted], held: list[_Held]) -> None:
    """A random sample of each worker's answers (:func:`audit_size`, drawn from the operating
    system's randomness, which no worker can predict) derived again on the client, as a local worker
    would: ClusterError naming the worker when one differs. Called before any answer is used or kept
    in the run cache, so a lying worker's figures reach neither the site nor the cache (its rows,
    spooled, go with the build's spool)."""
    holders = _dask(address, client.who_has, [sent.future for sent in submitted])
    by_worker: dict[str, list[int]] = {}
    for index, sent in enumerate(submitted):
        worker = (holders.get(sent.future.key) or ["of the scheduler"])[0]
        by_worker.setdefault(str(worker), []).append(index)
    draw = secrets.SystemRandom()
    for worker, indices in sorted(by_worker.items()):
        for index in sorted(draw.sample(indices, audit_size(len(indices)))):
            sent = submitted[index]
            again = score_remote(remote, sent.rel, sent.run_id, sent.hit is not None)
            if _said_facts(_held_apart(again)) != _said_facts(held[index]):
                raise ClusterError(
                    f"the dask worker {printable(worker)} (scheduler {address}) returned figures for "
                    f"{printable(sent.rel)} that differ from the client's own derivation of the same run: "
                    "none of its figures is used and nothing of this build is kept; remove that worker"
                )


def _held_apart(answer: Scored) -> _Held:
    """The client's own answer as :func:`_held` holds a worker's (nothing spooled)."""
    rows = None if answer.detail is None else hashlib.sha256(answer.detail).hexdigest()
    return _Held(replace(answer, detail=None), rows)


def _said_facts(held: _Held) -> tuple[object, ...]:
    """What an answer states about its run, comparable across processes (models as their JSON)."""
    answer = held.answer
    summary = None if answer.summary is None else answer.summary.model_dump_json()
    part = None if answer.part is None else answer.part.model_dump_json()
    return (answer.digest, summary, part, held.rows, answer.problems)


def _has_workers(client: Any) -> bool:
    return bool(client.scheduler_info().get("workers"))


def _install_failure(client: Any, address: str, exc: ImportError) -> ClusterError:
    """A task that could not import what it runs: the worker that lacks benchsite named when the
    workers still there can say, else the scheduler's."""
    _dask(address, _check_installs, client, address)
    return ClusterError(_lacks_benchsite("of the scheduler", address, exc))


def _check_generator(client: Any, address: str, sent: _Submitted, answer: Scored) -> None:
    """ClusterError unless ``answer`` was computed by this client's generator: an answer from another
    install (older, patched, or one that does not say) is not used, not even to verify a seal."""
    from generator.inputs import identity

    ours, theirs = identity.generator_digest(), getattr(answer, "generator", None)
    if theirs == ours:
        return
    holders = _dask(address, client.who_has, [sent.future]).get(sent.future.key) or ["of the scheduler"]
    said = printable(str(theirs)) if theirs else "one that does not say its digest"
    raise ClusterError(
        f"the dask worker {holders[0]} (scheduler {address}) runs another generator than this client: "
        f"its answer for {sent.rel} was computed by generator {said}, this client is generator {ours}; "
        "none of its figures is used: install the client's benchsite on every worker"
    )


def _said(exc: BaseException) -> str:
    """An exception as one short line: its type and what it says."""
    text = " ".join(str(exc).split())
    text = text if len(text) <= 200 else f"{text[:199]}…"
    return printable(f"{type(exc).__name__}: {text}" if text else type(exc).__name__)


def _lost(address: str, exc: BaseException) -> str:
    """What a scheduler or worker lost (or not reached in time) during the build says."""
    from distributed.scheduler import KilledWorker

    if isinstance(exc, KilledWorker):
        return f"the dask scheduler {address} lost the workers scoring a run ({_said(exc)})"
    if isinstance(exc, TimeoutError):
        return f"the dask scheduler {address} did not answer in time ({_said(exc)})"
    if isinstance(exc, CancelledError):
        reason = printable(str(getattr(exc, "reason", "") or "no reason given"))
        return (
            f"the dask cluster at {address} cancelled a run's task during the build (the scheduler "
            f"or a worker was lost: {reason})"
        )
    return f"lost the dask scheduler {address} during the build ({_said(exc)})"
