"""``benchsite compare``: two AgentEval store-v1 runs, paired row by row, or refused as incomparable.

Rows pair by exact id. A pair is comparable only when both rows carry comparability facts that
agree on every axis the scoring specification gates on (``compare.gating``; the seed ADR's built-in
specification names AgentEval's compare axes); anything else makes the whole comparison
Incomparable (exit 13) with every reason listed — never a silent diff.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from pathlib import Path

from pydantic import Field

from generator.errors import EXIT_USAGE, BenchsiteError, Problem, ProblemReport, Problems
from generator.families.definitions.models import Scenario
from generator.families.definitions.report import RowState
from generator.families.definitions.spec import REPORTED_WORDS, DefinitionsRules, compile_spec, seed_rules
from generator.families.definitions.store import axis, frozen_manifest, row_result
from generator.figures.model import Model
from generator.inputs.discover import read_unsealed, verify_folder
from generator.inputs.files import ReadFailure, read_regular
from generator.inputs.jsonio import load_model
from generator.inputs.seal import SEAL_NAME


class UnusablePath(BenchsiteError):
    exit_code = EXIT_USAGE


class RowDelta(Model):
    """One shared row, as ``agenteval compare`` pairs it: every row's ``score`` and ``passed``, with
    the measurement state of each side beside them (a side not measured is said, not hidden)."""

    id: str
    baseline: float | None = Field(description="The baseline row's score (None when it records none).")
    candidate: float | None = Field(description="The candidate row's score (None when it records none).")
    delta: float | None = Field(description="candidate − baseline score, when both rows record one.")
    baseline_passed: bool
    candidate_passed: bool
    recovered: bool = Field(description="Failed in the baseline, passes in the candidate.")
    regressed: bool = Field(description="Passed in the baseline, fails in the candidate.")
    baseline_state: RowState
    candidate_state: RowState
    usable_floor: bool
    self_judged: bool


class Comparison(Model):
    baseline: str
    candidate: str
    sealed: tuple[bool, bool]
    comparable: bool
    reasons: tuple[str, ...]
    rows: tuple[RowDelta, ...] = Field(description="Empty when the runs are incomparable.")
    mean_delta: float | None = Field(description="Mean of the rows' deltas.")
    recovered: tuple[str, ...]
    regressed: tuple[str, ...]
    not_measured: tuple[str, ...] = Field(description="Rows not measured on at least one side.")
    without_usable_floor: tuple[str, ...]
    self_judged: tuple[str, ...]


@dataclass(frozen=True)
class StoreRun:
    path: Path
    sealed: bool
    model: str | None
    rows: dict[str, Scenario]


def read_store_run(path: Path) -> StoreRun:
    """A store-v1 run folder: its seal verified when it has one, every scenario parsed strictly."""
    if not path.is_dir() or not (path / "manifest.json").is_file():
        raise UnusablePath(f"{path}: not a store-v1 run folder (no manifest.json)")
    sealed = (path / SEAL_NAME).is_file()
    if sealed:
        verified = verify_folder(path)
        if verified.value is None:
            raise ProblemReport(verified.problems)
        files = dict(verified.value.files)
    else:
        unsealed = read_unsealed(path, ".json")
        if unsealed.problems or unsealed.value is None:
            raise ProblemReport(unsealed.problems)
        files = unsealed.value
    problems = Problems()
    manifest = problems.take(frozen_manifest(files, str(path)))
    rows: dict[str, Scenario] = {}
    for rel in sorted(f for f in files if f.startswith("scenarios/") and f.endswith(".json")):
        scenario = problems.take(load_model(Scenario, files[rel], f"{path}/{rel}"))
        if scenario is not None:
            try:
                row_result(scenario, "", "", None)
            except ValueError as exc:
                problems.append(Problem(f"{path}/{rel}", "$.output", str(exc)))
            if scenario.id in rows:
                problems.append(Problem(f"{path}/{rel}", "$.id", f"duplicate row {scenario.id!r}"))
            rows[scenario.id] = scenario
    if problems:
        raise ProblemReport(problems)
    return StoreRun(path, sealed, manifest.subject.modelId if manifest else None, rows)


def load_rules(path: Path | None) -> DefinitionsRules:
    """The compare rules of a definitions scoring specification (``--scoring``), else the built-in one."""
    if path is None:
        return seed_rules()
    from generator.families.registry import FAMILIES
    from generator.families.specs import read_spec

    try:
        data = read_regular(path)
    except ReadFailure as exc:
        raise ProblemReport([Problem(str(path), "", str(exc), refused=exc.refused)]) from exc
    except OSError as exc:
        raise UnusablePath(f"{path}: {exc.strerror or exc}") from exc
    spec = read_spec(FAMILIES["definitions"], data, str(path))
    if spec.value is None:
        raise ProblemReport(spec.problems)
    return compile_spec(spec.value)


def _axes(row_id: str, a: Scenario, b: Scenario, strict: bool, rules: DefinitionsRules) -> list[str]:
    """Every gating axis on which two rows disagree (or are recorded on one side only). The text
    axes the specification names compare case-insensitively, a blank value being not recorded; an
    axis recorded on neither side blocks only under ``strict`` (when the specification says so)."""
    ca, cb = a.comparability, b.comparability
    if ca is None or cb is None:
        return [f"{row_id}: no comparability facts on the {'baseline' if ca is None else 'candidate'} side"]
    ja, jb, fold = ca.judge, cb.judge, rules.folded
    axes: list[tuple[str, object, object, object, object]] = [
        (
            "evalKey",
            axis(ca.evalKey, "evalKey" in fold),
            axis(cb.evalKey, "evalKey" in fold),
            ca.evalKey,
            cb.evalKey,
        ),
        (
            "evalVersion",
            axis(ca.evalVersion, "evalVersion" in fold),
            axis(cb.evalVersion, "evalVersion" in fold),
            ca.evalVersion,
            cb.evalVersion,
        ),
        ("effectiveBar", ca.effectiveBar, cb.effectiveBar, ca.effectiveBar, cb.effectiveBar),
        ("judge", ja is not None, jb is not None, ja is not None, jb is not None),
        ("stimulus", a.stimulusHash or None, b.stimulusHash or None, a.stimulusHash, b.stimulusHash),
    ]
    if ja is not None and jb is not None:
        for judged, one, other in (
            ("judge.modelId", ja.modelId, jb.modelId),
            ("judge.rubricDigest", ja.rubricDigest, jb.rubricDigest),
        ):
            axes.append((judged, axis(one, judged in fold), axis(other, judged in fold), one, other))
    reasons = []
    for name, left, right, shown_left, shown_right in axes:
        if name not in rules.gating:
            continue
        if left is None and right is None:
            if strict and rules.strict_neither:
                reasons.append(f"{row_id}: {name} recorded on neither side (--strict)")
        elif left is None or right is None:
            reasons.append(f"{row_id}: {name} recorded on one side only")
        elif left != right:
            reasons.append(f"{row_id}: {name} differs ({shown_left} ≠ {shown_right})")
    return reasons


def _delta(row_id: str, a: Scenario, b: Scenario, baseline: StoreRun, candidate: StoreRun) -> RowDelta:
    ra = row_result(a, "", "", baseline.model)
    rb = row_result(b, "", "", candidate.model)
    floor = b.comparability.chanceFloor if b.comparability else None
    return RowDelta(
        id=row_id,
        baseline=a.score,
        candidate=b.score,
        delta=None if a.score is None or b.score is None else b.score - a.score,
        baseline_passed=a.passed,
        candidate_passed=b.passed,
        recovered=not a.passed and b.passed,
        regressed=a.passed and not b.passed,
        baseline_state=ra.state,
        candidate_state=rb.state,
        usable_floor=floor is not None and floor.state == "derived" and floor.bar is not None,
        self_judged=ra.self_judged or rb.self_judged,
    )


def compare(
    baseline: StoreRun, candidate: StoreRun, strict: bool = False, rules: DefinitionsRules | None = None
) -> Comparison:
    """Pair two runs row by row by the specification's compare rules (the built-in one by default);
    an incomparable pair carries its reasons and no deltas."""
    rules = rules or seed_rules()
    shared = sorted(set(baseline.rows) & set(candidate.rows))
    reasons = [] if shared else ["no shared row"]
    reasons += [f"{r}: only in the baseline" for r in sorted(set(baseline.rows) - set(candidate.rows))]
    reasons += [f"{r}: only in the candidate" for r in sorted(set(candidate.rows) - set(baseline.rows))]
    for row_id in shared:
        reasons += _axes(row_id, baseline.rows[row_id], candidate.rows[row_id], strict, rules)
    if not reasons and rules.gating & set(REPORTED_WORDS):
        pairs = [_delta(r, baseline.rows[r], candidate.rows[r], baseline, candidate) for r in shared]
        for d in pairs:
            if "usable_floor" in rules.gating and not d.usable_floor:
                reasons.append(f"{d.id}: no usable floor (gating under the scoring specification)")
            if "self_judged" in rules.gating and d.self_judged:
                reasons.append(
                    f"{d.id}: judged by its own subject's model (gating under the scoring specification)"
                )
    deltas = (
        []
        if reasons
        else [_delta(r, baseline.rows[r], candidate.rows[r], baseline, candidate) for r in shared]
    )
    scored = [d.delta for d in deltas if d.delta is not None]
    return Comparison(
        baseline=str(baseline.path),
        candidate=str(candidate.path),
        sealed=(baseline.sealed, candidate.sealed),
        comparable=not reasons,
        reasons=tuple(reasons),
        rows=tuple(deltas),
        mean_delta=statistics.fmean(scored) if scored else None,
        recovered=tuple(d.id for d in deltas if d.recovered),
        regressed=tuple(d.id for d in deltas if d.regressed),
        not_measured=tuple(d.id for d in deltas if "notMeasured" in (d.baseline_state, d.candidate_state)),
        without_usable_floor=tuple(d.id for d in deltas if not d.usable_floor),
        self_judged=tuple(d.id for d in deltas if d.self_judged),
    )


def summary_text(result: Comparison, rules: DefinitionsRules | None = None) -> str:
    lines = [
        f"baseline  {result.baseline}{'' if result.sealed[0] else ' (unsealed)'}",
        f"candidate {result.candidate}{'' if result.sealed[1] else ' (unsealed)'}",
    ]
    if not result.comparable:
        return "\n".join([*lines, "INCOMPARABLE:", *(f"  {r}" for r in result.reasons)])
    mean = "—" if result.mean_delta is None else f"{result.mean_delta:+.4f}"
    lines += [
        f"comparable: {len(result.rows)} row(s) paired; mean delta {mean}",
        f"recovered ({len(result.recovered)}): {', '.join(result.recovered) or 'none'}",
        f"regressed ({len(result.regressed)}): {', '.join(result.regressed) or 'none'}",
        f"rows not measured on a side (their score and passed still compared, as agenteval compare "
        f"does): {', '.join(result.not_measured) or 'none'}",
        f"rows without a usable floor: {len(result.without_usable_floor)}",
        f"rows judged by their own subject's model: {len(result.self_judged)}",
    ]
    reported = (rules or seed_rules()).reported()
    if reported:
        words = " and ".join({"usable_floor": "floors", "self_judged": "self-judging"}[r] for r in reported)
        lines.append(f"{words} {'are' if len(reported) > 1 else 'is'} reported, not gating")
    return "\n".join(lines)


def run_compare(
    baseline: Path, candidate: Path, strict: bool, rules: DefinitionsRules | None = None
) -> Comparison:
    """Read both runs and pair them; the caller decides how to print an incomparable result."""
    return compare(read_store_run(baseline), read_store_run(candidate), strict, rules)
