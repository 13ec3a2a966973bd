"""What a trials run says of its producer's own files and figures (``run.json``'s ``sources`` and
``reported``): each pinned file checked against the sealed folder, and each figure the producer
computed set beside the one benchsite derives from the same trials. An imported run carries both
(``benchsite import``); a run without them has neither."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from fractions import Fraction
from typing import Protocol

from generator.errors import Problem, Problems, Result
from generator.families.trials.models import PlannedTrial, TrialResult, TrialsRun
from generator.families.trials.report import ReportedFigure, RunSummary, SourceRecord
from generator.figures.disclosures import Disagreement
from generator.figures.stats import rate
from generator.inputs import numbers
from generator.inputs.discover import VerifiedFolder


class PlanLike(Protocol):
    @property
    def trials(self) -> Mapping[str, PlannedTrial]: ...


def sources(run: VerifiedFolder, label: str, meta: TrialsRun | None) -> Result[tuple[SourceRecord, ...]]:
    """Each pinned producer file, found in the sealed run folder with the pinned sha256."""
    if meta is None:
        return Result(())
    problems = Problems()
    records = []
    for index, pin in enumerate(meta.sources):
        where = f"$.sources[{index}]"
        data = run.files.get(pin.file)
        if data is None:
            problems.append(
                Problem(f"{label}/run.json", f"{where}.file", f"{pin.file!r} is not in the run folder")
            )
        elif hashlib.sha256(data).hexdigest() != pin.sha256:
            message = f"{pin.file!r} does not have the pinned sha256 {pin.sha256[:16]}…"
            problems.append(Problem(f"{label}/run.json", f"{where}.sha256", message))
        else:
            records.append(SourceRecord(name=pin.file, sha256=pin.sha256, size=len(data)))
    return problems.result(tuple(records))


def reported(
    meta: TrialsRun | None, plan: PlanLike, results: Mapping[str, TrialResult], label: str
) -> Result[tuple[ReportedFigure, ...]]:
    """Each figure the producer reported, with benchsite's own over the same planned trials: the
    trials of that provider and corpus whose check passed, over every one planned (a trial without a
    result, or whose check is absent, did not pass)."""
    if meta is None:
        return Result(())
    problems = Problems()
    figures = []
    for index, pin in enumerate(meta.reported):
        scope = [
            t.trial_id
            for t in plan.trials.values()
            if t.provider == pin.provider and t.prompt_corpus_version == pin.prompt_corpus_version
        ]
        if not scope:
            message = f"no planned trial of provider {pin.provider!r} in corpus {pin.prompt_corpus_version!r}"
            problems.append(Problem(f"{label}/run.json", f"$.reported[{index}]", message))
            continue
        passed = sum(_passed(results.get(t), pin.check) for t in scope)
        figures.append(
            ReportedFigure(
                name=pin.name,
                check=pin.check,
                value=pin.value,
                basis=pin.basis,
                derived=rate(passed, len(scope)),
                agrees=agrees(pin.value, passed, len(scope)),
            )
        )
    return problems.result(tuple(figures))


def _passed(result: TrialResult | None, check: str) -> bool:
    return result is not None and any(c.id == check and c.state == "pass" for c in result.checks)


def agrees(value: str, numerator: int, denominator: int) -> bool:
    """Whether a producer's decimal states numerator / denominator: by the one rule every importer
    uses too (``inputs.numbers.agrees``: the nearest double, or within one unit of its last digit)."""
    return numbers.agrees(value, Fraction(numerator, denominator))


def disagreements(runs: tuple[RunSummary, ...]) -> tuple[Disagreement, ...]:
    """Every reported figure benchsite's own does not equal, with both numbers and the producer's basis."""
    return tuple(
        Disagreement(
            run=run.id,
            item=f"{figure.name} of {figure.check}",
            producer=f"{figure.value} ({figure.basis})",
            recomputed=f"{figure.derived.numerator}/{figure.derived.denominator} planned trials passed",
        )
        for run in runs
        for figure in run.reported
        if not figure.agrees
    )
