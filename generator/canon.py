"""The JSON spellings benchsite writes, with the standard library only (a no-op rebuild compares
records in them without importing the models)."""

from __future__ import annotations

import json
from typing import Any


def canonical_json(value: Any) -> str:
    """The one JSON spelling benchsite writes: sorted keys, two-space indent, final newline."""
    return json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def compact_json(value: Any) -> str:
    """Canonical too (sorted keys, no NaN), without indentation, for large files: one line and a newline."""
    return (
        json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False) + "\n"
    )
