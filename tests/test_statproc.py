"""The statistics process (``figures.statproc``): every question it answers is answered with the
same bits as where it is asked; a build that leaves scipy to it publishes the golden site byte for
byte and never imports scipy itself; a process that fails, a worker forked from the build and a
question scipy refuses all fall back to computing where asked."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from generator.figures import statproc
from tests.conftest import CORPUS, ROOT, snapshot
from tests.test_golden import GOLDEN, _masked

QUESTIONS: list[tuple[str, tuple[Any, ...]]] = [
    ("clopper_pearson", (0, 1, 0.95)),
    ("clopper_pearson", (7, 50_000, 0.95)),
    ("clopper_pearson", (49_999, 50_000, 0.9)),
    ("clopper_pearson", (13, 17, 0.99)),
    ("sign_p", (3, 11)),
    ("sign_p", (0, 1)),
    ("bh_adjusted", ([0.01, 0.04, 0.03, 0.2],)),
    ("normal_quantile", (0.975,)),
    ("normal_quantile", (0.8,)),
    ("fisher_p", ([[12, 5], [3, 14]],)),
    ("t_interval", (0.95, 9, 0.5, 0.03162277660168379)),
    ("welch_p", (0.61, 0.1, 20, 0.55, 0.12, 25)),
    ("hypergeom_at_least_one", (50, 3, 5)),
    ("binomial_sf", (4, 20, 0.1)),
]


@pytest.fixture
def process() -> Iterator[None]:
    statproc.start(always=True)
    try:
        yield
    finally:
        statproc.stop()


def test_every_question_is_answered_with_the_same_bits_as_here(process: None) -> None:
    assert {name for name, _ in QUESTIONS} == set(statproc.COMPUTATIONS)
    running = statproc._running
    assert running is not None
    for name, args in QUESTIONS:
        answered, answer = running.ask(name, args)
        assert answered, name
        assert repr(answer) == repr(statproc.COMPUTATIONS[name](*args)), name


def test_a_question_scipy_refuses_raises_where_it_is_asked(process: None) -> None:
    with pytest.raises(ValueError):
        statproc.ask("clopper_pearson", 5, 3, 0.95)  # more successes than trials
    assert statproc.ask("sign_p", 3, 11) == statproc.COMPUTATIONS["sign_p"](3, 11)  # still answering


def test_a_process_that_is_gone_costs_nothing_but_its_help(process: None) -> None:
    running = statproc._running
    assert running is not None
    running.process.kill()
    running.process.join()
    assert statproc.ask("sign_p", 3, 11) == statproc.COMPUTATIONS["sign_p"](3, 11)


def test_a_forked_worker_computes_where_it_is_asked(process: None) -> None:
    """A worker forked from the build inherits the pipe: it must never talk on it (the answers of the
    two would cross), so it computes itself."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the worker
        os.close(read)
        running = statproc._running
        sent = running.pipe.send if running is not None else None

        def refuse(_: object) -> None:
            os._exit(3)

        if running is not None:
            running.pipe.send = refuse  # type: ignore[method-assign]
        value = statproc.ask("sign_p", 3, 11)
        os.write(write, repr(value).encode() if sent is not None else b"no process")
        os._exit(0)
    os.close(write)
    _, status = os.waitpid(pid, 0)
    answer = os.read(read, 100).decode()
    os.close(read)
    assert os.waitstatus_to_exitcode(status) == 0
    assert answer == repr(statproc.COMPUTATIONS["sign_p"](3, 11))


def test_a_build_leaves_scipy_to_the_process_and_publishes_the_golden_site(tmp_path: Path) -> None:
    """A build as a user runs it, in a process of its own: it never imports scipy (its statistics
    come from the process it forked), and its site is the golden one."""
    out = tmp_path / "site"
    probe = (
        "import sys; from generator.cli import main\n"
        "try: main(sys.argv[1:], standalone_mode=False)\n"
        "finally: print('scipy' in sys.modules, 'numpy' in sys.modules)\n"
    )
    args = ["build", "--runs", str(CORPUS), "--out", str(out), "--no-cache", "--quiet"]
    result = subprocess.run([sys.executable, "-c", probe, *args], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "False False", result.stdout
    built = {p: _masked(p, d) for p, d in snapshot(out).items()}
    assert built == {p: _masked(p, d) for p, d in snapshot(GOLDEN).items()}


def test_a_question_interrupted_stops_the_process(process: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C between a question and its answer: the process is stopped, so no later question reads
    that answer; later questions are computed where asked."""
    running = statproc._running
    assert running is not None

    def interrupted() -> object:
        raise KeyboardInterrupt

    monkeypatch.setattr(running.pipe, "recv", interrupted)
    with pytest.raises(KeyboardInterrupt):
        statproc.ask("sign_p", 3, 11)
    assert not running.process.is_alive()
    assert statproc.ask("fisher_p", [[12, 5], [3, 14]]) == statproc.COMPUTATIONS["fisher_p"](
        [[12, 5], [3, 14]]
    )
