"""ADR-032's text as the definitions family's contract: what benchsite reads from the prose, and where
it must agree with the scoring specification.

The ADR is prose, so only a few rule statements are parsed, each from a line a reader can find:
the ADR's id (its title line), the latest ``Amended <date>`` line about the run verdict (and whether
it makes a not-measured row warn), the axes ``agenteval compare`` "gates on", and whether compare
only "warns when no usable floor" was recorded. Whether the built-in specification applies is
decided by the text's sha256 (the seed's text, byte for byte), never by these parsed fields: a
changed text brings its own specification.
"""

from __future__ import annotations

import hashlib
import re

from pydantic import Field

from generator.errors import Problem, Result
from generator.families.definitions.spec import DefinitionsSpec
from generator.figures.model import Model

ADR_ID = re.compile(r"^(ADR-[0-9]+)\b")
AMENDED = re.compile(r"^Amended ([0-9]{4}-[0-9]{2}-[0-9]{2})\b")
GATES_ON = re.compile(r"gates on ((?:[A-Za-z][A-Za-z.]* / )+[A-Za-z][A-Za-z.]*)")
NOT_MEASURED_WARNS = "WARN when any row is NotMeasured"
FLOOR_WARNS = "warns when no usable floor"


class AdrText(Model):
    """ADR-032 as pinned text: the lines shown verbatim, its digest, and the rule statements parsed
    from it (each with its line number, for messages)."""

    id: str = Field(description="The ADR's id, from its title line (e.g. ADR-032).")
    title: str
    status: str
    decision: str
    sha256: str
    verdict_amended: str | None = Field(description="The latest 'Amended <date>' line about the verdict.")
    verdict_amended_line: int | None
    amendment_warns_not_measured: bool = Field(
        description="That amendment makes a run with a not-measured row WARN."
    )
    compare_gates: tuple[str, ...] | None = Field(description="The axes compare 'gates on', in order.")
    compare_gates_line: int | None
    floor_warns_line: int | None = Field(
        description="The line saying compare only warns when no usable floor was recorded."
    )


def read_adr(data: bytes, file: str) -> Result[AdrText]:
    """The pinned text read as ADR-032: its title, status and decision lines, and its rule statements."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return Result(None, (Problem(file, "", "is not UTF-8 text"),))
    numbered = [(n, line.strip()) for n, line in enumerate(text.splitlines(), start=1) if line.strip()]
    lines = [line for _, line in numbered]
    title = ADR_ID.match(lines[0]) if lines else None
    if title is None or title.group(1) != "ADR-032":
        return Result(
            None, (Problem(file, "line 1", "is not ADR-032 (the definitions family implements that ADR)"),)
        )
    amended = [
        (match.group(1), n, line)
        for n, line in numbered
        if (match := AMENDED.match(line)) and "verdict" in line
    ]
    latest = max(amended, default=None)
    gates = next(((n, m) for n, line in numbered if (m := GATES_ON.search(line))), None)
    adr = AdrText(
        id=title.group(1),
        title=lines[0],
        status=next((line for line in lines if line.startswith("Status:")), ""),
        decision=next((line for line in lines if line.startswith("Decision in one line:")), ""),
        sha256=hashlib.sha256(data).hexdigest(),
        verdict_amended=latest[0] if latest else None,
        verdict_amended_line=latest[1] if latest else None,
        amendment_warns_not_measured=bool(latest and NOT_MEASURED_WARNS in latest[2]),
        compare_gates=tuple(gates[1].group(1).split(" / ")) if gates else None,
        compare_gates_line=gates[0] if gates else None,
        floor_warns_line=next((n for n, line in numbered if FLOOR_WARNS in line), None),
    )
    return Result(adr)


def agreement_problems(spec: DefinitionsSpec, adr: AdrText, file: str, place: str) -> list[Problem]:
    """Where the ADR's parsed rule statements and the specification disagree: each names both places."""
    problems = []
    if spec.rubric != adr.id:
        message = f"{place} is a specification of {spec.rubric!r}, not of {adr.id}"
        problems.append(Problem(file, "line 1", message))
    where = f"line {adr.verdict_amended_line}" if adr.verdict_amended_line else ""
    if spec.verdict.amended != adr.verdict_amended:
        said = (
            f"amends the run verdict on {adr.verdict_amended}"
            if adr.verdict_amended
            else "has no verdict amendment"
        )
        message = f"the ADR {said}; {place} states $.verdict.amended {spec.verdict.amended!r}"
        problems.append(Problem(file, where, message))
    warns = ("any_not_measured", "WARN") in {(s.when, s.verdict) for s in spec.verdict.steps}
    if adr.amendment_warns_not_measured and not warns:
        message = (
            f"the amendment makes a run with a not-measured row WARN; {place} has no "
            "$.verdict.steps entry {when: any_not_measured, verdict: WARN}"
        )
        problems.append(Problem(file, where, message))
    axes = tuple(a for a in spec.compare.gating if a not in ("usable_floor", "self_judged"))
    if adr.compare_gates is not None and set(adr.compare_gates) != set(axes):
        message = (
            f"compare gates on {' / '.join(adr.compare_gates)}; {place} gates on "
            f"{' / '.join(axes)} ($.compare.gating)"
        )
        problems.append(Problem(file, f"line {adr.compare_gates_line}", message))
    if adr.floor_warns_line is not None and "usable_floor" in spec.compare.gating:
        message = (
            f"compare only warns when no usable floor was recorded; {place} gates on it ($.compare.gating)"
        )
        problems.append(Problem(file, f"line {adr.floor_warns_line}", message))
    return problems
