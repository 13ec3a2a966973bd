"""What a site with a base URL tells crawlers and feed readers: ``sitemap.xml`` and ``feed.xml``.

Both are site-level files, derived from the published versions (their build records and reports)
and the site's look, and rendered again whenever either changes. An Atom entry per version says
what it holds (its benchmarks, with their run counts) and what changed since the version before it
(``changes``). Atom needs a date per entry: ``SOURCE_DATE_EPOCH`` when set
(reproducible builds), else the time the version's build record was published (its file's
modification time, which a published version never changes).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from generator.figures.units import counted

if TYPE_CHECKING:
    from generator.inputs.siteconfig import SiteLook
    from generator.report.changes import VersionChanges


@dataclass(frozen=True)
class FeedEntry:
    version: str
    url: str
    updated: str
    """RFC 3339, UTC."""
    summary: str
    changes: tuple[str, ...]


def stamp(record: Path) -> str:
    """The entry's date: ``SOURCE_DATE_EPOCH``, else when ``record`` was published."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "")
    try:
        seconds = int(epoch) if epoch.isdigit() else int(record.stat().st_mtime)
    except OSError:
        seconds = 0
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def summary(runs: dict[str, int] | None, record: dict[str, Any]) -> str:
    """The version in one line: the benchmarks of its build record, with their run counts (``runs``,
    by benchmark) when its report can be read (None: it cannot)."""
    runs = runs or {}
    parts = []
    for bench in record.get("benchmarks") or []:
        count = runs.get(bench.get("id"))
        parts.append(
            f"{bench.get('title')} ({counted(count, 'run')})"
            if count is not None
            else str(bench.get("title"))
        )
    return f"{counted(len(parts), 'benchmark')}: " + "; ".join(parts) if parts else "No benchmarks."


def changed(change: VersionChanges) -> tuple[str, ...]:
    """What changed since the version before, one line per benchmark that changed."""
    if change.previous is None:
        return ("The first published version.",)
    lines = [f"Since {change.previous}: {change.note}" if change.note else f"Since {change.previous}:"]
    for bench in change.benchmarks:
        facts: list[str] = [bench.state]
        facts += [f"{counted(len(bench.figures), 'figure')} moved"] if bench.figures else []
        facts += [counted(len(bench.folders_added), "new sealed folder")] if bench.folders_added else []
        facts += [f"{len(bench.folders_resealed)} resealed"] if bench.folders_resealed else []
        facts += ["rubric changed"] if bench.rubric_changed else []
        facts += [counted(len(bench.corrections_added), "correction")] if bench.corrections_added else []
        facts += [f"identities revealed (scores frozen in {bench.revealed})"] if bench.revealed else []
        lines.append(f"{bench.benchmark}: " + ", ".join(facts))
    if not change.benchmarks:
        lines.append("no benchmark changed")
    return tuple(lines)


def page_urls(look: SiteLook, order: list[str], records: dict[str, dict[str, Any]]) -> list[str]:
    """Every HTML page of the site under the base URL: the versions list, then each version's pages
    as its build record lists them."""
    urls = [look.absolute("index.html")]
    for version in order:
        files = records[version].get("files") or {}
        urls += [look.absolute(f"{version}/{path}") for path in sorted(files) if path.endswith(".html")]
    return urls
