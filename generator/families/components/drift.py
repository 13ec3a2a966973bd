"""Judge drift between two versions: the components family's own changes on the versions page.

The rationale is the one non-deterministic component, so each judge's mean score per criterion over
the whole version is compared with the previous version's (``ComponentsFamily.section_changes``, the
family's hook on the seam); ``generator.report.changes`` publishes the result in ``versions.json`` without
naming the family.
"""

from __future__ import annotations

from pydantic import Field

from generator.families.components.report import ALL_RUNS, ComponentsSection, JudgeDrift
from generator.figures.model import Model


class DriftChange(Model):
    """One judge's mean score on one criterion, against the previous version (components)."""

    judge: str
    criterion: str
    mean_before: float | None = Field(description="None when the judge did not score it before.")
    mean_after: float | None = Field(description="None when the judge no longer scores it.")
    n_before: int
    n_after: int


class ComponentsChanges(Model):
    """What moved in a components section between two versions (``Family.changes_model``)."""

    judge_drift: tuple[DriftChange, ...] = Field(
        default=(), description="Judge × criterion means that moved (components; both versions record drift)."
    )


def _overall(section: ComponentsSection) -> dict[tuple[str, str], JudgeDrift]:
    return {(d.judge, d.criterion): d for d in section.judge_drift if d.batch == ALL_RUNS}


def _moved(key: tuple[str, str], before: JudgeDrift | None, after: JudgeDrift | None) -> DriftChange:
    return DriftChange(
        judge=key[0],
        criterion=key[1],
        mean_before=before.mean if before else None,
        mean_after=after.mean if after else None,
        n_before=before.n if before else 0,
        n_after=after.n if after else 0,
    )


def drift_changes(before: ComponentsSection, after: ComponentsSection) -> ComponentsChanges | None:
    """Each judge × criterion whose mean over the version moved; None when none did, or when either
    version records no judge drift (a site.json from before it was published has the field unset
    when read through the model: it has nothing to compare)."""
    if not all("judge_drift" in section.model_fields_set for section in (before, after)):
        return None
    old, new = _overall(before), _overall(after)
    moved = []
    for key in sorted(old.keys() | new.keys()):
        a, b = old.get(key), new.get(key)
        if a and b and (a.mean, a.n) == (b.mean, b.n):
            continue
        moved.append(_moved(key, a, b))
    return ComponentsChanges(judge_drift=tuple(moved)) if moved else None
