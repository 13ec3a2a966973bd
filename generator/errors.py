"""One exception hierarchy; each class carries the exit code the CLI documents.

Anything raised outside this hierarchy is a bug in benchsite and may show a traceback.
Nothing a user can cause may.

The hierarchy imports no click, so the stages that raise it (scoring above all) do not either: the
CLI shows a :class:`BenchsiteError` as click shows its own exceptions (``Error: <message>`` on
stderr) and exits with the error's code (``cli.Commands``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Generic, TypeVar

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_REFUSED = 3
EXIT_INVALID = 4
EXIT_VERSION_CONFLICT = 5
EXIT_INCOMPARABLE = 13


@dataclass(frozen=True, order=True)
class Problem:
    """One thing wrong with one input, located as precisely as we can."""

    file: str
    """Path of the offending file (or folder), relative to the working directory as given."""
    where: str
    """JSON path, line number or seal entry inside the file; empty when the whole file is meant."""
    message: str
    """Why it is wrong, in words a producer can act on."""
    refused: bool = False
    """True for seal / immutability refusals (exit 3), False for invalid content (exit 4)."""

    def render(self) -> str:
        place = f"{self.file}: {self.where}" if self.where else self.file
        return printable(f"{place}: {self.message}")


T = TypeVar("T")


@dataclass(frozen=True)
class Result(Generic[T]):
    """What a step made (None when it could not) and the problems it found: the frozen value every
    step that can find a problem returns (a family's hooks, the JSON readers, the score stage's
    steps), and its caller takes with :meth:`Problems.take`. A value may come with problems (a
    family's state whose runs will be refused), and a step that cannot make one returns
    ``Result(None, (problem,))``."""

    value: T | None
    problems: tuple[Problem, ...] = ()


class Problems:
    """The problems a step collects as it goes: an append-only list, local to the step.

    ``take`` unpacks the :class:`Result` a callee returned, keeping its problems and returning its
    value, so a caller needs no temporary for the problems of each call; ``result`` freezes what the
    step made with every problem kept.
    """

    __slots__ = ("_found",)

    def __init__(self, problems: Iterable[Problem] = ()) -> None:
        self._found = list(problems)

    def append(self, problem: Problem) -> None:
        """Keep one problem."""
        self._found.append(problem)

    def extend(self, problems: Iterable[Problem]) -> None:
        """Keep every problem of ``problems``, in order."""
        self._found.extend(problems)

    def take(self, found: Result[T]) -> T | None:
        """The value of ``found``; its problems are kept."""
        self._found.extend(found.problems)
        return found.value

    def result(self, value: T | None) -> Result[T]:
        """``value`` with every problem kept so far, as a frozen :class:`Result`."""
        return Result(value, tuple(self._found))

    def as_list(self) -> list[Problem]:
        """A copy of every problem kept so far, in the order found."""
        return list(self._found)

    def __iter__(self) -> Iterator[Problem]:
        return iter(self._found)

    def __len__(self) -> int:
        return len(self._found)

    def __bool__(self) -> bool:
        return bool(self._found)


def printable(text: str) -> str:
    """One safe line: undecodable bytes and control characters escaped, never a crash on output."""
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return "".join(c if c.isprintable() or c == " " else c.encode("unicode_escape").decode() for c in text)


class BenchsiteError(Exception):
    """Base of every error a user can cause. ``exit_code`` is the documented process exit code."""

    exit_code = 1

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InputRefused(BenchsiteError):
    """An input is not sealed, or its seal does not hold (exit 3)."""

    exit_code = EXIT_REFUSED


class InvalidContent(BenchsiteError):
    """An input is sealed but its content is not valid (exit 4)."""

    exit_code = EXIT_INVALID


class VersionConflict(BenchsiteError):
    """A site version exists and was built from different inputs (exit 5)."""

    exit_code = EXIT_VERSION_CONFLICT


class OutputError(BenchsiteError):
    """The output location cannot be used (inside the inputs, unwritable, locked)."""

    exit_code = EXIT_USAGE


class DependencyError(BenchsiteError):
    """A library the build needs cannot be imported (a broken scipy): exit 2, a setup it cannot use."""

    exit_code = EXIT_USAGE


class Incomparable(BenchsiteError):
    """Two runs cannot be compared (exit 13)."""

    exit_code = EXIT_INCOMPARABLE


PER_FILE = 25
"""Problems printed per file; the rest are counted (a million-element array is one mistake)."""


def _capped(problems: list[Problem]) -> list[str]:
    lines: list[str] = []
    shown: dict[str, int] = {}
    for problem in problems:
        shown[problem.file] = shown.get(problem.file, 0) + 1
        if shown[problem.file] <= PER_FILE:
            lines.append(problem.render())
    for file, count in sorted(shown.items()):
        if count > PER_FILE:
            lines.append(f"{file}: … and {count - PER_FILE} more problem(s) in this file, not printed")
    return lines


class ProblemReport(BenchsiteError):
    """Every problem found in the inputs, printed one per line, then failing once."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems = sorted(set(problems))
        refused = sum(p.refused for p in self.problems)
        invalid = len(self.problems) - refused
        self.exit_code = EXIT_REFUSED if refused else EXIT_INVALID
        lines = _capped(self.problems)
        summary = f"{len(self.problems)} problem(s): {refused} refused input(s), {invalid} invalid content"
        verdict = "input refused (exit 3)" if refused else "invalid content (exit 4)"
        super().__init__("\n".join([*lines, f"{summary}; nothing was written; {verdict}"]))
