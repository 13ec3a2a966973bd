"""How a components contract and benchmark relate to their scoring specification: whether the
built-in specification scores a contract (the seed's rules), and where a contract's structured fields
or ``benchmark.json`` disagree with a specification. Where a
specification comes from is ``generator.families.specs``.

The seed contract states its numbers in sentences (``pass_bar``: ">=9/12 total …", ``scale``: "each
criterion 0-3", ``judge_protocol``: "3 judges, median, on L4 tasks."). Where a contract writes a
figure in one of those forms it is compared with the specification; a sentence without one is left
to the reader, quoted verbatim on the methodology page.
"""

from __future__ import annotations

import re
from fractions import Fraction

from generator.errors import Problem, Problems, Result
from generator.families.components.models import (
    COMPONENTS_RULES_SHA256,
    CRITERIA,
    ComponentsContract,
    ComponentsDeclaration,
    Task,
    Weights,
)
from generator.families.components.spec import (
    ComponentsRules,
    ComponentsSpec,
    ComponentWeights,
    FixedWeights,
    exact,
    words,
)

PASS_BAR = re.compile(r">=\s*(\d+(?:\.\d+)?)\s*/\s*(\d+)")
SCALE = re.compile(r"(\d+)\s*[-–]\s*(\d+)")
PROTOCOL = re.compile(r"(\d+)\s+judges?,\s*(median|mean),\s*on\s+(L[1-4](?:\s*,\s*L[1-4])*)\s+tasks", re.I)


def states_seed_rules(contract: ComponentsContract) -> bool:
    """Whether the built-in specification scores this contract: the seed's rules, byte for byte."""
    return contract.rules_sha256 == COMPONENTS_RULES_SHA256


def agreement_problems(
    spec: ComponentsSpec, contract: ComponentsContract, contract_file: str, place: str
) -> list[Problem]:
    """Where a contract's structured fields and its specification disagree: each names both places."""
    problems = []
    rat, bar = spec.rationale, spec.pass_bar
    if list(rat.criteria) != list(CRITERIA):
        message = (
            f"the judge rubric's criteria {list(CRITERIA)} differ from {place} "
            f"($.rationale.criteria: {list(rat.criteria)})"
        )
        problems.append(Problem(contract_file, "$.judge_rubric.criteria", message))
    stated = PASS_BAR.search(contract.judge_rubric.pass_bar)
    most = rat.scale_max * (len(rat.criteria) + (bar.total_over == "all"))
    if stated is not None and (Fraction(stated[1]) != exact(bar.total_at_least) or int(stated[2]) != most):
        least = words(exact(bar.total_at_least))
        message = (
            f"the pass bar states {stated[0]!r}, but {place} says at least {least} of {most} "
            "($.pass_bar.total_at_least)"
        )
        problems.append(Problem(contract_file, "$.judge_rubric.pass_bar", message))
    scale = SCALE.search(contract.judge_rubric.scale)
    if scale is not None and (int(scale[1]), int(scale[2])) != (0, rat.scale_max):
        message = (
            f"the scale states {scale[0]!r}, but {place} scores 0–{rat.scale_max} ($.rationale.scale_max)"
        )
        problems.append(Problem(contract_file, "$.judge_rubric.scale", message))
    problems += _protocol_problems(spec, contract, contract_file, place)
    return problems


def _protocol_problems(
    spec: ComponentsSpec, contract: ComponentsContract, contract_file: str, place: str
) -> list[Problem]:
    judges = spec.rationale.judges
    problems = []
    for index, line in enumerate(contract.judge_protocol):
        found = PROTOCOL.search(line)
        if found is None:
            continue
        levels = tuple(re.split(r"\s*,\s*", found[3].upper()))
        if (int(found[1]), found[2].lower(), levels) != (judges.at_least, judges.aggregate, judges.levels):
            message = (
                f"the judge protocol states {found[0]!r}, but {place} says {judges.at_least} judges, "
                f"{judges.aggregate}, on {', '.join(judges.levels) or 'no level'} ($.rationale.judges)"
            )
            problems.append(Problem(contract_file, f"$.judge_protocol[{index}]", message))
    return problems


def weighted_tasks(
    decl: ComponentsDeclaration, file: str, rules: ComponentsRules, place: str
) -> Result[dict[str, Task]]:
    """The tasks with the weights they are scored by (their own, or the specification's fixed ones),
    and where ``benchmark.json`` (``file``) disagrees with the specification, each naming both places."""
    problems = Problems()
    if decl.minimum_seeds is not None and decl.minimum_seeds != rules.minimum_seeds:
        message = f"{decl.minimum_seeds} differs from {place} ($.seeds.minimum: {rules.minimum_seeds})"
        problems.append(Problem(file, "$.minimum_seeds", message))
    if decl.focus and not rules.focus:
        message = f"task families declare a focus criterion, but {place} has none ($.rationale.focus: null)"
        problems.append(Problem(file, "$.focus", message))
    combine = rules.spec.combine
    fixed = combine.weights if isinstance(combine, FixedWeights) else None
    tasks = {}
    for index, task in enumerate(decl.tasks):
        where = f"$.tasks[{index}].weights"
        if fixed is None and task.weights is None:
            message = f"no weights, and {place} takes each task's own (combine kind 'task_weights')"
            problems.append(Problem(file, where, message))
        elif fixed is not None and task.weights is not None and _exact(task.weights) != _exact(fixed):
            message = f"{_words(task.weights)} differ from {place} ($.combine.weights: {_words(fixed)})"
            problems.append(Problem(file, where, message))
        if fixed is not None:
            weights = Weights(outcome=fixed.outcome, process=fixed.process, rationale=fixed.rationale)
            task = task.model_copy(update={"weights": weights})
        tasks[task.id] = task
    return problems.result(tasks)


def _exact(w: Weights | ComponentWeights) -> tuple[Fraction, Fraction, Fraction]:
    return (exact(w.outcome), exact(w.process), exact(w.rationale))


def _words(w: Weights | ComponentWeights) -> str:
    return f"weights outcome {w.outcome}, process {w.process}, rationale {w.rationale}"
