"""lm-eval's JSON as exact text, and its samples files (``samples_<task>_<timestamp>.jsonl``) read
into observations: the per-sample layer of :mod:`generator.importers.lm_eval_results`.

A samples line is one (doc, filter): its ``doc_id``, the ``filter`` that made its value (lm-eval 0.4
files of 2024 write no ``filter``: such a line is of the task's one filter) and one key per metric
(``"acc": 1.0``). A metric whose per-sample value is a list (``f1`` or ``bleu`` as a
[gold, prediction] pair) is corpus-level: lm-eval scores it only over the whole task, so no sample
passes or fails by it. Numbers are kept as their JSON text (:class:`Number`) and compared as exact
decimals, never as floats.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from generator.errors import Problem, Problems, Result
from generator.importers.model import CheckState, Observation
from generator.importers.reading import DuplicateKey, object_once

Line = tuple[int, dict[str, Any]]
"""A samples line: its 1-based number in the file and its object."""


@dataclass(frozen=True)
class Number:
    """A JSON number with a fraction or exponent, kept as the file wrote it."""

    text: str

    @property
    def value(self) -> Decimal:
        return Decimal(self.text)


def parse(data: bytes, file: str, where: str) -> Result[object]:
    """One JSON document, numbers with a fraction (and NaN, Infinity) as :class:`Number`.
    ``where`` names the line of a JSONL file; a whole file's place is the error's line and column."""
    try:
        text = data.decode("utf-8")
        value = json.loads(text, parse_float=Number, parse_constant=Number, object_pairs_hook=object_once)
        return Result(value)
    except DuplicateKey as exc:
        message = f"not valid JSON: the key {exc.key!r} twice in one object"
        return Result(None, (Problem(file, where, message),))
    except UnicodeDecodeError as exc:
        return Result(None, (Problem(file, where or f"byte {exc.start}", "is not valid UTF-8"),))
    except json.JSONDecodeError as exc:
        place = f"{where} column {exc.colno}" if where else f"line {exc.lineno} column {exc.colno}"
        return Result(None, (Problem(file, place, f"not valid JSON: {exc.msg}"),))
    except RecursionError:
        return Result(None, (Problem(file, where, "not valid JSON: nested too deeply"),))
    except ValueError as exc:  # an integer literal longer than Python's digit limit
        return Result(None, (Problem(file, where, f"not valid JSON: {exc}"),))


def text(value: object) -> str:
    """A JSON value as text: a number as written, text as is, anything else as compact JSON."""
    if isinstance(value, Number):
        return value.text
    if isinstance(value, str):
        return value
    return json.dumps(value, default=text, separators=(",", ":"))


def decimal(value: object) -> Decimal | None:
    if isinstance(value, Number):
        try:
            return value.value
        except InvalidOperation:
            return None
    if isinstance(value, int) and not isinstance(value, bool):
        return Decimal(value)
    return None


def count(value: object) -> int | None:
    """``value`` when it is a JSON integer ≥ 0, else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def lines(path: Path, data: bytes) -> Result[tuple[Line, ...]]:
    """Every non-blank line of a samples file as an object with a text ``filter`` or none."""
    problems = Problems()
    found: list[Line] = []
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if not raw.strip():
            continue
        where = f"line {number}"
        line = problems.take(parse(raw, str(path), where))
        if line is None:
            continue
        if not isinstance(line, dict):
            problems.append(Problem(str(path), where, "is not a JSON object"))
        elif "filter" in line and not isinstance(line["filter"], str):
            problems.append(Problem(str(path), f"{where}: filter", "not text"))
        else:
            found.append((number, line))
    return problems.result(tuple(found))


def of_filter(found: Iterable[Line], filter_: str) -> list[Line]:
    """The lines of ``filter_``; a line without a filter (lm-eval 0.4 of 2024) is of every one."""
    return [(number, line) for number, line in found if line.get("filter", filter_) == filter_]


def per_sample(value: object) -> bool:
    """Whether a line's value of a metric decides its sample (a number, true/false or null), not a
    corpus-level metric's list (a [gold, prediction] pair)."""
    return not isinstance(value, list | dict)


def corpus_level(found: list[Line], metric: str) -> Line | None:
    """The first line whose value of ``metric`` is corpus-level, if any."""
    return next(((n, line) for n, line in found if metric in line and not per_sample(line[metric])), None)


def per_sample_metrics(line: dict[str, Any], metrics: Iterable[str]) -> list[str]:
    """The metrics among ``metrics`` (in their order) whose value on ``line`` decides a sample."""
    return [name for name in metrics if name in line and per_sample(line[name])]


def success(threshold: Decimal | None) -> str:
    """The rule that made every check state, in words (:attr:`Imported.success`)."""
    values = (
        "true or exactly 1 is a pass, false or exactly 0 a fail (any other number is refused)"
        if threshold is None
        else f"true is a pass, false a fail, and a number is a pass when it is at least {threshold}"
    )
    return (
        f"lm-eval's own per-sample value of each task's metric, from its samples file (the lines of the "
        f"metric's filter): {values}; null or NaN is not evaluable. lm-eval records no per-sample "
        "errors: every sample it logged completed, and a planned doc without a line is missing. "
        "The plan is docs 0 to n-samples.effective - 1 of each task, one epoch."
    )


@dataclass(frozen=True)
class Rule:
    """What turns a samples line into a check state: the check, its metric's filter, the threshold."""

    check: str
    filter: str
    threshold: Decimal | None

    @property
    def metric(self) -> str:
        return self.check.partition(",")[0]


def observations(path: Path, found: list[Line], rule: Rule, size: int) -> Result[tuple[Observation, ...]]:
    """One observation per line of the rule's filter, in doc order; every line is checked."""
    problems = Problems()
    seen: dict[int, tuple[int, Observation]] = {}
    for number, line in found:
        doc_id = problems.take(_doc_id(path, number, line, size, seen))
        observation = problems.take(_observation(path, number, line, rule))
        if doc_id is not None and observation is not None:
            seen[doc_id] = (number, observation)
    ordered = tuple(seen[doc_id][1] for doc_id in sorted(seen))
    return problems.result(ordered)


def _doc_id(
    path: Path, number: int, line: dict[str, Any], size: int, seen: dict[int, tuple[int, Observation]]
) -> Result[int]:
    where = f"line {number}: doc_id"
    doc_id = count(line.get("doc_id"))
    if doc_id is None:
        message = f"{text(line.get('doc_id'))} is not a doc id (an integer ≥ 0)"
        return Result(None, (Problem(str(path), where, message),))
    if doc_id >= size:
        message = f"{doc_id} is outside the plan (doc ids 0 to {size - 1}: n-samples.effective is {size})"
        return Result(None, (Problem(str(path), where, message),))
    if doc_id in seen:
        message = f"{doc_id} again: line {seen[doc_id][0]} has it too (same filter)"
        return Result(None, (Problem(str(path), where, message),))
    return Result(doc_id)


def _observation(path: Path, number: int, line: dict[str, Any], rule: Rule) -> Result[Observation]:
    where = f"line {number}: {rule.metric}"
    if rule.metric not in line:
        listed = line.get("metrics")
        names = listed if isinstance(listed, list) else []
        has = ", ".join(name for name in names if isinstance(name, str)) or "none listed"
        return Result(None, (Problem(str(path), where, f"missing; the line's metrics: {has}"),))
    value = line[rule.metric]
    state = _state(value, rule.threshold)
    if isinstance(state, Problem):
        return Result(None, (Problem(str(path), where, state.message),))
    values = [(rule.check, text(value))]
    if isinstance(line.get("doc_hash"), str):
        values.append(("doc_hash", line["doc_hash"]))
    observation = Observation(
        sample_id=text(line.get("doc_id")),
        epoch=1,
        terminal="completed",
        checks=((rule.check, state),),
        values=tuple(values),
    )
    return Result(observation)


def _state(value: object, threshold: Decimal | None) -> CheckState | Problem:
    """The rule of :func:`success` for one value; a Problem (place left empty) when it cannot apply."""
    if isinstance(value, bool):
        return "pass" if value else "fail"
    if value is None:
        return "not_evaluable"
    number = decimal(value)
    if number is None:
        return Problem("", "", f"{text(value)} is not a number or true/false")
    if number.is_nan():
        return "not_evaluable"
    if threshold is not None:
        return "pass" if number >= threshold else "fail"
    if number in (0, 1):
        return "pass" if number == 1 else "fail"
    return Problem("", "", f"{text(value)} is neither 0 nor 1: give a threshold to read it as pass / fail")
