"""What changed between two published versions: sealed folders, figures, corrections and reveals.

Computed from each version's own ``data/site.json`` whenever the versions index is refreshed, so
a version's files never depend on what was published before it. Both are read through the report
model (``SiteReport``): a version whose site.json does not validate (damaged, or written by another
report format) is named as not comparable, never guessed at. What moved in a family's own section is
the family's to say (``Family.section_changes``): the fields of its ``changes_model`` join every
benchmark's record (``BenchmarkChanges``), so this module names no family.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field, create_model

from generator.families.registry import FAMILIES
from generator.figures.model import Model
from generator.figures.numbers import fmt_band

if TYPE_CHECKING:
    from generator.figures.ranking import Ranking, Standing
    from generator.report.model import BenchmarkReport, SiteReport


class FigureChange(Model):
    ranking: str
    subject: str
    before: str | None = Field(description="'n/d' or 'mean (n)' before; None when the subject is new.")
    after: str | None = Field(description="The same after; None when the subject is gone.")
    estimate_before: float | None
    estimate_after: float | None
    band_before: str | None = Field(default=None, description="Rank band before ('1', '2–4'); None when new.")
    band_after: str | None = Field(default=None, description="Rank band after; None when gone.")


class BenchmarkChangesBase(Model):
    """What every benchmark reports of a change; ``BenchmarkChanges`` adds each family's own fields."""

    benchmark: str
    state: Literal["added", "removed", "changed"]
    folders_added: tuple[str, ...]
    folders_removed: tuple[str, ...]
    folders_resealed: tuple[str, ...] = Field(description="Same path, different seal digest.")
    rubric_changed: bool
    figures: tuple[FigureChange, ...]
    corrections_added: tuple[str, ...]
    revealed: str | None = Field(description="Identities revealed here; scores frozen in this version.")


def _family_fields() -> dict[str, Any]:
    """Each registered family's ``changes_model`` fields, as ``create_model`` takes them."""
    fields: dict[str, Any] = {}
    for family in FAMILIES.values():
        own = family.changes_model.model_fields if family.changes_model is not None else {}
        for name, info in own.items():
            if name in fields or name in BenchmarkChangesBase.model_fields or info.is_required():
                raise TypeError(f"{family.name}: change field {name!r} is taken or has no default")
            fields[name] = (info.annotation, info)
    return fields


if TYPE_CHECKING:
    BenchmarkChanges = BenchmarkChangesBase
else:
    BenchmarkChanges = create_model(
        "BenchmarkChanges", __base__=BenchmarkChangesBase, __module__=__name__, **_family_fields()
    )
"""One benchmark's changes: what every benchmark reports, then each registered family's own fields
(each with its default where the family says nothing, as for another family's benchmarks)."""


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


def _shown(row: Standing, kind: str) -> str:
    if kind == "rate":
        return f"{row.numerator}/{row.denominator}"
    return "no measurement" if row.estimate is None else f"{row.estimate:.3f} (n = {row.denominator})"


def _band(row: Standing) -> str:
    return fmt_band(row.rank_best, row.rank_worst)


def _same(a: Standing, b: Standing) -> bool:
    """The same figure and rank band (a band can move when only another subject's figure did)."""
    figure = (a.estimate, a.numerator, a.denominator, a.interval)
    return figure == (b.estimate, b.numerator, b.denominator, b.interval) and _band(a) == _band(b)


def _standings(rankings: tuple[Ranking, ...]) -> dict[tuple[str, str], tuple[Standing, str]]:
    return {(r.id, s.subject): (s, r.kind) for r in rankings for s in r.rows}


def _figure(
    key: tuple[str, str], a: tuple[Standing, str] | None, b: tuple[Standing, str] | None
) -> FigureChange:
    return FigureChange(
        ranking=key[0],
        subject=key[1],
        before=_shown(*a) if a else None,
        after=_shown(*b) if b else None,
        estimate_before=a[0].estimate if a else None,
        estimate_after=b[0].estimate if b else None,
        band_before=_band(a[0]) if a else None,
        band_after=_band(b[0]) if b else None,
    )


def _figures(before: BenchmarkReport, after: BenchmarkReport) -> tuple[FigureChange, ...]:
    old, new = _standings(before.rankings), _standings(after.rankings)
    changes = []
    for key in sorted(old.keys() | new.keys()):
        a, b = old.get(key), new.get(key)
        if a and b and _same(a[0], b[0]):
            continue
        changes.append(_figure(key, a, b))
    return tuple(changes)


def _own(before: BenchmarkReport, after: BenchmarkReport) -> dict[str, Any]:
    """What the family says moved in its own section, as fields of ``BenchmarkChanges``; nothing
    when the benchmark changed family."""
    family = FAMILIES.get(after.family)
    if family is None or before.family != after.family:
        return {}
    found = family.section_changes(before.section, after.section)
    return {} if found is None else dict(found)


def _folders(before: BenchmarkReport | None, after: BenchmarkReport | None) -> dict[str, tuple[str, ...]]:
    old = {i.path: i.digest for i in before.inputs} if before else {}
    new = {i.path: i.digest for i in after.inputs} if after else {}
    return {
        "folders_added": tuple(sorted(new.keys() - old.keys())),
        "folders_removed": tuple(sorted(old.keys() - new.keys())),
        "folders_resealed": tuple(sorted(p for p in old.keys() & new.keys() if old[p] != new[p])),
    }


def _revealed(before: BenchmarkReport | None, after: BenchmarkReport | None) -> str | None:
    """The version whose frozen scores ``after`` reveals, when ``before`` revealed none."""
    citation = after.section.reveal_citation() if after else None
    was_revealed = before is not None and before.section.reveal_citation() is not None
    return citation[0] if citation and not was_revealed else None


def _benchmark(before: BenchmarkReport | None, after: BenchmarkReport | None) -> BenchmarkChanges | None:
    ref = after or before
    assert ref is not None
    both = (before, after) if before and after else None
    earlier = before.disclosures.corrections if before else ()
    added = tuple(c for c in (after.disclosures.corrections if after else ()) if c not in earlier)
    own = _own(*both) if both else {}
    record = BenchmarkChanges(
        benchmark=ref.id,
        state="added" if before is None else "removed" if after is None else "changed",
        **_folders(before, after),
        rubric_changed=bool(both and both[0].rubric_sha256 != both[1].rubric_sha256),
        figures=_figures(*both) if both else (),
        corrections_added=added,
        revealed=_revealed(before, after),
        **own,
    )
    moved = record.folders_added or record.folders_removed or record.folders_resealed
    said = record.rubric_changed or record.figures or record.corrections_added or record.revealed or own
    return None if record.state == "changed" and not (moved or said) else record


def version_changes(
    version: str, previous: str | None, before: SiteReport | None, after: SiteReport | None
) -> VersionChanges:
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
    old = {b.id: b for b in before.benchmarks}
    new = {b.id: b for b in after.benchmarks}
    found = [_benchmark(old.get(key), new.get(key)) for key in sorted(old.keys() | new.keys())]
    benchmarks = tuple(b for b in found if b is not None)
    note = "" if benchmarks else "Same figures: nothing changed but the version name or the generator."
    return VersionChanges(
        version=version, previous=previous, comparable=True, note=note, benchmarks=benchmarks
    )
