"""The site's home page (``site/index.html``): who leads in the latest version, what changed in it,
and one short row per published version.

The writer hands over each version's build record, its changes and, for the latest, its benchmarks'
headlines (``publish.write.IndexPages``); this module turns them into what the template displays, so
the template computes nothing. A version's row names each benchmark's rubric status as a badge of a
word or two (:func:`status_badge`) and its changes as one line (:func:`change_summary`): the full
status stays on the benchmark's pages and the full change list under the row's anchor, so a row's
height does not grow with a status paragraph or a long change list.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from generator.report.changes import BenchmarkChanges, VersionChanges
    from generator.report.model import Headlines

STATUS_WORDS = (
    "draft",
    "proposed",
    "accepted",
    "frozen",
    "stable",
    "successor",
    "historical",
    "deprecated",
    "superseded",
    "rejected",
    "withdrawn",
)
"""The lifecycle words a rubric's status line starts with: a points contract's ('frozen',
'historical-rubric; …', 'frozen successor of …') and an ADR's ('Status: Accepted (date). …')."""

_WORD = re.compile(r"\b(" + "|".join(STATUS_WORDS) + r")\b", re.IGNORECASE)
_CLAUSE_END = re.compile(r"[;,(:]|\.(?!\d)|\s[—–]\s")
BADGE_WORDS = 3
"""A status in none of :data:`STATUS_WORDS` is shown by its first words, at most this many."""
SUMMARY_BENCHMARKS = 3
"""A row's change line names at most this many benchmarks, then counts the rest."""


def status_badge(status: str | None) -> str | None:
    """A rubric status line in a word or two: the lifecycle words of its first clause, lower-case, in
    their order ('historical-rubric; prospective release requires …' → 'historical'; 'frozen
    successor of …' → 'frozen successor'; 'Status: Accepted (2026-09-07). …' → 'accepted'). A first
    clause without such a word is shown by its first words (an ellipsis when cut). None: no status."""
    if status is None or not status.strip():
        return None
    text = re.sub(r"^\s*status\s*:\s*", "", status, flags=re.IGNORECASE)
    clause = _CLAUSE_END.split(text, maxsplit=1)[0].strip() or text.strip()
    words = list(dict.fromkeys(w.lower() for w in _WORD.findall(clause)))
    if words:
        return " ".join(words)
    shown = clause.split()
    return " ".join(shown[:BADGE_WORDS]) + ("…" if len(shown) > BADGE_WORDS else "")


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def benchmark_summary(b: BenchmarkChanges) -> str:
    """One benchmark's changes in a few words: what kinds of change, counted."""
    if b.state != "changed":
        return f"{b.benchmark} {b.state}"
    parts = [
        "identities revealed" if b.revealed else "",
        "rubric changed" if b.rubric_changed else "",
        _count(len(b.figures), "figure moved", "figures moved") if b.figures else "",
        _count(len(b.folders_added), "new folder", "new folders") if b.folders_added else "",
        _count(len(b.folders_removed), "folder removed", "folders removed") if b.folders_removed else "",
        _count(len(b.folders_resealed), "folder resealed", "folders resealed") if b.folders_resealed else "",
        _count(len(b.corrections_added), "correction", "corrections") if b.corrections_added else "",
    ]
    named = [p for p in parts if p]
    return f"{b.benchmark}: {', '.join(named) if named else 'its own figures moved'}"


def change_summary(changes: VersionChanges) -> str:
    """A version's changes in one line, for its row (the full list is under ``#changes-<version>``)."""
    if changes.previous is None:
        return "first version"
    if not changes.comparable:
        return "not comparable with the version before"
    if not changes.benchmarks:
        return "nothing changed"
    shown = [benchmark_summary(b) for b in changes.benchmarks[:SUMMARY_BENCHMARKS]]
    rest = len(changes.benchmarks) - len(shown)
    return "; ".join(shown) + (f"; {_count(rest, 'more benchmark', 'more benchmarks')}" if rest else "")


@dataclass(frozen=True)
class StatusBadge:
    """A benchmark of a version as its row shows it: its id, title and status badge (or none)."""

    id: str
    title: str
    badge: str | None


@dataclass(frozen=True)
class VersionRow:
    """One published version on the home page."""

    version: str
    inputs_digest: str
    generator: str
    benchmarks: tuple[StatusBadge, ...]
    summary: str
    changes: VersionChanges
    headlines: Headlines | None
    """The latest version's benchmarks with their headlines; None for the others (and for a latest
    version whose report cannot be read)."""


def version_row(entry: dict[str, Any]) -> VersionRow:
    """A version's row from the writer's entry (``publish.write.IndexPages``)."""
    record = entry["record"]
    return VersionRow(
        version=entry["version"],
        inputs_digest=record["inputs_digest"],
        generator=record["generator"],
        benchmarks=tuple(
            StatusBadge(id=b["id"], title=b["title"], badge=status_badge(b.get("status")))
            for b in record["benchmarks"]
        ),
        summary=change_summary(entry["changes"]),
        changes=entry["changes"],
        headlines=entry.get("headlines"),
    )
