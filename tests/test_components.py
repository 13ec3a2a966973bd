"""The components family (SPEC §2.3, seed 003, issue 4): meaning checked with exact expected values.

Pure scoring first: the seed's worked example JE-06 rebuilt from raw episode facts, matching,
outcome, process, rationale, the citation audit, cells, baselines and judge–SME agreement. Then
the example corpus (``runs/je-validation`` alone), built once per module: every surface shows the
three components beside any score, and the audit, flags, checks and provenance reach the pages.
CLI cases (exit 4) copy that benchmark, change one thing and re-seal what they changed.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import statistics
from collections.abc import Callable, Iterator
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from generator.families.components.aggregate import (
    agreement,
    baselines,
    cells,
    episode_figure,
    weighted_kappa,
)
from generator.families.components.family import episode_result
from generator.families.components.models import CRITERIA, ComponentsDeclaration, Episode, Task
from generator.families.components.report import Components, EpisodeResult
from generator.families.components.scoring import fabricated_citations, match
from generator.families.components.spec import seed_rules
from generator.inputs.seal import write_seal
from tests.conftest import CORPUS, ROOT, reseal, run_cli
from tests.pages import Table, parse

BENCH = "je-validation"
JUDGES = tuple("sha256:" + c * 64 for c in "abc")
LABEL = "judge agreement not measured"
FIGURE = re.compile(r"\d\.\d{2}")  # a mean over n ≤ 100: two decimals (units.mean_digits)


# --- helpers: facts → models ------------------------------------------------------------------


def judged(*rows: tuple[int, int, int, int], prefix: str = "call") -> list[dict[str, Any]]:
    """One judge per row, scoring the four criteria (in CRITERIA order), one call per criterion."""
    return [
        {"call_id": f"{prefix}-{j}-{c}", "judge": JUDGES[j], "criterion": c, "score": s}
        for j, row in enumerate(rows)
        for c, s in zip(CRITERIA, row, strict=True)
    ]


def finding(
    location: str, issue_type: str, figure: str | None = None, cites: tuple[str, ...] = ("ev-a",)
) -> dict[str, Any]:
    return {"location": location, "issue_type": issue_type, "figure": figure, "evidence_ids": list(cites)}


def task_dict(**changes: Any) -> dict[str, Any]:
    value: dict[str, Any] = {
        "id": "T-1",
        "family": "accruals",
        "level": "L2",
        "weights": {"outcome": 0.5, "process": 0.3, "rationale": 0.2},
        "seeded_defects": [{"id": "d1", "location": "Ledger row 10", "issue_type": "cutoff"}],
        "key_evidence": ["ev-a", "ev-b"],
        "required_calls": ["open_ledger"],
        "hard_fail_rules": [{"id": "HF-1", "description": "approves what it never opened"}],
    }
    value.update(changes)
    return value


def episode_dict(**changes: Any) -> dict[str, Any]:
    value: dict[str, Any] = {
        "episode_id": "e-1",
        "task": "T-1",
        "seed": 1,
        "findings": [finding("Ledger row 10", "cutoff")],
        "opened_documents": ["ev-a", "ev-b"],
        "calls": [{"name": "open_ledger", "arguments": "period=1"}],
        "judgments": judged((3, 3, 3, 3)),
        "hard_fails": [],
    }
    value.update(changes)
    return value


def make_task(**changes: Any) -> Task:
    return Task.model_validate_json(json.dumps(task_dict(**changes)))


def make_episode(**changes: Any) -> Episode:
    return Episode.model_validate_json(json.dumps(episode_dict(**changes)))


def scored(
    task: Task | None = None, subject: str = "m-x", kind: str = "model", **changes: Any
) -> EpisodeResult:
    """An episode made from ``changes`` (raw facts), scored through episode_result()."""
    return episode_result(make_episode(**changes), task or make_task(), subject, kind)


def at(value: float | None, digits: int) -> str:
    """A figure at the seed's printed precision (the seed rounds half up: 13/16 → 0.813)."""
    assert value is not None
    return str(Decimal(repr(value)).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP))


def declaration(tasks: list[dict[str, Any]]) -> ComponentsDeclaration:
    value: dict[str, Any] = {
        "schema_version": 1,
        "family": "components",
        "title": "T",
        "rubric": {"file": "rubric.json", "sha256": "0" * 64},
        "anti_gaming": {"flag_everything_max_outcome": 0.35, "no_evidence_max_outcome_l2_plus": 0.25},
        "tasks": tasks,
    }
    return ComponentsDeclaration.model_validate_json(json.dumps(value))


def with_components(
    base: EpisodeResult, seed: int, o: float, p: float, r: float | None, s: float | None, **changes: Any
) -> EpisodeResult:
    """``base`` with its seed and components replaced (and any other field in ``changes``)."""
    parts = Components(outcome=o, process=p, rationale=r, score=s)
    return base.model_copy(update={"seed": seed, "components": parts, **changes})


# --- JE-06, the seed's worked example, from raw facts ------------------------------------------

TYPES = ("misposting", "cutoff", "duplicate", "classification")


def je06_task() -> dict[str, Any]:
    """16 seeded defects (one with a figure), 21 key evidence ids, weights .55/.25/.20."""
    defects: list[dict[str, Any]] = [
        {"id": f"D{i:02d}", "location": f"JE-06 ledger row {10 * (i + 1)}", "issue_type": TYPES[i % 4]}
        for i in range(16)
    ]
    defects[0]["figure"] = "2500.00"
    return task_dict(
        id="JE-06",
        family="accruals",
        level="L3",
        weights={"outcome": 0.55, "process": 0.25, "rationale": 0.20},
        seeded_defects=defects,
        key_evidence=[f"ev-{i:02d}" for i in range(21)],
        required_calls=["open_ledger", "query_gl"],
        hard_fail_rules=[],
    )


def je06_episode(episode_id: str = "JE-06-s1", seed: int = 1) -> dict[str, Any]:
    """13 findings at seeded locations (one with the wrong issue type), 3 elsewhere; 14 documents
    opened of which 13 key; 20 calls of which 3 repeat an earlier name+arguments; one judge: 2+2+2+1."""
    findings = [finding("JE-06 ledger row 900", "cutoff", cites=("memo-unrelated",))]
    for i in range(13):
        where = f"JE-06 ledger row {10 * (i + 1)}"
        if i % 2:
            where = "  je-06 \t LEDGER   Row " + str(10 * (i + 1)) + " "
        kind = TYPES[(i + 1) % 4] if i == 12 else TYPES[i % 4].upper()
        findings.append(finding(where, kind, figure="2500.00" if i == 0 else None, cites=(f"ev-{i:02d}",)))
    findings += [finding(f"JE-06 ledger row {r}", "duplicate", cites=("ev-00",)) for r in (910, 920)]
    opened = [f"ev-{i:02d}" for i in range(13)] + ["memo-unrelated"]
    calls = [
        {"name": "open_ledger", "arguments": "period=2026-09"},
        {"name": "query_gl", "arguments": "account=2100"},
    ]
    calls += [{"name": "open_document", "arguments": doc} for doc in opened]
    calls.append({"name": "query_gl", "arguments": "account=4000"})
    calls += [calls[0], calls[1], calls[2]]  # redundant: same name and arguments as earlier calls
    return episode_dict(
        episode_id=episode_id,
        task="JE-06",
        seed=seed,
        findings=findings,
        opened_documents=opened,
        calls=calls,
        judgments=judged((2, 2, 2, 1), prefix=episode_id),
    )


def je06() -> EpisodeResult:
    task = Task.model_validate_json(json.dumps(je06_task()))
    return episode_result(Episode.model_validate_json(json.dumps(je06_episode())), task, "m-x", "model")


def test_je06_facts_are_the_seeds_counts() -> None:
    r = je06()
    assert (r.true_positives, r.false_positives, r.false_negatives) == (13, 3, 3)
    assert r.f1 == 13 / 16 and r.issue_type_accuracy == 12 / 13 and r.exactness == 1.0
    assert (r.coverage, r.evidence_precision, r.efficiency) == (13 / 21, 13 / 14, 17 / 20)
    assert r.rationale_total == 7 and r.missing_calls == () and r.fabricated_citations == ()


def test_je06_figures_at_the_seeds_precision() -> None:
    r = je06()
    c = r.components
    assert at(r.f1, 3) == "0.813" and at(r.issue_type_accuracy, 3) == "0.923"
    assert at(c.outcome, 2) == "0.75"
    assert (at(r.coverage, 2), at(r.evidence_precision, 2), at(r.efficiency, 2)) == ("0.62", "0.93", "0.85")
    assert at(c.process, 2) == "0.76"
    assert at(c.rationale, 3) == "0.583"
    assert at(c.score, 2) == "0.72"


def test_je06_figures_are_exact_fractions_of_the_facts() -> None:
    c = je06().components
    process = (
        Fraction(1, 2) * Fraction(13, 21)
        + Fraction(3, 10) * Fraction(13, 14)
        + Fraction(1, 5) * Fraction(17, 20)
    )
    score = (
        Fraction(55, 100) * Fraction(3, 4) + Fraction(25, 100) * process + Fraction(20, 100) * Fraction(7, 12)
    )
    assert c.outcome == 0.75
    assert c.process == float(process)
    assert c.rationale == float(Fraction(7, 12))
    assert c.score == float(score)


def test_je06_on_l4_with_three_judges_takes_the_median_per_criterion() -> None:
    task = Task.model_validate_json(json.dumps({**je06_task(), "level": "L4"}))
    # medians: identification 2, evidence_grounding 2, reasoning_validity 2, disposition 1 → 7
    facts = je06_episode() | {"judgments": judged((1, 2, 3, 1), (2, 2, 2, 0), (3, 0, 1, 1))}
    r = episode_result(Episode.model_validate_json(json.dumps(facts)), task, "m-x", "model")
    assert [(k.criterion, k.score, k.judges) for k in r.criteria] == [(c, 2, 3) for c in CRITERIA[:3]] + [
        ("disposition", 1, 3)
    ]
    assert at(r.components.rationale, 3) == "0.583" and at(r.components.score, 2) == "0.72"


# --- matching and outcome ------------------------------------------------------------------------


def test_locations_match_after_whitespace_collapse_and_case_folding() -> None:
    r = scored(findings=[finding("  lEDGER\t row   10 ", "CutOff")])
    assert (r.true_positives, r.false_positives, r.false_negatives) == (1, 0, 0)
    assert r.issue_type_accuracy == 1.0 and r.components.outcome == 1.0


@pytest.mark.parametrize("location", ["Ledger row 1", "Ledger row10", "Ledger row 10 (memo)"])
def test_a_different_location_does_not_match(location: str) -> None:
    r = scored(findings=[finding(location, "cutoff")])
    assert (r.true_positives, r.false_positives, r.false_negatives) == (0, 1, 1)
    assert r.f1 == 0 and r.issue_type_accuracy is None and r.components.outcome == 0


def test_matching_is_one_to_one_and_takes_the_first_unmatched_finding() -> None:
    # Two findings at one defect's location: the first (wrong type) matches, the second is a FP.
    r = scored(findings=[finding("Ledger row 10", "duplicate"), finding("Ledger row 10", "cutoff")])
    assert (r.true_positives, r.false_positives, r.false_negatives) == (1, 1, 0)
    assert r.f1 == 2 / 3 and r.issue_type_accuracy == 0 and r.components.outcome == 0
    # Two defects at one location, one finding: it matches the first defect; the second is a FN.
    defects = [
        {"id": "a", "location": "row 1", "issue_type": "cutoff"},
        {"id": "b", "location": "ROW 1", "issue_type": "x"},
    ]
    detection = match(
        make_episode(findings=[finding("row 1", "cutoff")]).findings,
        make_task(seeded_defects=defects).seeded_defects,
    )
    assert [d.id for _, d in detection.pairs] == ["a"]
    assert (detection.false_positives, detection.false_negatives) == (0, 1)


def test_f1_with_false_positives_and_negatives_times_issue_type_accuracy() -> None:
    defects = [{"id": f"d{i}", "location": f"row {i}", "issue_type": "cutoff"} for i in range(3)]
    found = [
        finding("row 0", "cutoff"),
        finding("row 1", "misposting"),
        finding("row 7", "x"),
        finding("row 8", "x"),
    ]
    r = scored(make_task(seeded_defects=defects), findings=found)
    assert (r.true_positives, r.false_positives, r.false_negatives) == (2, 2, 1)
    assert r.f1 == 4 / 7 and r.precision == 0.5 and r.recall == 2 / 3
    assert r.issue_type_accuracy == 0.5
    assert r.components.outcome == float(Fraction(4, 7) * Fraction(1, 2))


def test_no_finding_on_a_task_with_defects_scores_outcome_zero() -> None:
    r = scored(findings=[])
    assert (r.f1, r.issue_type_accuracy, r.components.outcome) == (0.0, None, 0.0)
    assert r.precision is None and r.recall == 0


FIGURED = [{"id": "d1", "location": "row 1", "issue_type": "cutoff", "figure": "2500.00"}]


@pytest.mark.parametrize(
    ("stated", "exactness"),
    [("2500.00", 1.0), (" 2500.00 ", 1.0), ("2500", 0.0), ("2,500.00", 0.0), (None, 0.0)],
)
def test_exactness_where_a_figure_is_specified(stated: str | None, exactness: float) -> None:
    r = scored(make_task(seeded_defects=FIGURED), findings=[finding("row 1", "cutoff", figure=stated)])
    assert r.exactness == exactness and r.components.outcome == exactness


def test_exactness_is_not_applicable_without_a_specified_figure() -> None:
    r = scored(findings=[finding("Ledger row 10", "cutoff", figure="999.99")])
    assert r.exactness is None and r.components.outcome == 1.0


def test_a_figure_mismatch_lowers_outcome_in_proportion() -> None:
    defects = [*FIGURED, {"id": "d2", "location": "row 2", "issue_type": "cutoff", "figure": "10.00"}]
    found = [finding("row 1", "cutoff", figure="2500.00"), finding("row 2", "cutoff", figure="100.00")]
    r = scored(make_task(seeded_defects=defects), findings=found)
    assert (r.f1, r.issue_type_accuracy, r.exactness) == (1.0, 1.0, 0.5)
    assert r.components.outcome == 0.5


def test_a_hard_fail_forces_outcome_to_zero_and_leaves_the_rest() -> None:
    clean, failed = scored(), scored(hard_fails=["HF-1"])
    assert clean.components.outcome == 1.0 and failed.components.outcome == 0.0
    assert failed.f1 == 1.0 and failed.hard_fails == ("HF-1",)
    assert failed.components.process == clean.components.process
    assert failed.components.rationale == clean.components.rationale == 1.0
    p = Fraction(1, 2) + Fraction(3, 10) + Fraction(1, 5)  # coverage, precision, efficiency all 1
    assert failed.components.score == float(Fraction(3, 10) * p + Fraction(1, 5))


def test_clean_control_nothing_flagged_is_outcome_one_anything_flagged_is_zero() -> None:
    control = make_task(seeded_defects=[])
    quiet = scored(control, findings=[])
    assert (quiet.f1, quiet.components.outcome) == (1.0, 1.0)
    assert quiet.issue_type_accuracy is None and quiet.exactness is None and quiet.recall is None
    noisy = scored(control, findings=[finding("Ledger row 10", "cutoff")])
    assert (noisy.false_positives, noisy.f1, noisy.components.outcome) == (1, 0.0, 0.0)


# --- process ------------------------------------------------------------------------------------


def test_a_missing_required_call_gates_process_to_zero() -> None:
    task = make_task(required_calls=["open_ledger", "query_gl"])
    r = scored(
        task, calls=[{"name": "open_ledger", "arguments": "x"}, {"name": "open_ledger", "arguments": "y"}]
    )
    assert r.missing_calls == ("query_gl",) and r.components.process == 0.0
    assert (r.coverage, r.evidence_precision, r.efficiency) == (1.0, 1.0, 1.0)  # still shown
    present = scored(
        task, calls=[{"name": "query_gl", "arguments": "any"}, {"name": "open_ledger", "arguments": ""}]
    )
    assert present.missing_calls == () and present.components.process == 1.0


def test_efficiency_counts_repeats_of_the_same_name_and_arguments() -> None:
    calls = [("open_ledger", "p=1"), ("open_ledger", "p=1"), ("open_ledger", "p=2"), ("query_gl", "p=1")]
    r = scored(calls=[{"name": n, "arguments": a} for n, a in calls])
    assert r.efficiency == 3 / 4
    assert r.components.process == float(Fraction(1, 2) + Fraction(3, 10) + Fraction(1, 5) * Fraction(3, 4))


def test_efficiency_with_no_calls_is_one_but_a_required_call_still_gates() -> None:
    free = scored(make_task(required_calls=[]), calls=[])
    assert free.efficiency == 1.0 and free.components.process == 1.0
    gated = scored(calls=[])
    assert (
        gated.efficiency == 1.0 and gated.missing_calls == ("open_ledger",) and gated.components.process == 0
    )


@pytest.mark.parametrize(
    ("key", "opened", "coverage", "precision"),
    [
        (["a", "b", "c", "d"], ["a", "b", "x", "y", "z"], 0.5, 0.4),
        (["a", "b"], [], 0.0, 0.0),  # nothing opened
        (["a", "b"], ["x"], 0.0, 0.0),  # only noise opened
        (["a", "b"], ["a", "a"], 0.5, 1.0),  # a document opened twice is one document
        ([], [], 1.0, 1.0),  # no key evidence, nothing opened
        ([], ["x"], 1.0, 0.0),  # no key evidence: every opened document is noise
    ],
)
def test_coverage_and_precision(key: list[str], opened: list[str], coverage: float, precision: float) -> None:
    r = scored(
        make_task(key_evidence=key),
        opened_documents=opened,
        findings=[finding("Ledger row 10", "cutoff", cites=())],
    )
    assert (r.coverage, r.evidence_precision) == (coverage, precision)
    expected = Fraction(1, 2) * Fraction(coverage) + Fraction(3, 10) * Fraction(precision) + Fraction(1, 5)
    assert r.components.process == pytest.approx(float(expected), abs=1e-12)


# --- rationale ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("scores", "total", "passes"),
    [((3, 2, 2, 2), 9, True), ((3, 3, 3, 0), 9, False), ((2, 2, 2, 2), 8, False), ((3, 3, 3, 3), 12, True)],
)
def test_pass_bar_total_at_least_nine_and_no_criterion_at_zero(
    scores: tuple[int, int, int, int], total: int, passes: bool
) -> None:
    r = scored(judgments=judged(scores))
    assert r.rationale_total == total and r.pass_bar is passes
    assert r.components.rationale == total / 12  # a zero fails the bar, not the figure


def test_l4_median_per_criterion_drives_the_pass_bar() -> None:
    l4 = make_task(level="L4")
    one_judge_zero = scored(l4, judgments=judged((3, 3, 3, 0), (3, 3, 3, 3), (2, 2, 2, 3)))
    assert [k.score for k in one_judge_zero.criteria] == [3, 3, 3, 3] and one_judge_zero.pass_bar is True
    median_zero = scored(l4, judgments=judged((3, 3, 3, 3), (3, 3, 3, 0), (3, 3, 3, 0)))
    assert median_zero.rationale_total == 9 and median_zero.pass_bar is False


def test_l4_with_fewer_than_three_judges_is_not_scored_but_outcome_and_process_are() -> None:
    r = scored(make_task(level="L4"), judgments=judged((3, 3, 3, 3), (3, 3, 3, 3)))
    assert r.components.rationale is None and r.components.score is None
    assert r.pass_bar is None and r.rationale_total is None
    assert r.rationale_note is not None and "not scored as L4" in r.rationale_note
    assert (r.components.outcome, r.components.process) == (1.0, 1.0)
    assert [k.judges for k in r.criteria] == [2, 2, 2, 2]


def test_two_judges_below_l4_are_scored_with_a_fractional_median() -> None:
    r = scored(judgments=judged((3, 3, 3, 3), (2, 2, 2, 2)))
    assert [k.score for k in r.criteria] == [2.5] * 4
    assert r.rationale_total == 10 and r.components.rationale == 10 / 12 and r.pass_bar is True


def test_a_criterion_with_no_judgment_leaves_the_rationale_unscored() -> None:
    partial = [j for j in judged((3, 3, 3, 3)) if j["criterion"] != "disposition"]
    r = scored(judgments=partial)
    assert r.components.rationale is None and r.components.score is None and r.pass_bar is None
    assert r.rationale_note is not None and "disposition" in r.rationale_note
    assert ("disposition", None, 0) in [(k.criterion, k.score, k.judges) for k in r.criteria]
    assert r.components.outcome == 1.0 and r.components.process == 1.0


def test_judgment_rules_refuse_a_shared_call_and_a_repeated_criterion() -> None:
    shared = judged((3, 3, 3, 3))
    shared[1]["call_id"] = shared[0]["call_id"]
    with pytest.raises(ValueError, match="separate calls"):
        make_episode(judgments=shared)
    twice = judged((3, 3, 3, 3))
    twice[1]["criterion"] = twice[0]["criterion"]
    with pytest.raises(ValueError, match="same criterion twice"):
        make_episode(judgments=twice)
    with pytest.raises(ValueError, match="judge"):
        make_episode(judgments=[{**judged((3, 3, 3, 3))[0], "judge": "judge-alice"}])


# --- citation audit -----------------------------------------------------------------------------


def test_cited_evidence_never_opened_is_a_fabricated_citation() -> None:
    found = [
        finding("Ledger row 10", "cutoff", cites=("ev-a", "ghost-1")),
        finding("row 9", "x", cites=("ghost-2", "ghost-1")),
    ]
    ep = make_episode(findings=found, opened_documents=["ev-a"])
    assert fabricated_citations(ep) == ("ghost-1", "ghost-2")
    assert scored(findings=found, opened_documents=["ev-a"]).fabricated_citations == ("ghost-1", "ghost-2")
    assert scored().fabricated_citations == ()


# --- cells, baselines, agreement ----------------------------------------------------------------


def test_cell_mean_sample_sd_and_n_against_hand_computation() -> None:
    base = scored()
    four = [
        with_components(base, 1, 1.0, 0.6, 0.5, 0.2),
        with_components(base, 2, 0.5, 0.6, 0.75, 0.4),
        with_components(base, 3, 0.0, 0.6, None, None),
        with_components(base, 4, 0.5, 0.6, 1.0, 0.9),
    ]
    five = [with_components(base, s, 1.0, 1.0, 1.0, 1.0, task="T-2") for s in range(1, 6)]
    single = [with_components(base, 1, 0.3, 0.3, 0.3, 0.3, subject="m-y")]
    baseline = [with_components(base, 1, 0.0, 0.0, 0.0, 0.0, subject="b", kind="flag_everything_baseline")]
    everything = [episode_figure(e) for e in four + five + single + baseline]
    got = {(c.task, c.subject): c for c in cells(everything, minimum=5)}
    assert sorted(got) == [("T-1", "m-x"), ("T-1", "m-y"), ("T-2", "m-x")]  # baselines are no cells
    cell = got[("T-1", "m-x")]
    assert (cell.seeds, cell.flagged) == (4, True)
    sp = cell.spreads
    assert (sp.outcome.mean, sp.outcome.n) == (0.5, 4) and sp.outcome.sd == pytest.approx((1 / 6) ** 0.5)
    assert (sp.process.mean, sp.process.sd, sp.process.n) == (pytest.approx(0.6), 0.0, 4)
    assert (sp.rationale.mean, sp.rationale.sd, sp.rationale.n) == (0.75, 0.25, 3)
    assert sp.score.mean == pytest.approx(0.5) and sp.score.sd == pytest.approx(0.13**0.5) and sp.score.n == 3
    assert (got[("T-2", "m-x")].seeds, got[("T-2", "m-x")].flagged) == (5, False)
    lone = got[("T-1", "m-y")]
    assert lone.flagged and lone.spreads.score.sd is None and lone.spreads.score.n == 1


def test_baselines_are_checked_against_the_declared_thresholds() -> None:
    decl = declaration(
        [task_dict(id="L1", level="L1"), task_dict(id="L2", level="L2"), task_dict(id="L4", level="L4")]
    )
    base = scored()

    def run(kind: str, task: str, level: str, *scores: float) -> list[EpisodeResult]:
        return [
            with_components(base, i, s, 0.0, 0.0, 0.0, kind=kind, task=task, level=level, subject=kind)
            for i, s in enumerate(scores)
        ]

    episodes = (
        run("flag_everything_baseline", "L1", "L1", 0.2, 0.5)  # mean 0.35 = threshold: holds
        + run("flag_everything_baseline", "L2", "L2", 0.4, 0.5)  # mean 0.45 > 0.35: violated
        + run("no_evidence_baseline", "L1", "L1", 0.9)  # L1: not checked
        + run("no_evidence_baseline", "L2", "L2", 0.3)  # > 0.25: violated
        + run("no_evidence_baseline", "L4", "L4", 0.1, 0.2)  # holds
        + [with_components(base, 9, 1.0, 1.0, 1.0, 1.0)]  # a model: not a baseline
    )
    got = {
        (b.baseline, b.task): (b.threshold, b.passes, b.episodes)
        for b in baselines([episode_figure(e) for e in episodes], decl, seed_rules())
    }
    assert got == {
        ("flag_everything_baseline", "L1"): (0.35, True, 2),
        ("flag_everything_baseline", "L2"): (0.35, False, 2),
        ("no_evidence_baseline", "L1"): (None, None, 1),
        ("no_evidence_baseline", "L2"): (0.25, False, 1),
        ("no_evidence_baseline", "L4"): (0.25, True, 2),
    }


def test_weighted_kappa_against_a_hand_worked_table() -> None:
    # judge 0,1,2,3 vs SME 0,2,2,3: observed Σ(x−y)² = 1 → 1/9/4; marginals a = 1,1,1,1 and
    # b = 1,0,2,1 give Σ a_i b_j (i−j)² = 14 + 0 + 2·6 + 14 = 40 → 40/9/16; κ = 1 − (1/36)/(40/144) = 0.9
    assert weighted_kappa([(0, 0), (1, 2), (2, 2), (3, 3)]) == pytest.approx(0.9)
    assert weighted_kappa([(0, 0), (1, 1), (2, 2), (3, 3), (3, 3)]) == 1.0
    assert weighted_kappa([(0, 3), (3, 0)]) == pytest.approx(-1.0)  # observed 1, expected 1/2
    assert weighted_kappa([(2, 2), (2, 2)]) is None  # no spread: κ undefined
    assert weighted_kappa([]) is None


def grades(*scores: int) -> list[dict[str, Any]]:
    return [{"criterion": c, "score": s} for c, s in zip(CRITERIA, scores, strict=True)]


def test_agreement_with_sme_grades_exact_and_quadratic_kappa() -> None:
    decl = declaration([task_dict(), task_dict(id="T-9", family="revenue")])
    episodes = [
        scored(episode_id="e-1", judgments=judged((3, 2, 1, 0)), human_grades=grades(3, 2, 2, 0)),
        scored(episode_id="e-2", judgments=judged((2, 2, 3, 3)), human_grades=grades(2, 1, 3, 3)),
        # two judges disagree: medians 2.5 are not whole grades and are skipped
        scored(
            episode_id="e-3", judgments=judged((3, 3, 3, 3), (2, 2, 2, 2)), human_grades=grades(3, 3, 3, 3)
        ),
        scored(episode_id="e-4"),  # no SME grade
    ]
    a = agreement([episode_figure(e) for e in episodes], decl, seed_rules())
    assert a.measured and a.pairs == 8 and a.skipped_non_integral == 4
    assert a.exact is not None
    assert (a.exact.numerator, a.exact.denominator, a.exact.basis_points) == (6, 8, 7500)
    # pairs (3,3) (2,2) (1,2) (0,0) (2,2) (2,1) (3,3) (3,3): Σ(x−y)² = 2; both marginals 1,1,3,3 with
    # mean 2 and variance 1, so E(x−y)² = 2; κ = 1 − (2/8)/2 = 0.875
    assert a.weighted_kappa == pytest.approx(0.875)
    assert [(f.family, f.graded_rationales, f.under_bar) for f in a.families] == [
        ("accruals", 3, True),
        ("revenue", 0, True),
    ]
    perfect = agreement(
        [episode_figure(scored(judgments=judged((0, 1, 2, 3)), human_grades=grades(0, 1, 2, 3)))],
        decl,
        seed_rules(),
    )
    assert perfect.weighted_kappa == 1.0 and perfect.exact is not None and perfect.exact.numerator == 4


def test_agreement_without_grades_is_not_measured() -> None:
    a = agreement([episode_figure(scored())], declaration([task_dict()]), seed_rules())
    assert not a.measured and a.pairs == 0 and a.exact is None and a.weighted_kappa is None
    assert LABEL in a.note.casefold()


# --- the example corpus, built once -------------------------------------------------------------


def only_bench(tmp: Path, bench: str = BENCH) -> Path:
    """An inputs root holding a copy of one corpus benchmark."""
    root = tmp / "runs"
    shutil.copytree(CORPUS / bench, root / bench)
    return root


def rewrite_episodes(run: Path, change: Callable[[dict[str, Any]], None]) -> None:
    path = run / "episodes.jsonl"
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    for line in lines:
        change(line)
    path.write_text("".join(json.dumps(line, sort_keys=True) + "\n" for line in lines), encoding="utf-8")
    reseal(run)


def build(root: Path, out: Path) -> Path:
    result = run_cli("build", "--runs", root, "--out", out, "--site-version", "v1")
    assert result.exit_code == 0, result.output
    return out / "v1"


def refused(root: Path, out: Path) -> Result:
    result = run_cli("build", "--runs", root, "--out", out, "--site-version", "v1")
    assert result.exit_code == 4, result.output
    assert "Traceback" not in result.output and not (out / "v1").exists()
    return result


def section(site: Path, bench: str = BENCH) -> dict[str, Any]:
    """The benchmark's report, with each run's episodes read back from data/runs/<bench>/<run>.json."""
    data = json.loads((site / "data" / "site.json").read_text(encoding="utf-8"))
    found: dict[str, Any] = next(b for b in data["benchmarks"] if b["id"] == bench)
    for run in found["section"]["runs"]:
        detail = json.loads(
            (site / "data" / "runs" / bench / f"{run['id']}.json").read_text(encoding="utf-8")
        )
        assert {k: v for k, v in detail.items() if k != "episodes"} == run
        run["episodes"] = detail["episodes"]
    return found


def episodes_of(bench: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for run in bench["section"]["runs"]:
        yield from run["episodes"]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("corpus")
    return build(only_bench(tmp), tmp / "site")


@pytest.fixture(scope="module")
def ungraded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The corpus with every human_grades stripped and re-sealed."""
    tmp = tmp_path_factory.mktemp("ungraded")
    root = only_bench(tmp)
    for run in sorted((root / BENCH).glob("run-*")):
        rewrite_episodes(run, lambda line: line.pop("human_grades", None))
    return build(root, tmp / "site")


def leaderboard_table(site: Path) -> Table:
    return next(t for t in parse(site / "b" / BENCH / "index.html").tables if t.head[1:2] == ["Model"])


# --- always three components ----------------------------------------------------------------------


def json_records(value: Any) -> Iterator[dict[str, Any]]:
    if isinstance(value, dict):
        yield value
        for v in value.values():
            yield from json_records(v)
    elif isinstance(value, list):
        for v in value:
            yield from json_records(v)


def test_every_json_score_has_its_three_components(site: Path) -> None:
    files = [
        site / "data" / "site.json",
        *sorted((site / "data" / "benchmarks").glob("*.json")),
        *sorted((site / "data" / "runs").rglob("*.json")),
    ]
    headline = 0
    for path in files:
        for record in json_records(json.loads(path.read_text(encoding="utf-8"))):
            if "score" not in record or "criterion" in record:  # a judge's criterion score is no headline
                continue
            headline += 1
            assert {"outcome", "process", "rationale"} <= record.keys(), f"{path.name}: {sorted(record)}"
    # cells, baselines and models in site.json and the benchmark file; episodes once, in their run files
    assert headline == 2 * (16 + 8 + 4) + 84


def test_every_html_table_with_a_score_has_its_three_components(site: Path) -> None:
    pages = sorted(site.rglob("*.html"))
    with_score = 0
    for path in pages:
        for table in parse(path).tables:
            if not any(h.split(" ")[0] == "Score" for h in table.head):
                continue
            with_score += 1
            assert {"Outcome", "Process", "Rationale"} <= set(table.head), f"{path}: {table.head}"
            for _, row in table.rows:
                assert len(row) == len(table.head), f"{path}: {row}"
                for name in ("Outcome", "Process", "Rationale"):
                    assert row[table.head.index(name)], f"{path}: empty {name} in {row}"
    # leaderboard, cells, baselines; one episode table per run page; the three again in report.html
    assert with_score == 3 + 6 + 3


def markdown_tables(text: str) -> list[list[list[str]]]:
    tables: list[list[list[str]]] = []
    previous = False
    for line in text.splitlines():
        is_row = line.startswith("|")
        if is_row and not previous:
            tables.append([])
        if is_row:
            tables[-1].append([c.strip() for c in line.strip().strip("|").split("|")])
        previous = is_row
    return tables


def test_every_markdown_score_has_its_three_components(site: Path) -> None:
    text = (site / "release-notes.md").read_text(encoding="utf-8")
    tables = [t for t in markdown_tables(text) if "Score" in t[0]]
    assert len(tables) == 1  # the models; the cells over seeds are a list, one item per cell
    assert {"Outcome", "Process", "Rationale"} <= set(tables[0][0])
    cells = [line for line in text.replace("\n  ", " ").splitlines() if " seeds" in line and " · " in line]
    assert len(cells) == 16
    for line in cells:
        assert all(f"{part} " in line for part in ("score", "outcome", "process", "rationale")), line
    for table in tables:
        for row in table[2:]:
            assert len(row) == len(table[0])
            assert all(
                FIGURE.search(row[table[0].index(n)]) for n in ("Score", "Outcome", "Process", "Rationale")
            )
    lines = [
        line
        for line in text.replace("\n  ", " ").splitlines()  # list items unwrapped
        if not line.startswith("|") and re.search(r"\bscore \d", line, re.I)
    ]
    assert len(lines) == 16 + 8  # one per cell over seeds, one per baseline check
    for line in lines:
        assert all(re.search(rf"\b{name} \d", line) for name in ("outcome", "process", "rationale")), line


# --- the corpus on its surfaces ---------------------------------------------------------------------


def test_citation_audit_on_the_episode_the_leaderboard_and_the_headline(site: Path) -> None:
    bench = section(site)
    fabricated = {
        e["episode_id"]: e["fabricated_citations"] for e in episodes_of(bench) if e["fabricated_citations"]
    }
    assert fabricated == {"m-beta-JE-01-s1": ["bank-stmt-99"]}
    counts = {
        r["subject"]: (r["fabricated_citations"], r["episodes_with_fabrication"])
        for r in bench["section"]["leaderboard"]
    }
    assert counts == {"m-alpha": (0, 0), "m-beta": (1, 1), "m-delta-preview": (0, 0), "m-gamma": (0, 0)}
    board = leaderboard_table(site)
    for subject, (n, _) in counts.items():
        model_cell = board.row(f"model-{subject}")["Model"]
        assert ("⚠ 1 fabricated citation" in model_cell) is (n == 1) and "(s)" not in model_cell, model_cell
    run_page = next(
        t for t in parse(site / "b" / BENCH / "runs" / "run-m-beta.html").tables if "Score" in t.head
    )
    assert run_page.row("episode-m-beta-JE-01-s1")["Fabricated citations"] == "bank-stmt-99"
    notes = (site / "release-notes.md").read_text(encoding="utf-8")
    assert "| m-beta ⚠ |" in notes and "| m-alpha |" in notes


def test_corpus_gates_hard_fail_missing_call_and_l4_missing_judge(site: Path) -> None:
    by_id = {e["episode_id"]: e for e in episodes_of(section(site))}
    hard = by_id["m-beta-JE-01-s4"]
    assert hard["hard_fails"] == ["HF-approve-unreviewed"] and hard["components"]["outcome"] == 0.0
    gated = by_id["m-beta-JE-02-s2"]
    assert gated["missing_calls"] == ["open_contract"] and gated["components"]["process"] == 0.0
    l4 = by_id["m-gamma-JE-04-s1"]
    assert l4["components"]["rationale"] is None and l4["components"]["score"] is None
    parts = l4["components"]
    assert (parts["outcome"], parts["process"]) == (pytest.approx(6 / 7), pytest.approx(0.7))
    row = next(
        t for t in parse(site / "b" / BENCH / "runs" / "run-m-gamma.html").tables if "Score" in t.head
    ).row("episode-m-gamma-JE-04-s1")
    assert row["Score"] == "—" and row["Rationale"].startswith("not scored as L4")
    assert (row["Outcome"], row["Process"]) == ("0.857", "0.700")


def test_cells_under_the_minimum_are_flagged_with_mean_sd_and_n(site: Path) -> None:
    bench = section(site)
    eps = [e for e in episodes_of(bench) if e["kind"] == "model"]
    flagged = sorted((c["task"], c["subject"]) for c in bench["section"]["cells"] if c["flagged"])
    assert flagged == [(t, "m-delta-preview") for t in ("JE-00", "JE-01", "JE-02", "JE-04")]
    for c in bench["section"]["cells"]:
        group = [e for e in eps if (e["task"], e["subject"]) == (c["task"], c["subject"])]
        assert c["seeds"] == len({e["seed"] for e in group}) == (2 if c["flagged"] else 5)
        for name in ("outcome", "process", "rationale", "score"):
            values = [e["components"][name] for e in group if e["components"][name] is not None]
            got = c["spreads"][name]
            assert got["n"] == len(values)
            assert got["mean"] == pytest.approx(statistics.fmean(values))
            assert got["sd"] == pytest.approx(statistics.stdev(values))
    gamma_l4 = next(c for c in bench["section"]["cells"] if (c["task"], c["subject"]) == ("JE-04", "m-gamma"))
    assert gamma_l4["spreads"]["score"]["n"] == 4 and gamma_l4["spreads"]["outcome"]["n"] == 5
    cells_table = next(
        t for t in parse(site / "b" / BENCH / "index.html").tables if t.head[:3] == ["Task", "Model", "Seeds"]
    )
    assert sum("(fewer than 5: flagged)" in s for s in cells_table.column("Seeds")) == 4
    assert leaderboard_table(site).row("model-m-delta-preview")["Cells under 5 seeds"] == "4"


def test_corpus_baselines_pass_violate_and_are_not_checked(site: Path) -> None:
    checks = {
        (b["baseline"], b["task"]): (b["threshold"], b["passes"])
        for b in section(site)["section"]["baselines"]
    }
    assert checks[("no_evidence_baseline", "JE-00")] == (None, None)  # a clean control: nothing can leak
    assert checks[("no_evidence_baseline", "JE-01")] == (None, None)  # L1
    assert checks[("no_evidence_baseline", "JE-02")] == (0.25, False)  # mean outcome 0.5 leaks
    assert checks[("no_evidence_baseline", "JE-04")] == (0.25, False)  # mean outcome 0.4 leaks
    assert all(v == (0.35, True) for (kind, _), v in checks.items() if kind == "flag_everything_baseline")
    table = next(t for t in parse(site / "b" / BENCH / "index.html").tables if t.head[:1] == ["Baseline"])
    shown = {(r[0], r[1]): r[-1] for _, r in table.rows}
    assert shown[("no_evidence_baseline", "JE-00")] == "not checked"
    assert shown[("no_evidence_baseline", "JE-01")] == "not checked"
    assert shown[("no_evidence_baseline", "JE-04")] == "violated"
    notes = " ".join((site / "release-notes.md").read_text(encoding="utf-8").split())  # lines wrap
    assert "no\\_evidence\\_baseline on JE-01 (L1): score 0.40" in notes and "— not checked." in notes
    assert 'the contract leaves "negative" open' in notes


def test_corpus_agreement_is_measured_from_the_sme_grades(site: Path) -> None:
    pairs = []
    for line in (CORPUS / BENCH / "run-m-alpha" / "episodes.jsonl").read_text(encoding="utf-8").splitlines():
        e = json.loads(line)
        for g in e.get("human_grades", []):
            median = statistics.median(j["score"] for j in e["judgments"] if j["criterion"] == g["criterion"])
            pairs.append((median, g["score"]))
    a = section(site)["section"]["agreement"]
    assert a["measured"] and a["pairs"] == len(pairs) == 24
    assert (a["exact"]["numerator"], a["exact"]["denominator"]) == (sum(x == y for x, y in pairs), 24)
    # quadratic-weighted kappa, as 1 − Σ w·observed / Σ w·expected over the 4×4 table
    n, a_counts, b_counts = len(pairs), tally(x for x, _ in pairs), tally(y for _, y in pairs)
    observed = sum((x - y) ** 2 for x, y in pairs) / n
    expected = sum(a_counts[i] * b_counts[j] * (i - j) ** 2 for i in range(4) for j in range(4)) / n**2
    assert a["weighted_kappa"] == pytest.approx(1 - observed / expected)
    leaderboard = (site / "b" / BENCH / "index.html").read_text(encoding="utf-8")
    # measured overall, but the revenue family has no SME grade: its absence is labelled, not hidden
    assert leaderboard.lower().count(LABEL) == leaderboard.lower().count(f"{LABEL} for revenue") == 3


def tally(values: Iterator[int]) -> dict[int, int]:
    out: dict[int, int] = dict.fromkeys(range(4), 0)
    for v in values:
        out[int(v)] += 1
    return out


def rationale_cells(path: Path) -> list[str]:
    return [cell for t in parse(path).tables if "Rationale" in t.head for cell in t.column("Rationale")]


def test_without_sme_grades_each_rationale_table_says_it_once(ungraded: Path) -> None:
    """Judge agreement not measured is said once above each table that shows a rationale, never in
    its cells (issue 35: a note per table, not per cell)."""
    assert not section(ungraded)["section"]["agreement"]["measured"]
    pages = [ungraded / "b" / BENCH / "index.html", *sorted((ungraded / "b" / BENCH / "runs").glob("*.html"))]
    figures = [c for p in pages for c in rationale_cells(p) if FIGURE.search(c)]
    assert len(figures) == 4 + 16 + 8 + 84 - 1  # models, cells, baselines, episodes but the unscored L4
    assert not any(LABEL in c.lower() for c in figures), [c for c in figures if LABEL in c.lower()][:3]
    board = " ".join("".join(parse(pages[0]).text).split())
    assert board.count("Judge agreement not measured: every rationale figure rests on the judges alone") == 3
    for run in pages[1:]:
        text = " ".join("".join(parse(run).text).split())
        assert text.count("Judge agreement not measured: every rationale figure") == 1, run.name


def test_without_sme_grades_the_release_notes_say_it_once_per_list(ungraded: Path) -> None:
    text = (ungraded / "release-notes.md").read_text(encoding="utf-8").replace("\n  ", " ")  # unwrap items
    once = "Judge agreement not measured: every rationale figure rests on the judges alone"
    assert " ".join(text.split()).count(once) == 3
    cells = [line for line in text.splitlines() if re.search(r"rationale \d\.\d{2}", line) and " · " in line]
    assert len(cells) == 16 and not any(LABEL in line for line in cells), cells[:2]


def test_no_cell_repeats_the_agreement_note_or_an_empty_spread(site: Path) -> None:
    """je-validation: agreement is not measured for one task family; that is said once per table
    (three on the leaderboard, one per run page), and no spread reads '± 0.00'."""
    page = site / "b" / BENCH / "index.html"
    text = " ".join("".join(parse(page).text).split())
    assert text.count("Judge agreement not measured for revenue") == 3
    assert "(judge agreement not measured" not in text
    assert not re.search(r"± 0\.0+\b", text)
    assert "(s)" not in text


def test_blind_record_names_judges_by_hash_only(site: Path) -> None:
    blind = section(site)["disclosures"]["blind"]
    assert blind["evaluator_hashes"] and all(
        re.fullmatch(r"sha256:[0-9a-f]{64}", h) for h in blind["evaluator_hashes"]
    )
    assert blind["identities_revealed"] is False and "never the model's identity" in blind["statement"]


# --- JE-06 on a built site ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def je06_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("je06")
    bench = tmp / "runs" / "je06"
    run = bench / "run-m-x"
    run.mkdir(parents=True)
    shutil.copy(CORPUS / BENCH / "rubric.json", bench / "rubric.json")
    decl = json.loads((CORPUS / BENCH / "benchmark.json").read_text(encoding="utf-8"))
    decl["tasks"] = [je06_task()]
    (bench / "benchmark.json").write_text(json.dumps(decl, indent=2), encoding="utf-8")
    (run / "run.json").write_text(
        json.dumps({"schema_version": 1, "subject": "m-x", "kind": "model"}), encoding="utf-8"
    )
    (run / "episodes.jsonl").write_text(json.dumps(je06_episode()) + "\n", encoding="utf-8")
    write_seal(run)
    write_seal(bench)
    return build(tmp / "runs", tmp / "site")


def je06_row(site: Path) -> dict[str, str]:
    table = next(t for t in parse(site / "b" / "je06" / "runs" / "run-m-x.html").tables if "Score" in t.head)
    return table.row("episode-JE-06-s1")


def test_je06_site_data_carries_the_figures(je06_site: Path) -> None:
    (episode,) = episodes_of(section(je06_site, "je06"))
    c = episode["components"]
    assert (at(c["outcome"], 2), at(c["process"], 2), at(c["rationale"], 3), at(c["score"], 2)) == (
        "0.75",
        "0.76",
        "0.583",
        "0.72",
    )
    assert (at(episode["f1"], 3), at(episode["issue_type_accuracy"], 3)) == ("0.813", "0.923")


def test_je06_site_page_shows_the_figures(je06_site: Path) -> None:
    row = je06_row(je06_site)
    assert (row["Score"], row["Outcome"], row["Process"]) == ("0.719", "0.750", "0.758")
    assert row["Rationale"].startswith("0.583")
    assert at(float(row["Score"]), 2) == "0.72" and at(float(row["Process"]), 2) == "0.76"
    assert row["Process (coverage · precision · efficiency)"] == "0.619 · 0.929 · 0.850"
    assert "13/3/3" in row["Detection (TP/FP/FN · F1 · type acc. · exactness)"]
    assert "0.923" in row["Detection (TP/FP/FN · F1 · type acc. · exactness)"]


def test_je06_site_page_shows_the_seeds_f1(je06_site: Path) -> None:
    assert " 0.813 " in je06_row(je06_site)["Detection (TP/FP/FN · F1 · type acc. · exactness)"]


# --- CLI: invalid content (exit 4) and provenance ----------------------------------------------------


def test_a_call_scoring_two_criteria_is_invalid_content(tmp_path: Path) -> None:
    root = only_bench(tmp_path)
    done = []

    def share(line: dict[str, Any]) -> None:
        if not done:
            line["judgments"][1]["call_id"] = line["judgments"][0]["call_id"]
            done.append(line["episode_id"])

    rewrite_episodes(root / BENCH / "run-m-alpha", share)
    result = refused(root, tmp_path / "site")
    assert "run-m-alpha/episodes.jsonl: line 1 $.judgments: criteria must be scored in separate calls" in (
        result.output
    )


def test_a_cleartext_judge_id_is_invalid_content(tmp_path: Path) -> None:
    root = only_bench(tmp_path)

    def cleartext(line: dict[str, Any]) -> None:
        if line["episode_id"] == "m-beta-JE-02-s3":
            line["judgments"][0]["judge"] = "gpt-judge-alice"

    rewrite_episodes(root / BENCH / "run-m-beta", cleartext)
    result = refused(root, tmp_path / "site")
    assert "run-m-beta/episodes.jsonl: line 8 $.judgments[0].judge: String should match pattern" in (
        result.output
    )


def test_a_hard_fail_rule_the_task_does_not_declare_is_invalid_content(tmp_path: Path) -> None:
    root = only_bench(tmp_path)

    def unknown(line: dict[str, Any]) -> None:
        if line["episode_id"] == "m-beta-JE-02-s3":
            line["hard_fails"] = ["HF-nope"]

    rewrite_episodes(root / BENCH / "run-m-beta", unknown)
    result = refused(root, tmp_path / "site")
    assert "line 8 $.hard_fails: task 'JE-02' has no hard-fail rule 'HF-nope'" in result.output


def test_source_sha256_without_a_source_is_not_re_verified(site: Path) -> None:
    (prov,) = section(site)["disclosures"]["provenance"]
    assert prov["sha256"] == json.loads((CORPUS / BENCH / "rubric.json").read_bytes())["source_sha256"]
    assert prov["source"] is None and prov["state"].startswith("not re-verified")
    text = " ".join("".join(parse(site / "b" / BENCH / "methodology.html").text).split())
    assert f"source_sha256 {prov['sha256']} — not re-verified" in text


SPEC_HTML = b"<!doctype html><title>JE validation task spec 3</title><p>Scoring.</p>\n"


def with_source(tmp: Path, supplied: bytes) -> Path:
    """A test contract whose source_sha256 is the hash of a spec file; ``supplied`` is what ships."""
    root = only_bench(tmp)
    bench = root / BENCH
    rubric = (bench / "rubric.json").read_bytes()
    old = json.loads(rubric)["source_sha256"].encode()
    rubric = rubric.replace(old, hashlib.sha256(SPEC_HTML).hexdigest().encode())
    (bench / "rubric.json").write_bytes(rubric)
    (bench / "je_validation_task_spec_3.html").write_bytes(supplied)
    decl = json.loads((bench / "benchmark.json").read_text(encoding="utf-8"))
    decl["rubric"]["sha256"] = hashlib.sha256(rubric).hexdigest()
    decl["provenance_sources"] = {"source_sha256": "je_validation_task_spec_3.html"}
    (bench / "benchmark.json").write_text(json.dumps(decl, indent=2), encoding="utf-8")
    reseal(bench)
    return root


def test_source_sha256_with_a_matching_source_is_verified(tmp_path: Path) -> None:
    out = build(with_source(tmp_path, SPEC_HTML), tmp_path / "site")
    (prov,) = section(out)["disclosures"]["provenance"]
    assert prov["sha256"] == hashlib.sha256(SPEC_HTML).hexdigest()
    assert (prov["state"], prov["source"]) == ("verified", "je_validation_task_spec_3.html")
    text = " ".join("".join(parse(out / "b" / BENCH / "methodology.html").text).split())
    assert f"source_sha256 {prov['sha256']} — verified against je_validation_task_spec_3.html" in text


def test_source_sha256_with_a_different_source_is_invalid_content(tmp_path: Path) -> None:
    result = refused(
        with_source(tmp_path, b"<!doctype html><p>edited after the contract froze</p>\n"), tmp_path / "site"
    )
    assert "je-validation/je_validation_task_spec_3.html: does not match the contract's source_sha256" in (
        result.output
    )


# --- per-task focus and judge drift (seed 003: "four global criteria plus per-task focus"; "keep it
# isolated so drift is measurable") -------------------------------------------------------------


def focus_judgments(scores: tuple[int, int, int, int], focus: int) -> list[dict[str, Any]]:
    extra = {"call_id": "call-focus", "judge": JUDGES[0], "criterion": "task_focus", "score": focus}
    return [*judged(scores), extra]


@pytest.mark.parametrize(
    ("scores", "focus", "fraction", "passes"),
    [
        # (3 + 3 + 2 + 1) + 2 = 11 of 15; the four global criteria total 9 of 12 and none is 0
        ((3, 3, 2, 1), 2, Fraction(11, 15), True),
        # (2 + 2 + 2 + 1) + 3 = 10 of 15; the global total 7 < 9 fails the bar (the focus cannot lift it)
        ((2, 2, 2, 1), 3, Fraction(10, 15), False),
        # (3 + 3 + 3 + 3) + 0 = 12 of 15; a focus at 0 fails the bar outright, like any criterion
        ((3, 3, 3, 3), 0, Fraction(12, 15), False),
    ],
)
def test_a_declared_focus_is_a_fifth_criterion_of_the_rationale(
    scores: tuple[int, int, int, int], focus: int, fraction: Fraction, passes: bool
) -> None:
    r = episode_result(
        make_episode(judgments=focus_judgments(scores, focus)), make_task(), "m-x", "model", True
    )
    assert [c.criterion for c in r.criteria] == [*CRITERIA, "task_focus"]
    assert r.criteria[-1].score == focus
    assert r.components.rationale == pytest.approx(float(fraction), abs=1e-15)
    assert r.rationale_total == sum(scores) + focus and r.pass_bar is passes


def test_without_a_declared_focus_je06_keeps_its_seven_twelfths() -> None:
    assert je06().components.rationale == pytest.approx(7 / 12)
    assert [c.criterion for c in je06().criteria] == list(CRITERIA)


def test_a_focused_task_without_its_focus_judgment_is_not_scored() -> None:
    r = episode_result(make_episode(), make_task(), "m-x", "model", True)
    assert r.components.rationale is None and r.rationale_note == "not scored: no judgment for task_focus"


def corpus_focus(root: Path, family: str) -> None:
    path = root / BENCH / "benchmark.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["focus"] = {
        family: {"name": "cut-off handling", "full_credit": "Names the period.", "zero": "Ignores it."}
    }
    path.write_text(json.dumps(data), encoding="utf-8")
    reseal(root / BENCH)


def test_a_focus_judgment_for_a_family_without_a_focus_is_invalid(tmp_path: Path) -> None:
    root = only_bench(tmp_path)
    run = sorted(p for p in (root / BENCH).iterdir() if p.is_dir())[0]

    def add_focus(line: dict[str, Any]) -> None:
        line["judgments"].append(
            {"call_id": "focus-1", "judge": JUDGES[0], "criterion": "task_focus", "score": 2}
        )

    rewrite_episodes(run, add_focus)
    result = refused(root, tmp_path / "site")
    assert "declares no focus criterion to score" in result.output and "$.judgments[" in result.output


def test_a_focus_for_a_family_no_task_has_is_invalid(tmp_path: Path) -> None:
    root = only_bench(tmp_path)
    corpus_focus(root, "no-such-family")
    result = refused(root, tmp_path / "site")
    assert "focus declared for task family 'no-such-family', which no task has" in result.output


def test_judge_drift_counts_each_judges_raw_scores_per_criterion_per_run() -> None:
    from generator.families.components.family import judge_counts, judge_drift

    one = [make_episode(judgments=judged((3, 2, 2, 1), (3, 3, 2, 0)))]
    two = [make_episode(judgments=judged((2, 2, 2, 2)))]
    rows = {
        (d.judge, d.criterion, d.batch): d
        for d in judge_drift({"run-1": judge_counts(one), "run-2": judge_counts(two)})
    }
    a = JUDGES[0]
    # judge a, identification: 3 in run-1, 2 in run-2 → counts (0, 0, 1, 1), mean 2.5 over both
    assert rows[a, "identification", "run-1"].counts == (0, 0, 0, 1)
    assert rows[a, "identification", "run-2"].counts == (0, 0, 1, 0)
    overall = rows[a, "identification", "all runs"]
    assert (overall.counts, overall.n, overall.mean) == ((0, 0, 1, 1), 2, 2.5)
    # judge b scored only in run-1: disposition 0 → mean 0
    assert rows[JUDGES[1], "disposition", "all runs"].mean == 0.0
    assert (JUDGES[1], "disposition", "run-2") not in rows


def test_the_leaderboard_publishes_judge_drift(tmp_path: Path) -> None:
    site = build(only_bench(tmp_path), tmp_path / "site")
    drift = section(site)["section"]["judge_drift"]
    assert drift and {d["batch"] for d in drift} >= {"all runs"}
    for d in drift:
        assert d["n"] == sum(d["counts"]) and d["mean"] == pytest.approx(
            sum(i * c for i, c in enumerate(d["counts"])) / d["n"]
        )
    assert "Judge drift" in (site / "b" / BENCH / "index.html").read_text(encoding="utf-8")


def test_judge_drift_against_the_previous_version() -> None:
    from generator.report.changes import version_changes
    from generator.report.model import SiteReport

    golden = json.loads(
        (ROOT / "tests" / "golden" / "site" / "sha-b8df8bd9b2c8" / "data" / "site.json").read_text()
    )
    golden["benchmarks"] = [b for b in golden["benchmarks"] if b["id"] == BENCH]

    def version(rows: list[tuple[str, str, float, int]] | None) -> SiteReport:
        """The golden site's components benchmark with these overall means (and one per-run row);
        ``None``: a site.json from before judge drift was published, without the field."""
        data = json.loads(json.dumps(golden))
        section = data["benchmarks"][0]["section"]
        del section["judge_drift"]
        if rows is not None:
            section["judge_drift"] = [
                {"judge": j, "criterion": c, "batch": "all runs", "mean": m, "n": n, "counts": [0, 0, 0, n]}
                for j, c, m, n in rows
            ] + [
                {
                    "judge": "x",
                    "criterion": "y",
                    "batch": "run-1",
                    "mean": 9.0,
                    "n": 1,
                    "counts": [0, 0, 0, 1],
                }
            ]
        return SiteReport.model_validate_json(json.dumps(data))

    a, b = JUDGES[0], JUDGES[1]
    before = version(
        [(a, "identification", 2.5, 10), (a, "disposition", 2.0, 10), (b, "identification", 1.0, 4)]
    )
    after = version(
        [(a, "identification", 2.5, 10), (a, "disposition", 1.5, 12), (JUDGES[2], "identification", 3.0, 2)]
    )
    (bench,) = version_changes("v2", "v1", before, after).benchmarks
    moved = [
        (d.judge, d.criterion, d.mean_before, d.mean_after, d.n_before, d.n_after) for d in bench.judge_drift
    ]
    # unchanged (a, identification) is left out; per-run rows are never compared
    assert moved == [
        (a, "disposition", 2.0, 1.5, 10, 12),
        (b, "identification", 1.0, None, 4, 0),
        (JUDGES[2], "identification", None, 3.0, 0, 2),
    ]
    assert version_changes("v2", "v1", after, after).benchmarks == ()
    # a previous version from before judge drift was published has nothing to compare
    assert version_changes("v2", "v1", version(None), after).benchmarks == ()


def test_every_table_of_the_components_pages_reflows_as_cards(site: Path) -> None:
    """Issue 35: secondary tables reflow at 390 px as the leaderboard does: every table of a
    components leaderboard, methodology and run page is ``cards``, and each data cell
    is labelled with its column's heading (the pairwise-detail table is the shared ranking's)."""
    folder = site / "b" / BENCH
    for page in [
        folder / "index.html",
        folder / "methodology.html",
        *sorted((folder / "runs").glob("*.html")),
    ]:
        for table in parse(page).tables:
            if table.head[:3] == ["Higher", "Lower", "Difference"]:
                continue  # templates/_ranking.html: not this family's
            assert table.cards, (page.name, table.head)
            for row in table.all_rows:
                cells = [c for c in row.cells if c.tag == "td"]
                assert all(c.label for c in cells), (page.name, table.head)


def second_run_of(root: Path, source: str, change: Callable[[dict[str, Any]], None]) -> Path:
    """A copy of run ``source`` as another run of the same model, its episodes changed by ``change``."""
    bench = root / BENCH
    copy = bench / f"{source}-again"
    shutil.copytree(bench / source, copy)
    rewrite_episodes(copy, change)
    reseal(copy)
    reseal(bench)
    return copy


def test_a_model_holds_one_episode_per_task_and_seed_across_its_runs(tmp_path: Path) -> None:
    root = only_bench(tmp_path)
    first = json.loads(
        (root / BENCH / "run-m-alpha" / "episodes.jsonl").read_text(encoding="utf-8").split("\n")[0]
    )
    second_run_of(root, "run-m-alpha", lambda e: e.update(episode_id=f"{e['episode_id']}-again"))
    result = refused(root, tmp_path / "site")
    expected = (
        f"a second episode of task {first['task']!r}, seed {first['seed']} (first: {first['episode_id']!r})"
    )
    assert f"run-m-alpha-again/episodes.jsonl: line 1 $.seed: {expected}" in result.output


def test_a_model_holds_an_episode_id_once_across_its_runs(tmp_path: Path) -> None:
    root = only_bench(tmp_path)
    first = json.loads(
        (root / BENCH / "run-m-alpha" / "episodes.jsonl").read_text(encoding="utf-8").split("\n")[0]
    )
    second_run_of(root, "run-m-alpha", lambda e: e.update(seed=e["seed"] + 1000))
    result = refused(root, tmp_path / "site")
    expected = f"episode {first['episode_id']!r} of 'm-alpha' also in run 'run-m-alpha'"
    assert f"run-m-alpha-again/episodes.jsonl: {expected}" in result.output


def test_another_model_may_repeat_a_task_seed_and_episode_id(tmp_path: Path) -> None:
    root = only_bench(tmp_path)
    again = second_run_of(root, "run-m-alpha", lambda e: None)
    meta = json.loads((again / "run.json").read_text(encoding="utf-8"))
    (again / "run.json").write_text(json.dumps({**meta, "subject": "m-omega"}, indent=2), encoding="utf-8")
    reseal(again)
    reseal(root / BENCH)
    board = {row["subject"]: row for row in section(build(root, tmp_path / "site"))["section"]["leaderboard"]}
    assert board["m-omega"]["episodes"] == board["m-alpha"]["episodes"]
