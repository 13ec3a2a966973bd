"""Unit tests of ``generator.render.home``: a rubric status as a badge of a word or two, a version's
changes in one line, and the home page rendered from the writer's entries (here hand-made)."""

from __future__ import annotations

from typing import Any

import pytest

from generator.render.home import change_summary, status_badge
from generator.render.pages import render_versions
from generator.report.changes import BenchmarkChanges, FigureChange, VersionChanges
from tests.pages import Page, squash
from tests.test_unit_syndication import bench_change

ADR = (
    "Status: Accepted (2026-09-07). The owner answered §6's Q-A — inside the rule — and Wave 2 was "
    "then BUILT rather than merely funded."
)


@pytest.mark.parametrize(
    ("status", "badge"),
    [
        ("historical-rubric; prospective release requires a frozen successor", "historical"),
        (
            "frozen successor of agent-dx-score-contract 2026-09-17.1, for prospective release",
            "frozen successor",
        ),
        ("frozen", "frozen"),
        (ADR, "accepted"),
        ("Draft — under review by the panel", "draft"),
        ("STABLE", "stable"),
        ("awaiting the panel's second reading of section four", "awaiting the panel's…"),
        ("in review", "in review"),
        ("Status: proposed; superseded by nothing yet", "proposed"),  # only the first clause counts
        (None, None),
        ("  ", None),
    ],
)
def test_a_status_line_becomes_a_word_or_two(status: str | None, badge: str | None) -> None:
    assert status_badge(status) == badge


def figure(subject: str) -> FigureChange:
    return FigureChange(
        ranking="ready-rate",
        subject=subject,
        before="3/4",
        after="2/4",
        estimate_before=0.75,
        estimate_after=0.5,
    )


def changes(
    *benchmarks: BenchmarkChanges, previous: str | None = "v1", comparable: bool = True
) -> VersionChanges:
    return VersionChanges(
        version="v2", previous=previous, comparable=comparable, note="", benchmarks=benchmarks
    )


def test_a_version_change_line_counts_each_kind_and_names_at_most_three_benchmarks() -> None:
    assert change_summary(changes(previous=None)) == "first version"
    assert change_summary(changes(comparable=False)) == "not comparable with the version before"
    assert change_summary(changes()) == "nothing changed"
    one = bench_change(
        "a",
        figures=(figure("s1"), figure("s2")),
        folders_resealed=("a/run-1",),
        corrections_added=("x",),
        revealed="v0",
        rubric_changed=True,
    )
    assert change_summary(changes(one)) == (
        "a: identities revealed, rubric changed, 2 figures moved, 1 folder resealed, 1 correction"
    )
    many = [
        bench_change("b", folders_added=("b/r1", "b/r2")),
        bench_change("c", state="added"),
        bench_change("d", folders_removed=("d/r",)),
        bench_change("e"),
        bench_change("f"),
    ]
    assert change_summary(changes(*many)) == (
        "b: 2 new folders; c added; d: 1 folder removed; 2 more benchmarks"
    )
    assert change_summary(changes(bench_change("e"))) == "e: its own figures moved"  # a family's own section


def entry(
    version: str, status: str | None, headlines: Any = None, previous: str | None = None
) -> dict[str, Any]:
    record = {
        "site_version": version,
        "generator": "benchsite 0.1.0",
        "inputs_digest": "ab" * 32,
        "benchmarks": [{"id": "recsys", "title": "Recsys", "family": "definitions", "status": status}],
    }
    return {
        "version": version,
        "record": record,
        "changes": changes(previous=previous),
        "headlines": headlines,
    }


def page_of(entries: list[dict[str, Any]]) -> tuple[str, Page]:
    page = Page()
    page.feed(render_versions(entries, entries[0]["version"] if entries else None).decode("utf-8"))
    page.close()
    return squash("".join(page.text)), page


def test_a_row_shows_the_badge_never_the_status_paragraph() -> None:
    text, page = page_of([entry("v2", ADR, previous="v1"), entry("v1", ADR)])
    assert "Status: Accepted" not in text and "Wave 2" not in text
    (table,) = page.tables
    assert table.cards and table.column("Benchmarks") == ["recsys accepted"] * 2
    assert table.column("Changes") == ["nothing changed", "first version"]


def test_a_latest_report_that_cannot_be_read_and_an_empty_site_still_render() -> None:
    text, _ = page_of([entry("v1", None)])
    assert "Who leads in v1" in text and "Its report cannot be read by this generator" in text
    text, page = page_of([])
    assert "No version is published yet." in text and page.tables[0].rows == []
