"""Strict JSON in, canonical JSON out.

Reading refuses what Python's ``json`` would quietly accept: duplicate object keys, NaN and
Infinity (as literals or as overflowing numbers such as ``1e400``), a byte-order mark and bytes
that are not UTF-8. Every refusal is a :class:`~generator.errors.Problem` with a place.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterator
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from functools import partial
from typing import Annotated, Any, NamedTuple, TypeVar, cast

import jiter
from pydantic import (
    BaseModel,
    BeforeValidator,
    Field,
    PlainSerializer,
    ValidationError,
    ValidationInfo,
    WithJsonSchema,
)

from generator.errors import Problem, Problems, Result
from generator.inputs.fastrows import RowDecoder

M = TypeVar("M", bound=BaseModel)


class _Refusal(ValueError):
    """Raised from inside the decoder hooks; turned into a Problem by the caller."""


class _DupDict(dict[str, Any]):
    """A JSON object that had at least one key twice; remembers which."""

    duplicates: tuple[str, ...] = ()


def _pairs(marked: list[_DupDict], pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """One decoded object; one with a duplicate key is also kept in ``marked`` (the parse's own list:
    a parse that marked none needs no walk)."""
    out = dict(pairs)
    if len(out) == len(pairs):
        return out
    seen: set[str] = set()
    dupes = []
    for key, _ in pairs:
        if key in seen:
            dupes.append(key)
        seen.add(key)
    dup = _DupDict(out)
    dup.duplicates = tuple(dupes)
    marked.append(dup)
    return dup


def _constant(name: str) -> float:
    raise _Refusal(f"{name} is not allowed: numbers must be finite")


class Written(float):
    """A JSON number with a fraction or an exponent: the binary float every model reads, remembering
    the literal's own text, so that a specification's number is the exact decimal its author wrote
    (:data:`Exact`), never the nearest float (``83.33333333333333334`` is not ``83.33333333333333``)."""

    text: str


def _float(text: str) -> float:
    value = Written(text)
    if not math.isfinite(value):
        raise _Refusal(f"number {text[:40]} overflows to infinity: numbers must be finite")
    value.text = text
    return value


PUBLISHED = {"published": True}
"""The validation context of a report benchsite published (``past.read_report``): there an exact
number no float holds is the text :func:`_spelled` wrote."""


def _exact(value: Any, info: ValidationInfo) -> int | Decimal:
    """A number read from a document as the exact decimal it was written as (a :class:`Written`
    float's text; an integer as it is); a float made in code by its shortest spelling; in a
    published report, the text :func:`_spelled` wrote. Other text, true/false and anything else
    are refused."""
    if isinstance(value, Written):
        return _placed(Decimal(value.text))
    if isinstance(value, str) and info.context == PUBLISHED:
        try:
            return _placed(Decimal(value))
        except InvalidOperation:
            raise ValueError("must be a number") from None
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
        raise ValueError("must be a number")
    if isinstance(value, int):
        return value
    exact = Decimal(repr(value)) if isinstance(value, float) else value
    if not exact.is_finite():
        raise ValueError("must be a finite number")
    return _placed(exact)


MAX_PLACES = 40
"""The most decimal places a rubric's or specification's number has (trailing zeros aside): its
exact text is what is published, so ``1e-999999`` (nine characters) would be a million digits."""


def _placed(value: Decimal) -> Decimal:
    places = -value.normalize().as_tuple().exponent  # type: ignore[operator]
    if places > MAX_PLACES:
        raise ValueError(f"has {places} decimal places: a number here has at most {MAX_PLACES}")
    return value


def _spelled(value: int | Decimal) -> int | float | str:
    """An exact number in JSON: an integer as written; a decimal as the float that spells it exactly
    (``0.5``, ``80.0``: the bytes a float field wrote before); one no float holds (a 20th significant
    digit) as the text of the exact decimal, so that JSON never states a number other than the one
    scored by."""
    if isinstance(value, int):
        return value
    near = float(value)
    return near if Decimal(repr(near)) == value else format(value, "f")


def _input_schema(low: int, high: int) -> dict[str, Any]:
    return {"type": "number", "minimum": low, "maximum": high}


def _published_schema(low: int, high: int) -> dict[str, Any]:
    return {"anyOf": [_input_schema(low, high), {"type": "string", "description": "an exact decimal"}]}


ExactNumber = Annotated[
    int | Decimal,
    BeforeValidator(_exact),
    Field(ge=0, le=1_000_000),
    PlainSerializer(_spelled, when_used="json"),
    WithJsonSchema(_input_schema(0, 1_000_000), mode="validation"),
    WithJsonSchema(_published_schema(0, 1_000_000), mode="serialization"),
]
"""A number a rubric or specification states, from 0 to a million: validated as ``int | Decimal``
from the literal's text, compared exactly, published by :func:`_spelled`."""

ExactShare = Annotated[
    int | Decimal,
    BeforeValidator(_exact),
    Field(ge=0, le=1),
    PlainSerializer(_spelled, when_used="json"),
    WithJsonSchema(_input_schema(0, 1), mode="validation"),
    WithJsonSchema(_published_schema(0, 1), mode="serialization"),
]
"""A share from 0 to 1 a rubric or specification states, exact as :data:`ExactNumber`."""


def exact_words(value: Fraction | int | Decimal) -> str:
    """An exact figure as a reader reads it: a terminating decimal written out in full (``1/8`` is
    0.125, ``0.50000000000000000001`` as it is), any other fraction as ``n/d`` (``1/3``): never a
    rounding that could read as another number."""
    fraction = Fraction(value)
    rest = fraction.denominator
    for prime in (2, 5):
        while rest % prime == 0:
            rest //= prime
    if rest != 1:
        return f"{fraction.numerator}/{fraction.denominator}"
    places = 0
    while (fraction * 10**places).denominator != 1:
        places += 1
    return plain_decimal(Decimal(fraction.numerator * 10**places // fraction.denominator).scaleb(-places))


def plain_decimal(value: int | Decimal) -> str:
    """An exact number as a reader writes it: every digit it was written with, no exponent, no
    trailing zeros (``80.0`` → ``80``, ``83.33333333333333334`` as it is)."""
    if isinstance(value, int):
        return str(value)
    try:
        text = format(value.normalize(), "f")
    except InvalidOperation:
        text = format(value, "f")
    return text


MAX_INT_DIGITS = 4300
"""The longest integer literal read: 4300 digits (what Python converts without lifting its limit)."""


class _LongInteger(_Refusal):
    """An integer literal past :data:`MAX_INT_DIGITS`; located by :func:`_long_place`."""


def _int(text: str) -> int:
    digits = len(text) - text.startswith("-")
    if digits > MAX_INT_DIGITS:
        raise _LongInteger(f"an integer of {digits} digits: a number may hold at most {MAX_INT_DIGITS}")
    return int(text)


_LONG_DIGITS = re.compile(rf"\d{{{MAX_INT_DIGITS + 1}}}")


def _long_place(text: str, where: str) -> str:
    """Line and column of the first run of digits longer than :data:`MAX_INT_DIGITS`."""
    match = _LONG_DIGITS.search(text)
    if match is None:
        return where
    offset = match.start()
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return f"{where} column {column}" if where else f"line {line} column {column}"


_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|NaN|-?Infinity|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?')
"""A string, a named constant or a whole number: each matched once from its first character, so
locating scans the text in one pass (never a backtracking match started inside a long number)."""


def _place(text: str, where: str) -> str:
    """Line and column of the first non-finite literal outside strings (the hooks cannot say)."""
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token[0] == '"' or not (token[-1].isalpha() or any(c in token for c in ".eE")):
            continue
        if token[-1].isalpha() or not math.isfinite(float(token)):
            offset = match.start()
            line = text.count("\n", 0, offset) + 1
            column = offset - (text.rfind("\n", 0, offset) + 1) + 1
            return f"{where} column {column}" if where else f"line {line} column {column}"
    return where


def json_path(loc: tuple[str | int, ...] | list[str | int]) -> str:
    """Render a location as a JSON path: ``$.tasks[2].id``."""
    out = "$"
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def _find_duplicates(value: Any, loc: tuple[str | int, ...]) -> Iterator[str]:
    if isinstance(value, dict):
        for key in getattr(value, "duplicates", ()):
            yield json_path((*loc, key))
        for key, child in value.items():
            yield from _find_duplicates(child, (*loc, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from _find_duplicates(child, (*loc, index))


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _find_surrogates(value: Any, loc: tuple[str | int, ...]) -> Iterator[str]:
    if isinstance(value, str):
        if _SURROGATE.search(value):
            yield json_path(loc)
    elif isinstance(value, dict):
        for key, child in value.items():
            if _SURROGATE.search(key):
                yield json_path((*loc, key))
            yield from _find_surrogates(child, (*loc, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from _find_surrogates(child, (*loc, index))


def decode_text(data: bytes, file: str) -> Result[str]:
    """Decode UTF-8 without a BOM, or say exactly where it fails."""
    if data.startswith(b"\xef\xbb\xbf"):
        return _failed(Problem(file, "byte 0", "starts with a UTF-8 byte-order mark; write plain UTF-8"))
    try:
        return Result(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        return _failed(Problem(file, f"byte {exc.start}", "is not valid UTF-8"))


def _failed(problem: Problem) -> Result[Any]:
    """No value, for one reason."""
    return Result(None, (problem,))


def parse_json(text: str, file: str, where: str = "") -> Result[Any]:
    """Parse one JSON document strictly: its value, or None and every problem found."""
    prefix = f"{where} " if where else ""
    marked: list[_DupDict] = []
    try:
        hook = partial(_pairs, marked)
        value = json.loads(
            text, object_pairs_hook=hook, parse_constant=_constant, parse_float=_float, parse_int=_int
        )
    except json.JSONDecodeError as exc:
        place = f"{where} column {exc.colno}" if where else f"line {exc.lineno} column {exc.colno}"
        return _failed(Problem(file, place, f"not valid JSON: {exc.msg}"))
    except _LongInteger as exc:
        return _failed(Problem(file, _long_place(text, where), str(exc)))
    except _Refusal as exc:
        return _failed(Problem(file, _place(text, where), str(exc)))
    except RecursionError:
        return _failed(Problem(file, where, _TOO_DEEP))
    except ValueError as exc:  # e.g. an integer literal longer than Python's digit limit
        return _failed(Problem(file, where, f"not valid JSON: {exc}"))
    try:
        problems = _duplicates_and_surrogates(value, text, file, prefix, bool(marked))
    except RecursionError:
        return _failed(Problem(file, where, _TOO_DEEP))
    return Result(None if problems else value, tuple(problems))


_TOO_DEEP = "JSON nesting is too deep"


def _duplicates_and_surrogates(value: Any, text: str, file: str, prefix: str, marked: bool) -> list[Problem]:
    problems: list[Problem] = []
    for path in _find_duplicates(value, ()) if marked else ():
        place = f"{prefix}{path}"
        problems.append(Problem(file, place, "duplicate key: every key may appear once"))
    if _SURROGATE_ESCAPE.search(text):
        for path in _find_surrogates(value, ()):
            problems.append(Problem(file, f"{prefix}{path}", "lone UTF-16 surrogate escape: not text"))
    return problems


MAX_DOCUMENT_BYTES = 16 << 20
"""A whole-file JSON document (a declaration, a contract, a run's facts, one scenario): 16 MiB. Parsed
as one value it costs many times its size in memory; rows belong in a JSON Lines file."""


def load_json_bytes(data: bytes, file: str) -> Result[Any]:
    """Decode and parse one JSON file's bytes. Every file benchsite reads holds an object, so a
    document that is ``null`` is a problem too (never a silently missing file)."""
    if len(data) > MAX_DOCUMENT_BYTES:
        reason = f"the document is {len(data)} bytes: a JSON document may hold at most {MAX_DOCUMENT_BYTES}"
        return _failed(Problem(file, "", reason + " bytes (rows belong in a JSON Lines file)"))
    text = decode_text(data, file)
    if text.value is None:
        return text
    parsed = parse_json(text.value, file)
    if parsed.value is None and not parsed.problems:
        return _failed(Problem(file, "$", "the document is null: expected a JSON object"))
    return parsed


def load_model(model: type[M], data: bytes, file: str) -> Result[M]:
    """One JSON file's bytes decoded, parsed and validated against ``model``: the steps above, each
    only when the one before it succeeded."""
    raw = load_json_bytes(data, file)
    if raw.value is None:
        return Result(None, raw.problems)
    return validate_model(model, raw.value, file)


MAX_ROW_CHARS = 1 << 20
"""A JSON Lines row holds one attempt, trial or episode: beyond 1 MiB it is refused, not scored (a row
with a million checks is not a result anyone could review, and would cost minutes to render)."""


class _Line(NamedTuple):
    """One non-empty line of a JSON Lines file: its number, its text, and its parsed value."""

    number: int
    text: str
    parsed: Result[Any]


_NUMBER_SHAPES = bytes(
    ord("0") if chr(b).isdigit() and b < 128 else ord("e") if b in b"eE" else b if b in b"+-" else ord(" ")
    for b in range(256)
)
"""A ``bytes.translate`` table keeping only the shape of numbers: each digit ``0``, each exponent
mark ``e``, the signs; anything else a space."""

_OVERFLOW_SHAPES = (b"0e000", b"0e+000", b"0" * 200)
"""What any number that overflows to infinity or passes Python's limit on integer digits has, in
that shape: an exponent of three digits or more after a digit, or a run of 200 digits (an exponent
of two digits lifts at most 99 places, so an overflowing one has over 209)."""


def _cannot_overflow(data: bytes) -> bool:
    """Whether no number in ``data`` can overflow: none has the shapes above (text inside strings
    may have them too; that only costs the careful parse)."""
    shapes = data.translate(_NUMBER_SHAPES)
    return not any(shape in shapes for shape in _OVERFLOW_SHAPES)


def _parse_row(line: str, file: str, where: str) -> Result[Any]:
    """One row parsed as :func:`parse_json` would, faster: jiter, which refuses duplicate keys, NaN,
    Infinity and every syntax error but reads an overflowing number as infinity, parses a row of a
    file that :func:`_cannot_overflow`; a row it refuses, or one with a surrogate escape, is parsed
    by ``parse_json``, which says where and why (or accepts what jiter's nesting limit refused)."""
    if not _SURROGATE_ESCAPE.search(line):
        try:
            value = jiter.from_json(
                line.encode(), allow_inf_nan=False, catch_duplicate_keys=True, cache_mode="none"
            )
        except ValueError:
            pass
        else:
            return Result(value)
    return parse_json(line, file, where)


def _jsonl_lines(data: bytes, file: str) -> Iterator[_Line]:
    return (_parsed(row, file) for row in _rows(data, file))


_Parse = Callable[[str, str, str], Result[Any]]


class _Row(NamedTuple):
    """One non-empty line of a JSON Lines file, before it is parsed: its number, its text and the
    strict parse it takes (None for a file that is not UTF-8, whose problem is ``refused``)."""

    number: int
    text: str
    parse: _Parse | None
    refused: Result[Any] | None = None


def _rows(data: bytes, file: str) -> Iterator[_Row]:
    text = decode_text(data, file)
    if text.value is None:
        yield _Row(0, "", None, text)
        return
    parse = _parse_row if _cannot_overflow(data) else parse_json
    for number, line in enumerate(text.value.split("\n"), start=1):
        if line.strip():
            yield _Row(number, line, parse)


def _parsed(row: _Row, file: str) -> _Line:
    """One row strictly parsed: its value, or where and why not."""
    if row.parse is None:
        return _Line(row.number, row.text, row.refused or Result(None))
    if len(row.text) > MAX_ROW_CHARS:
        reason = f"the row is {len(row.text)} characters long: a row may hold at most {MAX_ROW_CHARS}"
        return _Line(row.number, row.text, _failed(Problem(file, f"line {row.number}", reason)))
    return _Line(row.number, row.text, row.parse(row.text, file, f"line {row.number}"))


def _fast(fast: RowDecoder | None, row: _Row) -> object | None:
    """The row by the model's compiled fast path, if it has one and the row is one it may take."""
    if fast is None or row.parse is None or len(row.text) > MAX_ROW_CHARS:
        return None
    if _SURROGATE_ESCAPE.search(row.text) is not None:
        return None
    return fast(row.text)


def iter_models(data: bytes, file: str, model: type[M], problems: Problems) -> Iterator[tuple[int, M]]:
    """Each valid line of a JSON Lines file as (line number, model); every problem into ``problems``.
    A model with a compiled fast path (``fast_row``) has each row tried by it first: what it accepts
    comes as an object with the model's attributes and values; the rest takes the strict path, which
    accepts a row or says why not, in the same words as before."""
    fast: RowDecoder | None = getattr(model, "fast_row", None)
    for row in _rows(data, file):
        decoded = _fast(fast, row)
        if decoded is not None:
            yield row.number, cast(M, decoded)  # same attributes, same values: test_fast_decode
            continue
        parsed = _model_line(_parsed(row, file), file, model, problems)
        if parsed is not None:
            yield row.number, parsed


def _model_line(line: _Line, file: str, model: type[M], problems: Problems) -> M | None:
    """One row by the strict path: parsed, then validated by the model; problems into ``problems``."""
    where = f"line {line.number}"
    if problems.take(line.parsed) is None:
        if not line.parsed.problems:
            problems.append(Problem(file, where, "the row is null: expected a JSON object"))
        return None
    return problems.take(_validate_line(model, line.text, file, where))


def validate_model(model: type[M], value: Any, file: str, where: str = "") -> Result[M]:
    """Validate parsed JSON against a model; each pydantic error becomes a located Problem."""
    try:
        return Result(model.model_validate(_tuples(value)))
    except ValidationError as exc:
        return Result(None, _problems(exc, file, where))
    except RecursionError:
        return _failed(Problem(file, where, _TOO_DEEP))


def _validate_line(model: type[M], line: str, file: str, where: str) -> Result[M]:
    """A row the strict parse accepted, validated from its text: pydantic reads JSON arrays as the
    models' tuples itself, so the row is not rebuilt in Python first (the hot path of a build)."""
    try:
        return Result(model.model_validate_json(line))
    except ValidationError as exc:
        return Result(None, _problems(exc, file, where))


def _problems(exc: ValidationError, file: str, where: str) -> tuple[Problem, ...]:
    problems = []
    for error in exc.errors(include_url=False):
        path = json_path(tuple(error["loc"]))
        problems.append(Problem(file, f"{where} {path}" if where else path, _message(error)))
    return tuple(problems)


def _tuples(value: Any) -> Any:
    """JSON arrays as tuples, so strict models (tuples inside frozen models) accept them."""
    if isinstance(value, list):
        return tuple(_tuples(v) for v in value)
    if isinstance(value, dict):
        return {k: _tuples(v) for k, v in value.items()}
    return value


def _message(error: Any) -> str:
    message = str(error["msg"])
    if error["type"] == "extra_forbidden":
        return "unknown field (not in the documented schema)"
    if error["type"] == "missing":
        return "required field is missing"
    return message.removeprefix("Value error, ")
