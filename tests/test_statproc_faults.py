"""The statistics process when it fails (issue 44, item 4): a process that stops answering (SIGSTOP)
is given up after a timeout and every statistic computed in the build's own process, with one
warning line and the same bytes; a scipy that cannot be imported at all is a clear error (exit 2),
never a traceback. Builds run as a user runs them, in processes of their own, with a generous
timeout that is only a failure guard."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from generator.figures import statproc
from tests.conftest import ROOT, snapshot

INSPECT = ROOT / "tests" / "data" / "inspect"
LOGS = sorted(INSPECT.glob("2026-12-06T05-19-06-00-00_quiz_*.json"))
GUARD = 600
"""Seconds after which a build is taken to hang: a failure guard only, never the property."""
WARNING = "warning: the statistics process did not answer within"

STOPPING_SCIPY = '''
"""scipy, except in benchsite's statistics process, which stops itself (SIGSTOP) on importing it."""
import importlib, os, signal, sys

def _in_the_statistics_process():
    frame = sys._getframe()
    while frame is not None:
        code = frame.f_code
        if code.co_name == "_serve" and code.co_filename.endswith("statproc.py"):
            return True
        frame = frame.f_back
    return False

if _in_the_statistics_process():
    os.kill(os.getpid(), signal.SIGSTOP)
_here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]
del sys.modules["scipy"]
sys.modules["scipy"] = importlib.import_module("scipy")
'''


def benchsite(*args: str | Path, shadow: Path | None = None) -> subprocess.CompletedProcess[str]:
    path = [str(shadow)] if shadow else []
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([*path, str(ROOT)])}
    command = [sys.executable, "-m", "generator", *map(str, args)]
    try:
        return subprocess.run(command, capture_output=True, text=True, env=env, timeout=GUARD, check=False)
    except subprocess.TimeoutExpired:
        pytest.fail(f"still running after {GUARD} s: benchsite {' '.join(map(str, args))}")


def shadowing(folder: Path, source: str) -> Path:
    (folder / "scipy").mkdir(parents=True)
    (folder / "scipy" / "__init__.py").write_text(source, encoding="utf-8")
    return folder


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    root = tmp_path / "runs"
    root.mkdir()
    made = benchsite("import", "inspect", *LOGS, "--into", root / "quiz")
    assert made.returncode == 0, made.stderr
    return root


def build(runs: Path, out: Path, shadow: Path | None = None) -> subprocess.CompletedProcess[str]:
    return benchsite(
        "build", "--runs", runs, "--out", out, "--site-version", "v1", "--no-cache", "--quiet", shadow=shadow
    )


@pytest.mark.slow
def test_a_stopped_statistics_process_is_given_up_once_and_the_site_is_the_same(
    runs: Path, tmp_path: Path
) -> None:
    normal = build(runs, tmp_path / "normal")
    assert normal.returncode == 0, normal.stderr
    assert WARNING not in normal.stderr
    shadow = shadowing(tmp_path / "shadow", STOPPING_SCIPY)
    stopped = build(runs, tmp_path / "stopped", shadow)
    assert stopped.returncode == 0, stopped.stderr
    assert stopped.stderr.count(WARNING) == 1, stopped.stderr
    assert snapshot(tmp_path / "stopped") == snapshot(tmp_path / "normal")


def test_a_stopped_process_is_stopped_and_the_question_answered_here(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(statproc, "ANSWER_SECONDS", 0.5)  # shortened here: the property is what follows
    statproc.start(always=True)
    try:
        running = statproc._running
        assert running is not None
        assert running.process.pid is not None
        os.kill(running.process.pid, signal.SIGSTOP)
        here = statproc.COMPUTATIONS["sign_p"](3, 11)
        assert statproc.ask("sign_p", 3, 11) == here
        assert statproc.ask("sign_p", 3, 11) == here
        assert not running.process.is_alive()
    finally:
        statproc.stop()
    assert capfd.readouterr().err.count(WARNING) == 1


def test_a_scipy_that_cannot_be_imported_is_a_clear_error(runs: Path, tmp_path: Path) -> None:
    shadow = shadowing(tmp_path / "broken", 'raise RuntimeError("this scipy is broken")\n')
    broken = build(runs, tmp_path / "site", shadow)
    assert broken.returncode == 2, broken.stderr
    assert "Traceback" not in broken.stderr
    assert "Error: scipy cannot be imported (RuntimeError: this scipy is broken)" in broken.stderr
    assert not (tmp_path / "site" / "v1").exists()
