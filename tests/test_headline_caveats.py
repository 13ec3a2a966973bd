"""Headline caveats: each kind read off a family's report model, worded with its figures, and shown
beside the sentence on every surface. The sections are the example corpus's, as built; a variant is
the same section with one finding changed (``model_copy``), so each test shows the caveat appearing
with its finding and going with it. Expected sentences are worked by hand from the pages' tables."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from generator.families.components.report import Agreement, ComponentsSection
from generator.families.definitions.report import DefinitionsSection
from generator.families.points.report import PointsSection
from generator.families.trials.report import TrialsSection
from generator.figures.headline import Headline, Wording, lead_headline
from generator.figures.ranking import rate_ranking
from generator.figures.stats import rate
from generator.report.model import SiteReport
from tests import pages


@pytest.fixture(scope="module")
def report(example_site: Path) -> SiteReport:
    return SiteReport.model_validate_json((example_site / "v1" / "data" / "site.json").read_bytes())


def _section(report: SiteReport, bench: str) -> Any:
    return next(b.section for b in report.benchmarks if b.id == bench)


def _headline(section: Any) -> Headline:
    return section.headline(section.rankings())


def _caveats(headline: Headline, kind: str) -> list[str]:
    return [c.text for c in headline.caveats if c.kind == kind]


# --- definitions: run verdicts first, then the checks -------------------------------------------


def test_no_passing_run_is_said_first_and_read_first(report: SiteReport) -> None:
    # recsys-grounding: baseline FAIL ×3, candidate FAIL ×3, candidate-offline PENDING ×1.
    section: DefinitionsSection = _section(report, "recsys-grounding")
    h = _headline(section)
    assert h.sentence.startswith(
        "No arm has a passing run: none of the 7 runs has the verdict PASS (6 FAIL, 1 PENDING). "
        "Over the checks: candidate leads on cases passed on check cites-source with 100% (16 of 16), "
    )
    assert _caveats(h, "no-run-passes") == [
        "Every run of every arm has the verdict FAIL or PENDING: baseline 3 FAIL; candidate 3 FAIL; "
        "candidate-offline 1 PENDING."
    ]
    assert h.basis.startswith(
        "The check-level lead is on cites-source, the first of the definition's four checks"
    )
    assert h.ranking == "check-cites-source"


def _with_verdicts(section: DefinitionsSection, verdicts: dict[str, str]) -> DefinitionsSection:
    runs = tuple(r.model_copy(update={"verdict": verdicts.get(r.id, r.verdict)}) for r in section.runs)
    return section.model_copy(update={"runs": runs})


def test_the_arm_with_the_most_passing_runs_leads_the_sentence(report: SiteReport) -> None:
    section: DefinitionsSection = _section(report, "recsys-grounding")
    candidate = [r.id for r in section.runs if r.arm == "candidate"]
    h = _headline(_with_verdicts(section, {candidate[0]: "PASS", candidate[1]: "PASS"}))
    assert h.sentence.startswith(
        "candidate leads on run verdicts with 2 of 3 runs PASS; baseline 0 of 3, candidate-offline 0 of 1. "
        "Over the checks: candidate leads"
    )
    assert _caveats(h, "no-run-passes") == []


def test_a_check_leader_without_a_passing_run_is_a_caveat(report: SiteReport) -> None:
    section: DefinitionsSection = _section(report, "recsys-grounding")
    baseline = {r.id: "PASS" for r in section.runs if r.arm == "baseline"}
    h = _headline(_with_verdicts(section, baseline))
    assert h.sentence.startswith("baseline leads on run verdicts with 3 of 3 runs PASS;")
    assert _caveats(h, "no-run-passes") == [
        "candidate leads on check cites-source but has no passing run (3 FAIL)."
    ]


def test_corrections_in_effect_are_read_first(report: SiteReport) -> None:
    section: DefinitionsSection = _section(report, "recsys-grounding")
    assert _caveats(_headline(section), "corrections") == [
        "Correction corr-2026-10-12 is in effect for check policy-match: raises the policy-match bar, "
        "so fewer arms read as above floor."
    ]
    assert _caveats(_headline(section.model_copy(update={"corrections": ()})), "corrections") == []


def test_a_subject_without_a_measured_figure_is_named_as_not_ranked(report: SiteReport) -> None:
    h = _headline(_section(report, "recsys-grounding"))
    assert _caveats(h, "not-ranked") == [
        "Not ranked: one arm (candidate-offline) has no measured figure for cases passed on check "
        "cites-source, so the lead is not over it."
    ]
    ranking = rate_ranking("s", "S", "s / n", [("A", rate(3, 4)), ("B", rate(1, 4))])
    assert lead_headline(ranking, Wording("arm", "arms", "cases passed")).caveats == ()


# --- components -----------------------------------------------------------------------------


def test_a_violated_anti_gaming_baseline_names_the_baseline_and_its_tasks(report: SiteReport) -> None:
    # Anti-gaming table: no_evidence_baseline mean outcome 0.500 on JE-02, 0.400 on JE-04, threshold 0.250.
    section: ComponentsSection = _section(report, "je-validation")
    assert _caveats(_headline(section), "baseline-violated") == [
        "The anti-gaming baseline no_evidence_baseline is violated on JE-02 and JE-04: mean outcome "
        "0.50 and 0.40, above its threshold of 0.25."
    ]
    holding = tuple(
        b.model_copy(update={"passes": True}) if b.passes is False else b for b in section.baselines
    )
    assert _caveats(_headline(section.model_copy(update={"baselines": holding})), "baseline-violated") == []


def test_agreement_under_the_protocol_names_the_counts_against_its_bar(report: SiteReport) -> None:
    section: ComponentsSection = _section(report, "je-validation")
    assert _caveats(_headline(section), "agreement-below-protocol") == [
        "Judge–expert agreement rests on 1, 5 and 0 human-graded rationales for accruals, reconciliation "
        "and revenue, against the protocol's 20 per task family."
    ]
    met = section.agreement.families[0].model_copy(update={"graded_rationales": 20, "under_bar": False})
    enough = section.agreement.model_copy(update={"families": (met,)})
    assert (
        _caveats(_headline(section.model_copy(update={"agreement": enough})), "agreement-below-protocol")
        == []
    )


def test_agreement_never_measured_is_said_with_the_protocols_bar(report: SiteReport) -> None:
    section: ComponentsSection = _section(report, "je-validation")
    unmeasured = Agreement(
        measured=False,
        pairs=0,
        exact=None,
        weighted_kappa=None,
        skipped_non_integral=0,
        families=section.agreement.families,
        unmeasured_families=("accruals", "reconciliation", "revenue"),
        note="Judge agreement not measured: no SME grades supplied",
    )
    h = _headline(section.model_copy(update={"agreement": unmeasured}))
    assert _caveats(h, "agreement-not-measured") == [
        "Judge–expert agreement is not measured: no rationale has a human grade, where the protocol asks "
        "for 20 per task family."
    ]
    assert _caveats(h, "agreement-below-protocol") == []


def test_fabricated_citations_are_counted_per_model(report: SiteReport) -> None:
    section: ComponentsSection = _section(report, "je-validation")
    assert _caveats(_headline(section), "fabricated-citations") == [
        "Fabricated citations: m-beta 1 in 1 episode."
    ]


# --- points ---------------------------------------------------------------------------------


def test_launch_blockers_name_the_subjects_and_what_blocked_them(report: SiteReport) -> None:
    # agent-dx run pages: subject-7c2e has one attempt with "tampering detected"; subject-d940 five
    # blocked attempts (rc1 in four, scope overreach in one, a prohibited change in one).
    section: PointsSection = _section(report, "agent-dx")
    assert _caveats(_headline(section), "launch-blockers") == [
        "Launch blockers made 6 attempts NotReady: subject-7c2e 1 (tampering detected) and subject-d940 5 "
        "(critical regression rc1 in 4, excessive scope overreach (scope 2.5 < 7.5) and prohibited change "
        "detected)."
    ]
    clear = tuple(r.model_copy(update={"blocked": 0, "blockers": ()}) for r in section.leaderboard)
    assert _caveats(_headline(section.model_copy(update={"leaderboard": clear})), "launch-blockers") == []


def test_invalid_attempts_left_out_of_every_denominator_are_counted(report: SiteReport) -> None:
    # agent-dx leaderboard: one invalid attempt each for subject-15bb, subject-7c2e and subject-d940.
    assert _caveats(_headline(_section(report, "agent-dx")), "invalid-excluded") == [
        "3 invalid attempts are excluded from every denominator: subject-15bb 1, subject-7c2e 1 and "
        "subject-d940 1."
    ]
    assert _caveats(_headline(_section(report, "docs-quality")), "invalid-excluded") == []


# --- trials ---------------------------------------------------------------------------------


def test_missing_trials_are_named_as_failures(report: SiteReport) -> None:
    section: TrialsSection = _section(report, "vibe-delivery")
    assert _caveats(_headline(section), "missing-trials") == [
        "2 planned trials have no result and count as failures: t32 (P-D) and t39 (P-C)."
    ]
    complete = section.model_copy(update={"scores": section.scores.model_copy(update={"missing": ()})})
    assert _caveats(_headline(complete), "missing-trials") == []


# --- the example site -------------------------------------------------------------------------


def test_the_example_pages_put_the_caveats_beside_the_headline(example_site: Path) -> None:
    """recsys-grounding and je-validation open with their caveats in the headline's box, on the
    leaderboard, in the single-file report and in the release notes; the home page and the version's
    index, which show only the sentence, show the caveats right under it."""
    version = example_site / "v1"
    site = json.loads((version / "data" / "site.json").read_text(encoding="utf-8"))
    kinds = {b["id"]: {c["kind"] for c in b["headline"]["caveats"]} for b in site["benchmarks"]}
    assert kinds["recsys-grounding"] == {"no-run-passes", "corrections", "not-ranked"}
    assert kinds["je-validation"] == {"baseline-violated", "agreement-below-protocol", "fabricated-citations"}
    notes = " ".join((version / "release-notes.md").read_text(encoding="utf-8").replace("\\", "").split())
    report = " ".join("".join(pages.parse(version / "report.html").text).split())
    home = " ".join("".join(pages.parse(example_site / "index.html").text).split())
    index = " ".join("".join(pages.parse(version / "index.html").text).split())
    for bench in ("recsys-grounding", "je-validation"):
        raw = (version / "b" / bench / "index.html").read_text(encoding="utf-8")
        box = raw[raw.index('<section class="headline"') : raw.index("</section>")]
        text = " ".join("".join(pages.parse(version / "b" / bench / "index.html").text).split())
        assert "Read this first" in box
        for caveat in next(b for b in site["benchmarks"] if b["id"] == bench)["headline"]["caveats"]:
            assert f'data-caveat="{caveat["kind"]}"' in box
            assert caveat["text"] in text and caveat["text"] in report
            assert caveat["text"] in notes  # Markdown's escapes left out
            for shown in (home, index):
                sentence = next(b for b in site["benchmarks"] if b["id"] == bench)["headline"]["sentence"]
                after = shown[shown.index(sentence) + len(sentence) :]
                assert after.lstrip().startswith("Read this first:") and caveat["text"] in after
    assert "Every run of every arm has the verdict FAIL or PENDING" in notes


def test_a_producer_figure_that_differs_is_named_with_both_numbers(report: SiteReport) -> None:
    """The imported inspect_ai benchmark: inspect's accuracy leaves errored samples out (0.625 for
    mockllm/model); benchsite counts them as failures (9 of 16)."""
    section: TrialsSection = _section(report, "quiz-inspect")
    (text,) = _caveats(_headline(section), "producer-differs")
    assert text.startswith(
        "1 figure differs from the producer's own (run-mockllm-model: accuracy 0.625 against 9/16)"
    )
    agreeing = section.model_copy(
        update={
            "scores": section.scores.model_copy(
                update={"runs": tuple(r.model_copy(update={"reported": ()}) for r in section.scores.runs)}
            )
        }
    )
    assert _caveats(_headline(agreeing), "producer-differs") == []
