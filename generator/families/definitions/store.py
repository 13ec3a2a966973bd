"""Reading AgentEval store-v1 rows: file names, stimulus hashes, measurement states, run verdicts."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from typing import Any

from generator.errors import Problem, Problems, Result
from generator.families.definitions.models import Manifest, Scenario, output_tree
from generator.families.definitions.report import RowResult
from generator.families.definitions.spec import DefinitionsRules, seed_rules
from generator.inputs.jsonio import load_model


def sanitized_name(scenario_id: str) -> str:
    """The store-v1 scenario file name for an id (the producer's sanitising rule)."""
    name = re.sub(r'[/\\<>:"|?*\x00]', "-", scenario_id).strip(". ")
    if name != scenario_id:
        name += "__" + hashlib.sha256(scenario_id.encode("utf-8")).hexdigest()[:16]
    return name + ".json"


def stimulus_hash(text: str) -> str | None:
    if not text:
        return None
    normal = text.replace("\r\n", "\n").replace("\r", "\n")
    return "sha256:" + hashlib.sha256(normal.encode("utf-8")).hexdigest()


def row_result(scenario: Scenario, case: str, check: str, subject_model: str | None) -> RowResult:
    tree = output_tree(scenario.output)
    score: dict[str, Any] = tree["score"] if tree else {}
    measurement, label = score.get("measurement"), score.get("label")
    if measurement in ("notApplicable", "notMeasured"):
        state = measurement
    elif label == "inapplicable":
        state = "notApplicable"
    elif label in ("skipped", "error"):
        state = "notMeasured"
    else:
        state = "measured"
    outcome = None
    value = None
    if state == "measured":
        outcome = "warn" if label == "warn" else ("pass" if scenario.passed else "fail")
        raw = score.get("value", scenario.score)
        if raw is None:
            value = float(scenario.passed)
        elif isinstance(raw, bool) or not isinstance(raw, (int, float)) or not 0 <= raw <= 1:
            raise ValueError(f"score value {raw!r} is not a number in [0, 1]")
        else:
            value = float(raw)
    judge = scenario.comparability.judge if scenario.comparability else None
    self_judged = judge is not None and (
        judge.subjectRelation == "sameModel"
        or (
            judge.subjectRelation == "unknown"
            and subject_model is not None
            and judge.modelId.casefold() == subject_model.casefold()
        )
    )
    return RowResult(
        id=scenario.id,
        case=case,
        check=check,
        state=state,
        outcome=outcome,
        value=value,
        judge=judge.modelId if judge else None,
        self_judged=self_judged,
    )


def verdict(rows: Sequence[RowResult], rules: DefinitionsRules | None = None) -> str:
    """A run's verdict from its rows by the specification's ladder (``verdict.steps``): the first
    step whose condition holds, else ``verdict.otherwise``. Not-applicable rows never count."""
    measured = [r for r in rows if r.state == "measured"]
    holds = {
        "any_measured_failed": any(r.outcome == "fail" for r in measured),
        "nothing_measured": not measured,
        "any_measured_warned": any(r.outcome == "warn" for r in measured),
        "any_not_measured": any(r.state == "notMeasured" for r in rows),
    }
    rules = rules or seed_rules()
    return next((name for when, name in rules.steps if holds[when]), rules.otherwise)


def axis(value: str | None, fold: bool = True) -> str | None:
    """A text comparability axis as AgentEval compares it: case-insensitively (unless the
    specification says otherwise: ``fold``), and a blank or whitespace-only value is not recorded
    (None)."""
    if value is None or not value.strip():
        return None
    return value.casefold() if fold else value


def frozen_manifest(files: Mapping[str, bytes], label: str) -> Result[Manifest]:
    """A store-v1 run's manifest, refusing an incomplete (unfrozen) run: one without summary.json.

    A finished run that measured nothing carries verdict PENDING (BenchmarkRunner writes it so): it
    is a result, published with its verdict, not an incomplete run."""
    problems = Problems()
    if "summary.json" not in files:
        message = "an incomplete (unfrozen) run: no summary.json"
        problems.append(Problem(f"{label}/summary.json", "", message, refused=True))
    if "manifest.json" not in files:
        problems.append(Problem(f"{label}/manifest.json", "", "required file is missing"))
        return problems.result(None)
    manifest = problems.take(load_model(Manifest, files["manifest.json"], f"{label}/manifest.json"))
    return problems.result(manifest)
