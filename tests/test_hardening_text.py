"""Hardening II (issue 18), the text items: what input text can make a reader see or a renderer do.

- 1, 2: the blind scan reads what a reader sees (rendered text, format characters removed, NFKC,
  casefolded, a Latin/Cyrillic/Greek confusables skeleton), every distinctive word of a revealed
  name, and file names; and it scans an existing blind version in ``--out`` as well as a rebuilt one.
- 14: ``release-notes.md`` stays inert under GitHub's renderer (autolinks, mentions, references,
  maths, emoji shortcodes, bidi controls).
- 15: ``nav.yml`` comes from a YAML emitter, with capped titles.
- 16: rank bands are sort-based (equal to the pairwise definition), and the single-file report caps
  its run lists.
- 18: Markdown descriptions never produce an image.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
import shutil
import subprocess
import sys
import unicodedata
from pathlib import Path
from typing import Any

import pytest
import yaml  # type: ignore[import-untyped]
from click.testing import Result
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.figures.model import Interval
from generator.figures.ranking import rank_bands
from generator.publish import blind_scan
from generator.render import mkdocs_export
from generator.render import pages as render
from generator.render.mkdocs_export import nav_yaml
from generator.render.pages import md_cell, md_html
from generator.score.run import score_inputs
from tests import test_blind_scan as blind
from tests.conftest import CORPUS, ROOT, corpus_of, rendering, run_cli, snapshot, writable
from tests.test_mkdocs_export import DictSink
from tests.test_refusals import reseal

# --- 18: no images from input text ---------------------------------------------------------------


@pytest.mark.parametrize(
    "source",
    [
        "![Northwind logo](https://tracker.example/pixel.png)",
        "![dot](data:image/png;base64,iVBORw0KGgo=)",
        "![ref image][logo]\n\n[logo]: https://tracker.example/logo.gif",
        "[![nested](https://tracker.example/n.png)](https://example.org/)",
    ],
)
def test_a_markdown_description_never_emits_an_image(source: str) -> None:
    html = md_html(source)
    assert not re.search(r"<img|\bsrc=", html, re.I), html
    assert "tracker.example" not in html and "data:image" not in html, html


def test_an_image_is_shown_as_its_alt_text() -> None:
    html = md_html("Logo: ![Contoso *mark* & co](https://tracker.example/a.png) here")
    assert html == "<p>Logo: Contoso mark &amp; co here</p>\n"


# --- 15: nav.yml from a YAML emitter, titles capped ------------------------------------------------


@pytest.mark.parametrize("title", ["<" * 210, "x" * 5000, 'a": b\n- c: [d]\t#e' * 40, "\u2028é" * 600])
def test_nav_yml_parses_whatever_the_titles(title: str) -> None:
    scored = score_inputs(CORPUS, "v1", options=rendering())
    scored.details.close()
    report = scored.report
    bench = report.benchmarks[0].model_copy(update={"title": title})
    report = report.model_copy(update={"benchmarks": (bench, *report.benchmarks[1:])})
    nav = yaml.safe_load(nav_yaml(report, "results"))
    ((_, sections),) = nav[0].items()
    (shown,) = [k for entry in sections[1:2] for k in entry]
    assert len(shown) <= mkdocs_export.NAV_TITLE_MAX * len("&#60;")
    assert shown.endswith("…") and "\n" not in shown and "\u2028" not in shown
    assert [p for p in _nav_paths(nav) if p.startswith(f"results/{bench.id}/")]


def _nav_paths(entries: object) -> list[str]:
    assert isinstance(entries, list)
    found: list[str] = []
    for entry in entries:
        (target,) = entry.values()
        found += [target] if isinstance(target, str) else _nav_paths(target)
    return found


# --- 14: release-notes.md stays inert under GitHub's renderer --------------------------------------

BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
GITHUB_LIVE = {
    "url": (r"(?i)(?:https?|ftp)://", "see https://evil.example/x and HTTP://a.example"),
    "www": (r"(?i)\bwww\.", "visit www.evil.example or WWW.Evil.example"),
    "e-mail": (r"[\w.+-]@[A-Za-z0-9]", "write to leak.me+x@evil.example"),
    "mention": (r"(?<![\w.+-])@[A-Za-z0-9]", "ping @octocat and @github/security-team"),
    "reference": (r"(?<!&)#\d|(?i:\bgh-\d)", "fixes #1, owner/repo#23 and GH-4"),
    "maths": (r"\$", "costs $x^2$ and $$\\sum$$"),
    "emoji": (r":[\w+-]+:", "ship it :rocket: :+1: :a:b:"),
    "bidi": (f"[{BIDI}]", "user\u202eexe.txt \u2066isolated\u2069 \u200fmark"),
}


def _shown(cell: str) -> str:
    """The text a Markdown renderer shows for a cell: markup parsed, entities decoded, joiners gone."""
    text = re.sub(r"<[^>]*>", "", str(md_html(cell)))
    return html.unescape(text).replace("\u2060", "").strip()


@pytest.mark.parametrize("kind", sorted(GITHUB_LIVE))
def test_a_release_notes_cell_holds_nothing_github_would_make_live(kind: str) -> None:
    pattern, text = GITHUB_LIVE[kind]
    cell = md_cell(text)
    assert not re.search(pattern, cell), cell
    assert _shown(cell) == re.sub(f"[{BIDI}]", "", text)  # the reader still sees the same text


def test_every_class_is_inert_in_a_built_release_notes(corpus: Path, tmp_path: Path) -> None:
    hostile = " | ".join(text for _, text in GITHUB_LIVE.values())
    bench = corpus / "agent-dx"
    rubric = json.loads((bench / "rubric.json").read_text(encoding="utf-8"))
    rubric["limitations"] = [hostile]
    (bench / "rubric.json").write_text(json.dumps(rubric), encoding="utf-8")
    decl = json.loads((bench / "benchmark.json").read_text(encoding="utf-8"))
    # a title may hold no format character a reader cannot see (refused: test_readable_names.py);
    # the contract's limitation keeps them all
    decl["title"] = "".join(c for c in hostile if unicodedata.category(c) != "Cf")
    decl["rubric"]["sha256"] = hashlib.sha256((bench / "rubric.json").read_bytes()).hexdigest()
    (bench / "benchmark.json").write_text(json.dumps(decl), encoding="utf-8")
    reseal(bench)
    result = run_cli("build", "--runs", corpus, "--out", tmp_path / "site", "--site-version", "v1")
    assert result.exit_code == 0, result.output
    notes = (tmp_path / "site" / "v1" / "release-notes.md").read_text(encoding="utf-8")
    assert notes.count("evil.example") >= 2 * 3  # title and limitation, each naming three hosts
    for kind, (pattern, _) in GITHUB_LIVE.items():
        assert not re.search(pattern, notes), kind


# --- 16: sort-based rank bands; the single-file report caps its run lists --------------------------


def pairwise_bands(intervals: list[Interval | None]) -> list[tuple[int | None, int | None]]:
    """The definition, counted pair by pair (the oracle): best = 1 + subjects entirely above,
    worst = ranked subjects − subjects entirely below."""
    ranked = [i for i in intervals if i is not None]
    bands: list[tuple[int | None, int | None]] = []
    for own in intervals:
        if own is None:
            bands.append((None, None))
            continue
        above = len([other for other in ranked if other.low > own.high])
        below = len([other for other in ranked if other.high < own.low])
        bands.append((1 + above, len(ranked) - below))
    return bands


def _interval(low: float, high: float) -> Interval:
    return Interval(low=low, high=high, confidence=0.95, method="test", n=1)


BOUNDS = st.sampled_from([-0.0, 0.0, 0.1, 0.25, 0.5, 1.0]) | st.floats(-10, 10, allow_nan=False)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.none() | st.tuples(BOUNDS, BOUNDS), max_size=40))
def test_sort_based_rank_bands_equal_the_pairwise_definition(pairs: list[tuple[float, float] | None]) -> None:
    intervals = [None if p is None else _interval(*p) for p in pairs]
    assert rank_bands(intervals) == pairwise_bands(intervals)


MANY_SUBJECTS = """
from generator.figures.model import Interval, Rate
from generator.figures.ranking import rate_ranking
n = 50_000
entries = []
for i in range(n):
    k, d = i % 97, 97
    low, high = max(0.0, k / d - 0.05), min(1.0, k / d + 0.05)
    interval = Interval(low=low, high=high, confidence=0.95, method="x", n=d)
    rate = Rate(numerator=k, denominator=d, basis_points=k * 10000 // d, interval=interval)
    entries.append((f"s{i:05d}", rate))
ranking = rate_ranking("r", "t", "f", entries, tested=False)
print(len(ranking.rows), ranking.rows[0].rank_best, ranking.rows[0].rank_worst)
"""


@pytest.mark.slow
def test_ranking_50000_subjects_is_not_quadratic() -> None:
    """Pairwise counting would compare 2.5 billion pairs (tens of minutes); sorted bounds take seconds."""
    done = subprocess.run(
        [sys.executable, "-c", MANY_SUBJECTS],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    count, best, worst = map(int, done.stdout.split())
    above = sum(1 for i in range(50_000) if max(0.0, (i % 97) / 97 - 0.05) > 0.05)  # subject 0: k = 0
    assert (count, best, worst) == (50_000, 1 + above, 50_000)


def test_the_single_file_report_lists_at_most_report_runs_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(render, "REPORT_RUNS", 2)
    scored = score_inputs(CORPUS, "v1", options=rendering())
    sink = DictSink()
    try:
        render.render_site(scored.report, scored.details, sink)
    finally:
        scored.details.close()
    report = sink.files["report.html"].decode("utf-8")
    board = sink.files["b/agent-dx/index.html"].decode("utf-8")
    runs = sorted(r.id for b in scored.report.benchmarks if b.id == "agent-dx" for r in b.section.runs)
    assert len(runs) == 5
    assert all(f">{run}</a>" in board for run in runs)  # the leaderboard page keeps every run
    part = report[report.index('id="agent-dx-section"') : report.index('id="agent-dx-d-section"')]
    listed = [run for run in runs if f'<span class="ref">{run}</span></td>' in part]
    assert listed == runs[:2]
    assert "3 more runs" in part and "b/agent-dx/index.html" in part


# --- 1, 2: the blind scan reads what a reader sees, in a rebuilt and in an existing blind version --

BYPASSES = {
    "emphasis": ("description", "Built by North**wind** Builder."),
    "code span": ("description", "Built by `North`wind."),
    "link": ("description", "Built by [North](#x)wind."),
    "zero-width space": ("description", "harness of North\u200bwind"),
    "zero-width joiner": ("description", "harness of North\u200dwind"),
    "soft hyphen": ("description", "harness of North\u00adwind"),
    "word joiner": ("description", "harness of North\u2060wind"),
    "fullwidth": ("producer", "harness of \uff2e\uff4f\uff52\uff54\uff48\uff57\uff49\uff4e\uff44"),
    "cyrillic homoglyph": ("producer", "harness of N\u043erthwind"),
    "greek homoglyph": ("producer", "harness of \u039dorthwind"),
    "combining mark": ("producer", "harness of Northwi\u0301nd"),
    "last word": ("producer", "harness of AppGen 2"),
    "emphasis in plain text": ("producer", "harness of North**wind**"),
}


def blind_inputs(runs: Path, field: str, text: str, reveal: bool = True) -> None:
    """The corpus's blind (trials) benchmark alone with ``text`` in a blind field: its description or
    run-p-a's producer; resealed, and the reveal (if kept) citing the edited inputs' blind scores."""
    corpus_of(runs, blind.BENCH)
    bench = runs / blind.BENCH
    if field == "description":
        decl = json.loads((bench / "benchmark.json").read_text(encoding="utf-8")) | {"description": text}
        (bench / "benchmark.json").write_text(json.dumps(decl), encoding="utf-8")
        reseal(bench)
    else:
        meta = json.loads((bench / "run-p-a" / "run.json").read_text(encoding="utf-8")) | {"producer": text}
        (bench / "run-p-a" / "run.json").write_text(json.dumps(meta), encoding="utf-8")
        reseal(bench / "run-p-a")
    if reveal:
        blind.cite_blind_scores(runs)
    else:
        shutil.rmtree(bench / "reveal")


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(BYPASSES))
def test_a_provider_name_spelt_to_pass_the_scan_is_refused(tmp_path: Path, kind: str) -> None:
    field, text = BYPASSES[kind]
    runs = tmp_path / "runs"
    blind_inputs(runs, field, text)
    out = tmp_path / "site"
    result = run_cli("build", "--runs", runs, "--out", out, "--site-version", blind.REVEALED)
    assert result.exit_code == 4, result.output
    assert "the blind version would contain a revealed provider name" in result.output
    assert not (out / blind.BLIND).exists() and not (out / blind.REVEALED).exists()


@pytest.mark.parametrize(
    ("rel", "data"),
    [
        ("b/vibe-delivery/index.html", b"<p>North<strong>wind</strong></p>"),
        ("b/vibe-delivery/index.html", b"<p>North&shy;wind &amp; co</p>"),
        ("b/vibe-delivery/index.html", b'<img alt="Nor&#x200B;thwind">'),
        ("release-notes.md", b"- North\\*\\*wind\\*\\*\n"),
        ("data/site.json", json.dumps({"producer": "Fabri\u200ckam"}).encode()),
        ("data/site.json", json.dumps({"d": "[Tail](#x)spin"}, ensure_ascii=True).encode()),
        ("b/vibe-delivery/runs/run-appgen.html", b""),
        ("data/csv/vibe-delivery/CONTOSO.csv", b""),
    ],
)
def test_the_scanner_finds_what_a_reader_sees(rel: str, data: bytes) -> None:
    names = ["Northwind Builder", "Contoso AppGen", "Fabrikam Studio", "Tailspin Forge"]
    assert blind_scan.find_revealed([(rel, lambda: data)], names) is not None


@pytest.mark.parametrize(
    "text",
    [
        "Four app-builder providers at the studio forge",
        "an app gen step",
        "north wind",
        "Cont oso",
    ],
)
def test_the_scanner_passes_common_words_and_other_spellings(text: str) -> None:
    names = ["Northwind Builder", "Contoso AppGen", "Fabrikam Studio", "Tailspin Forge"]
    page = f"<p>{text}</p>".encode()
    assert blind_scan.find_revealed([("b/x/index.html", lambda: page)], names) is None


def test_distinctive_words_are_long_and_uncommon() -> None:
    assert blind_scan.distinctive_words("Contoso AppGen") == {"contoso", "appgen"}
    assert blind_scan.distinctive_words("Northwind Builder") == {"northwind"}
    assert blind_scan.distinctive_words("The Best Code Studio") == set()
    assert blind_scan.distinctive_words("Acme AI Lab") == {"acme"}


@pytest.mark.slow
def test_a_blind_version_scanned_clean_is_scanned_again_only_when_a_byte_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run cache keeps that a blind version showed none of the revealed names, keyed by every
    file's bytes: the next build over the same published version skips the scan, and one byte
    written into it (a revealed name) is scanned and refused. (``--jobs 1``: the scan's parts are
    counted in this process; ``test_blind_scan`` holds that parts on workers answer the same.)"""
    scanned: list[int] = []
    scan = blind_scan.find_revealed

    def counted(files: Any, names: Any) -> Any:
        scanned.append(len(files))
        return scan(files, names)

    def files_scanned(*args: str | Path) -> tuple[Result, int]:
        before = len(scanned)
        result = run_cli("build", "--jobs", "1", "--runs", runs, "--out", out, *args)
        return result, sum(scanned[before:])

    monkeypatch.setattr(blind_scan, "find_revealed", counted)
    runs, out = tmp_path / "runs", tmp_path / "site"
    shutil.copytree(CORPUS, runs)
    first, whole = files_scanned("--site-version", blind.REVEALED)
    assert first.exit_code == 0, first.output
    assert whole > 1  # the staged blind version, before it was published
    again, seen = files_scanned("--site-version", "next")
    assert again.exit_code == 0, again.output
    assert seen == 1  # as published, the same bytes: only its build record is scanned
    name = next(iter(blind.provider_names().values()))
    page = out / blind.BLIND / "index.html"
    writable(page).write_bytes(page.read_bytes().replace(b"</main>", f"<p>{name}</p></main>".encode(), 1))
    refused, seen = files_scanned("--site-version", "last")
    assert refused.exit_code == 4, refused.output
    assert f"{blind.BLIND}/index.html" in refused.output
    assert 1 < seen <= whole  # scanned again, up to the page that shows the name


@pytest.mark.slow
def test_the_verdict_does_not_depend_on_an_existing_blind_version(tmp_path: Path) -> None:
    """Blind version published first, reveal added later, built into the same site: as refused as
    into an empty site."""
    runs = tmp_path / "runs"
    blind_inputs(runs, "producer", "harness of Northwind Builder", reveal=False)
    out = tmp_path / "site"
    first = run_cli("build", "--runs", runs, "--out", out, "--site-version", blind.BLIND)
    assert first.exit_code == 0, first.output  # no reveal yet: nothing is withheld
    shutil.rmtree(runs)
    blind_inputs(runs, "producer", "harness of Northwind Builder")
    before = snapshot(out)
    into_existing = run_cli("build", "--runs", runs, "--out", out, "--site-version", blind.REVEALED)
    into_empty = run_cli(
        "build", "--runs", runs, "--out", tmp_path / "empty", "--site-version", blind.REVEALED
    )
    assert (into_existing.exit_code, into_empty.exit_code) == (4, 4), into_existing.output
    assert f"{blind.BLIND}/" in into_existing.output and "(northwind builder)" in into_existing.output
    assert snapshot(out) == before  # nothing half-written
