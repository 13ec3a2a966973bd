"""The run cache's signature: a MAC under the user's key over an entry's bytes as written, checked
before the entry is parsed (``cache.RunCache._signed`` and ``_verified``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from generator.score.cache import FORMAT, RunCache

KEY = b"k" * 32
KIND, NAME, DATA = "past", "a" * 64, b'{"figures": [1, 2, 3]}'


def _entry(cache: Path) -> Path:
    (entry,) = (cache / f"{KIND}-v1").rglob("*.json")
    return entry


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    folder = tmp_path / "cache"
    RunCache(folder, KEY).store_blob(KIND, NAME, DATA)
    return folder


def test_an_entry_is_one_json_object_whose_first_key_is_its_mac_and_it_loads(cache: Path) -> None:
    raw = _entry(cache).read_bytes()
    fields = json.loads(raw)
    assert raw.startswith(b'{"mac":"') and next(iter(fields)) == "mac"
    assert (fields["format"], fields["key"]) == (FORMAT, NAME)
    assert RunCache(cache, KEY).load_blob(KIND, NAME) == DATA


def _respelled(raw: bytes) -> bytes:
    """The same JSON value, spelt with the standard separators."""
    return json.dumps(json.loads(raw)).encode()


def _field_changed(raw: bytes) -> bytes:
    """A field only the MAC protects: the blob's name in the entry (the blob is read by its key)."""
    assert b'"path":"blob"' in raw
    return raw.replace(b'"path":"blob"', b'"path":"bl0b"')


def _mac_changed(raw: bytes) -> bytes:
    at = len(b'{"mac":"')
    return raw[:at] + (b"0" if raw[at : at + 1] != b"0" else b"1") + raw[at + 1 :]


def _mac_moved(raw: bytes) -> bytes:
    """The MAC as the last key, where ``compact_json`` would sort it: the value is unchanged."""
    fields = json.loads(raw)
    mac = fields.pop("mac")
    return json.dumps(fields | {"mac": mac}, separators=(",", ":"), sort_keys=True).encode()


@pytest.mark.parametrize("change", [_respelled, _field_changed, _mac_changed, _mac_moved, lambda raw: b""])
def test_an_entry_not_as_signed_is_deleted_and_not_loaded(cache: Path, change) -> None:  # type: ignore[no-untyped-def]
    entry = _entry(cache)
    entry.write_bytes(change(entry.read_bytes()))
    assert RunCache(cache, KEY).load_blob(KIND, NAME) is None
    assert not entry.exists()


def test_an_entry_signed_under_another_key_is_not_loaded(cache: Path) -> None:
    assert RunCache(cache, b"another user's key, 32 bytes.....").load_blob(KIND, NAME) is None
    assert RunCache(cache, KEY).load_blob(KIND, NAME) is None  # deleted by the look-up that refused it
