"""One inspect_ai log file (``.json`` or the zipped ``.eval``, log format 2) read as JSON records.

Read by the documented format, never by importing inspect_ai (an optional tool, not a dependency):

* ``.json``: one object ``{version, status, eval, plan, results, stats, error, samples, reductions}``.
* ``.eval``: a zip; ``header.json`` holds the same object without ``samples``; each sample record is a
  member ``samples/<id>_epoch_<n>.json`` (an id with a ``/`` makes a sub-folder, so records are
  told apart by their content, not their member name). A log still being written has no
  ``header.json`` yet, only ``_journal/start.json`` (``{version, eval, plan}``): its status is
  ``started``. inspect_ai 0.3.285 compresses members with zstd (zip method 93), which Python's
  ``zipfile`` reads only from 3.14: those members are decompressed here with the standard library's
  ``compression.zstd`` when present, else the ``zstandard`` package, and checked against their CRC.

Every problem names the log, the zip member (in an ``.eval``) and the JSON path. What the records
mean (the plan, the checks, the figures) is :mod:`generator.importers.inspect_log`'s.
"""

from __future__ import annotations

import io
import json
import struct
import sys
import zipfile
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, BinaryIO

from generator.errors import Problem, Problems, Result
from generator.importers import reading
from generator.importers.reading import DuplicateKey, object_once

LOG_VERSION = 2
"""The only inspect_ai log format this reader knows (a log without ``version`` is read as it)."""
ZIP_ZSTD = 93


@dataclass(frozen=True)
class Number:
    """A JSON number with a fraction or exponent (or NaN / Infinity), kept as the text written."""

    text: str


@dataclass(frozen=True)
class Place:
    """Where a value sits: the zip member ('' in a ``.json`` log) and the JSON path inside it."""

    member: str = ""
    path: str = ""

    def at(self, key: str | int) -> Place:
        step = f"[{key}]" if isinstance(key, int) else (f".{key}" if self.path else key)
        return Place(self.member, self.path + step)

    def __str__(self) -> str:
        return ": ".join(part for part in (self.member, self.path) if part)


@dataclass(frozen=True)
class Record:
    """One JSON object of a log and its place."""

    data: Mapping[str, Any]
    place: Place


@dataclass(frozen=True)
class Log:
    """One log file as read: its header (``eval``, ``results``…), status, and sample records."""

    path: Path
    data: bytes
    header: Record
    status: str
    samples: tuple[Record, ...]


class Unreadable(Exception):
    """A zip member that cannot be read; caught inside this module and reported as a problem."""


def problem(path: Path, place: Place | str, message: str) -> Problem:
    return Problem(str(path), str(place), message)


def load(path: Path) -> Result[Log]:
    data = reading.read_file(path)
    if data.value is None:
        return Result(None, data.problems)
    return _load_bytes(path, data.value)


def _load_bytes(path: Path, data: bytes) -> Result[Log]:
    zipped = path.suffix == ".eval" or data.startswith(b"PK\x03\x04")
    loaded = _load_eval(path, data) if zipped else _load_json(path, data)
    header = loaded.value.header if loaded.value else None
    if header is None or header.data.get("version", LOG_VERSION) == LOG_VERSION:
        return loaded  # no version: inspect_ai's own reader takes format 2, and so does this one
    version = header.data.get("version")
    message = f"log format version {version!r}: this reader knows inspect_ai's format {LOG_VERSION}"
    return Result(None, (problem(path, header.place.at("version"), message),))


def _parse(data: bytes) -> Any:
    return json.loads(data, parse_float=Number, parse_constant=Number, object_pairs_hook=object_once)


def _load_json(path: Path, data: bytes) -> Result[Log]:
    try:
        body = _parse(data)
    except UnicodeDecodeError as error:
        return Result(None, (problem(path, f"byte {error.start}", "not UTF-8 text: not a JSON log"),))
    except json.JSONDecodeError as error:
        where = f"line {error.lineno} column {error.colno}"
        return Result(None, (problem(path, where, f"not valid JSON ({error.msg}): truncated?"),))
    except DuplicateKey as error:
        message = f"not valid JSON: the key {error.key!r} twice in one object: every key may appear once"
        return Result(None, (problem(path, "", message),))
    except ValueError as error:  # an integer literal longer than Python's digit limit
        return Result(None, (problem(path, "", f"not valid JSON: {error}"),))
    except RecursionError:
        return Result(None, (problem(path, "", "JSON nested too deeply to be an inspect_ai log"),))
    if not isinstance(body, dict):
        return Result(None, (problem(path, "", "not an inspect_ai log: the top level is not an object"),))
    found = Problems()
    root = Record(body, Place())
    samples = field_array(root, "samples", path, found, required=False)
    records = tuple(Record(item, root.place.at("samples").at(i)) for i, item in enumerate(samples))
    for record in (record for record in records if not isinstance(record.data, dict)):
        found.append(problem(path, record.place, f"expected a sample object, found {kind(record.data)}"))
    status = field_text(root, "status", path, found)
    return found.result(Log(path, data, root, status, records) if status and not found else None)


def _load_eval(path: Path, data: bytes) -> Result[Log]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, NotImplementedError, EOFError) as error:
        return Result(None, (problem(path, "", f"not a readable zip archive ({error}): truncated?"),))
    with archive:
        return _read_archive(path, data, archive)


def _read_archive(path: Path, data: bytes, archive: zipfile.ZipFile) -> Result[Log]:
    found = Problems()
    names = set(archive.namelist())
    finished = "header.json" in names
    header_name = "header.json" if finished else "_journal/start.json"
    if header_name not in names:
        message = "no header.json (nor _journal/start.json): not an inspect_ai .eval log, or cut short"
        return Result(None, (problem(path, "", message),))
    budget = reading.Budget(len(data))
    header = found.take(_member(path, data, archive, archive.getinfo(header_name), budget))
    members = [info for info in archive.infolist() if _is_sample(info)]
    records = [found.take(_member(path, data, archive, info, budget)) for info in members]
    if header is None or found:
        return found.result(None)
    status = field_text(header, "status", path, found) if finished else "started"
    samples = tuple(record for record in records if record is not None)
    return found.result(Log(path, data, header, status, samples) if status else None)


def _is_sample(info: zipfile.ZipInfo) -> bool:
    """A sample record's member: ``samples/<id>_epoch_<n>.json`` (an id may hold ``/``)."""
    return info.filename.startswith("samples/") and info.filename.endswith(".json")


def _member(
    path: Path, data: bytes, archive: zipfile.ZipFile, info: zipfile.ZipInfo, budget: reading.Budget
) -> Result[Record]:
    """One zip member read as a JSON object, within the archive's ``budget``."""
    place = Place(info.filename)
    try:
        body = _parse(_unzip(data, archive, info, budget))
    except Unreadable as error:
        return Result(None, (problem(path, place, f"cannot be read: {error}"),))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError, ValueError) as error:
        return Result(None, (problem(path, place, f"not valid JSON: {error}"),))
    if not isinstance(body, dict):
        return Result(None, (problem(path, place, "not a JSON object"),))
    return Result(Record(body, place))


def _unzip(data: bytes, archive: zipfile.ZipFile, info: zipfile.ZipInfo, budget: reading.Budget) -> bytes:
    """The member's bytes, streamed within ``budget`` and checked against its CRC-32; raises
    :class:`Unreadable`."""
    try:
        if info.compress_type != ZIP_ZSTD:
            return _inflate(archive, info, budget)
        content = _unzstd(_raw(data, info), info.file_size, budget)
    except reading.Oversized as error:
        raise Unreadable(str(error)) from None
    if len(content) != info.file_size or zlib.crc32(content) != info.CRC:
        raise Unreadable("its content does not match its size and CRC-32: the file is corrupt")
    return content


def _raw(data: bytes, info: zipfile.ZipInfo) -> bytes:
    """The member's compressed bytes, found through its local header."""
    start = info.header_offset
    local = data[start : start + 30]
    if len(local) < 30 or not local.startswith(b"PK\x03\x04"):
        raise Unreadable("its local header is missing: the file is cut short or corrupt")
    name_length, extra_length = struct.unpack("<HH", local[26:30])
    begin = start + 30 + name_length + extra_length
    raw = data[begin : begin + info.compress_size]
    if len(raw) != info.compress_size:
        raise Unreadable("its data is cut short: the file is truncated")
    return raw


def _inflate(archive: zipfile.ZipFile, info: zipfile.ZipInfo, budget: reading.Budget) -> bytes:
    """A member zipfile reads (stored, deflate…), streamed; zipfile checks its CRC-32 at the end."""
    try:
        with archive.open(info) as stream:
            return budget.read(stream.read, info.file_size)
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, ValueError) as error:
        raise Unreadable(str(error) or type(error).__name__) from error


def _unzstd(raw: bytes, size: int, budget: reading.Budget) -> bytes:
    """``raw`` zstd frames decompressed as a stream, within ``budget`` and the ``size`` declared."""
    corrupt, opener = _zstd()
    try:
        with opener(raw) as stream:
            return budget.read(stream.read, size)
    except corrupt as error:
        raise Unreadable(f"its zstd data is corrupt ({error})") from error


def _zstd() -> tuple[type[Exception], Callable[[bytes], BinaryIO]]:
    """zstd's error class and a reader of concatenated frames: the standard library's from Python
    3.14, else the ``zstandard`` package's; raises :class:`Unreadable` when neither is there."""
    if sys.version_info >= (3, 14):
        from compression import zstd

        return zstd.ZstdError, lambda raw: zstd.ZstdFile(io.BytesIO(raw))
    try:
        import zstandard
    except ImportError:
        raise Unreadable(
            "it is zstd-compressed (zip method 93, inspect_ai's default); reading it needs Python 3.14"
            " or the 'zstandard' package (pip install zstandard), or convert the log to json with"
            " `inspect log convert --to json`"
        ) from None
    decompressor = zstandard.ZstdDecompressor()
    return zstandard.ZstdError, lambda raw: decompressor.stream_reader(raw, read_across_frames=True)


def field_text(record: Record, key: str, path: Path, found: Problems, *, required: bool = True) -> str | None:
    value = record.data.get(key)
    if isinstance(value, str) or (value is None and not required):
        return value
    found.append(problem(path, record.place.at(key), f"expected text, found {kind(value)}"))
    return None


def field_object(record: Record, key: str, path: Path, found: Problems, *, required: bool = True) -> Record:
    value = record.data.get(key)
    if isinstance(value, dict) or (value is None and not required):
        return Record(value or {}, record.place.at(key))
    found.append(problem(path, record.place.at(key), f"expected an object, found {kind(value)}"))
    return Record({}, record.place.at(key))


def field_array(record: Record, key: str, path: Path, found: Problems, *, required: bool = True) -> list[Any]:
    value = record.data.get(key)
    if isinstance(value, list) or (value is None and not required):
        return value or []
    found.append(problem(path, record.place.at(key), f"expected an array, found {kind(value)}"))
    return []


def field_integer(record: Record, key: str, path: Path, found: Problems, default: int) -> int:
    value = record.data.get(key, default)
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    found.append(problem(path, record.place.at(key), f"expected a whole number ≥ 0, found {kind(value)}"))
    return default


def kind(value: object) -> str:
    if isinstance(value, Number):
        return f"the number {value.text}"
    names = {dict: "an object", list: "an array", str: "text", bool: "true/false", type(None): "nothing"}
    return names.get(type(value), f"the number {value}")


def as_id(value: object) -> str | None:
    """A sample id as text: a string as is, an integer as its decimal digits; else None."""
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None


def decimal(text: str) -> Decimal | None:
    try:
        number = Decimal(text)
    except InvalidOperation:
        return None
    return number if number.is_finite() else None
