"""Every Eval Ever's JSON Schemas (vendored, SOURCE.md) and the strict reading of records against them.

A record is parsed strictly (UTF-8 without a BOM, no duplicate key, no NaN or Infinity), its
``schema_version`` checked first (a record of another version gets one clear problem, not a flood
of schema errors), then validated by the draft its schema declares; every violation is a
:class:`Problem` with its JSON path (``line N $.path`` in an instance file). Numbers keep the
producer's text: a JSON number with a fraction or exponent reads as a :class:`Decimal` carrying it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any, Protocol, cast

import jsonschema  # type: ignore[import-untyped]  # no py.typed: wrapped by _Validator below

from generator.errors import Problem, Result
from generator.importers import reading
from generator.importers.reading import DuplicateKey, object_once


@dataclass(frozen=True)
class Version:
    """One schema version benchsite reads: the vendored JSON Schema of each kind of record."""

    aggregate: str
    """The aggregate record's schema file (``eval.schema.json`` of that version)."""
    instance: str
    """The instance record's schema file (``instance_level_eval.schema.json`` of that version)."""


VERSIONS = {
    "0.2.2": Version("eval-0.2.2.schema.json", "instance_level_eval-0.2.2.schema.json"),
    "0.3.0": Version("eval-0.3.0.schema.json", "instance_level_eval-0.3.0.schema.json"),
}
"""``schema_version`` → its schemas (SOURCE.md names where each file comes from)."""
INSTANCE_ALIASES = {"instance_level_eval_0.2.2": "0.2.2"}
"""Other spellings of an instance record's version: EEE's converters write the aggregate's version,
the 0.2.2 schema and README name the longer form."""
UNPUBLISHED = frozenset({"0.2.0", "0.2.1"})
"""Versions EEE never published a JSON Schema of (the every-eval-ever package starts at 0.2.2, and
the repository held several different files each saying 0.2.1): a record of one cannot be checked."""

_MESSAGE_LIMIT = 300


class Float(Decimal):
    """A JSON number with a fraction or exponent: its exact value and the text the producer wrote."""

    text: str

    def __new__(cls, text: str) -> Float:
        number = super().__new__(cls, text)
        number.text = text
        return number


class Integer(int):
    """A JSON integer and the text the producer wrote (``-0`` stays ``-0``)."""

    text: str

    def __new__(cls, text: str) -> Integer:
        number = super().__new__(cls, text)
        number.text = text
        return number


def number_text(value: object) -> str:
    """The producer's own text of a JSON number read here."""
    if isinstance(value, Float | Integer):
        return value.text
    raise TypeError(f"not a number read by eee_schema: {value!r}")


@dataclass(frozen=True)
class Row:
    """One instance record: its file, 1-based line and validated value."""

    file: str
    line: int
    record: dict[str, Any]
    version: str
    """The record's schema version, in the aggregate's spelling (``0.2.2``, ``0.3.0``)."""
    null_result_id: bool = False
    """The record wrote ``evaluation_result_id: null`` (EEE's own 0.2.2 lm-eval converter does,
    though its schema allows only a string): read as absent, and the run says so."""


class _Refused(ValueError):
    """A JSON text json.loads would accept but a record may not hold."""


def _constant(name: str) -> Any:
    raise _Refused(f"{name} is not a JSON number")


def _parse(text: str, file: str, where: str) -> Result[Any]:
    try:
        value = json.loads(
            text,
            object_pairs_hook=object_once,
            parse_float=Float,
            parse_int=Integer,
            parse_constant=_constant,
        )
    except json.JSONDecodeError as exc:
        place = f"{where} column {exc.colno}" if where else f"line {exc.lineno} column {exc.colno}"
        return Result(None, (Problem(file, place, f"not valid JSON: {exc.msg}"),))
    except DuplicateKey as exc:
        message = f"not valid JSON: duplicate key {exc.key!r}: every key may appear once"
        return Result(None, (Problem(file, where, message),))
    except (_Refused, ValueError, RecursionError) as exc:
        return Result(None, (Problem(file, where, f"not valid JSON: {exc}"),))
    return Result(value)


def _decode(data: bytes, file: str) -> Result[str]:
    if data.startswith(b"\xef\xbb\xbf"):
        return Result(
            None, (Problem(file, "byte 0", "starts with a UTF-8 byte-order mark; write plain UTF-8"),)
        )
    try:
        return Result(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        return Result(None, (Problem(file, f"byte {exc.start}", "is not valid UTF-8"),))


def read_bytes(path: Path) -> Result[bytes]:
    """A file's bytes within the build's cap, or why they cannot be read."""
    return reading.read_file(path)


class _Error(Protocol):
    """What is used of a ``jsonschema.ValidationError``."""

    message: str
    validator: str
    absolute_path: Any


class _Validator(Protocol):
    def iter_errors(self, instance: Any) -> Iterator[_Error]: ...


def _is_integer(checker: Any, instance: object) -> bool:
    """JSON Schema's integer (draft 6 on): ``5`` and ``5.0`` alike; never a boolean."""
    if isinstance(instance, bool):
        return False
    return isinstance(instance, int) or (
        isinstance(instance, Decimal) and instance == instance.to_integral_value()
    )


@cache
def validator(name: str) -> _Validator:
    """The validator of a vendored schema, by the draft its ``$schema`` declares."""
    schema = json.loads(files(__name__).joinpath(name).read_text(encoding="utf-8"))
    base = jsonschema.validators.validator_for(schema)
    base.check_schema(schema)
    checker = base.TYPE_CHECKER.redefine("integer", _is_integer)
    return cast(_Validator, jsonschema.validators.extend(base, type_checker=checker)(schema))


def _path(parts: Any) -> str:
    out = "$"
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def _message(error: _Error) -> str:
    if error.validator in {"oneOf", "anyOf"}:
        return f"matches none of the alternatives the schema allows here ({error.validator})"
    text = error.message
    return text if len(text) <= _MESSAGE_LIMIT else f"{text[:_MESSAGE_LIMIT]}…"


def _violations(schema: str, value: Any, file: str, prefix: str) -> list[Problem]:
    errors = sorted(validator(schema).iter_errors(value), key=lambda error: _path(error.absolute_path))
    return [Problem(file, f"{prefix}{_path(error.absolute_path)}", _message(error)) for error in errors]


def _version_problem(value: Any, version: str | None, file: str, prefix: str) -> Problem | None:
    if not isinstance(value, dict) or "schema_version" not in value or version in VERSIONS:
        return None
    written = value["schema_version"]
    known = ", ".join(sorted(VERSIONS))
    if written in UNPUBLISHED:
        message = (
            f"schema version {written!r} has no JSON Schema EEE published (every-eval-ever's schemas "
            f"start at 0.2.2), so the record cannot be checked: benchsite reads {known}; convert the "
            "producer's output again with every-eval-ever 0.3.0"
        )
    else:
        message = (
            f"schema version {written!r} is not one benchsite reads (it reads {known}, the versions "
            "whose JSON Schemas it ships); convert the record with every-eval-ever 0.3.0"
        )
    return Problem(file, f"{prefix}$.schema_version", message)


def _schemas(version: str | None) -> Version:
    """The schemas of ``version``; the newest for a record that names none (which they refuse)."""
    return VERSIONS.get(version or "", VERSIONS[max(VERSIONS)])


def _version_of(value: Any, aliases: dict[str, str]) -> str | None:
    written = value.get("schema_version") if isinstance(value, dict) else None
    return aliases.get(written, written) if isinstance(written, str) else None


def aggregate_record(data: bytes, file: str) -> Result[dict[str, Any]]:
    """An aggregate record (one JSON document), parsed, version-checked and valid under the schema
    of its own version."""
    text = _decode(data, file)
    if text.value is None:
        return Result(None, text.problems)
    value = _parse(text.value, file, "")
    if value.problems:
        return Result(None, value.problems)
    version = _version_of(value.value, {})
    problem = _version_problem(value.value, version, file, "")
    if problem is not None:
        return Result(None, (problem,))
    problems = _violations(_schemas(version).aggregate, value.value, file, "")
    return Result(None if problems else value.value, tuple(problems))


def _row(value: Any, file: str, number: int) -> Result[Row]:
    """One instance line's value: version-checked, a null ``evaluation_result_id`` dropped, valid
    under the instance schema of its own version."""
    where = f"line {number} "
    version = _version_of(value, INSTANCE_ALIASES)
    problem = _version_problem(value, version, file, where)
    if problem is not None:
        return Result(None, (problem,))
    nulled = (
        isinstance(value, dict) and "evaluation_result_id" in value and value["evaluation_result_id"] is None
    )
    if nulled:
        value = {key: item for key, item in value.items() if key != "evaluation_result_id"}
    problems = _violations(_schemas(version).instance, value, file, where)
    if problems:
        return Result(None, tuple(problems))
    return Result(Row(file, number, value, version or "", nulled))


def instance_rows(data: bytes, file: str) -> Result[tuple[Row, ...]]:
    """Every instance record of a JSONL file (one object a line, no blank line), each schema-valid."""
    text = _decode(data, file)
    if text.value is None:
        return Result(None, text.problems)
    lines = text.value.split("\n")
    if lines[-1] == "":
        lines.pop()
    problems: list[Problem] = []
    rows: list[Row] = []
    for number, line in enumerate(lines, start=1):
        where = f"line {number}"
        if not line.strip():
            problems.append(Problem(file, where, "is blank: an instance file holds one record a line"))
            continue
        value = _parse(line, file, where)
        if value.problems:
            problems.extend(value.problems)
            continue
        row = _row(value.value, file, number)
        problems.extend(row.problems)
        if row.value is not None:
            rows.append(row.value)
    if not lines:
        problems.append(Problem(file, "", "holds no instance records"))
    return Result(None if problems else tuple(rows), tuple(problems))
