"""``Problems`` and ``Result`` (generator.errors): how a step collects problems and hands them on."""

from __future__ import annotations

import dataclasses

import pytest

from generator.errors import Problem, ProblemReport, Problems, Result

A = Problem("a.json", "$.x", "bad x")
B = Problem("b.json", "", "missing", refused=True)
C = Problem("c.json", "line 3", "not JSON")


def test_take_keeps_each_results_problems_in_order_even_beside_a_value() -> None:
    problems = Problems()
    assert problems.take(Result(7, (A, B))) == 7
    assert problems.take(Result(None, (C,))) is None
    assert list(problems) == [A, B, C]
    assert len(problems) == 3


def test_take_keeps_the_problems_of_a_result_and_returns_its_value() -> None:
    problems = Problems([A])
    assert problems.take(Result("value", (B,))) == "value"
    assert problems.take(Result(None)) is None
    assert problems.as_list() == [A, B]


def test_an_empty_collector_is_false_and_one_with_a_problem_is_true() -> None:
    problems = Problems()
    assert not problems
    problems.append(A)
    assert problems
    problems.extend([B, C])
    assert list(problems) == [A, B, C]


def test_a_result_is_a_snapshot_that_later_problems_do_not_change() -> None:
    problems = Problems([A])
    first = problems.result(1)
    problems.append(B)
    assert first == Result(1, (A,))
    assert problems.result(2) == Result(2, (A, B))
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.value = 3  # type: ignore[misc]


def test_as_list_is_a_copy() -> None:
    problems = Problems([A])
    problems.as_list().append(B)
    assert list(problems) == [A]


def test_a_problem_report_takes_a_collector_and_counts_refusals() -> None:
    report = ProblemReport(Problems([A, B, A]))
    assert report.problems == [A, B]
    assert report.exit_code == 3
