"""The run cache: what scoring a run yielded, kept by content so a rebuild scores only what changed.

An entry is keyed by sha256 over the run's seal digest, its path in the benchmark, the benchmark
folder's seal digest (declaration, contract, plan…), the reveal's, and the generator's own digest
(code, templates, schemas). No modification time enters a key: a run is looked up only after every
one of its files was hashed against its seal. An entry is data, never code (JSON, no pickle):

    <cache>/runs-v1/<key[:2]>/<key>.json         summary and aggregate share, validated on read
    <cache>/runs-v1/<key[:2]>/<key>.detail.json  the scored rows, checked by size and sha256

An entry that does not parse, validate, name its own key, match its own digest or match its detail
is deleted and the run scored again; it is never trusted. (The digests catch a damaged entry, not a
forged one: the cache is the user's own folder. An auditor re-derives every figure with
``--no-cache``.) Only runs that scored without a problem are kept. Writing
is best effort (a full or read-only disk costs the cache, never the build) and atomic (a temporary
file renamed into place), so concurrent builds can share a cache. Deleting the folder is always
safe: it costs one full build.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from generator.figures import Model
from generator.identity import generator_digest
from generator.jsonio import compact_json

FORMAT = "benchsite-run-cache/1"


def default_folder() -> Path:
    """``$XDG_CACHE_HOME/benchsite``, else ``~/.cache/benchsite``."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "benchsite"


class DetailRef(Model):
    sha256: str
    size: int


class Entry(Model):
    format: str
    key: str
    family: str
    summary: dict[str, Any]
    part: dict[str, Any]
    detail: DetailRef
    sha256: str
    """Over the summary, the part and the detail's digest: a flipped or truncated byte is caught."""


def _content_sha256(summary: dict[str, Any], part: dict[str, Any], detail_sha256: str) -> str:
    text = compact_json({"detail": detail_sha256, "part": part, "summary": summary})
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Hit:
    summary: BaseModel
    part: BaseModel
    detail: bytes


def bench_key(bench: str, bench_digest: str, reveal_digest: str | None) -> str:
    """What every run of one benchmark shares: its folder's seal and its reveal's (if read)."""
    return f"{bench}\n{bench_digest}\n{reveal_digest or '-'}"


class RunCache:
    """A folder of entries; ``RunCache(None)`` is no cache (every lookup misses, nothing is kept)."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder

    def key(self, bench: str, rel: str, run_digest: str) -> str:
        text = f"{FORMAT}\n{generator_digest()}\n{bench}\n{rel}\n{run_digest}\n"
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def _paths(self, key: str) -> tuple[Path, Path]:
        assert self.folder is not None
        shard = self.folder / "runs-v1" / key[:2]
        return shard / f"{key}.json", shard / f"{key}.detail.json"

    def load(
        self, key: str, family: str, summary_model: type[BaseModel], part_model: type[BaseModel]
    ) -> Hit | None:
        """The entry under ``key``, validated whole; None (and the entry deleted) if anything is off."""
        if self.folder is None:
            return None
        entry_path, detail_path = self._paths(key)
        try:
            raw = entry_path.read_bytes()
        except OSError:
            return None
        try:
            entry = Entry.model_validate_json(raw)
            detail = detail_path.read_bytes()
            if (
                entry.format != FORMAT
                or entry.key != key
                or entry.family != family
                or entry.detail.size != len(detail)
                or entry.detail.sha256 != hashlib.sha256(detail).hexdigest()
                or entry.sha256 != _content_sha256(entry.summary, entry.part, entry.detail.sha256)
            ):
                raise ValueError("entry does not match its key or its detail")
            summary = summary_model.model_validate(entry.summary)
            return Hit(summary, part_model.model_validate(entry.part), detail)
        except (OSError, ValueError, ValidationError):
            self.discard(key)
            return None

    def discard(self, key: str) -> None:
        for path in self._paths(key):
            with contextlib.suppress(OSError):
                path.unlink()

    def store(self, key: str, family: str, summary: BaseModel, part: BaseModel, detail: bytes) -> None:
        """Keep one scored run; best effort and atomic (detail first, so an entry never lacks it)."""
        if self.folder is None:
            return
        entry_path, detail_path = self._paths(key)
        dumped = summary.model_dump(mode="json", by_alias=True), part.model_dump(mode="json")
        detail_sha256 = hashlib.sha256(detail).hexdigest()
        entry = Entry(
            format=FORMAT, key=key, family=family, summary=dumped[0], part=dumped[1],
            detail=DetailRef(sha256=detail_sha256, size=len(detail)),
            sha256=_content_sha256(*dumped, detail_sha256),
        )  # fmt: skip
        try:
            entry_path.parent.mkdir(parents=True, exist_ok=True)
            _write_atomic(detail_path, detail)
            _write_atomic(entry_path, compact_json(entry.model_dump(mode="json")).encode("utf-8"))
        except OSError:
            self.discard(key)


def _write_atomic(path: Path, data: bytes) -> None:
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        Path(temp).replace(path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
