"""What changed between two published versions: sealed folders, figures, corrections and reveals.

Computed from each version's own ``data/site.json`` whenever the versions index is refreshed, so
a version's files never depend on what was published before it. A version written by another
report format is named as not comparable, never guessed at.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from generator.families.components.report import ALL_RUNS
from generator.figures import Model
from generator.numbers import fmt_band


class FigureChange(Model):
    ranking: str
    subject: str
    before: str | None = Field(description="'n/d' or 'mean (n)' before; None when the subject is new.")
    after: str | None = Field(description="The same after; None when the subject is gone.")
    estimate_before: float | None
    estimate_after: float | None
    band_before: str | None = Field(default=None, description="Rank band before ('1', '2–4'); None when new.")
    band_after: str | None = Field(default=None, description="Rank band after; None when gone.")


class DriftChange(Model):
    """One judge's mean score on one criterion, against the previous version (components)."""

    judge: str
    criterion: str
    mean_before: float | None = Field(description="None when the judge did not score it before.")
    mean_after: float | None = Field(description="None when the judge no longer scores it.")
    n_before: int
    n_after: int


class BenchmarkChanges(Model):
    benchmark: str
    state: Literal["added", "removed", "changed"]
    folders_added: tuple[str, ...]
    folders_removed: tuple[str, ...]
    folders_resealed: tuple[str, ...] = Field(description="Same path, different seal digest.")
    rubric_changed: bool
    figures: tuple[FigureChange, ...]
    corrections_added: tuple[str, ...]
    revealed: str | None = Field(description="Identities revealed here; scores frozen in this version.")
    judge_drift: tuple[DriftChange, ...] = Field(
        default=(), description="Judge × criterion means that moved (components; both versions record drift)."
    )


class VersionChanges(Model):
    version: str
    previous: str | None = Field(description="The version published before; None for the first.")
    comparable: bool
    note: str
    benchmarks: tuple[BenchmarkChanges, ...] = Field(description="Only benchmarks with a change.")


class VersionsIndex(Model):
    """``site/versions.json``: published order, oldest first, and what each version changed."""

    versions: tuple[str, ...]
    changes: tuple[VersionChanges, ...]


def _shown(row: dict[str, Any], kind: str) -> str:
    if kind == "rate":
        return f"{row['numerator']}/{row['denominator']}"
    return (
        "no measurement" if row["estimate"] is None else f"{row['estimate']:.3f} (n = {row['denominator']})"
    )


def _band(row: dict[str, Any]) -> str:
    return fmt_band(row.get("rank_best"), row.get("rank_worst"))


def _figures(before: dict[str, Any], after: dict[str, Any]) -> list[FigureChange]:
    old = {(r["id"], s["subject"]): (s, r["kind"]) for r in before["rankings"] for s in r["rows"]}
    new = {(r["id"], s["subject"]): (s, r["kind"]) for r in after["rankings"] for s in r["rows"]}
    changes = []
    for key in sorted(old.keys() | new.keys()):
        a, b = old.get(key), new.get(key)
        fields = ("estimate", "numerator", "denominator", "interval")
        if a and b and all(a[0][f] == b[0][f] for f in fields) and _band(a[0]) == _band(b[0]):
            continue  # a rank band can move when only another subject's figure did
        changes.append(
            FigureChange(
                ranking=key[0],
                subject=key[1],
                before=_shown(*a) if a else None,
                after=_shown(*b) if b else None,
                estimate_before=a[0]["estimate"] if a else None,
                estimate_after=b[0]["estimate"] if b else None,
                band_before=_band(a[0]) if a else None,
                band_after=_band(b[0]) if b else None,
            )
        )
    return changes


def _drift(before: dict[str, Any], after: dict[str, Any]) -> list[DriftChange]:
    """Each judge × criterion whose mean over the version moved (only when both versions record
    judge drift: a version from before it existed has nothing to compare)."""
    old_rows, new_rows = before["section"].get("judge_drift"), after["section"].get("judge_drift")
    if old_rows is None or new_rows is None:
        return []
    old = {(d["judge"], d["criterion"]): d for d in old_rows if d["batch"] == ALL_RUNS}
    new = {(d["judge"], d["criterion"]): d for d in new_rows if d["batch"] == ALL_RUNS}
    moved = []
    for key in sorted(old.keys() | new.keys()):
        a, b = old.get(key), new.get(key)
        if a and b and (a["mean"], a["n"]) == (b["mean"], b["n"]):
            continue
        moved.append(
            DriftChange(
                judge=key[0],
                criterion=key[1],
                mean_before=a["mean"] if a else None,
                mean_after=b["mean"] if b else None,
                n_before=a["n"] if a else 0,
                n_after=b["n"] if b else 0,
            )
        )
    return moved


def _benchmark(before: dict[str, Any] | None, after: dict[str, Any] | None) -> BenchmarkChanges | None:
    ref = after or before
    assert ref is not None
    old = {i["path"]: i["digest"] for i in before["inputs"]} if before else {}
    new = {i["path"]: i["digest"] for i in after["inputs"]} if after else {}
    reveal = (after or {}).get("section", {}).get("reveal") if after else None
    was_revealed = before is not None and before.get("section", {}).get("reveal") is not None
    record = BenchmarkChanges(
        benchmark=ref["id"],
        state="added" if before is None else "removed" if after is None else "changed",
        folders_added=tuple(sorted(new.keys() - old.keys())),
        folders_removed=tuple(sorted(old.keys() - new.keys())),
        folders_resealed=tuple(sorted(p for p in old.keys() & new.keys() if old[p] != new[p])),
        rubric_changed=bool(before and after and before["rubric_sha256"] != after["rubric_sha256"]),
        figures=tuple(_figures(before, after)) if before and after else (),
        corrections_added=tuple(
            c
            for c in (after or {}).get("disclosures", {}).get("corrections", [])
            if before is None or c not in before["disclosures"]["corrections"]
        ),
        revealed=reveal["scores_version"] if reveal and not was_revealed else None,
        judge_drift=tuple(_drift(before, after)) if before and after else (),
    )
    moved = record.folders_added or record.folders_removed or record.folders_resealed
    said = (
        record.rubric_changed
        or record.figures
        or record.corrections_added
        or record.revealed
        or record.judge_drift
    )
    return None if record.state == "changed" and not (moved or said) else record


def version_changes(version: str, previous: str | None, before: Any, after: Any) -> VersionChanges:
    """Changes from ``previous`` to ``version``, from each one's site.json read through the report
    model (None when it could not be: then the two are not comparable)."""
    if previous is None:
        return VersionChanges(
            version=version, previous=None, comparable=True, note="First version.", benchmarks=()
        )
    if before is None or after is None:
        damaged = previous if before is None else version
        note = (
            f"Not comparable: the data/site.json of version {damaged!r} cannot be read as a report "
            "of this format (damaged, or written by another generator)."
        )
        return VersionChanges(version=version, previous=previous, comparable=False, note=note, benchmarks=())
    try:
        old = {b["id"]: b for b in before["benchmarks"]}
        new = {b["id"]: b for b in after["benchmarks"]}
        found = [_benchmark(old.get(key), new.get(key)) for key in sorted(old.keys() | new.keys())]
    except (KeyError, TypeError, AttributeError):
        note = "Not comparable: one of the two versions was written in another report format."
        return VersionChanges(version=version, previous=previous, comparable=False, note=note, benchmarks=())
    benchmarks = tuple(b for b in found if b is not None)
    note = "" if benchmarks else "Same figures: nothing changed but the version name or the generator."
    return VersionChanges(
        version=version, previous=previous, comparable=True, note=note, benchmarks=benchmarks
    )
