"""The fast path of ``results.jsonl`` (``generator/inputs/fastrows.py``): one trial result decoded by
msgspec Structs with the fields and bounds of :class:`generator.families.trials.models.TrialResult`,
its two validators (the evaluator's hash, unique check ids) as plain checks.

The cost is a tagged union on ``state``, as the model's discriminator: msgspec keeps a tag out of a
Struct's fields, so each cost Struct states its tag again as a class attribute, which is what the
scoring code reads (``result.cost.state``). An absent intervention note decodes to UNSET (the
duplicate-key count needs the members given), then reads as the model's default. The Structs are not
frozen only so that this filling-in can happen once, here.
"""

from __future__ import annotations

import re
from typing import Annotated, ClassVar, Literal

import msgspec
from msgspec import UNSET, UnsetType

from generator.families.input_base import EVALUATOR_HASH
from generator.families.trials.spec import CheckState, EvidenceKind, Observed, Terminal
from generator.inputs.fastrows import no_duplicate_keys, typed

_Text = Annotated[str, msgspec.Meta(min_length=1)]
_Count = Annotated[int, msgspec.Meta(ge=0)]


class _Row(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A row Struct: unknown fields refused; msgspec's JSON decode never coerces types."""


class CheckRow(_Row):
    id: _Text
    state: CheckState


class InterventionRow(_Row):
    kind: _Text
    note: str | UnsetType = UNSET


class EvidenceRow(_Row):
    kind: EvidenceKind
    reference: _Text


class MeasuredCostRow(_Row, tag_field="state", tag="measured"):
    state: ClassVar[Literal["measured"]] = "measured"
    usd_micros: _Count
    evidence: EvidenceRow


class UnavailableCostRow(_Row, tag_field="state", tag="unavailable"):
    state: ClassVar[Literal["unavailable"]] = "unavailable"
    reason: _Text


class TrialResultRow(_Row):
    """One line of ``results.jsonl`` as the fast path reads it (the fields of ``TrialResult``)."""

    trial_id: str
    terminal: Terminal
    build: Observed
    boot: Observed
    checks: tuple[CheckRow, ...]
    interventions: tuple[InterventionRow, ...]
    cost: MeasuredCostRow | UnavailableCostRow
    elapsed_ms: _Count | None
    failure_code: str | None
    evaluator: str


_RESULT_ROWS = msgspec.json.Decoder(TrialResultRow)
_EVALUATOR = re.compile(EVALUATOR_HASH)
"""Matched as the model's validator matches it (``re.match``: its ``$`` also matches before a final
newline, so the two accept the same evaluators)."""
_MEMBERS = len(TrialResultRow.__struct_fields__)
_COST_MEMBERS = {"measured": 3 + 2, "unavailable": 2}
"""A cost's members with its tag (a measured one's evidence has two)."""


def result_row(line: str) -> TrialResultRow | None:
    """One row of ``results.jsonl`` decoded and checked as ``TrialResult`` would (the evaluator's
    hash, unique check ids); None when any check fails or is not certain (the strict path then says
    why, or accepts)."""
    row = typed(_RESULT_ROWS, line)
    if row is None or _EVALUATOR.match(row.evaluator) is None:
        return None
    if len({check.id for check in row.checks}) != len(row.checks):
        return None
    members = _MEMBERS + 2 * len(row.checks) + _COST_MEMBERS[row.cost.state] + _noted(row.interventions)
    if not no_duplicate_keys(line, members, string_colons=1):
        return None  # the one certain colon in a string: the evaluator's 'sha256:'
    return row


def _noted(interventions: tuple[InterventionRow, ...]) -> int:
    """The interventions' members, each counted once; an absent note then reads as the model's
    default (a row refused after this is dropped, so filling it in first costs nothing)."""
    members = 2 * len(interventions)
    for intervention in interventions:
        if intervention.note is UNSET:
            intervention.note = ""
            members -= 1
    return members
