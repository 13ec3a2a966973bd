"""Mutation fuzzer over the example corpus (issue "Hardening", part 1).

Each input is ONE benchmark of ``runs/``, copied alone into an inputs root, with ONE mutation.
The mutated folder is resealed, so the parser and the scorer see the content; a share of inputs
is left unresealed (a tamper), which must be refused with exit 3. Each input is built in-process
(``CliRunner``) into a folder that already holds the benchmark's pristine published site: a build
that fails must leave it byte-identical, and one that succeeds must leave every earlier version
as it was. Anything the generator raises outside its exception hierarchy is a traceback (a bug).

    python -m scripts.reliability.fuzz --count 10000 --seed 1 --workers 2

Input ``i`` of seed ``s`` depends on ``(s, i)`` alone: its mutation kind (``SCHEDULE``) and its
benchmark cycle with ``i``, every other choice comes from ``random.Random(f"{s}:{i}")``, so the
worker count never changes which inputs are tried. ``--replay I --into DIR`` writes input ``I``
out as a reproducer; ``--keep DIR`` keeps a copy of every case that went wrong.

Cost: a build of one benchmark takes 20–100 ms, but one huge string (5 MB) or huge array (a
million elements) can take seconds, so the two huge kinds come up a third as often as the others.
A build gets ``TIMEOUT`` seconds; one that takes longer is reported, not waited for. Each worker
process keeps a hard-linked working copy of each benchmark and undoes every mutation by inode
(removing folders is what costs on ext4), so the harness adds about 10 ms per input.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import hashlib
import json
import os
import random
import re
import shutil
import signal
import sys
import tempfile
import time
import traceback
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from multiprocessing import get_context
from pathlib import Path
from types import FrameType
from typing import Any

from click.testing import CliRunner

from generator.cli import main as benchsite
from generator.inputs.seal import SEAL_NAME, nested_seals, write_seal
from generator.publish.write import BADGES

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "runs"
TIMEOUT = 30.0
"""Seconds a build may take; the slowest inputs the generator handles well take well under 20."""
TAMPER_SHARE = 0.1
"""Share of inputs left unresealed after their mutation: each must be refused (exit 3)."""
HUGE_STRING = 5_000_000
HUGE_ARRAY = 1_000_000
WRONG_ELEMENTS = 0.02
"""Share of huge arrays made of wrong elements: a million problems, each printed (tens of seconds)."""
SMALL_ELEMENT = 64
"""A huge array repeats an element only this small (a million rich objects would take minutes)."""
DEEP = 100_000
ROOT_SHARE = 0.1
"""Share of wrong types given to the whole document (``null`` for a declaration, say)."""
LONG_ID = 10_000
PATH_IDS = ("../x", "../../etc/passwd", "/etc/passwd", "a/b", "C:\\x", "a\\b", "..", ".", "~/x")
SEPARATORS = ("\u2028", "\u2029")
INVALID_UTF8 = (b"\xff", b"\xc0\xaf", b"\xed\xa0\x80", b"\x80", b"\xe2\x82", b"\xf8\x88\x80\x80\x80")
_ID_KEY = re.compile(r"(?:^|_)id$|Id$|^(?:key|task|subject|name|trial|attempt|run|case|check)$")

JPath = tuple[str | int, ...]


class Skip(Exception):
    """This mutation does not apply to this target; the planner picks another."""


# --- JSON documents with raw text spliced in ----------------------------------------------------


class Doc:
    """One parsed JSON document being mutated. ``raw`` splices in text JSON cannot spell
    (NaN, a duplicate key, 100,000 brackets) through a sentinel string replaced after dumping."""

    def __init__(self, value: Any) -> None:
        self.value = value
        self.raws: dict[str, str] = {}

    def raw(self, text: str) -> str:
        sentinel = f"\x1ffuzz-raw-{len(self.raws)}\x1f"
        self.raws[sentinel] = text
        return sentinel

    def dump(self, compact: bool) -> str:
        text = json.dumps(self.value, ensure_ascii=False, indent=None if compact else 2)
        for sentinel, raw in self.raws.items():
            text = text.replace(json.dumps(sentinel), raw)
        return text

    def nodes(self) -> list[tuple[JPath, Any]]:
        """Every value in document order with its path (the root is ``()``)."""
        found: list[tuple[JPath, Any]] = []
        stack: list[tuple[JPath, Any]] = [((), self.value)]
        while stack:
            path, node = stack.pop()
            found.append((path, node))
            if isinstance(node, dict):
                stack.extend(((*path, k), v) for k, v in reversed(node.items()))
            elif isinstance(node, list):
                stack.extend(((*path, i), v) for i, v in reversed(list(enumerate(node))))
        return found

    def set(self, path: JPath, value: Any) -> None:
        if not path:
            self.value = value
            return
        parent = self.value
        for part in path[:-1]:
            parent = parent[part]
        parent[path[-1]] = value

    def pick(self, rng: random.Random, want: Callable[[JPath, Any], bool]) -> tuple[JPath, Any]:
        found = [(p, v) for p, v in self.nodes() if want(p, v)]
        if not found:
            raise Skip("no such value")
        return rng.choice(found)

    def pick_id(self, rng: random.Random) -> tuple[JPath, str]:
        """An id-like string (``id``, ``*_id``, ``runId``, ``task`` …), else any string."""
        strings = [(p, v) for p, v in self.nodes() if isinstance(v, str)]
        ids = [(p, v) for p, v in strings if _id_like(p)]
        if not strings:
            raise Skip("no string")
        path, value = rng.choice(ids or strings)
        return path, str(value)


def _id_like(path: JPath) -> bool:
    return bool(path) and isinstance(path[-1], str) and bool(_ID_KEY.search(path[-1]))


def json_path(path: JPath) -> str:
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)


Edit = Callable[[random.Random, Doc], str]
ContentMutation = Callable[[random.Random, bytes, str], tuple[bytes, str]]
"""(rng, file bytes, format 'json' | 'jsonl' | 'text') → (new bytes, what was done)."""
FolderMutation = Callable[[random.Random, Path], tuple[str, list[Path]]]
"""(rng, benchmark folder) → (what was done, the sealed folders whose seal no longer holds)."""


def _embedded(doc: Doc) -> list[tuple[JPath, str]]:
    """String values that hold a JSON object or array (a store-v1 row's ``output`` tree)."""
    found = []
    for path, value in doc.nodes():
        if isinstance(value, str) and value[:1] in "{[":
            with contextlib.suppress(ValueError):
                if isinstance(json.loads(value), dict | list):
                    found.append((path, value))
    return found


def _edit_doc(rng: random.Random, doc: Doc, edit: Edit) -> str:
    """Apply ``edit`` to the document, or, half the time when it holds one, to an embedded tree."""
    inner = _embedded(doc)
    if inner and rng.random() < 0.5:
        path, text = rng.choice(inner)
        nested = Doc(json.loads(text))
        detail = edit(rng, nested)
        doc.set(path, nested.dump(compact=True))
        return f"inside the JSON text at {json_path(path)}: {detail}"
    return edit(rng, doc)


def on_json(edit: Edit) -> ContentMutation:
    """A content mutation from a document edit; a JSON Lines file has one line edited."""

    def mutate(rng: random.Random, data: bytes, fmt: str) -> tuple[bytes, str]:
        if fmt == "text":
            raise Skip("not JSON")
        if fmt == "json":
            doc = Doc(json.loads(data))
            detail = _edit_doc(rng, doc, edit)
            return (doc.dump(compact=False) + "\n").encode("utf-8"), detail
        lines = data.split(b"\n")
        number = rng.choice([i for i, line in enumerate(lines) if line.strip()])
        doc = Doc(json.loads(lines[number]))
        detail = _edit_doc(rng, doc, edit)
        lines[number] = doc.dump(compact=True).encode("utf-8")
        return b"\n".join(lines), f"line {number + 1}: {detail}"

    mutate.__name__ = edit.__name__.removeprefix("_")
    mutate.__doc__ = edit.__doc__
    return mutate


def _on_line(rng: random.Random, data: bytes, fmt: str) -> tuple[int | None, bytes]:
    """For JSON Lines, half the time one line (its number and bytes); else the whole file."""
    if fmt == "jsonl" and rng.random() < 0.5:
        lines = data.split(b"\n")
        number = rng.choice([i for i, line in enumerate(lines) if line.strip()])
        return number, lines[number]
    return None, data


def _splice(data: bytes, number: int | None, part: bytes) -> bytes:
    if number is None:
        return part
    lines = data.split(b"\n")
    lines[number] = part
    return b"\n".join(lines)


def _where(number: int | None) -> str:
    return "whole file" if number is None else f"line {number + 1}"


# --- byte-level mutations (any file) ------------------------------------------------------------


def byte_flip(rng: random.Random, data: bytes, fmt: str) -> tuple[bytes, str]:
    """XOR one to three bytes with a non-zero mask."""
    number, part = _on_line(rng, data, fmt)
    out = bytearray(part)
    offsets = sorted({rng.randrange(len(out)) for _ in range(rng.randint(1, 3))})
    for offset in offsets:
        out[offset] ^= rng.randint(1, 255)
    return _splice(data, number, bytes(out)), f"{_where(number)}: flipped bytes at {offsets}"


def truncate(rng: random.Random, data: bytes, fmt: str) -> tuple[bytes, str]:
    """Cut the file (or one JSON line) short at a random offset."""
    number, part = _on_line(rng, data, fmt)
    keep = rng.randrange(len(part))
    return _splice(data, number, part[:keep]), f"{_where(number)}: cut to {keep} of {len(part)} bytes"


def empty(rng: random.Random, data: bytes, fmt: str) -> tuple[bytes, str]:
    """An empty file (or, for JSON Lines, sometimes one line reduced to ``{}``)."""
    if fmt == "jsonl" and rng.random() < 0.3:
        number = rng.choice([i for i, line in enumerate(data.split(b"\n")) if line.strip()])
        return _splice(data, number, b"{}"), f"line {number + 1}: an empty object"
    return b"", "whole file: empty"


def non_utf8(rng: random.Random, data: bytes, fmt: str) -> tuple[bytes, str]:
    """Insert a byte sequence that is not UTF-8 (stray continuation, overlong, surrogate …)."""
    bad = rng.choice(INVALID_UTF8)
    offset = rng.randint(0, len(data))
    return data[:offset] + bad + data[offset:], f"inserted {bad!r} at byte {offset}"


def bom(rng: random.Random, data: bytes, fmt: str) -> tuple[bytes, str]:
    """Prefix a UTF-8 byte-order mark (for JSON Lines, sometimes to one line only)."""
    number, part = _on_line(rng, data, fmt)
    return _splice(data, number, b"\xef\xbb\xbf" + part), f"{_where(number)}: UTF-8 BOM prefixed"


def _text_insert(rng: random.Random, data: bytes, text: str) -> tuple[bytes, int]:
    """Insert text at a random character boundary of a UTF-8 text file."""
    decoded = data.decode("utf-8")
    offset = rng.randint(0, len(decoded))
    return (decoded[:offset] + text + decoded[offset:]).encode("utf-8"), offset


# --- JSON-level mutations ------------------------------------------------------------------------


def _type_name(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "int"
    return {str: "str", list: "list", dict: "object", type(None): "null"}[type(value)]


def _sample(rng: random.Random, kind: str, old: Any) -> Any:
    samples: dict[str, list[Any]] = {
        "str": ["x", "", "0", "true", "null"],
        "int": [0, -1, 7, 2**63, 0.5],
        "list": [[], [old]],
        "object": [{}, {"value": old}],
        "null": [None],
        "bool": [True, False],
    }
    return copy.deepcopy(rng.choice(samples[kind]))


def _wrong_type(rng: random.Random, doc: Doc) -> str:
    """Replace a random value (the whole document ``ROOT_SHARE`` of the time) by one of another
    JSON type (str ↔ int ↔ list ↔ object ↔ null ↔ bool)."""
    nodes = doc.nodes()
    path, value = nodes[0] if rng.random() < ROOT_SHARE else rng.choice(nodes)
    old = _type_name(value)
    new = rng.choice([t for t in ("str", "int", "list", "object", "null", "bool") if t != old])
    doc.set(path, _sample(rng, new, value))
    return f"{json_path(path)}: {old} → {new}"


def _duplicate_key(rng: random.Random, doc: Doc) -> str:
    """Repeat a key of an object (same or other value), at a random place among its keys."""
    path, obj = doc.pick(rng, lambda _p, v: isinstance(v, dict) and bool(v))
    key = rng.choice(list(obj))
    again = obj[key] if rng.random() < 0.5 else _sample(rng, "str", None)
    items = list(obj.items())
    items.insert(rng.randint(0, len(items)), (doc.raw(json.dumps(key, ensure_ascii=False)), again))
    obj.clear()
    obj.update(items)
    return f"{json_path((*path, key))}: key twice"


def _non_finite(rng: random.Random, doc: Doc) -> str:
    """A NaN, Infinity, -Infinity or overflowing (1e400) literal, mostly in place of a number."""
    literal = rng.choice(["NaN", "Infinity", "-Infinity", "1e400", "-1e400", "1E+400"])
    numeric = [(p, v) for p, v in doc.nodes() if _type_name(v) == "int"]
    path, _ = rng.choice(numeric) if numeric and rng.random() < 0.7 else rng.choice(doc.nodes())
    doc.set(path, doc.raw(literal))
    return f"{json_path(path)}: {literal}"


def _deep_nesting(rng: random.Random, doc: Doc) -> str:
    """100,000 nested arrays or objects, closed or not, in place of a value."""
    forms = {
        "unclosed [": "[" * DEEP,
        "closed [ ]": "[" * DEEP + "]" * DEEP,
        'closed {"a":': '{"a":' * DEEP + "0" + "}" * DEEP,
    }
    name = rng.choice(sorted(forms))
    path, _ = rng.choice(doc.nodes())
    doc.set(path, doc.raw(forms[name]))
    return f"{json_path(path)}: {DEEP} levels, {name}"


def _huge_string(rng: random.Random, doc: Doc) -> str:
    """A 5 MB string, mostly in place of a string."""
    text = rng.choice(["a" * HUGE_STRING, "é" * (HUGE_STRING // 2), "<b>&x</b>\n" * (HUGE_STRING // 10)])
    strings = [(p, v) for p, v in doc.nodes() if isinstance(v, str)]
    path, _ = rng.choice(strings) if strings and rng.random() < 0.8 else rng.choice(doc.nodes())
    doc.set(path, text)
    return f"{json_path(path)}: a string of {len(text.encode('utf-8'))} bytes"


def _huge_array(rng: random.Random, doc: Doc) -> str:
    """An array of a million elements: scalars in place of another value, an array's first element
    repeated (when it is small), or (``WRONG_ELEMENTS`` of the time) a million wrong elements."""
    arrays = [(p, v) for p, v in doc.nodes() if isinstance(v, list) and v]
    small = [(p, v) for p, v in arrays if len(json.dumps(v[0])) <= SMALL_ELEMENT]
    others = [(p, v) for p, v in doc.nodes() if not isinstance(v, list)]
    variant = "wrong" if rng.random() < WRONG_ELEMENTS else rng.choice(["repeat", "replace"])
    element: Any = rng.choice([0, None, "x"])
    if variant == "repeat" and small:
        path, value = rng.choice(small)
        element = value[0]
    elif variant == "wrong" and arrays:
        path, _ = rng.choice(arrays)
        element = rng.choice([0, None, "x", [], {}])
    else:
        variant = "replace"
        path, _ = rng.choice(others or doc.nodes())
    doc.set(path, doc.raw("[" + ",".join([json.dumps(element, ensure_ascii=False)] * HUGE_ARRAY) + "]"))
    return f"{json_path(path)}: {HUGE_ARRAY} × {_type_name(element)} ({variant})"


def _path_like_id(rng: random.Random, doc: Doc) -> str:
    """An id that is a path: ``../x``, ``/etc/passwd``, ``a/b``, ``C:\\x`` …"""
    path, _ = doc.pick_id(rng)
    value = rng.choice(PATH_IDS)
    doc.set(path, value)
    return f"{json_path(path)}: {value!r}"


def _insert_char(rng: random.Random, doc: Doc, char: str) -> str:
    """Put ``char`` into an id (half the time), any string, or an object key."""
    if rng.random() < 0.15:
        path, obj = doc.pick(rng, lambda _p, v: isinstance(v, dict) and bool(v))
        key = rng.choice(list(obj))
        cut = rng.randint(0, len(key))
        obj[key[:cut] + char + key[cut:]] = obj.pop(key)
        return f"{json_path((*path, key))}: key gets {char!r} at {cut}"
    if rng.random() < 0.5:
        path, value = doc.pick_id(rng)
    else:
        path, value = doc.pick(rng, lambda _p, v: isinstance(v, str))
    cut = rng.randint(0, len(value))
    doc.set(path, value[:cut] + char + value[cut:])
    return f"{json_path(path)}: {char!r} at {cut}"


def _nul_char(rng: random.Random, doc: Doc) -> str:
    """A NUL character (``\\u0000``) in a string, an id or a key."""
    return _insert_char(rng, doc, "\x00")


def _line_separator(rng: random.Random, doc: Doc) -> str:
    """A raw U+2028 / U+2029 line separator in a string, an id or a key."""
    return _insert_char(rng, doc, rng.choice(SEPARATORS))


def _long_id(rng: random.Random, doc: Doc) -> str:
    """An id of 10,000 characters."""
    path, value = doc.pick_id(rng)
    long = (value + "-" + "x" * LONG_ID)[:LONG_ID] if rng.random() < 0.5 else "a" * LONG_ID
    doc.set(path, long)
    return f"{json_path(path)}: an id of {len(long)} characters"


def case_variant(name: str) -> str:
    """``name`` with one letter's case swapped: different, but equal after case folding."""
    for i, char in enumerate(name):
        swapped = char.swapcase()
        if swapped != char and len(swapped) == 1 and swapped.casefold() == char.casefold():
            return name[:i] + swapped + name[i + 1 :]
    raise Skip(f"{name!r} has no letter whose case can change")


def nfc_nfd(name: str) -> tuple[str, str]:
    """Two spellings of ``name`` + 'é' that are equal after Unicode normalisation."""
    return unicodedata.normalize("NFC", name + "é"), unicodedata.normalize("NFD", name + "é")


def _colliding_ids(rng: random.Random, doc: Doc, spell: Callable[[str], tuple[str, str]], how: str) -> str:
    """Two elements of one array (or two keys of one object) whose ids collide as ``how``."""
    lists = [
        (p, v)
        for p, v in doc.nodes()
        if isinstance(v, list) and any(isinstance(e, dict) and _id_key(e) for e in v)
    ]
    if lists and rng.random() < 0.7:
        path, array = rng.choice(lists)
        index = rng.choice([i for i, e in enumerate(array) if isinstance(e, dict) and _id_key(e)])
        key = _id_key(array[index]) or "id"
        first, second = spell(str(array[index][key]))
        twin = copy.deepcopy(array[index])
        array[index][key], twin[key] = first, second
        array.insert(index + 1, twin)
        return f"{json_path((*path, index, key))}: {first!r} and a copy with {second!r} ({how})"
    path, obj = doc.pick(rng, lambda _p, v: isinstance(v, dict) and bool(v))
    key = rng.choice(list(obj))
    first, second = spell(key)
    value = obj.pop(key)
    obj[first], obj[second] = value, copy.deepcopy(value)
    return f"{json_path(path)}: keys {first!r} and {second!r} ({how})"


def _id_key(element: dict[str, Any]) -> str | None:
    keys = sorted(k for k, v in element.items() if isinstance(v, str) and _ID_KEY.search(k))
    return ("id" if "id" in keys else keys[0]) if keys else None


def _casefold_ids(rng: random.Random, doc: Doc) -> str:
    """Ids (or keys) that differ only in letter case."""

    def spell(value: str) -> tuple[str, str]:
        try:
            return value, case_variant(value)
        except Skip:
            return value + "-a", value + "-A"

    return _colliding_ids(rng, doc, spell, "equal after case folding")


def _nfc_nfd_ids(rng: random.Random, doc: Doc) -> str:
    """Ids (or keys) with an 'é', one in NFC and one in NFD."""
    return _colliding_ids(rng, doc, nfc_nfd, "equal after NFC normalisation")


wrong_type = on_json(_wrong_type)
duplicate_key = on_json(_duplicate_key)
non_finite = on_json(_non_finite)
deep_nesting = on_json(_deep_nesting)
huge_array = on_json(_huge_array)
path_like_id = on_json(_path_like_id)
long_id = on_json(_long_id)
casefold_ids = on_json(_casefold_ids)
nfc_nfd_ids = on_json(_nfc_nfd_ids)


def _text_or_json(edit: Edit, text: Callable[[random.Random], str]) -> ContentMutation:
    """A JSON edit for JSON files, a raw insertion for text files."""
    json_mutation = on_json(edit)

    def mutate(rng: random.Random, data: bytes, fmt: str) -> tuple[bytes, str]:
        if fmt != "text":
            return json_mutation(rng, data, fmt)
        inserted = text(rng)
        out, offset = _text_insert(rng, data, inserted)
        return out, f"{len(inserted.encode('utf-8'))} bytes of text inserted at character {offset}"

    mutate.__name__ = json_mutation.__name__
    mutate.__doc__ = edit.__doc__
    return mutate


huge_string = _text_or_json(_huge_string, lambda _rng: "a" * HUGE_STRING)
nul_char = _text_or_json(_nul_char, lambda _rng: "\x00")
line_separator = _text_or_json(_line_separator, lambda rng: rng.choice(SEPARATORS))


# --- folder mutations: names that collide ---------------------------------------------------------


def _link_or_copy(src: str, dst: str) -> object:
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)
    return dst


def copy_tree(src: Path, dst: Path, link: bool = True) -> None:
    """Copy a folder; with ``link``, files are hard links (mutations replace files, never edit them)."""
    shutil.copytree(src, dst, copy_function=_link_or_copy if link else shutil.copy2)


def _folders(bench: Path) -> list[str]:
    """Sealed subfolders of a benchmark and the folders leading to them, relative to it."""
    found: set[str] = set()
    for rel in nested_seals(bench):
        parts = rel.split("/")
        found.update("/".join(parts[:i]) for i in range(1, len(parts) + 1))
    return sorted(found)


def sealed_files(bench: Path) -> list[tuple[Path, str]]:
    """Every sealed file of a benchmark as (its sealed folder, path relative to that folder), sorted."""
    files: list[tuple[Path, str]] = []
    owners = {bench: bench}
    for dirpath, dirnames, filenames in os.walk(bench):
        dirnames.sort()
        here = Path(dirpath)
        owner = here if here != bench and SEAL_NAME in filenames else owners[here]
        owners.update((here / d, owner) for d in dirnames)
        files += [(owner, (here / n).relative_to(owner).as_posix()) for n in filenames if n != SEAL_NAME]
    return sorted(files, key=lambda f: (f[0], f[1]))


def _colliding_copy(
    rng: random.Random, bench: Path, spell: Callable[[str], tuple[str, str]], how: str
) -> tuple[str, list[Path]]:
    """Copy a benchmark, a run (or a folder above runs) or one sealed file under colliding names."""
    where = rng.choice(["benchmark", "folder", "folder", "file"])
    stale: list[Path] = []
    if where == "file":
        owner, rel = rng.choice(sealed_files(bench))
        source, stale = owner / rel, [owner]
    elif where == "folder":
        source = bench / rng.choice(_folders(bench))
    else:
        source = bench
    first, second = spell(source.name)
    made = [source.with_name(n) for n in (first, second) if n != source.name]
    for target in made:
        if source.is_dir():
            copy_tree(source, target)
        else:
            target.write_bytes(source.read_bytes())
    names = " and ".join(repr(t.name) for t in made)
    label = source.relative_to(bench.parent).as_posix()
    return f"{where} {label} copied as {names} ({how})", stale


def casefold_copy(rng: random.Random, bench: Path) -> tuple[str, list[Path]]:
    """A folder or file copied under a name that differs only in letter case."""
    return _colliding_copy(rng, bench, lambda n: (n, case_variant(n)), "equal after case folding")


def nfc_nfd_copy(rng: random.Random, bench: Path) -> tuple[str, list[Path]]:
    """A folder or file copied twice, as name + 'é' in NFC and in NFD."""
    return _colliding_copy(rng, bench, nfc_nfd, "equal after NFC normalisation")


@dataclass(frozen=True)
class Kind:
    """A mutation kind: a content mutation for the formats it applies to, maybe a folder mutation
    (tried half the time), and its weight in the schedule."""

    name: str
    content: ContentMutation
    formats: frozenset[str]
    folder: FolderMutation | None = None
    weight: int = 3
    """Slots per schedule cycle. The huge kinds have 1: one of them costs as much as dozens of others."""


_ANY = frozenset({"json", "jsonl", "text"})
_JSON = frozenset({"json", "jsonl"})
KINDS = (
    Kind("byte_flip", byte_flip, _ANY),
    Kind("truncate", truncate, _ANY),
    Kind("empty", empty, _ANY),
    Kind("wrong_type", wrong_type, _JSON),
    Kind("duplicate_key", duplicate_key, _JSON),
    Kind("non_finite", non_finite, _JSON),
    Kind("deep_nesting", deep_nesting, _JSON),
    Kind("non_utf8", non_utf8, _ANY),
    Kind("bom", bom, _ANY),
    Kind("huge_string", huge_string, _ANY, weight=1),
    Kind("huge_array", huge_array, _JSON, weight=1),
    Kind("casefold_collision", casefold_ids, _JSON, casefold_copy),
    Kind("nfc_nfd_collision", nfc_nfd_ids, _JSON, nfc_nfd_copy),
    Kind("path_like_id", path_like_id, _JSON),
    Kind("nul_char", nul_char, _ANY),
    Kind("line_separator", line_separator, _ANY),
    Kind("long_id", long_id, _JSON),
)
KIND_NAMES = tuple(k.name for k in KINDS)
SCHEDULE = tuple(k for turn in range(max(k.weight for k in KINDS)) for k in KINDS if k.weight > turn)
"""Input ``i`` has kind ``SCHEDULE[i % len(SCHEDULE)]`` (and benchmark ``i % len(benchmarks)``, cycling)."""


# --- one input ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Mutation:
    """One fuzz input: what was done to which benchmark, and the exit codes that are acceptable."""

    index: int
    kind: str
    bench: str
    description: str
    expected: tuple[int, ...]
    """(3,) when the input must be refused (a tamper, a rubric that no longer matches its pin)."""
    tampered: bool
    """The mutated folder was not resealed."""


def file_format(path: Path | str) -> str:
    return {".json": "json", ".jsonl": "jsonl"}.get(Path(path).suffix, "text")


def reseal(folder: Path) -> None:
    """Replace a folder's seal by one that holds for its current files."""
    (folder / SEAL_NAME).unlink()
    write_seal(folder)


def _replace(path: Path, data: bytes) -> None:
    """Write a new file in place of ``path`` (never through it: inputs are hard links)."""
    path.unlink()
    path.write_bytes(data)


def _rubric_pin(bench: Path) -> tuple[str, str] | None:
    try:
        rubric = json.loads((bench / "benchmark.json").read_bytes())["rubric"]
        return str(rubric["file"]), str(rubric["sha256"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _pick_target(rng: random.Random, bench: Path, kind: Kind) -> tuple[Path, Path, bytes, str]:
    """A sealed file the kind applies to (drawn by group: 480 scenario rows do not drown a manifest)."""
    files = [(o, r) for o, r in sealed_files(bench) if file_format(r) in kind.formats]
    groups: dict[tuple[bool, str], list[tuple[Path, str]]] = {}
    for owner, rel in files:
        groups.setdefault((owner == bench, rel.split("/")[0]), []).append((owner, rel))
    for _ in range(50):
        owner, rel = rng.choice(groups[rng.choice(sorted(groups))])
        data = (owner / rel).read_bytes()
        try:
            new, detail = kind.content(rng, data, file_format(rel))
        except Skip:
            continue
        if new != data:
            return owner, owner / rel, new, detail
    raise RuntimeError(f"{kind.name}: found nothing to mutate in {bench}")  # a fuzzer bug


def mutate(rng: random.Random, bench: Path, kind: Kind, tampered: bool) -> tuple[str, tuple[int, ...], bool]:
    """Apply one mutation of ``kind`` to a benchmark folder; reseal unless ``tampered``.

    Returns (description, acceptable exit codes, whether the input is a tamper).
    """
    if kind.folder is not None and rng.random() < 0.5:
        try:
            detail, stale = kind.folder(rng, bench)
        except Skip:  # a name without a letter whose case can change: mutate content instead
            return mutate(rng, bench, replace(kind, folder=None), tampered)
        if tampered and stale:
            return f"{detail} (not resealed)", (3,), True
        for folder in stale:
            reseal(folder)
        return detail + (" (resealed)" if stale else ""), (0, 3, 4), False
    pin = _rubric_pin(bench)
    owner, path, data, detail = _pick_target(rng, bench, kind)
    _replace(path, data)
    label = f"{path.relative_to(bench.parent).as_posix()}: {detail}"
    if tampered:
        return f"{label} (not resealed)", (3,), True
    expected: tuple[int, ...] = (3, 4) if never_valid(kind.name, file_format(path), detail) else (0, 3, 4)
    note = "resealed"
    if pin is not None and owner == bench and path.name == pin[0]:
        if rng.random() < 0.5:
            declaration = bench / "benchmark.json"
            new_pin = hashlib.sha256(data).hexdigest().encode()
            _replace(declaration, declaration.read_bytes().replace(pin[1].encode(), new_pin))
            note = "rubric pin updated, resealed"
        else:
            expected, note = (3,), "rubric pin kept, resealed"
    reseal(owner)
    return f"{label} ({note})", expected, False


_NEVER_VALID = frozenset({"duplicate_key", "non_finite", "deep_nesting", "non_utf8", "bom"})
_ROOT = re.compile(r"(?:line \d+: )?\$: ")
_EMBEDDED_ROOT = re.compile(r"(?:line \d+: )?inside the JSON text at \S+: \$: ")


def never_valid(kind: str, fmt: str, detail: str) -> bool:
    """Whether no build may accept the mutated JSON (README, exit 4: bad JSON, duplicate keys,
    NaN/Infinity or overflow, a BOM, not UTF-8): an empty ``.json`` file or JSON Lines line, a
    document that is no longer an object, and those kinds. Exit 0 for them is a wrong exit code.

    Not so for a JSON text inside a string replaced whole: it may read as raw text instead."""
    if fmt == "text" or _EMBEDDED_ROOT.match(detail):
        return False
    if kind == "empty":
        return fmt == "json" or not detail.startswith("whole file")
    return kind in _NEVER_VALID or (kind == "wrong_type" and bool(_ROOT.match(detail)))


def benchmarks(corpus: Path = CORPUS) -> list[str]:
    return sorted(p.name for p in corpus.iterdir() if p.is_dir())


def plan(seed: int, index: int, names: Sequence[str]) -> tuple[Kind, str, random.Random]:
    """Input ``index``'s kind (``SCHEDULE``), benchmark (cycling) and random source."""
    return SCHEDULE[index % len(SCHEDULE)], names[index % len(names)], random.Random(f"{seed}:{index}")


def apply(index: int, kind: Kind, bench: Path, rng: random.Random) -> Mutation:
    """Mutate a pristine copy of a benchmark folder as input ``index`` says."""
    tampered = rng.random() < TAMPER_SHARE
    description, expected, tampered = mutate(rng, bench, kind, tampered)
    return Mutation(index, kind.name, bench.name, f"#{index} {kind.name}: {description}", expected, tampered)


def materialize(seed: int, index: int, root: Path, corpus: Path = CORPUS, link: bool = False) -> Mutation:
    """Write input ``index`` of ``seed`` into the inputs root ``root``: one benchmark, one mutation.

    The kind (see ``SCHEDULE``) and the benchmark cycle with the index; the rest is drawn from
    ``random.Random(f"{seed}:{index}")``. ``link`` hard-links the untouched files (fast; the
    mutations replace files and never write through them).
    """
    kind, bench, rng = plan(seed, index, benchmarks(corpus))
    copy_tree(corpus / bench, root / bench, link)
    return apply(index, kind, root / bench, rng)


# --- one attempt: build into a published site -------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    index: int
    kind: str
    description: str
    exit_code: int | None
    """None: the build did not finish within the timeout."""
    expected: tuple[int, ...]
    tampered: bool
    seconds: float
    traceback: str | None = None
    site_change: str | None = None
    leak: str | None = None


class Timeout(BaseException):
    """Raised by the alarm inside a build that runs too long (no ``except Exception`` catches it)."""


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise Timeout


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise :class:`Timeout` in the main thread when the block runs longer than ``seconds``."""
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _hashes(folder: Path) -> dict[str, str]:
    """Every file (sha256) and folder below ``folder`` by relative path."""
    found: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        base = Path(dirpath)
        for name in dirnames:
            found[(base / name).relative_to(folder).as_posix() + "/"] = "folder"
        for name in filenames:
            data = (base / name).read_bytes()
            found[(base / name).relative_to(folder).as_posix()] = hashlib.sha256(data).hexdigest()
    return found


def fingerprint(folder: Path) -> str:
    """sha256 over the sorted (relative path, content digest) of everything below ``folder``."""
    digest = hashlib.sha256()
    for rel, value in sorted(_hashes(folder).items()):
        digest.update(f"{rel}\0{value}\n".encode("utf-8", "surrogateescape"))
    return digest.hexdigest()


def _diff(before: dict[str, str], after: dict[str, str]) -> str:
    changed = sorted(r for r in before if r in after and after[r] != before[r])
    removed = sorted(r for r in before if r not in after)
    added = sorted(r for r in after if r not in before)
    parts = [
        f"{name} {len(rels)}: {', '.join(rels[:5])}"
        for name, rels in (("changed", changed), ("removed", removed), ("added", added))
        if rels
    ]
    return "; ".join(parts)


def invoke(inputs: Path, out: Path) -> tuple[int, str, BaseException | None]:
    """``benchsite build --runs INPUTS --out OUT --quiet`` in-process: (exit code, output, exception)."""
    args = ["build", "--runs", str(inputs), "--out", str(out), "--quiet"]
    result = CliRunner().invoke(benchsite, args, catch_exceptions=True)
    return result.exit_code, result.output, result.exception


def inode_map(root: Path) -> dict[str, int]:
    """Every folder (-1) and file (its inode) below ``root`` by relative path."""
    found: dict[str, int] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        base = Path(dirpath)
        found.update(((base / d).relative_to(root).as_posix(), -1) for d in dirnames)
        found.update(((base / f).relative_to(root).as_posix(), (base / f).lstat().st_ino) for f in filenames)
    return found


def undo(root: Path, pristine: dict[str, int], source: Path) -> None:
    """Bring a hard-linked working copy back to ``pristine`` (from :func:`inode_map`): whatever is new
    goes, whatever was replaced is linked again from ``source``. Cheaper than a fresh copy on ext4,
    where removing folders is the slow part."""
    seen: set[str] = set()
    for dirpath, dirnames, filenames in os.walk(root):
        base = Path(dirpath)
        for name in list(dirnames):
            rel = (base / name).relative_to(root).as_posix()
            if pristine.get(rel) == -1:
                seen.add(rel)
            else:  # a folder the mutation made (mutations make no links)
                dirnames.remove(name)
                shutil.rmtree(base / name)
        for name in filenames:
            rel = (base / name).relative_to(root).as_posix()
            seen.add(rel)
            if pristine.get(rel) != (base / name).lstat().st_ino:
                (base / name).unlink()
                if rel in pristine:
                    os.link(source / rel, base / name)
    for rel in sorted(set(pristine) - seen):
        if pristine[rel] == -1:
            (root / rel).mkdir(parents=True, exist_ok=True)
        else:
            os.link(source / rel, root / rel)


class Worker:
    """One process's private copies: the corpus, a working copy and the pristine site of each
    benchmark, a spool folder for the generator's temporary files."""

    def __init__(self, base: Path, corpus: Path, timeout: float, keep: Path | None) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="worker-", dir=base))
        self.corpus = self.tmp / "corpus"
        copy_tree(corpus, self.corpus, link=False)
        self.names = benchmarks(self.corpus)
        self.spool = self.tmp / "spool"
        self.spool.mkdir()
        self.timeout = timeout
        self.keep = keep
        self.pristine: dict[str, dict[str, str]] = {}
        self.inodes: dict[str, dict[str, int]] = {}

    def inputs(self, bench: str) -> Path:
        """An inputs root holding a working copy of ``bench`` alone (hard links to the corpus)."""
        root = self.tmp / "inputs" / bench
        if bench not in self.inodes:
            copy_tree(self.corpus / bench, root / bench)
            self.inodes[bench] = inode_map(root)
        return root

    def site(self, bench: str) -> Path:
        """The output folder for ``bench``, holding its pristine site (built on first use)."""
        out = self.tmp / "out" / bench
        if bench not in self.pristine:
            saved = self.tmp / "pristine" / bench
            code, output, _ = invoke(self.inputs(bench), saved)
            if code != 0:
                raise RuntimeError(f"the pristine {bench} does not build (exit {code}):\n{output}")
            self.pristine[bench] = _hashes(saved)
            copy_tree(saved, out, link=False)
        return out

    def restore(self, bench: str, now: dict[str, str]) -> None:
        """Put the pristine site back: remove what is new, copy back what changed."""
        out, saved, before = self.tmp / "out" / bench, self.tmp / "pristine" / bench, self.pristine[bench]
        gone: list[str] = []
        for rel in sorted(set(now) - set(before)):
            if not any(rel.startswith(folder) for folder in gone):
                if rel.endswith("/"):
                    shutil.rmtree(out / rel)
                    gone.append(rel)
                else:
                    (out / rel).unlink()
        for rel in sorted(before):
            if now.get(rel) != before[rel]:
                if rel.endswith("/"):
                    (out / rel).mkdir(parents=True, exist_ok=True)
                else:
                    shutil.copy2(saved / rel, out / rel)

    def attempt(self, seed: int, index: int) -> Outcome:
        kind, bench, rng = plan(seed, index, self.names)
        inputs, out = self.inputs(bench), self.site(bench)
        try:
            mutation = apply(index, kind, inputs / bench, rng)
            started = time.perf_counter()
            code, trace = self._build(inputs, out)
            seconds = time.perf_counter() - started
            now = _hashes(out)
            change, leak = self._site_change(bench, code, now), self._leak()
            if code is None:  # stopped by our alarm, mid-way: what it left proves nothing
                change = leak = None
            if self.keep is not None and (trace or change or leak or code not in mutation.expected):
                self._keep(mutation, inputs, out)
            if code == 0 or change is not None or code is None:
                self.restore(bench, now)
        finally:
            undo(inputs, self.inodes[bench], self.corpus)
        return Outcome(
            index,
            mutation.kind,
            mutation.description,
            code,
            mutation.expected,
            mutation.tampered,
            seconds,
            trace,
            change,
            leak,
        )

    def _build(self, inputs: Path, out: Path) -> tuple[int | None, str | None]:
        try:
            with time_limit(self.timeout):
                code, _, exc = invoke(inputs, out)
        except Timeout:
            return None, None
        if exc is None or isinstance(exc, SystemExit):
            return code, None
        return code, "".join(traceback.format_exception(exc))

    def _site_change(self, bench: str, code: int | None, now: dict[str, str]) -> str | None:
        """A failed build must leave the site byte-identical; a good one, every earlier version."""
        before = self.pristine[bench]
        if code == 0:  # new files are the new version; every file of an earlier one must be kept
            versions = {
                rel: digest
                for rel, digest in before.items()
                if "/" in rel.rstrip("/") and not rel.startswith(f"{BADGES}/")  # site-level: the latest's
            }
            kept = {rel: now[rel] for rel in versions if rel in now}
            return None if kept == versions else f"an earlier version changed: {_diff(versions, kept)}"
        return None if now == before else f"the failed build changed the site: {_diff(before, now)}"

    def _leak(self) -> str | None:
        left = sorted(p.name for p in self.spool.iterdir())
        for name in left:
            shutil.rmtree(self.spool / name, ignore_errors=True)
        return f"temporary files left behind: {', '.join(left[:5])}" if left else None

    def _keep(self, mutation: Mutation, inputs: Path, out: Path) -> None:
        assert self.keep is not None
        case = self.keep / f"{mutation.index:06d}-{mutation.kind}"
        shutil.rmtree(case, ignore_errors=True)
        shutil.copytree(inputs, case / "inputs")
        shutil.copytree(out, case / "site")
        (case / "mutation.txt").write_text(mutation.description + "\n", encoding="utf-8")


_WORKER: Worker | None = None
_PARENT = 0


def _init_worker(base: str, corpus: str, timeout: float, keep: str | None) -> None:
    global _WORKER, _PARENT
    _WORKER = Worker(Path(base), Path(corpus), timeout, Path(keep) if keep else None)
    _PARENT = os.getppid()
    tempfile.tempdir = str(_WORKER.spool)


def _run_chunk(seed: int, indices: list[int]) -> list[Outcome]:
    assert _WORKER is not None
    outcomes = []
    for index in indices:
        if os.getppid() != _PARENT:  # the run was killed: do not carry on as an orphan
            raise SystemExit(1)
        outcomes.append(_WORKER.attempt(seed, index))
    return outcomes


# --- the run and its report ---------------------------------------------------------------------------


@dataclass
class FuzzReport:
    """The figures of one fuzz run. ``clean`` when nothing but exits 0, 3 and 4 as expected happened."""

    seed: int
    workers: int
    inputs: int = 0
    per_kind: dict[str, int] = field(default_factory=dict)
    per_exit: dict[int, int] = field(default_factory=dict)
    per_kind_exit: dict[str, dict[int, int]] = field(default_factory=dict)
    per_kind_seconds: dict[str, float] = field(default_factory=dict)
    """Build seconds per kind, summed (where the time goes)."""
    tampered: int = 0
    """Inputs left unresealed after their mutation (each must exit 3)."""
    valid: int = 0
    """Exit 0: the mutation kept the input valid, and a new version was published."""
    accepted: list[str] = field(default_factory=list)
    """The mutations of those inputs (to judge whether each should have been accepted)."""
    tracebacks: list[tuple[str, str]] = field(default_factory=list)
    unexpected: list[tuple[str, int]] = field(default_factory=list)
    """(mutation, exit code) for exits outside the input's acceptable set (0/3/4, or 3 alone)."""
    sites_changed: int = 0
    site_changes: list[tuple[str, str]] = field(default_factory=list)
    timeouts: list[str] = field(default_factory=list)
    leaks: list[tuple[str, str]] = field(default_factory=list)
    slowest: list[tuple[float, str]] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def inputs_per_second(self) -> float:
        return self.inputs / self.seconds if self.seconds else 0.0

    @property
    def clean(self) -> bool:
        return not (self.tracebacks or self.unexpected or self.sites_changed or self.timeouts or self.leaks)

    @classmethod
    def collect(cls, seed: int, workers: int, outcomes: list[Outcome], seconds: float) -> FuzzReport:
        report = cls(seed, workers, inputs=len(outcomes), seconds=seconds)
        kinds, exits = Counter[str](), Counter[int]()
        matrix: dict[str, Counter[int]] = {name: Counter() for name in KIND_NAMES}
        for o in sorted(outcomes, key=lambda o: o.index):
            kinds[o.kind] += 1
            report.per_kind_seconds[o.kind] = report.per_kind_seconds.get(o.kind, 0.0) + o.seconds
            report.tampered += o.tampered
            if o.exit_code is None:
                report.timeouts.append(o.description)
                continue
            exits[o.exit_code] += 1
            matrix[o.kind][o.exit_code] += 1
            if o.exit_code == 0:
                report.accepted.append(o.description)
            if o.traceback is not None:
                report.tracebacks.append((o.description, o.traceback))
            if o.exit_code not in o.expected:
                report.unexpected.append((o.description, o.exit_code))
            if o.site_change is not None:
                report.site_changes.append((o.description, o.site_change))
            if o.leak is not None:
                report.leaks.append((o.description, o.leak))
        report.sites_changed = len(report.site_changes)
        report.valid = len(report.accepted)
        report.per_kind = {k: kinds[k] for k in KIND_NAMES if kinds[k]}
        report.per_exit = dict(sorted(exits.items()))
        report.per_kind_exit = {k: dict(sorted(c.items())) for k, c in matrix.items() if c}
        ranked = sorted(outcomes, key=lambda o: (-o.seconds, o.index))[:5]
        report.slowest = [(o.seconds, o.description) for o in ranked]
        return report

    def summary(self) -> str:
        """The figures, one screen (plus one example per distinct traceback)."""
        exits = sorted({code for counts in self.per_kind_exit.values() for code in counts})
        width = max(len(k) for k in KIND_NAMES)
        lines = [
            f"benchsite fuzz: seed {self.seed}, {self.inputs} inputs, {self.workers} worker(s), "
            f"{self.seconds:.1f} s ({self.inputs_per_second:.1f} inputs/s)",
            "  exit codes: "
            + ", ".join(f"{c}: {n}" for c, n in self.per_exit.items())
            + f" (exit 0: the mutation kept the input valid: {self.valid})",
            f"  unresealed (tamper) inputs: {self.tampered}",
            f"  {'kind':<{width}} {'inputs':>6} "
            + " ".join(f"{'exit ' + str(c):>7}" for c in exits)
            + "  build s/input",
        ]
        for kind, n in self.per_kind.items():
            row = self.per_kind_exit.get(kind, {})
            mean = self.per_kind_seconds.get(kind, 0.0) / n
            lines.append(
                f"  {kind:<{width}} {n:>6} "
                + " ".join(f"{row.get(c, 0):>7}" for c in exits)
                + f"  {mean:13.3f}"
            )
        lines += [
            f"  tracebacks: {len(self.tracebacks)} · unexpected exit codes: {len(self.unexpected)} · "
            f"sites changed: {self.sites_changed} · timeouts: {len(self.timeouts)} · "
            f"leaked temporary files: {len(self.leaks)}",
            "  slowest: " + "; ".join(f"{s:.2f} s {d[:90]}" for s, d in self.slowest[:3]),
        ]
        lines += _problems(self)
        return "\n".join(lines)


def _signature(trace: str) -> str:
    """The exception line and the innermost benchsite frame: one traceback per distinct bug."""
    rows = [line for line in trace.strip().splitlines() if line.strip()]
    frames = [line.strip() for line in rows if line.strip().startswith("File ")]
    ours = [f for f in frames if "/generator/" in f] or frames
    return f"{rows[-1]} at {ours[-1] if ours else '?'}"


def _problems(report: FuzzReport) -> list[str]:
    lines: list[str] = []
    groups: dict[str, list[tuple[str, str]]] = {}
    for description, trace in report.tracebacks:
        groups.setdefault(_signature(trace), []).append((description, trace))
    for signature, cases in groups.items():
        lines += [f"TRACEBACK ×{len(cases)}: {signature}", f"  e.g. {cases[0][0]}", cases[0][1]]
    lines += [f"UNEXPECTED exit {code}: {d}" for d, code in report.unexpected[:20]]
    lines += [f"SITE CHANGED: {d}: {change}" for d, change in report.site_changes[:20]]
    lines += [f"TIMEOUT: {d}" for d in report.timeouts[:20]]
    lines += [f"LEAK: {d}: {leak}" for d, leak in report.leaks[:20]]
    return lines


def _chunks(count: int, workers: int) -> list[list[int]]:
    size = max(1, min(25, count // max(1, 4 * workers)))
    return [list(range(i, min(i + size, count))) for i in range(0, count, size)]


def _outcomes(
    seed: int,
    chunks: list[list[int]],
    workers: int,
    args: tuple[str, str, float, str | None],
    progress: Callable[[int], None],
) -> Iterator[Outcome]:
    if workers == 0:  # in this process: for profiling and debugging
        spool = tempfile.tempdir
        try:
            _init_worker(*args)
            for chunk in chunks:
                yield from _run_chunk(seed, chunk)
                progress(len(chunk))
        finally:
            tempfile.tempdir = spool
        return
    context = get_context("spawn")
    pool = ProcessPoolExecutor(workers, mp_context=context, initializer=_init_worker, initargs=args)
    try:
        for result in [pool.submit(_run_chunk, seed, chunk) for chunk in chunks]:
            done = result.result()
            progress(len(done))
            yield from done
    finally:  # on an interruption, the chunks not started yet are dropped
        pool.shutdown(wait=True, cancel_futures=True)


def run(
    count: int,
    seed: int,
    workers: int = 2,
    *,
    corpus: Path = CORPUS,
    timeout: float = TIMEOUT,
    keep: Path | None = None,
    progress: Callable[[int], None] = lambda _n: None,
) -> FuzzReport:
    """Try ``count`` mutated inputs (0 … count-1 of ``seed``) on ``workers`` processes (0: in this one).

    Each worker has its own temporary folder under ``tempfile.gettempdir()``, all removed at the
    end. ``keep`` receives a copy (inputs, site, mutation) of every case that went wrong.
    """
    started = time.perf_counter()
    base = Path(tempfile.mkdtemp(prefix="benchsite-fuzz-"))
    args = (str(base), str(corpus.resolve()), timeout, str(keep.resolve()) if keep else None)
    try:
        outcomes = list(_outcomes(seed, _chunks(count, workers), workers, args, progress))
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return FuzzReport.collect(seed, workers, outcomes, time.perf_counter() - started)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m scripts.reliability.fuzz",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--count", type=int, default=10_000, help="inputs to try (default 10000)")
    parser.add_argument("--seed", type=int, default=1, help="seed (default 1)")
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2; 0: this one)")
    parser.add_argument(
        "--timeout", type=float, default=TIMEOUT, help=f"seconds per build (default {TIMEOUT:g})"
    )
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="inputs root to mutate (default runs/)")
    parser.add_argument("--keep", type=Path, help="copy every case that went wrong into this folder")
    parser.add_argument("--replay", type=int, metavar="INDEX", help="write input INDEX out (with --into)")
    parser.add_argument("--into", type=Path, help="with --replay: a new inputs root to write")
    args = parser.parse_args(argv)
    if args.replay is not None:
        if args.into is None or args.into.exists():
            parser.error("--replay needs --into: a folder that does not exist yet")
        args.into.mkdir(parents=True)
        mutation = materialize(args.seed, args.replay, args.into, args.corpus)
        print(mutation.description)
        print(f"acceptable exit codes: {mutation.expected}")
        print(f"benchsite build --runs {args.into} --out SITE")
        return 0
    done = [0]

    def progress(n: int) -> None:
        done[0] += n
        if sys.stderr.isatty():
            print(f"\r{done[0]}/{args.count}", end="", file=sys.stderr, flush=True)

    terminated = signal.signal(signal.SIGTERM, lambda _n, _f: sys.exit(143))  # so temp folders go too
    try:
        report = run(
            args.count,
            args.seed,
            args.workers,
            corpus=args.corpus,
            timeout=args.timeout,
            keep=args.keep,
            progress=progress,
        )
    finally:
        signal.signal(signal.SIGTERM, terminated)
    if sys.stderr.isatty():
        print(file=sys.stderr)
    print(report.summary())
    return 0 if report.clean else 1


if __name__ == "__main__":
    raise SystemExit(main())
