"""What a version publishes beyond its pages: rankings (rank bands, neighbour tests), charts, the CSV
per ranking, the single-file report, ``404.html``, ``versions.json`` with what changed, and the build
command's summary, progress line and mkdocs export.

Pure functions first (hand-worked intervals, hypothesis properties, scipy called directly), then the
example site built once per module and checked surface by surface against its JSON, then a copy of the
corpus with one attempt changed and resealed, and last the command line.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
import os
import posixpath
import pty
import random
import re
import shutil
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from html.parser import HTMLParser
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import jsonschema  # type: ignore[import-untyped]
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import false_discovery_control, fisher_exact, norm, ttest_ind_from_stats
from scipy.stats import t as student_t

from generator.figures.model import Interval
from generator.figures.ranking import Breakdown, mean_interval, mean_ranking, rank_bands, rate_ranking
from generator.figures.stats import rate
from generator.inputs.seal import SEAL_NAME, write_seal
from generator.progress import Progress
from generator.render.charts import forest, grid
from generator.render.pages import REPORT_RUNS, md_cell, ranking_csv
from generator.report.model import BenchmarkReport
from tests.conftest import CORPUS, ROOT, corpus_counts, run_cli, snapshot
from tests.pages import Part, namespace_problems, report_parts, tables_of

VERSION = "v1"
BLIND = json.loads((CORPUS / "vibe-delivery" / "reveal" / "reveal.json").read_text())["scores_version"]
COLUMNS = [
    "benchmark",
    "ranking",
    "rank_best",
    "rank_worst",
    "subject",
    "estimate",
    "numerator",
    "denominator",
    "sd",
    "ci_low",
    "ci_high",
    "ci_method",
]
URL_ATTRIBUTES = ("href", "src", "srcset", "action", "formaction", "data", "poster", "cite", "background")
Z_SUM = float(norm.ppf(0.975) + norm.ppf(0.8))  # α = 0.05 two-sided, power 0.8


# --- helpers ------------------------------------------------------------------------------------


def ci(low: float, high: float) -> Interval:
    return Interval(low=low, high=high, confidence=0.95, method="hand-made", n=10)


def fmt2(value: float) -> str:
    """Two decimals rounded half up from the shortest spelling (0.8125 → 0.81): a mean of at most 100
    scores, as pages print it (two decimals more than a whole percentage of as many things)."""
    return str(Decimal(repr(value)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def band(row: dict[str, Any]) -> str:
    best, worst = row["rank_best"], row["rank_worst"]
    if best is None:
        return "not ranked"
    return str(best) if best == worst else f"{best}–{worst}"


def desc_line(row: dict[str, Any]) -> str:
    """One subject's sentence of a forest plot's ``<desc>``, written out from its JSON row."""
    if row["estimate"] is None:
        return f"{row['subject']}: no measurement"
    interval = row["interval"]
    n, d = row["numerator"], row["denominator"]
    rate = n is not None  # a rate in whole percent, a mean in two decimals (every n here is at most 100)
    assert d <= 100, "written out here for shares and means of at most 100 things"
    value = pct0 if rate else fmt2
    spread = (
        "no interval"
        if interval is None
        else f"95% interval {value(interval['low'])} to {value(interval['high'])}"
    )
    shown = band(row) if row["rank_best"] is None else f"rank {band(row)}"
    figure = f"{(200 * n // d + 1) // 2}% ({n}/{d})" if rate else fmt2(row["estimate"])
    return f"{row['subject']}: {figure}, {spread}, {shown}"


def pct0(value: float) -> str:
    """A share as a whole percentage, half up from its shortest decimal spelling."""
    return f"{(Decimal(repr(value)) * 100).quantize(Decimal('1'), rounding=ROUND_HALF_UP)}%"


def pct1(value: float) -> str:
    """A share as a percentage with one decimal, half up from its shortest decimal spelling."""
    return f"{(Decimal(repr(value)) * 100).quantize(Decimal('0.1'), rounding=ROUND_HALF_UP)}%"


@dataclass
class Svg:
    attrs: dict[str, str]
    inner: list[tuple[str, dict[str, str]]] = field(default_factory=list)


class Doc(HTMLParser):
    """One HTML file: ids, URL-valued attributes, text of titled/described elements, SVGs (its tables:
    ``tests.pages``)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: Counter[str] = Counter()
        self.urls: list[str] = []
        self.labelled: list[str] = []
        self.text: list[str] = []
        self.named: dict[str, str] = {}
        self.svgs: list[Svg] = []
        self.scripts = 0
        self.csp = ""
        self._svg: Svg | None = None
        self._named: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if "id" in a:
            self.ids[a["id"]] += 1
        self.urls += [v for k, v in a.items() if k in URL_ATTRIBUTES or k.endswith(":href")]
        if "aria-labelledby" in a:
            self.labelled.append(a["aria-labelledby"])
        if tag == "svg":
            self._svg = Svg(a)
            self.svgs.append(self._svg)
        elif self._svg is not None:
            self._svg.inner.append((tag, a))
        if tag in ("title", "desc") and "id" in a:
            self._named = a["id"]
            self.named[a["id"]] = ""
        self.scripts += tag == "script"
        if tag == "meta" and a.get("http-equiv") == "Content-Security-Policy":
            self.csp = a.get("content", "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "svg":
            self._svg = None
        elif tag in ("title", "desc"):
            self._named = None

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._named is not None:
            self.named[self._named] += data

    @property
    def words(self) -> str:
        return " ".join("".join(self.text).split())


def parse(path: Path) -> Doc:
    doc = Doc()
    doc.feed(path.read_text(encoding="utf-8"))
    doc.close()
    return doc


def shows_in_order(tables: list[list[list[str]]], rows: list[dict[str, Any]]) -> bool:
    """Some table has consecutive rows whose first cell is each subject's band, the second its name
    (a trials provider's own name may come first, its label, the ranking's subject, after it)."""

    def match(cells: list[str], row: dict[str, Any]) -> bool:
        name = row["subject"]
        words = cells[1].split() if len(cells) >= 2 else []
        return (
            len(cells) >= 2
            and cells[0] == band(row)
            and (cells[1] == name or cells[1].startswith(name + " ") or name in words or f"({name})" in words)
        )

    return any(
        all(match(cells, row) for cells, row in zip(table[i : i + len(rows)], rows, strict=True))
        for table in tables
        for i in range(len(table) - len(rows) + 1)
    )


def versions_schema() -> dict[str, Any]:
    return cast(dict[str, Any], json.loads((ROOT / "schemas" / "versions.schema.json").read_text()))


# --- rank bands ---------------------------------------------------------------------------------


def test_disjoint_intervals_get_one_rank_each_in_value_order() -> None:
    assert rank_bands([ci(0.5, 0.6), ci(0.8, 0.9), ci(0.1, 0.2)]) == [(2, 2), (1, 1), (3, 3)]


def test_an_overlapping_chain_separates_only_its_ends() -> None:
    # A overlaps B, B overlaps C, A lies entirely above C.
    assert rank_bands([ci(0.6, 0.9), ci(0.4, 0.7), ci(0.1, 0.5)]) == [(1, 2), (1, 3), (2, 3)]


def test_ties_and_touching_endpoints_never_separate() -> None:
    assert rank_bands([ci(0.2, 0.4)] * 3) == [(1, 3)] * 3
    assert rank_bands([ci(0.5, 0.7), ci(0.3, 0.5)]) == [(1, 2), (1, 2)]  # high == low: they overlap


def test_a_missing_interval_is_unranked_and_not_counted() -> None:
    assert rank_bands([ci(0.7, 0.9), None, ci(0.1, 0.3)]) == [(1, 1), (None, None), (2, 2)]
    assert rank_bands([None, None]) == [(None, None), (None, None)]
    assert rank_bands([]) == []


bounds = st.tuples(st.integers(0, 12), st.integers(0, 12)).map(lambda p: ci(min(p) / 12, max(p) / 12))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.none(), bounds), max_size=9), st.randoms(use_true_random=False))
def test_rank_band_properties(intervals: list[Interval | None], rnd: random.Random) -> None:
    bands = rank_bands(intervals)
    ranked = [(iv, b) for iv, b in zip(intervals, bands, strict=True) if iv is not None]
    n = len(ranked)
    assert all(b == (None, None) for iv, b in zip(intervals, bands, strict=True) if iv is None)
    for _, (best, worst) in ranked:
        assert best is not None and worst is not None and 1 <= best <= worst <= n
    for (a, (a_best, a_worst)), (b, (b_best, b_worst)) in itertools.permutations(ranked, 2):
        assert a_best is not None and a_worst is not None and b_best is not None and b_worst is not None
        if a.low > b.high:  # a entirely above b: a ranks strictly better at both ends
            assert a_best < b_best and a_worst < b_worst
        elif b.low <= a.high:  # overlapping: the bands overlap too
            assert a_best <= b_worst and b_best <= a_worst
    if n:
        assert min(b[0] or 0 for _, b in ranked) == 1 and max(b[1] or 0 for _, b in ranked) == n
    assert rank_bands([iv for iv, _ in ranked]) == [b for _, b in ranked]  # unranked rows change nothing
    order = list(range(len(intervals)))
    rnd.shuffle(order)
    assert rank_bands([intervals[i] for i in order]) == [bands[i] for i in order]


# --- neighbour tests ----------------------------------------------------------------------------


def test_rate_ranking_tests_neighbours_with_fisher_and_adjusts_with_bh() -> None:
    counts = [("a", 20, 20), ("b", 7, 20), ("c", 1, 20), ("d", 1, 18), ("gap", 0, 0), ("e", 0, 5)]
    rates = [(subject, rate(x, n)) for subject, x, n in counts]
    ranking = rate_ranking("r", "R", "successes / trials", rates)
    assert [(s.subject, s.numerator, s.denominator) for s in ranking.rows] == counts
    assert [s.estimate for s in ranking.rows] == [1.0, 7 / 20, 1 / 20, 1 / 18, None, 0.0]
    assert [(s.rank_best, s.rank_worst) for s in ranking.rows] == rank_bands([r.interval for _, r in rates])
    assert ranking.rows[4].interval is None and ranking.rows[4].rank_best is None
    pairs = [(20, 20, 7, 20), (7, 20, 1, 20), (1, 20, 1, 18)]  # none around the subject with no trials
    raw = [float(fisher_exact([[x, n - x], [y, m - y]]).pvalue) for x, n, y, m in pairs]
    adjusted = [float(q) for q in false_discovery_control(raw, method="bh")]
    assert [(c.higher, c.lower) for c in ranking.comparisons] == [("a", "b"), ("b", "c"), ("c", "d")]
    assert [c.p_value for c in ranking.comparisons] == raw
    assert [c.adjusted_p for c in ranking.comparisons] == adjusted
    assert raw[1] <= 0.05 < adjusted[1]  # b–c: below 0.05 only before the adjustment
    assert [c.separated for c in ranking.comparisons] == [q <= 0.05 for q in adjusted] == [True, False, False]
    for c, (x, n, y, m) in zip(ranking.comparisons, pairs, strict=True):
        pooled = (x + y) / (n + m)
        assert c.detectable == pytest.approx(
            Z_SUM * math.sqrt(pooled * (1 - pooled) * (1 / n + 1 / m)), rel=1e-12
        )
        assert c.difference == pytest.approx(x / n - y / m, rel=1e-12)
    assert ranking.test is not None and "fisher_exact" in ranking.test
    assert ranking.adjustment is not None and "false_discovery_control" in ranking.adjustment


def test_rate_detectable_difference_at_a_pooled_rate_of_0_or_1_uses_one_half() -> None:
    for share in (0, 1):
        ranking = rate_ranking("r", "R", "rate", [("a", rate(10 * share, 10)), ("b", rate(14 * share, 14))])
        (c,) = ranking.comparisons
        assert c.p_value == 1.0 and not c.separated
        assert c.detectable == pytest.approx(Z_SUM * math.sqrt(0.25 * (1 / 10 + 1 / 14)), rel=1e-12)


def test_an_untested_rate_ranking_publishes_bands_but_no_tests() -> None:
    ranking = rate_ranking(
        "r", "R", "rate", [("a", rate(9, 10)), ("b", rate(1, 10))], tested=False, note="n/a"
    )
    assert ranking.comparisons == () and ranking.test is None and ranking.adjustment is None
    assert ranking.detectable_method is None and ranking.note == "n/a"
    assert [(s.rank_best, s.rank_worst) for s in ranking.rows] == [(1, 1), (2, 2)]


def test_mean_interval_is_scipy_student_t() -> None:
    low, high = student_t.interval(0.95, 9, loc=0.6, scale=0.2 / math.sqrt(10))
    found = mean_interval(0.6, 0.2, 10)
    assert found is not None and (found.low, found.high, found.n) == (float(low), float(high), 10)
    assert "scipy.stats.t" in found.method
    assert mean_interval(0.4, 0.1, 1) is None and mean_interval(None, None, 0) is None


def test_a_constant_sample_has_its_mean_as_interval_and_is_not_tested() -> None:
    point = mean_interval(0.4, 0.0, 5)
    assert point is not None and point.low == point.high == 0.4
    ranking = mean_ranking("m", "M", "mean", [("a", 0.9, 0.0, 4), ("b", 0.5, 0.0, 6), ("c", 0.4, 0.1, 5)])
    assert [(c.higher, c.lower) for c in ranking.comparisons] == [("b", "c")]  # a–b: both sd 0
    assert [(s.rank_best, s.rank_worst) for s in ranking.rows] == [(1, 1), (2, 3), (2, 3)]


def test_mean_ranking_tests_neighbours_with_welch() -> None:
    entries: list[tuple[str, float | None, float | None, int]] = [
        ("a", 0.95, 0.05, 12),
        ("b", 0.71, 0.2, 12),
        ("c", 0.55, 0.15, 12),
        ("d", 0.5, 0.1, 10),
        ("gone", None, None, 0),
        ("one", 0.3, 0.1, 1),
    ]
    ranking = mean_ranking("m", "M", "mean score", entries)
    intervals = [mean_interval(m, s, n) for _, m, s, n in entries]
    assert [s.interval for s in ranking.rows] == intervals
    assert [(s.rank_best, s.rank_worst) for s in ranking.rows] == rank_bands(intervals)
    assert ranking.rows[-1].estimate == 0.3 and ranking.rows[-1].rank_best is None  # one observation
    tested = entries[:4]  # d–gone and gone–one: nothing to test
    assert [(c.higher, c.lower) for c in ranking.comparisons] == [("a", "b"), ("b", "c"), ("c", "d")]
    raw = [
        float(ttest_ind_from_stats(m1, s1, n1, m2, s2, n2, equal_var=False).pvalue)
        for (_, m1, s1, n1), (_, m2, s2, n2) in itertools.pairwise(tested)
    ]
    adjusted = [float(q) for q in false_discovery_control(raw, method="bh")]
    assert [c.p_value for c in ranking.comparisons] == raw
    assert [c.adjusted_p for c in ranking.comparisons] == adjusted
    assert raw[1] <= 0.05 < adjusted[1]  # b–c: below 0.05 only before the adjustment
    assert [c.separated for c in ranking.comparisons] == [q <= 0.05 for q in adjusted] == [True, False, False]
    for c, ((_, m1, s1, n1), (_, m2, s2, n2)) in zip(
        ranking.comparisons, itertools.pairwise(tested), strict=True
    ):
        assert m1 is not None and m2 is not None and s1 is not None and s2 is not None
        assert c.difference == pytest.approx(m1 - m2, rel=1e-12)
        assert c.detectable == pytest.approx(Z_SUM * math.sqrt(s1**2 / n1 + s2**2 / n2), rel=1e-12)


# --- charts and CSV, from hand-made rankings ----------------------------------------------------


def test_forest_desc_names_every_subject_with_its_estimate_rounded_half_up() -> None:
    ranking = rate_ranking(
        "r", "Ready", "Ready / attempts", [("s-1", rate(13, 16)), ("s-2", rate(11, 16)), ("s-3", rate(0, 0))]
    )
    svg = str(forest(ranking, "chart-x"))
    assert (
        svg.startswith('<svg class="chart" id="chart-x" ') and 'aria-labelledby="chart-x-t chart-x-d"' in svg
    )
    doc = Doc()
    doc.feed(svg)
    rows = [r.model_dump(mode="json") for r in ranking.rows]
    assert doc.named["chart-x-d"] == "; ".join(desc_line(r) for r in rows) + "."
    assert "s-1: 81% (13/16), " in doc.named["chart-x-d"]  # 81.25: whole percent at n = 16
    assert doc.named["chart-x-d"].endswith("s-3: no measurement.")
    assert doc.named["chart-x-t"] == "Ready: Ready / attempts, with 95% intervals"


def test_grid_labels_every_value_and_says_unavailable_never_zero() -> None:
    breakdown = Breakdown(
        title="Parts",
        series=(("alpha", 10.0), ("beta", 5.0)),
        rows=(("s-1", (7.5, None)), ("s-2", (0.0, 5.0))),
    )
    doc = Doc()
    doc.feed(str(grid(breakdown, "g")))
    assert doc.named["g-t"] == "Parts"
    assert (
        doc.named["g-d"]
        == "s-1: alpha 7.50 of 10.00, beta unavailable; s-2: alpha 0.00 of 10.00, beta 5.00 of 5.00."
    )


def test_ranking_csv_defuses_formula_text_and_leaves_missing_values_empty() -> None:
    names = ["=1+1", "+cmd", "-2", "@SUM(A1)", "\tx", "plain", "a=b"]
    ranking = rate_ranking(
        "r", "R", "rate", [(n, rate(i + 1, 9)) for i, n in enumerate(names)] + [("none", rate(0, 0))]
    )
    bench = cast(BenchmarkReport, SimpleNamespace(id="b"))
    data = ranking_csv(bench, ranking)
    assert data.endswith(b"\n") and b"\r\n" not in data
    rows = list(csv.reader(io.StringIO(data.decode("utf-8"))))
    assert rows[0] == COLUMNS
    assert [r[4] for r in rows[1:]] == ["'=1+1", "'+cmd", "'-2", "'@SUM(A1)", "'\tx", "plain", "a=b", "none"]
    assert rows[-1][2:4] == ["", ""] and rows[-1][5:] == ["", "0", "0", "", "", "", ""]
    assert rows[1][5] == repr(1 / 9) and rows[1][8] == ""  # a rate has no sd


# --- the example site, built once ---------------------------------------------------------------


@dataclass(frozen=True)
class Built:
    out: Path
    output: str
    stderr: str

    @property
    def version(self) -> Path:
        return self.out / VERSION

    def data(self, version: str = VERSION) -> dict[str, Any]:
        return cast(dict[str, Any], json.loads((self.out / version / "data" / "site.json").read_text()))


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Built:
    out = tmp_path_factory.mktemp("example") / "site"
    result = run_cli("build", "--runs", CORPUS, "--out", out, "--site-version", VERSION)
    assert result.exit_code == 0, result.output
    return Built(out, result.output, result.stderr)


def benchmarks(built: Built, version: str = VERSION) -> list[dict[str, Any]]:
    return cast(list[dict[str, Any]], built.data(version)["benchmarks"])


@pytest.mark.parametrize("version", [BLIND, VERSION])
def test_every_csv_row_equals_the_json(example: Built, version: str) -> None:
    written = sorted(
        p.relative_to(example.out / version).as_posix()
        for p in example.out.glob(f"{version}/data/csv/**/*.csv")
    )
    expected = []
    for bench in benchmarks(example, version):
        assert bench["rankings"], bench["id"]
        detail = json.loads(
            (example.out / version / "data" / "benchmarks" / f"{bench['id']}.json").read_text()
        )
        assert detail["rankings"] == bench["rankings"]
        for ranking in bench["rankings"]:
            path = f"data/csv/{bench['id']}/{ranking['id']}.csv"
            expected.append(path)
            with (example.out / version / path).open(encoding="utf-8", newline="") as handle:
                reader = csv.DictReader(handle)
                assert reader.fieldnames == COLUMNS
                cells = list(reader)
            assert len(cells) == len(ranking["rows"])
            for cell, row in zip(cells, ranking["rows"], strict=True):
                interval = row["interval"] or {}
                values = {
                    key: row[key]
                    for key in ("rank_best", "rank_worst", "estimate", "numerator", "denominator", "sd")
                }
                values |= {"ci_low": interval.get("low"), "ci_high": interval.get("high")}
                assert (cell["benchmark"], cell["ranking"], cell["subject"]) == (
                    bench["id"],
                    ranking["id"],
                    row["subject"],
                )
                assert cell["ci_method"] == interval.get("method", "")
                for column, value in values.items():
                    if value is None:
                        assert cell[column] == "", (path, column)
                    else:
                        assert float(cell[column]) == value and cell[column] == repr(value), (path, column)
    assert written == sorted(expected)


def test_leaderboard_tables_show_each_band_beside_its_subject(example: Built) -> None:
    for bench in benchmarks(example):
        tables = tables_of(example.version / "b" / bench["id"] / "index.html", squashed=True)
        for ranking in bench["rankings"]:
            assert shows_in_order(tables, ranking["rows"]), (bench["id"], ranking["id"])


def test_forest_plot_desc_gives_each_subject_its_estimate_and_band(example: Built) -> None:
    for bench in benchmarks(example):
        doc = parse(example.version / "b" / bench["id"] / "index.html")
        for ranking in bench["rankings"]:
            desc = doc.named[f"forest-{ranking['id']}-d"]
            assert desc == "; ".join(desc_line(row) for row in ranking["rows"]) + "."
            for row in ranking["rows"]:
                assert row["subject"] in desc
                shown = fmt2 if row["numerator"] is None else pct0  # n ≤ 100: whole percent, two decimals
                assert row["estimate"] is None or shown(row["estimate"]) in desc


def test_release_notes_show_each_subjects_band(example: Built) -> None:
    notes = (example.version / "release-notes.md").read_text(encoding="utf-8")
    for bench in benchmarks(example):
        for ranking in bench["rankings"]:
            for row in ranking["rows"]:
                assert f"| {band(row)} | {md_cell(row['subject'])} " in notes, (bench["id"], row["subject"])


def test_some_band_in_the_example_spans_ranks_with_an_en_dash(example: Built) -> None:
    shown = {band(row) for bench in benchmarks(example) for r in bench["rankings"] for row in r["rows"]}
    assert "1" in shown and any("–" in b for b in shown)  # both kinds of band are exercised above


def test_every_chart_has_a_text_alternative_and_nothing_active(example: Built) -> None:
    pages = sorted(example.out.rglob("*.html"))
    charts = 0
    for path in pages:
        text = path.read_text(encoding="utf-8")
        for raw in re.findall(r"<svg\b.*?</svg>", text, re.S):
            assert "<script" not in raw.lower() and "style=" not in raw and "href" not in raw, path
        doc = parse(path)
        for svg in doc.svgs:
            for tag, attrs in [("svg", svg.attrs), *svg.inner]:
                assert tag not in ("script", "foreignobject", "a", "image", "use"), (path, tag)
                assert not any(k == "style" or k.startswith("on") or k.endswith("href") for k in attrs), (
                    path,
                    tag,
                )
            if "chart-mark" in svg.attrs.get("class", "").split():
                # a narrow screen's row mark: drawing only, its figures are the row's own text
                assert svg.attrs.get("aria-hidden") == "true" and all(t != "text" for t, _ in svg.inner), path
                continue
            charts += 1
            assert svg.attrs.get("role") == "img", path
            labels = svg.attrs.get("aria-labelledby", "").split()
            titles = {a["id"] for tag, a in svg.inner if tag == "title" and "id" in a}
            descs = {a["id"] for tag, a in svg.inner if tag == "desc" and "id" in a}
            assert len(labels) == 2 and labels[0] in titles and labels[1] in descs, (path, labels)
            assert all(doc.ids[label] == 1 and doc.named[label].strip() for label in labels), (path, labels)
    assert charts >= 2 * sum(len(b["rankings"]) for b in benchmarks(example))  # pages and report.html


def test_two_builds_give_the_same_bytes_and_quiet_prints_nothing(example: Built, tmp_path: Path) -> None:
    again = tmp_path / "site"
    quiet = run_cli("build", "--quiet", "--runs", CORPUS, "--out", again, "--site-version", VERSION)
    assert quiet.exit_code == 0 and quiet.output == "" and quiet.stderr == ""
    assert snapshot(again) == snapshot(example.out)
    rebuilt = run_cli("build", "--runs", CORPUS, "--out", again, "--site-version", VERSION)
    assert rebuilt.exit_code == 0, rebuilt.output
    assert rebuilt.output.splitlines()[0] == (
        f"unchanged: {again / VERSION} (same sealed inputs and generator: nothing re-rendered)"
    )
    assert snapshot(again) == snapshot(example.out)


# --- report.html --------------------------------------------------------------------------------


def test_report_references_no_other_file(example: Built) -> None:
    path = example.version / "report.html"
    doc = parse(path)
    assert [u for u in doc.urls if not u.startswith("#")] == ["data:,"]
    assert doc.scripts == 0 and doc.csp.startswith("default-src 'none'")
    text = path.read_text(encoding="utf-8")
    assert "url(" not in text and "@import" not in text


def test_report_fragment_links_and_labels_have_their_targets(example: Built) -> None:
    doc = parse(example.version / "report.html")
    fragments = [u[1:] for u in doc.urls if u.startswith("#")]
    assert len(fragments) >= 2 * len(benchmarks(example))
    assert [f for f in fragments if f not in doc.ids] == []
    assert [x for label in doc.labelled for x in label.split() if x not in doc.ids] == []


def test_report_ids_are_unique(example: Built) -> None:
    doc = parse(example.version / "report.html")
    assert [i for i, n in doc.ids.items() if n > 1] == []


def test_namespace_problems_finds_an_id_a_label_and_a_link_outside_the_namespace() -> None:
    part = Part("b1-section", ids=["b1-x", "x"], labelled=["b1-x", "y"], hrefs=["#b1-x", "#z"])
    assert namespace_problems(part) == [
        "b1-section: id x",
        "b1-section: aria-labelledby y",
        "b1-section: link #z",
    ]


def test_report_parts_keep_to_their_namespace_and_name_other_files_in_plain_text(example: Built) -> None:
    """Each part is a page's partial rendered into the report: every id it writes is namespaced, and
    a link to another file (a run page, the CSV, the disclosures) is plain text, never a link."""
    parts = report_parts(example.version / "report.html")
    ids = [b["id"] for b in benchmarks(example)]
    assert [p.id for p in parts] == [f"{b}-{kind}section" for b in ids for kind in ("", "d-")]
    assert [problem for part in parts for problem in namespace_problems(part)] == []
    assert [h for part in parts for h in part.hrefs if not h.startswith("#")] == []
    for bench, board in zip(benchmarks(example), parts[::2], strict=True):
        assert len(board.ids) > 5, board.id
        section = bench["section"]
        runs = (section["runs"] if "runs" in section else section["scores"]["runs"])[:REPORT_RUNS]
        assert {r["id"] for r in runs} <= set(board.refs), board.id


def test_every_page_has_unique_ids(example: Built) -> None:
    duplicated = {
        path.relative_to(example.out).as_posix(): sorted(i for i, n in parse(path).ids.items() if n > 1)
        for path in sorted(example.out.rglob("*.html"))
    }
    assert {page: ids for page, ids in duplicated.items() if ids} == {}


def test_report_carries_every_benchmark_with_its_leaderboard_figures(example: Built) -> None:
    report = parse(example.version / "report.html")
    report_tables = tables_of(example.version / "report.html", squashed=True)
    for bench in benchmarks(example):
        assert bench["title"] in report.words
        assert {f"{bench['id']}-section", f"{bench['id']}-d-section"} <= set(report.ids)
        page = parse(example.version / "b" / bench["id"] / "index.html")
        for ranking in bench["rankings"]:
            desc = report.named[f"{bench['id']}-forest-{ranking['id']}-d"]
            assert desc == page.named[f"forest-{ranking['id']}-d"]
            assert shows_in_order(report_tables, ranking["rows"]), (bench["id"], ranking["id"])


# --- 404.html, versions.json and the versions index ---------------------------------------------


def test_not_found_page_sits_at_the_root_and_links_home(example: Built) -> None:
    doc = parse(example.out / "404.html")
    assert "Page not found" in doc.words
    assert doc.scripts == 0 and doc.csp.startswith("default-src 'none'")
    links = [u for u in doc.urls if u != "data:,"]
    assert links and all(posixpath.normpath(u) == "index.html" for u in links)
    assert (example.out / "index.html").is_file()


def test_versions_json_follows_its_schema_and_names_the_reveal(example: Built) -> None:
    index = json.loads((example.out / "versions.json").read_text())
    jsonschema.Draft202012Validator(versions_schema()).validate(index)
    assert index["versions"] == [BLIND, VERSION]
    first, second = index["changes"]
    assert (first["version"], first["previous"], first["benchmarks"]) == (BLIND, None, [])
    assert (second["version"], second["previous"], second["comparable"]) == (VERSION, BLIND, True)
    (change,) = second["benchmarks"]
    assert change["benchmark"] == "vibe-delivery" and change["state"] == "changed"
    assert change["revealed"] == BLIND
    assert change["folders_added"] == ["vibe-delivery/reveal"]
    assert change["figures"] == [] and change["folders_resealed"] == []  # a reveal changes no figure


def test_versions_index_shows_what_changed(example: Built) -> None:
    doc = parse(example.out / "index.html")
    assert {"changes", f"changes-{VERSION}", f"changes-{BLIND}"} <= set(doc.ids)
    assert f"#changes-{VERSION}" in doc.urls
    words = doc.words
    changes = words[words.index("What changed") :]
    latest = (
        f"{VERSION} since {BLIND} vibe-delivery (changed) "
        f"Reveal: identities revealed; the scores were frozen in version {BLIND}"
    )
    assert latest in changes and f"{BLIND} First version." in changes
    assert changes.index(latest) < changes.index(f"{BLIND} First version.")  # newest first
    assert "New sealed folders: vibe-delivery/reveal" in words


# --- a resealed run: what changed between two versions ------------------------------------------

RESEALED = "agent-dx/run-subject-a3f1-1"


@dataclass(frozen=True)
class Changed:
    out: Path
    v1_bytes: dict[str, bytes]
    bench_seal: tuple[bytes, bytes]


def tamper_first_attempt(run: Path) -> None:
    """A tampering marker makes that attempt NotReady (a launch blocker, docs/points.md)."""
    lines = (run / "attempts.jsonl").read_text(encoding="utf-8").split("\n")
    assert lines[0].count('"tampering_detected": false') == 1
    lines[0] = lines[0].replace('"tampering_detected": false', '"tampering_detected": true')
    (run / "attempts.jsonl").write_text("\n".join(lines), encoding="utf-8")


@pytest.fixture(scope="module")
def changed(tmp_path_factory: pytest.TempPathFactory) -> Changed:
    """v1 from a writable copy of the corpus (as the ``corpus`` fixture makes), then one attempt
    changed, its run folder and the benchmark folder resealed, and v2 built into the same site."""
    root = tmp_path_factory.mktemp("changed")
    runs, out = root / "runs", root / "site"
    shutil.copytree(CORPUS, runs)
    first = run_cli("build", "--quiet", "--runs", runs, "--out", out, "--site-version", "v1")
    assert first.exit_code == 0, first.output
    v1_bytes = snapshot(out / "v1")
    run = runs / RESEALED
    tamper_first_attempt(run)
    (run / SEAL_NAME).unlink()
    write_seal(run)
    bench = run.parent
    before = (bench / SEAL_NAME).read_bytes()
    (bench / SEAL_NAME).unlink()
    write_seal(bench)
    second = run_cli("build", "--quiet", "--runs", runs, "--out", out, "--site-version", "v2")
    assert second.exit_code == 0, second.output
    return Changed(out, v1_bytes, (before, (bench / SEAL_NAME).read_bytes()))


def ready_row(out: Path, version: str) -> dict[str, Any]:
    site = json.loads((out / version / "data" / "site.json").read_text())
    (bench,) = [b for b in site["benchmarks"] if b["id"] == "agent-dx"]
    (row,) = [r for r in bench["rankings"][0]["rows"] if r["subject"] == "subject-a3f1"]
    return cast(dict[str, Any], row)


def test_changes_list_the_resealed_folder_and_the_changed_figure(changed: Changed) -> None:
    index = json.loads((changed.out / "versions.json").read_text())
    jsonschema.Draft202012Validator(versions_schema()).validate(index)
    assert index["versions"] == [BLIND, "v1", "v2"]
    latest = index["changes"][-1]
    assert (latest["version"], latest["previous"], latest["comparable"], latest["note"]) == (
        "v2",
        "v1",
        True,
        "",
    )
    (bench,) = latest["benchmarks"]
    assert changed.bench_seal[0] == changed.bench_seal[1]  # the benchmark seal does not list run files
    assert bench["benchmark"] == "agent-dx" and bench["state"] == "changed"
    assert bench["folders_resealed"] == [RESEALED]
    assert (bench["folders_added"], bench["folders_removed"], bench["corrections_added"]) == ([], [], [])
    assert bench["rubric_changed"] is False and bench["revealed"] is None
    old, new = ready_row(changed.out, "v1"), ready_row(changed.out, "v2")
    assert (new["numerator"], new["denominator"]) == (old["numerator"] - 1, old["denominator"])
    moved = {f["subject"]: f for f in bench["figures"]}
    assert moved["subject-a3f1"] == {
        "ranking": "ready-rate",
        "subject": "subject-a3f1",
        "before": f"{old['numerator']}/{old['denominator']}",
        "after": f"{new['numerator']}/{new['denominator']}",
        "estimate_before": old["estimate"],
        "estimate_after": new["estimate"],
        "band_before": "1",
        "band_after": "1–2",
    }
    # the others' figures stay; a rank band moved because the leader's interval now overlaps theirs
    for subject, change in moved.items():
        if subject != "subject-a3f1":
            assert change["before"] == change["after"] and change["band_before"] != change["band_after"]


def test_versions_index_shows_the_figure_change(changed: Changed) -> None:
    doc = parse(changed.out / "index.html")
    tables = tables_of(changed.out / "index.html", squashed=True)
    old, new = ready_row(changed.out, "v1"), ready_row(changed.out, "v2")
    figure = [
        "ready-rate",
        "subject-a3f1",
        f"{old['numerator']}/{old['denominator']}",
        f"{new['numerator']}/{new['denominator']}",
    ]
    assert any(figure in table for table in tables)
    assert "v2 since v1 agent-dx (changed)" in doc.words
    assert f"Resealed (same folder, new content): {RESEALED}" in doc.words
    (bench,) = json.loads((changed.out / "versions.json").read_text())["changes"][-1]["benchmarks"]
    summary = f"agent-dx: {len(bench['figures'])} figures moved, 1 folder resealed"
    assert any(row[0].startswith("v2 ") and row[-1] == summary for t in tables for row in t if row)


def test_a_later_version_leaves_the_earlier_one_byte_for_byte(changed: Changed) -> None:
    assert snapshot(changed.out / "v1") == changed.v1_bytes


# --- the command line ---------------------------------------------------------------------------


def test_build_prints_a_summary_of_what_it_published(example: Built) -> None:
    lines = example.output.splitlines()
    assert example.stderr == ""  # no progress line when stderr is no terminal
    folders, count = corpus_counts()
    site = example.data()
    runs = sum(b["run_count"] for b in site["benchmarks"])
    files = [p for p in example.version.rglob("*") if p.is_file()]
    kinds = Counter(p.suffix for p in files)
    listed = ", ".join(f"{n} {suffix.lstrip('.').upper()}" for suffix, n in sorted(kinds.items()))
    size = sum(p.stat().st_size for p in files) / 1e6
    counted = r" \(scored (\d+), reused from the run cache (\d+); pages rendered for \d+\)"
    scored = re.search(counted, lines[2])
    assert scored is not None and int(scored[1]) + int(scored[2]) == runs, lines[2]
    assert [lines[0], lines[1], lines[2].replace(scored[0], ""), lines[3]] == [
        f"published: {example.version}",
        f"  also published the blind version a reveal applies to: {example.out / BLIND}",
        f"  benchmarks {count} · runs {runs} · sealed folders {folders} · refusals 0 · "
        f"inputs {site['inputs_digest'][:12]}",
        f"  files {len(files)} ({listed}) · {size:.1f} MB",
    ]
    assert re.fullmatch(
        r"  time \d+\.\d s \(score \d+\.\d s, render \d+\.\d s, publish \d+\.\d s\)", lines[4]
    )
    assert len(lines) == 5


class Terminal(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def test_progress_is_drawn_only_on_a_terminal_and_never_when_quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert Progress.for_terminal(quiet=False).stream is terminal
    assert Progress.for_terminal(quiet=True).stream is None
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert Progress.for_terminal(quiet=False).stream is None


def test_progress_redraws_one_line_at_most_ten_times_a_second(monkeypatch: pytest.MonkeyPatch) -> None:
    now = [100.0]
    monkeypatch.setattr("generator.progress.time", SimpleNamespace(monotonic=lambda: now[0]))
    stream = Terminal()
    progress = Progress(stream)
    progress.start("scoring", 3)
    progress.advance()  # within 0.1 s of the last draw: not drawn
    now[0] += 0.2
    progress.advance()
    progress.advance()  # the last one is always drawn
    progress.finish()
    progress.start("empty", 0)
    clear = "\r\033[K"
    expected = ["scoring: 0/3   0%", "scoring: 2/3  66%", "scoring: 3/3 100%", "", "empty: 0/0"]
    assert stream.getvalue() == "".join(clear + line for line in expected)


def test_progress_without_a_stream_writes_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    progress = Progress(None)
    progress.start("scoring", 2)
    progress.advance(2)
    progress.finish()
    assert capsys.readouterr() == ("", "")


@dataclass(frozen=True)
class OnTerminal:
    stdout: str
    stderr: str
    out: Path

    def draws(self, stage: str) -> list[tuple[int, int]]:
        """(done, total) of every redraw of ``stage``, in order."""
        found = re.findall(rf"\r\033\[K{re.escape(stage)}: (\d+)/(\d+)", self.stderr)
        return [(int(done), int(total)) for done, total in found]


@pytest.fixture(scope="module")
def on_terminal(tmp_path_factory: pytest.TempPathFactory) -> OnTerminal:
    """``benchsite build`` in a subprocess whose stderr is a pseudo-terminal."""
    out = tmp_path_factory.mktemp("terminal") / "site"
    leader, follower = pty.openpty()
    command = [
        sys.executable,
        "-m",
        "generator",
        "build",
        "--runs",
        str(CORPUS),
        "--out",
        str(out),
        "--site-version",
        VERSION,
    ]
    with subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=follower) as process:
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # every writer has closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
        stdout = process.stdout.read().decode("utf-8") if process.stdout else ""
        assert process.wait(timeout=120) == 0
    os.close(leader)
    return OnTerminal(stdout, b"".join(chunks).decode("utf-8"), out)


def test_build_draws_one_progress_line_on_a_terminal_stderr(example: Built, on_terminal: OnTerminal) -> None:
    runs = sum(b["run_count"] for b in example.data()["benchmarks"])
    rendering = on_terminal.draws("rendering run pages")
    assert rendering[0] == (0, runs) and rendering[-1] == (runs, runs)
    assert f"rendering run pages: {runs}/{runs} 100%" in on_terminal.stderr
    assert on_terminal.draws("verifying and scoring runs")[0][0] == 0
    assert on_terminal.stderr.endswith("\r\033[K") and "\n" not in on_terminal.stderr  # one line, cleared
    assert on_terminal.stdout.startswith(f"published: {on_terminal.out / VERSION}\n")  # the summary on stdout


def test_scoring_progress_reaches_its_total(on_terminal: OnTerminal) -> None:
    done, total = on_terminal.draws("verifying and scoring runs")[-1]
    assert done == total


def test_mkdocs_export_needs_out_and_nav_prefix_needs_mkdocs(tmp_path: Path) -> None:
    result = run_cli("build", "--runs", CORPUS, "--format", "mkdocs")
    assert result.exit_code == 2 and "--format mkdocs needs --out" in result.output
    out = tmp_path / "site"
    result = run_cli("build", "--runs", CORPUS, "--out", out, "--nav-prefix", "results")
    assert result.exit_code == 2 and "--nav-prefix applies only with --format mkdocs" in result.output
    assert not out.exists()


def test_mkdocs_export_refuses_a_folder_of_someone_elses_untouched(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    (docs / "results").mkdir(parents=True)
    (docs / "results" / "notes.md").write_text("# mine\n", encoding="utf-8")
    (docs / "taken.md").write_text("a file, not a folder\n", encoding="utf-8")
    before = snapshot(tmp_path)
    refused = run_cli("build", "--runs", CORPUS, "--format", "mkdocs", "--out", docs / "results")
    assert refused.exit_code == 2 and "is not a benchsite mkdocs export" in refused.output
    a_file = run_cli("build", "--runs", CORPUS, "--format", "mkdocs", "--out", docs / "taken.md")
    assert a_file.exit_code == 2 and "is a file" in a_file.output
    assert snapshot(tmp_path) == before


def test_mkdocs_export_is_replaced_whole_on_each_export(tmp_path: Path) -> None:
    out = tmp_path / "docs" / "results"
    out.mkdir(parents=True)  # an empty folder is accepted
    first = run_cli("build", "--runs", CORPUS, "--format", "mkdocs", "--out", out)
    assert first.exit_code == 0, first.output
    exported = snapshot(out)
    pages = sum(1 for rel in exported if rel.endswith(".md"))
    assert {".benchsite-mkdocs", "nav.yml", "index.md"} <= set(exported) and pages > 4
    assert first.output.startswith(f"exported for mkdocs: {out} — {pages} Markdown pages and nav.yml")
    (out / "stray.md").write_text("left behind\n", encoding="utf-8")
    (out / "old-bench").mkdir()
    (out / "old-bench" / "index.md").write_text("gone\n", encoding="utf-8")
    second = run_cli("build", "--quiet", "--runs", CORPUS, "--format", "mkdocs", "--out", out)
    assert second.exit_code == 0 and second.output == ""
    assert snapshot(out) == exported
    assert not (out / "old-bench").exists()
    assert sorted(p.name for p in out.parent.iterdir()) == ["results"]  # no staging folder left beside it
