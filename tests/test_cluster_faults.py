"""``--executor dask`` fails like a script: a malformed address, a scheduler that does not answer or
answers garbage, no worker, a worker without benchsite or with another generator, a scheduler or
worker lost mid-build; each is one ``Error:`` line (exit 2) in bounded time, with nothing published
and nothing kept in the run cache from a worker that is not trusted."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.conftest import CORPUS, ROOT, run_cli

distributed = pytest.importorskip("distributed")  # the dask extra is part of the test extra
dask = pytest.importorskip("dask")

TIMEOUT = ("--scheduler-timeout", "1")


def one_error_line(output: str) -> str:
    lines = output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), output
    return lines[0]


def build(out: Path, scheduler: str, *extra: str | Path) -> tuple[int, str, float]:
    """The real command in its own process, as a user runs it: a client whose scheduler was lost
    goes with it, never left reconnecting in the test's process (where its sockets, collected during
    a later test, would warn: an error under this suite's warning filter)."""
    command = [
        sys.executable,
        "-m",
        "generator",
        "build",
        "--quiet",
        "--runs",
        str(CORPUS),
        "--out",
        str(out),
    ]
    command += ["--site-version", "v1", "--executor", "dask", "--scheduler", scheduler, *TIMEOUT]
    # The timeout only guards against a hang (the test then fails): how long a refusal takes on a
    # loaded machine is not the property; that it comes, with its message, is.
    done = subprocess.run([*command, *map(str, extra)], capture_output=True, text=True, cwd=ROOT, timeout=120)
    return done.returncode, done.stdout + done.stderr


def cache_entries(cache: Path) -> list[Path]:
    return sorted((cache / "runs-v1").rglob("*.json")) if (cache / "runs-v1").is_dir() else []


@pytest.mark.parametrize(
    "address",
    [
        "not an address",
        "tcp://",
        "ucx://127.0.0.1:1",
        "tls://127.0.0.1:1",
        "inproc://nothing",
        "tcp://[::1",
        "tcp://[::1]",
        "tcp://::1:8786",
        "tcp://127.0.0.1:0",
        "tcp://127.0.0.1:65536",
        "tcp://127.0.0.1:port",
        "tcp://host:8786/path",
        "",
    ],
)
@pytest.mark.parametrize("command", ["build", "verify"])
def test_a_malformed_address_is_refused_before_anything_is_read(command: str, address: str) -> None:
    args = ("--out", "never-written") if command == "build" else ()
    result = run_cli(command, "--runs", CORPUS, *args, "--executor", "dask", "--scheduler", address)
    assert result.exit_code == 2
    assert one_error_line(result.output).startswith(f"Error: --scheduler {address}: ")
    assert not Path("never-written").exists()


@contextmanager
def listening(answer: bytes | None) -> Iterator[str]:
    """A TCP server on 127.0.0.1 that accepts every connection and sends ``answer`` (None: nothing)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    held: list[socket.socket] = []

    def serve() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return  # closed
            held.append(conn)
            if answer is not None:
                conn.sendall(answer)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    finally:
        server.close()
        for conn in held:
            conn.close()
        thread.join(timeout=5)


@pytest.mark.slow  # a build against a real server or scheduler
@pytest.mark.parametrize(
    ("answer", "said"),
    [
        (None, "no answer within 1 s"),
        (b"HTTP/1.1 200 OK\r\n\r\n" * 64, "cannot reach the dask scheduler"),
        (b"\x01" + b"\x00" * 7 + b"\x05" + b"\x00" * 7 + b"abcde", "cannot reach the dask scheduler"),
    ],
    ids=["silent", "http", "short-frame"],
)
def test_a_server_that_is_not_a_scheduler_stops_the_build_in_bounded_time(
    tmp_path: Path, answer: bytes | None, said: str
) -> None:
    with listening(answer) as address:
        code, output = build(tmp_path / "site", address, "--no-cache")
    assert code == 2 and said in one_error_line(output), output
    assert not (tmp_path / "site").exists()


@pytest.mark.slow  # a build against a real server or scheduler
def test_a_scheduler_without_workers_stops_the_build_in_bounded_time(tmp_path: Path) -> None:
    with distributed.LocalCluster(
        n_workers=0, processes=False, protocol="tcp://", host="127.0.0.1", dashboard_address="127.0.0.1:0"
    ) as cluster:
        # 3 s, not the file's 1 s: this scheduler runs in the test's own process, and on a loaded CI
        # machine (two cores, the suite on both) its handshake alone once took over a second.
        code, output = build(
            tmp_path / "site", cluster.scheduler_address, "--no-cache", "--scheduler-timeout", "3"
        )
    line = one_error_line(output)
    assert code == 2 and f"no worker joined the dask scheduler at {cluster.scheduler_address}" in line
    assert "within 3 s" in line
    assert not (tmp_path / "site").exists()


# --- workers that cannot be trusted or are lost: processes of their own ------------------------


def fake_digest() -> str:
    return "0" * 64


def patch_worker_digest() -> None:
    """In a worker: this process's generator claims another digest, as an older or patched install."""
    import generator.inputs.identity

    generator.inputs.identity.generator_digest = fake_digest  # type: ignore[assignment]


def die(*args: object) -> None:
    os._exit(1)


def patch_worker_to_die() -> None:
    """In a worker: scoring a run ends the worker's process."""
    import generator.score.cluster

    generator.score.cluster.score_remote = die  # type: ignore[assignment]


def kill_scheduler(pid: int) -> None:
    """In a worker: scoring a run kills the scheduler (-9) and then waits."""
    import generator.score.cluster

    def killing(*args: object) -> None:
        os.kill(pid, signal.SIGKILL)
        time.sleep(30)

    generator.score.cluster.score_remote = killing  # type: ignore[assignment]


@contextmanager
def local_cluster(**config: object) -> Iterator[tuple[str, object]]:
    """One worker process (with its nanny) and a scheduler in this process, under dask ``config``."""
    with (
        dask.config.set(config),
        distributed.LocalCluster(
            n_workers=1,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address="127.0.0.1:0",
        ) as cluster,
        distributed.Client(cluster.scheduler_address, set_as_default=False) as client,
    ):
        yield cluster.scheduler_address, client


@pytest.mark.slow
def test_a_worker_running_another_generator_is_refused_and_nothing_of_it_kept(tmp_path: Path) -> None:
    from generator.inputs.identity import generator_digest

    cache = tmp_path / "cache"
    with local_cluster() as (address, client):
        worker = next(iter(client.run(patch_worker_digest)))  # type: ignore[attr-defined]
        code, output = build(tmp_path / "site", address, "--cache", cache)
    line = one_error_line(output)
    assert code == 2, output
    assert f"the dask worker {worker} (scheduler {address}) runs another generator" in line
    assert f"generator {fake_digest()}" in line and f"this client is generator {generator_digest()}" in line
    assert not (tmp_path / "site").exists()
    assert cache_entries(cache) == []


@pytest.mark.slow
def test_a_worker_lost_mid_build_stops_it_with_nothing_published_or_kept(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    with local_cluster(**{"distributed.scheduler.allowed-failures": 0}) as (address, client):
        client.register_plugin(Patching(patch_worker_to_die))  # type: ignore[attr-defined]
        code, output = build(tmp_path / "site", address, "--cache", cache)
    line = one_error_line(output)
    assert code == 2 and f"the dask scheduler {address} lost the workers scoring a run" in line, output
    assert "KilledWorker" in line
    assert not (tmp_path / "site").exists()
    assert cache_entries(cache) == []


class Patching(distributed.WorkerPlugin):  # type: ignore[misc]
    """Runs ``patch`` in every worker process, those the nanny starts again included."""

    def __init__(self, patch: object) -> None:
        self.patch = patch

    def setup(self, worker: object) -> None:
        self.patch()  # type: ignore[operator]


def _scheduler_address(file: Path, deadline: float) -> str:
    """The address the scheduler writes to its file, once the file reads whole (it appears before
    it is written whole); by the deadline only as a guard against a scheduler that never starts."""
    while time.monotonic() < deadline:
        try:
            return str(json.loads(file.read_text())["address"])
        except (OSError, ValueError, KeyError):
            time.sleep(0.1)
    raise AssertionError(f"{file}: the scheduler wrote no address")


@contextmanager
def processes(tmp_path: Path, worker_code: str) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """A scheduler and one worker (no nanny), each a process of its own; the worker started by
    ``worker_code`` (python -c) with the scheduler's address as its argument."""
    file = tmp_path / "scheduler.json"
    logs = (tmp_path / "scheduler.log").open("wb"), (tmp_path / "worker.log").open("wb")
    scheduler = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "distributed.cli.dask_scheduler",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--no-dashboard",
            "--scheduler-file",
            str(file),
        ],
        stdout=logs[0],
        stderr=subprocess.STDOUT,
    )
    worker = None
    try:
        address = _scheduler_address(file, deadline=time.monotonic() + 60)
        worker = subprocess.Popen(
            [
                sys.executable,
                "-c",
                worker_code,
                address,
                "--nthreads",
                "1",
                "--no-nanny",
                "--no-dashboard",
                "--host",
                "127.0.0.1",
            ],
            cwd=tmp_path,
            stdout=logs[1],
            stderr=subprocess.STDOUT,
        )
        with distributed.Client(address, set_as_default=False) as client:
            client.wait_for_workers(1, timeout=20)
        yield address, scheduler
    finally:
        for process in (worker, scheduler):
            if process is not None:
                process.kill()
                process.wait(timeout=10)
        for log in logs:
            log.close()


DASK_WORKER = "import sys; sys.argv[0] = 'dask-worker'; from distributed.cli.dask_worker import main; main()"


@pytest.mark.slow
def test_a_worker_without_benchsite_is_named(tmp_path: Path) -> None:
    root = str(Path(__file__).resolve().parent.parent)
    without = f"import sys; sys.path[:] = [p for p in sys.path if p not in ({root!r}, '')]; {DASK_WORKER}"
    with processes(tmp_path, without) as (address, _):
        code, output = build(tmp_path / "site", address, "--no-cache")
    line = one_error_line(output)
    assert code == 2 and f"(scheduler {address}) cannot import benchsite (ModuleNotFoundError" in line
    assert "every worker needs the client's install of benchsite" in line
    assert not (tmp_path / "site").exists()


@pytest.mark.slow
def test_a_scheduler_killed_mid_build_stops_it_with_nothing_published_or_kept(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    here = Path(__file__).resolve().parent  # this module, imported by its functions run on the worker
    with_benchsite = f"import sys; sys.path[:0] = [{str(here.parent)!r}, {str(here)!r}]; {DASK_WORKER}"
    with processes(tmp_path, with_benchsite) as (address, scheduler):
        with distributed.Client(address, set_as_default=False) as client:
            client.run(kill_scheduler, scheduler.pid)
        code, output = build(tmp_path / "site", address, "--cache", cache)
        assert scheduler.wait(timeout=10) == -signal.SIGKILL
    line = one_error_line(output)
    assert code == 2 and address in line and "lost" in line, output
    assert not (tmp_path / "site").exists()
    assert cache_entries(cache) == []


def test_a_workers_address_is_not_taken_for_a_schedulers(tmp_path: Path) -> None:
    with (
        distributed.LocalCluster(
            n_workers=1, processes=False, protocol="tcp://", host="127.0.0.1", dashboard_address="127.0.0.1:0"
        ) as cluster,
        distributed.Client(cluster, set_as_default=False) as client,
    ):
        worker = next(iter(client.scheduler_info()["workers"]))
        code, output = build(tmp_path / "site", worker, "--no-cache")
    assert code == 2
    assert (
        one_error_line(output)
        == f"Error: --scheduler {worker}: a dask Worker answers there, not a dask scheduler"
    )
