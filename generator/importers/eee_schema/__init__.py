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

AGGREGATE_VERSIONS = frozenset({"0.2.2"})
"""``schema_version`` values of aggregate records read with ``eval.schema.json``."""
INSTANCE_VERSIONS = frozenset({"0.2.2", "instance_level_eval_0.2.2"})
"""``schema_version`` values of instance records read with ``instance_level_eval.schema.json``: EEE's
converters write the aggregate's version, its schema and README name the longer form."""

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


class _Refused(ValueError):
    """A JSON text json.loads would accept but a record may not hold."""


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise _Refused(f"duplicate key {key!r}: every key may appear once")
        found[key] = value
    return found


def _constant(name: str) -> Any:
    raise _Refused(f"{name} is not a JSON number")


def _parse(text: str, file: str, where: str) -> Result[Any]:
    try:
        value = json.loads(
            text, object_pairs_hook=_pairs, parse_float=Float, parse_int=Integer, parse_constant=_constant
        )
    except json.JSONDecodeError as exc:
        place = f"{where} column {exc.colno}" if where else f"line {exc.lineno} column {exc.colno}"
        return Result(None, (Problem(file, place, f"not valid JSON: {exc.msg}"),))
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


def _version_problem(
    value: Any, known: frozenset[str], schema: str, file: str, prefix: str
) -> Problem | None:
    if not isinstance(value, dict) or "schema_version" not in value or value["schema_version"] in known:
        return None
    message = (
        f"schema version {value['schema_version']!r} is not one benchsite reads (it reads "
        f"{', '.join(sorted(known))}, {schema}); convert the record with Every Eval Ever 0.2.2"
    )
    return Problem(file, f"{prefix}$.schema_version", message)


def _record(value: Any, known: frozenset[str], schema: str, file: str, prefix: str) -> Result[dict[str, Any]]:
    version = _version_problem(value, known, schema, file, prefix)
    if version is not None:
        return Result(None, (version,))
    problems = _violations(schema, value, file, prefix)
    return Result(None if problems else value, tuple(problems))


def aggregate_record(data: bytes, file: str) -> Result[dict[str, Any]]:
    """An aggregate record (one JSON document), parsed, version-checked and schema-valid."""
    text = _decode(data, file)
    if text.value is None:
        return Result(None, text.problems)
    value = _parse(text.value, file, "")
    if value.problems:
        return Result(None, value.problems)
    return _record(value.value, AGGREGATE_VERSIONS, "eval.schema.json", file, "")


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
        record = _record(value.value, INSTANCE_VERSIONS, "instance_level_eval.schema.json", file, f"{where} ")
        problems.extend(record.problems)
        if record.value is not None:
            rows.append(Row(file, number, record.value))
    if not lines:
        problems.append(Problem(file, "", "holds no instance records"))
    return Result(None if problems else tuple(rows), tuple(problems))
