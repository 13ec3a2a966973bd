"""The direct HTML row writers (a family's ``_html_rows``) write the bytes its piecewise writer writes
over ``HtmlCells``: on hostile text, on random rows, on its own page and in the single-file report.

The piecewise writer is reached through a subclass of ``HtmlCells``: a row writer takes its direct
path for ``HtmlCells`` itself only, so a ``Cells`` that changes a piece is never bypassed.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.families.components.report import Components, CriterionScore, EpisodeResult
from generator.families.components.rows import components_rows
from generator.families.definitions.report import RowResult
from generator.families.definitions.rows import definitions_rows
from generator.families.points.report import AttemptResult, DimensionScore
from generator.families.points.rows import points_rows
from generator.families.rows import HtmlCells, RowWriter, html_repeated
from generator.families.trials.report import RevealedName, RevealRecord, TrialRow
from generator.families.trials.rows import trials_rows
from generator.figures.numbers import fmt_number
from generator.render.single import ON_PAGE, Anchors
from scripts import html_rows as bench


class PiecewiseCells(HtmlCells):
    """``HtmlCells``, which the row writers write a piece at a time."""


HOSTILE = [
    'a < b & "c" | d',
    "t'itle <x>\nnext",
    "flag_everything_baseline usage-2026-10/t03 79.5 a.b_<c>",
    "&amp; &#39; <wbr> </td></tr><script>x</script>",
    "--_..//  _x_ -y- .z. /w/",
    "",
    " ",
    "—",
]
ANCHORS = [ON_PAGE, Anchors(prefix="bench-<x>&"), Anchors(prefix="b", version="v1", online="https://x/")]

text = st.one_of(st.sampled_from(HOSTILE), st.text(max_size=30), st.from_regex(r"[a-z0-9_./\- ]{0,20}"))
ids = st.one_of(st.sampled_from(HOSTILE), st.from_regex(r"[A-Za-z0-9_.\-/<>&'\"]{0,16}", fullmatch=True))
figures = st.one_of(
    st.none(),
    st.sampled_from([0.0, -0.0, 0.5, 0.8125, 1.0, 2.675, 1e-9, 90.0, -1.5, 1e12]),
    st.floats(-1e12, 1e12),  # fmt_number's quantize refuses more digits than Decimal's 28, either way
)
outcomes = st.sampled_from(["Ready", "NeedsReview", "NotReady", "Invalid", "Inconclusive"])
states = st.sampled_from(["scored", "inconclusive", "unavailable", "not executed"])


def both(write: RowWriter, anchors: Anchors, *args: Any) -> tuple[str, str]:
    """The rows ``write`` writes of ``args`` directly and piece by piece, each joined as ``b.rows`` does."""
    return "".join(write(HtmlCells(anchors), *args)), "".join(write(PiecewiseCells(anchors), *args))


@st.composite
def attempts(draw: st.DrawFn, dimensions: int) -> AttemptResult:
    scored = draw(st.booleans())
    dims = tuple(
        DimensionScore(key=f"d{i}", points=draw(figures), max=10, state=draw(states), detail=draw(text))
        for i in range(dimensions if scored else 0)
    )
    producer = draw(st.one_of(st.none(), outcomes))
    return AttemptResult(
        attempt_id=draw(ids),
        task=draw(text),
        outcome=draw(outcomes),
        reasons=tuple(draw(st.lists(text, max_size=3))),
        dimensions=dims,
        deterministic=draw(figures),
        blockers=(),
        invalid_reason=None,
        producer_outcome=producer,
        disagrees=producer is not None and draw(st.booleans()),
    )


@st.composite
def episodes(draw: st.DrawFn) -> EpisodeResult:
    def texts(size: int = 3) -> tuple[str, ...]:
        return tuple(draw(st.lists(text, max_size=size)))

    criteria = tuple(
        CriterionScore(criterion=draw(text), score=draw(figures), judges=draw(st.integers(-3, 5)))
        for _ in range(draw(st.integers(0, 3)))
    )
    figure = figures.filter(lambda v: v is not None)
    return EpisodeResult(
        episode_id=draw(ids),
        task=draw(text),
        level=draw(text),
        subject="s",
        kind="model",
        seed=draw(st.integers(-10, 10**12)),
        components=Components(
            outcome=draw(figures), process=draw(figures), rationale=draw(figures), score=draw(figures)
        ),
        f1=draw(figure),
        precision=None,
        recall=None,
        issue_type_accuracy=draw(figures),
        exactness=draw(figures),
        true_positives=draw(st.integers(0, 20)),
        false_positives=draw(st.integers(0, 20)),
        false_negatives=draw(st.integers(0, 20)),
        coverage=draw(figure),
        evidence_precision=draw(figure),
        efficiency=draw(figure),
        hard_fails=texts(),
        missing_calls=texts(),
        criteria=criteria,
        rationale_total=None,
        pass_bar=draw(st.one_of(st.none(), st.booleans())),
        rationale_note=draw(st.one_of(st.none(), text)),
        fabricated_citations=texts(),
        judges=(),
        sme_grades=(),
    )


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.data(),
    st.lists(text, min_size=0, max_size=4, unique=True),
    text,
    st.sampled_from(ANCHORS),
)
def test_points_direct_rows_are_the_piecewise_rows(
    data: st.DataObject, labels: list[str], deterministic: str, anchors: Anchors
) -> None:
    rows = data.draw(st.lists(attempts(len(labels)), max_size=4))
    direct, piecewise = both(points_rows, anchors, rows, labels, deterministic)
    assert direct == piecewise


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(episodes(), max_size=4), text, text, st.sampled_from(ANCHORS))
def test_components_direct_rows_are_the_piecewise_rows(
    rows: list[EpisodeResult], detection: str, process: str, anchors: Anchors
) -> None:
    direct, piecewise = both(components_rows, anchors, rows, detection, process)
    assert direct == piecewise


@st.composite
def trials(draw: st.DrawFn) -> TrialRow:
    micros = st.one_of(st.none(), st.integers(-(10**12), 10**12))
    return TrialRow(
        trial_id=draw(ids),
        provider=draw(st.one_of(st.sampled_from(["P-A", "P-B"]), text)),
        prompt_id=draw(text),
        prompt_corpus_version=draw(text),
        run=draw(st.one_of(st.none(), text)),
        success=draw(st.booleans()),
        reasons=tuple(draw(st.lists(text, max_size=3))),
        terminal=draw(text),
        build=draw(text),
        boot=draw(text),
        required_passed=draw(st.integers(0, 9)),
        required_total=draw(st.integers(0, 9)),
        counted_interventions=tuple(draw(st.lists(text, max_size=3))),
        cost_usd_micros=draw(micros),
        cost_note=draw(text),
        elapsed_ms=draw(st.one_of(st.none(), st.integers(0, 10**10))),
        failure_code=draw(st.one_of(st.none(), text)),
        evaluator=draw(
            st.one_of(st.none(), text, st.sampled_from(["sha256:" + "ab" * 32, "sha256:", ":x<"]))
        ),
    )


REVEALED = st.builds(
    RevealRecord,
    scores_version=st.just("v1"),
    scores_sha256=st.just("0" * 64),
    names=st.lists(
        st.builds(RevealedName, provider=st.sampled_from(["P-A", "P-B", "P-C"]), name=text), max_size=3
    ).map(tuple),
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(trials(), max_size=4), st.one_of(st.none(), REVEALED), st.sampled_from(ANCHORS))
def test_trials_direct_rows_are_the_piecewise_rows(
    rows: list[TrialRow], reveal: RevealRecord | None, anchors: Anchors
) -> None:
    direct, piecewise = both(trials_rows, anchors, rows, reveal)
    assert direct == piecewise


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), st.sampled_from(ANCHORS))
def test_definitions_direct_rows_are_the_piecewise_rows(data: st.DataObject, anchors: Anchors) -> None:
    row = st.builds(
        RowResult,
        id=ids,
        case=ids,
        check=ids,
        state=st.sampled_from(["measured", "notApplicable", "notMeasured"]),
        outcome=st.one_of(st.none(), st.sampled_from(["pass", "fail", "warn"])),
        value=figures,
        judge=st.one_of(st.none(), text),
        self_judged=st.booleans(),
    )
    rows = data.draw(st.lists(row, max_size=4))
    direct, piecewise = both(definitions_rows, anchors, rows)
    assert direct == piecewise


@pytest.mark.parametrize("anchors", ANCHORS)
def test_scored_rows_are_written_alike_both_ways(anchors: Anchors) -> None:
    """Rows the families' own scoring made of rows the corpus builders drew (scripts/html_rows.py's)."""
    rng = random.Random(3)
    direct, piecewise = both(
        points_rows, anchors, bench.points(300, rng), bench.labels(), bench.DETERMINISTIC
    )
    assert direct == piecewise and direct.count("<tr ") == 300
    direct, piecewise = both(
        components_rows, anchors, bench.components(100, rng), bench.DETECTION, bench.PROCESS
    )
    assert direct == piecewise and direct.count("<tr ") == 100
    direct, piecewise = both(trials_rows, anchors, bench.trials(100, rng), bench.REVEAL)
    assert direct == piecewise and direct.count("<tr ") == 100


def test_a_memoised_piece_keeps_values_of_other_types_apart() -> None:
    """``1`` and ``True`` are equal keys of a dict; ``0.0`` and ``-0.0`` too, but print apart."""
    assert html_repeated(1) == "1" and html_repeated(True) == "True"
    assert (fmt_number(0.0), fmt_number(-0.0), fmt_number(0.0)) == ("0.00", "-0.00", "0.00")
    assert (fmt_number(1.0), fmt_number(1), fmt_number(1.0, 1)) == ("1.00", "1", "1.0")
