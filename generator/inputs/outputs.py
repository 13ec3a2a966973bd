"""What marks a folder as benchsite's output, so that nothing writes inputs into it: an output site
holds ``versions.json``; a published version holds its build record, ``data/build.json``."""

from __future__ import annotations

from pathlib import Path

VERSIONS = "versions.json"
"""An output site's list of its versions, at its top."""
BUILD_RECORD = "data/build.json"
"""A published version's build record: every file of the version with its sha256."""


def published_version_around(folder: Path) -> Path | None:
    """The published version ``folder`` is, or is inside, if any."""
    for place in (folder, *folder.parents):
        if (place / BUILD_RECORD).is_file():
            return place
    return None


def output_around(folder: Path) -> Path | None:
    """The output site or published version ``folder`` is, or is inside, if any."""
    for place in (folder, *folder.parents):
        if (place / VERSIONS).is_file() or (place / BUILD_RECORD).is_file():
            return place
    return None
