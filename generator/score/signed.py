"""The framing every file of the run cache is written in (run entries, pages, scan keys, stat
records): its JSON body with an HMAC-SHA256 under the user's key written first, ``{"mac":"<hex>",…``,
so an entry is checked over the bytes as written, before it is parsed; and the atomic write that puts
it in place. Standard library only: the no-op rebuild's stat records use it without the cache's
models."""

from __future__ import annotations

import hashlib
import hmac
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

_MAC_HEAD = b'{"mac":"'
_MAC_END = len(_MAC_HEAD) + 64


def mac(key: bytes, body: bytes) -> bytes:
    return hmac.new(key, body, hashlib.sha256).hexdigest().encode("ascii")


def signed(key: bytes, body: bytes) -> bytes:
    """``body`` (a JSON object's compact bytes) with its MAC written first."""
    return _MAC_HEAD + mac(key, body) + b'",' + body[1:]


def signed_body(key: bytes, raw: bytes) -> bytes | None:
    """The JSON body of ``raw`` when the MAC written first holds over the bytes that follow it; None
    when it does not (changed, forged, or signed under another key)."""
    body = b"{" + raw[_MAC_END + 2 :]
    if (
        not raw.startswith(_MAC_HEAD)
        or raw[_MAC_END : _MAC_END + 2] != b'",'
        or not hmac.compare_digest(raw[len(_MAC_HEAD) : _MAC_END], mac(key, body))
    ):
        return None
    return body


def write_signed(path: Path, key: bytes, body: Iterable[bytes]) -> None:
    """``signed(key, b"".join(body))`` at ``path`` as :func:`write_atomic` puts it, written as the
    pieces of ``body`` come (the first begins the JSON object): a ledger of 10,000 runs is never one
    string in memory. The MAC's place is kept at the head and filled in last."""
    digest = hmac.new(key, digestmod=hashlib.sha256)
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(bytes(_MAC_END + 2))
            first = True
            for piece in body:
                digest.update(piece)
                out.write(piece[1:] if first else piece)
                first = False
            out.seek(0)
            out.write(_MAC_HEAD + digest.hexdigest().encode("ascii") + b'",')
        Path(temp).replace(path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def write_atomic(path: Path, data: bytes) -> None:
    """``data`` at ``path`` whole or not at all: written to a temporary file beside it, then renamed."""
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        Path(temp).replace(path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
