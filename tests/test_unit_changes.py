"""Unit tests of ``generator.report.changes``: what changed between two versions, read through the report
model (here, the golden site's two versions), and each family's own changes through its hook on the
seam (``Family.section_changes`` and ``changes_model``), with no family named in ``changes.py``."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from generator.families.components.drift import ComponentsChanges, DriftChange
from generator.families.registry import FAMILIES
from generator.figures.model import Model
from generator.report import changes
from generator.report.changes import BenchmarkChanges, BenchmarkChangesBase, version_changes
from generator.report.model import SiteReport
from tests.conftest import ROOT

GOLDEN = ROOT / "tests" / "golden" / "site"
EARLIER, LATER = "2026.11-blind", "sha-b8df8bd9b2c8"


def golden(version: str) -> SiteReport:
    return SiteReport.model_validate_json((GOLDEN / version / "data" / "site.json").read_bytes())


def test_a_version_that_does_not_validate_is_not_comparable_with_the_same_note() -> None:
    later = golden(LATER)
    change = version_changes(LATER, EARLIER, None, later)
    assert (change.comparable, change.benchmarks) == (False, ())
    assert change.note == (
        f"Not comparable: the data/site.json of version {EARLIER!r} cannot be read as a report "
        "of this format (damaged, or written by another generator)."
    )


def test_the_golden_versions_differ_by_the_reveal_alone() -> None:
    before, after = golden(EARLIER), golden(LATER)
    change = version_changes(LATER, EARLIER, before, after)
    assert [(b.benchmark, b.revealed) for b in change.benchmarks] == [("vibe-delivery", EARLIER)]
    assert version_changes(LATER, EARLIER, after, after).note.startswith("Same figures")


def test_a_benchmark_changes_record_is_every_benchmarks_fields_then_each_familys_own() -> None:
    own = [name for f in FAMILIES.values() if f.changes_model for name in f.changes_model.model_fields]
    assert own == ["judge_drift"]  # the components family's, through its changes_model
    assert list(BenchmarkChanges.model_fields) == [*BenchmarkChangesBase.model_fields, *own]
    source = (ROOT / "generator" / "report" / "changes.py").read_text(encoding="utf-8")
    assert not [name for name in FAMILIES if name in source]


def test_the_components_hook_reports_judge_drift_and_the_default_hook_nothing() -> None:
    sections = {b.family: b.section for b in golden(LATER).benchmarks}
    components = sections["components"]
    overall = next(d for d in components.judge_drift if d.batch == "all runs")
    drifted = overall.model_copy(update={"mean": overall.mean + 1, "n": overall.n + 2})
    rows = tuple(drifted if d is overall else d for d in components.judge_drift)
    found = FAMILIES["components"].section_changes(
        components, components.model_copy(update={"judge_drift": rows})
    )
    assert found == ComponentsChanges(
        judge_drift=(
            DriftChange(
                judge=overall.judge,
                criterion=overall.criterion,
                mean_before=overall.mean,
                mean_after=overall.mean + 1,
                n_before=overall.n,
                n_after=overall.n + 2,
            ),
        )
    )
    assert FAMILIES["components"].section_changes(components, components) is None
    for name in ("points", "trials", "definitions"):  # the seam's default: nothing of their own
        assert FAMILIES[name].section_changes(sections[name], sections[name]) is None


class Clash(Model):
    figures: tuple[str, ...] = ()


class NoDefault(Model):
    extra: int


@pytest.mark.parametrize("model", [Clash, NoDefault])
def test_a_familys_change_field_must_be_its_own_and_have_a_default(
    model: type[Model], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(changes, "FAMILIES", {"fake": SimpleNamespace(name="fake", changes_model=model)})
    with pytest.raises(TypeError, match="fake: change field"):
        changes._family_fields()
