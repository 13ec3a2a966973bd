"""scipy's statistics answered by a process of their own, forked as a build starts (:func:`start`:
the command line forks it once the no-op check has failed, before it imports the build's modules).

``import scipy.stats`` costs about a second of CPU and 90 MB. A build asks its first question only
once every run is scored, so the process imports scipy on the second core while the build reads
and scores its inputs, and answers each question when it comes (:func:`ask`): plain numbers in,
plain numbers out, computed by the functions of :data:`COMPUTATIONS` with the same scipy, so the
same bits. The build's own process never imports scipy: a rebuild that changed one run does not
wait for the import, and its peak memory leaves scipy out.

Without the process (``verify``, a library caller, a process that imported ``scipy.stats`` already,
a platform without ``fork``), or in any other process than the one that started it (a forked worker
never shares its pipe), or when the process fails to answer (it raised, or is gone), a question is
computed where it is asked, as before: it raises or warns there exactly as scipy does. A process
that does not answer within :data:`ANSWER_SECONDS` (stopped, stuck) is stopped, and every later
question computed here, after one warning line on stderr. A scipy that cannot be imported here
either is a :class:`~generator.errors.DependencyError` (exit 2), never a traceback.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
from typing import Any

from generator.errors import DependencyError

COMPUTATIONS: dict[str, Callable[..., Any]] = {}
"""Every question the process answers, by name."""


def _computation(function: Callable[..., Any]) -> Callable[..., Any]:
    COMPUTATIONS[function.__name__] = function
    return function


@_computation
def clopper_pearson(successes: int, trials: int, confidence: float) -> tuple[float, float]:
    """The exact two-sided interval of successes/trials (``scipy.stats.binomtest``)."""
    from scipy.stats import binomtest

    ci = binomtest(successes, trials).proportion_ci(confidence_level=confidence, method="exact")
    return float(ci.low), float(ci.high)


@_computation
def sign_p(wins: int, trials: int) -> float:
    """The exact two-sided binomial p-value of ``wins`` in ``trials`` at p = 1/2."""
    from scipy.stats import binomtest

    return float(binomtest(wins, trials, 0.5).pvalue)


@_computation
def bh_adjusted(raw: Sequence[float]) -> list[float]:
    """Benjamini–Hochberg adjusted p-values (``scipy.stats.false_discovery_control``)."""
    from scipy.stats import false_discovery_control

    return [float(p) for p in false_discovery_control(list(raw), method="bh")]


@_computation
def normal_quantile(q: float) -> float:
    from scipy.stats import norm

    return float(norm.ppf(q))


@_computation
def fisher_p(table: Sequence[Sequence[int]]) -> float:
    """Fisher's exact test, two-sided, of a 2×2 table."""
    from scipy.stats import fisher_exact

    return float(fisher_exact([list(row) for row in table]).pvalue)


@_computation
def t_interval(confidence: float, df: int, loc: float, scale: float) -> tuple[float, float]:
    """The Student t interval (``scipy.stats.t.interval``)."""
    from scipy.stats import t as student_t

    low, high = student_t.interval(confidence, df, loc=loc, scale=scale)
    return float(low), float(high)


@_computation
def welch_p(mean1: float, sd1: float, n1: int, mean2: float, sd2: float, n2: int) -> float:
    """Welch's t-test, two-sided, from summary statistics (``scipy.stats.ttest_ind_from_stats``)."""
    from scipy.stats import ttest_ind_from_stats

    return float(ttest_ind_from_stats(mean1, sd1, n1, mean2, sd2, n2, equal_var=False).pvalue)


@_computation
def hypergeom_at_least_one(pool: int, favourable: int, draws: int) -> float:
    """P(X ≥ 1), X hypergeometric (``scipy.stats.hypergeom.sf(0, …)``)."""
    from scipy.stats import hypergeom

    return float(hypergeom.sf(0, pool, favourable, draws))


@_computation
def binomial_sf(k: int, n: int, p: float) -> float:
    """P(X > k), X ~ Bin(n, p) (``scipy.stats.binom.sf``)."""
    from scipy.stats import binom

    return float(binom.sf(k, n, p))


ANSWER_SECONDS = 30.0
"""How long a question waits for the process's answer: scipy's import (about a second of CPU) is
long done by the first question, and each answer takes milliseconds."""


class _Process:
    """The forked process and this process's end of its pipe."""

    def __init__(self) -> None:
        context = multiprocessing.get_context("fork")
        self.owner = os.getpid()
        self.pipe, theirs = context.Pipe()
        self.process = context.Process(target=_serve, args=(theirs, self.pipe), daemon=True)
        self.process.start()
        theirs.close()

    def ask(self, name: str, args: tuple[Any, ...]) -> tuple[bool, Any]:
        """(True, the answer), or (False, None) when the process did not give one. Anything that
        interrupts a question and its answer (an error, Ctrl-C) stops the process: a later question
        could otherwise read this one's answer."""
        try:
            self.pipe.send((name, args))
            if not self.pipe.poll(ANSWER_SECONDS):
                self.close()
                _warn(
                    f"the statistics process did not answer within {ANSWER_SECONDS:g} s (stopped?): "
                    "the statistics are computed in the build's own process"
                )
                return False, None
            answered: tuple[bool, Any] = self.pipe.recv()
        except Exception:
            self.close()
            return False, None
        except BaseException:
            self.close()
            raise
        return answered

    def close(self) -> None:
        """Stop it now, whatever it is doing (importing scipy still, when a build stops before its
        first question): it holds nothing a build needs."""
        self.pipe.close()
        self.process.kill()
        self.process.join()


def _warn(message: str) -> None:
    """One warning line on stderr, as the command line prints its own (this stage imports no click)."""
    print(f"warning: {message}", file=sys.stderr, flush=True)


def _serve(pipe: Connection, ours: Connection) -> None:
    """The process: import scipy.stats now, then answer every question until the pipe closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the build stops it by closing the pipe
    ours.close()
    try:
        import scipy.stats  # noqa: F401  (the point of the process: imported while the build scores)
    except Exception:
        return  # the build gets no answer, and computes each statistic itself (and says why it fails)

    while True:
        try:
            name, args = pipe.recv()
        except (EOFError, OSError):
            return
        try:
            answer: tuple[bool, Any] = (True, COMPUTATIONS[name](*args))
        except Exception:  # asked again where it is asked, which raises as scipy does
            answer = (False, None)
        pipe.send(answer)


_running: _Process | None = None


def start(always: bool = False) -> Callable[[], None]:
    """Fork the process (unless ``scipy.stats`` is imported here already, or fork is unavailable;
    ``always``: even then, for tests) and return what stops it."""
    global _running
    if _running is not None:
        return lambda: None
    if not always and ("scipy.stats" in sys.modules or "fork" not in multiprocessing.get_all_start_methods()):
        return lambda: None
    try:
        _running = _Process()
    except OSError:
        return lambda: None
    return stop


def stop() -> None:
    """Stop the process this process started (nothing when none runs)."""
    global _running
    running, _running = _running, None
    if running is not None and running.owner == os.getpid():
        running.close()


def ask(name: str, *args: Any) -> Any:
    """``COMPUTATIONS[name](*args)``: answered by the process when this process started it and it
    answers, else computed here."""
    running = _running
    if running is not None and running.owner == os.getpid():
        answered, answer = running.ask(name, args)
        if answered:
            return answer
    return _here(name, args)


def _here(name: str, args: tuple[Any, ...]) -> Any:
    """The question computed in this process, scipy imported first: one that cannot be is a
    :class:`DependencyError` naming it, not the traceback of whatever its import raised."""
    try:
        import scipy.stats  # noqa: F401
    except Exception as error:
        raise DependencyError(
            f"scipy cannot be imported ({type(error).__name__}: {error}): benchsite computes its "
            "statistics with it; reinstall it (pip install --force-reinstall scipy)"
        ) from None
    return COMPUTATIONS[name](*args)
