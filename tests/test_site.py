"""The built site, checked by parsing it: links, CSP, disclosures on every page, figures = JSON."""

from __future__ import annotations

import html
import json
import posixpath
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests import pages
from tests.conftest import reader_percent, reader_range

STATUS = "historical-rubric; prospective release requires a frozen successor"


class Page(HTMLParser):
    """Collects links, resources, text and table cells of one page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []
        self.resources: list[str] = []
        self.ids: set[str] = set()
        self.text: list[str] = []
        self.csp = ""
        self.scripts = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"] or "")
        if tag == "a" and a.get("href"):
            self.links.append(a["href"] or "")
        if tag in ("img", "link", "iframe", "source") and (a.get("src") or a.get("href")):
            self.resources.append(a.get("src") or a.get("href") or "")
        if tag == "script":
            self.scripts += 1
        if tag == "meta" and a.get("http-equiv") == "Content-Security-Policy":
            self.csp = a.get("content") or ""

    def handle_data(self, data: str) -> None:
        self.text.append(data)


@pytest.fixture
def site(example_site: Path) -> Path:
    """The example corpus built as ``v1`` (shared, read only)."""
    return example_site


def parse(path: Path) -> Page:
    page = Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def html_pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


def test_every_link_resolves_and_is_relative(site: Path) -> None:
    pages = html_pages(site)
    assert len(pages) >= 9
    for path in pages:
        page = parse(path)
        for href in page.links:
            assert "://" not in href and not href.startswith("/"), f"{path}: non-relative link {href}"
            target, _, anchor = href.partition("#")
            resolved = (path.parent / target).resolve() if target else path
            assert resolved.is_file(), f"{path}: broken link {href}"
            if anchor and resolved.suffix == ".html":
                assert anchor in parse(resolved).ids, f"{path}: missing anchor {href}"


def test_pages_load_nothing_external_and_run_no_script(site: Path) -> None:
    for path in html_pages(site):
        page = parse(path)
        assert page.scripts == 0
        assert [r for r in page.resources if r != "data:,"] == []  # the empty icon: no request
        assert page.csp.startswith("default-src 'none'")
        assert "script-src" not in page.csp


def test_every_version_page_carries_the_rubric_status(site: Path) -> None:
    for path in html_pages(site / "v1" / "b" / "agent-dx"):
        assert STATUS in "".join(parse(path).text), path
    assert STATUS in " ".join((site / "v1" / "release-notes.md").read_text().split())  # lines wrap


def test_disclosures_page_has_every_section_and_the_limitations_verbatim(site: Path) -> None:
    page = parse(site / "v1" / "b" / "agent-dx" / "disclosures.html")
    text = "".join(page.text)
    contract = json.loads((Path(__file__).parent.parent / "runs" / "agent-dx" / "rubric.json").read_text())
    for limitation in contract["limitations"]:
        assert limitation in text
    for anchor in (
        "limitations",
        "interpretations",
        "blind",
        "excluded",
        "unavailable",
        "floors",
        "corrections",
        "disagreements",
        "inputs",
        "points-mandatory-checks",
    ):
        assert anchor in page.ids


def test_leaderboard_figures_equal_the_json(site: Path) -> None:
    data = json.loads((site / "v1" / "data" / "benchmarks" / "agent-dx.json").read_text())
    text = " ".join(" ".join(parse(site / "v1" / "b" / "agent-dx" / "index.html").text).split())
    notes = (site / "v1" / "release-notes.md").read_text()
    for row in data["section"]["leaderboard"]:
        rate = row["ready_rate"]
        fraction = f"({rate['numerator']}/{rate['denominator']})"
        # A reader's percentage: half up from the exact fraction in the precision its denominator
        # allows (the JSON's floor basis points stay in the JSON and the cell's title).
        percent = f"{reader_percent(rate['numerator'], rate['denominator'])} {fraction}"
        interval = reader_range(rate["interval"]["low"], rate["interval"]["high"], rate["denominator"])
        for surface in (text, notes):
            assert percent in surface and interval in surface
        assert f"{row['mean_deterministic']['value']:.2f}" in text


def test_run_pages_show_every_attempt_with_its_outcome(site: Path) -> None:
    data = json.loads((site / "v1" / "data" / "site.json").read_text())
    for run in data["benchmarks"][0]["section"]["runs"]:
        page = parse(site / "v1" / "b" / "agent-dx" / "runs" / f"{run['id']}.html")
        detail = json.loads((site / "v1" / "data" / "runs" / "agent-dx" / f"{run['id']}.json").read_text())
        assert {k: v for k, v in detail.items() if k != "attempts"} == run
        for attempt in detail["attempts"]:
            assert f"attempt-{attempt['attempt_id']}" in page.ids
        text = "".join(page.text)
        assert run["digest"] in text


def test_versions_index_links_the_version(site: Path) -> None:
    page = parse(site / "index.html")
    assert "v1/index.html" in page.links
    assert posixpath.normpath("v1/index.html") in [posixpath.normpath(x) for x in page.links]


def words(path: Path) -> str:
    return " ".join("".join(parse(path).text).split())


def test_home_page_says_who_leads_in_the_newest_version_first(site: Path) -> None:
    """Before anything else, each benchmark of the newest version: its title, linked to its
    leaderboard, then its headline's sentence, in the report's order."""
    newest = json.loads((site / "versions.json").read_text())["versions"][-1]
    report = json.loads((site / newest / "data" / "site.json").read_text())
    page = parse(site / "index.html")
    text = words(site / "index.html")
    top = text[: text.index("What changed")]
    assert top.count(" leads on ") == len(report["benchmarks"])
    for bench in report["benchmarks"]:
        assert f"{bench['title']} {bench['headline']['sentence']}" in top, bench["id"]
    leaderboards = [link for link in page.links if link.startswith(f"{newest}/b/")]
    ordered = [f"{newest}/b/{bench['id']}/index.html" for bench in report["benchmarks"]]
    assert leaderboards[: len(ordered)] == ordered
    latest = text.index("What changed Each version against")
    assert text.index(f"{newest} since ") > latest  # then the newest version's changes


def test_home_page_has_one_short_row_per_version_and_no_status_paragraph(site: Path) -> None:
    """The versions table grows by one row per version, each benchmark's status a badge of a few
    words: the ADR's status paragraph (recsys-grounding) is nowhere on the page, not even in an
    attribute, and no rubric status is repeated whole unless it is that short."""
    versions = json.loads((site / "versions.json").read_text())["versions"]
    raw = html.unescape((site / "index.html").read_text(encoding="utf-8"))
    (table,) = [t for t in pages.parse(site / "index.html").tables if t.head[:2] == ["Version", "Benchmarks"]]
    assert table.cards and [cells[0].split()[0] for _, cells in table.rows] == versions[::-1]
    for version in versions:
        record = json.loads((site / version / "data" / "build.json").read_text())
        adr = next(b["status"] for b in record["benchmarks"] if b["id"] == "recsys-grounding")
        assert adr.startswith("Status: Accepted") and adr not in raw and adr[40:80] not in raw
        assert STATUS not in raw  # the historical rubric's status line too: its badge only
    shown = (  # each benchmark's id, then its badge when its rubric has a status line (four of seven)
        "agent-dx historical agent-dx-successor frozen successor docs-quality frozen je-validation "
        "quiz-inspect recsys-grounding accepted vibe-delivery"
    )
    assert table.column("Benchmarks") == [shown] * len(versions)


def test_home_page_change_anchors_resolve(site: Path) -> None:
    """``index.html#changes-<version>`` (docs/site.md: stable) for every version, each row linking
    its own; every in-page link lands on an id."""
    versions = json.loads((site / "versions.json").read_text())["versions"]
    page = parse(site / "index.html")
    assert {f"changes-{v}" for v in versions} | {"changes", "versions"} <= page.ids
    assert {f"#changes-{v}" for v in versions} <= set(page.links)
    assert all(link[1:] in page.ids for link in page.links if link.startswith("#"))
    (table,) = [t for t in pages.parse(site / "index.html").tables if t.head[:2] == ["Version", "Benchmarks"]]
    assert [cells[-1] for _, cells in table.rows][-1] == "first version"


def test_every_leaderboard_and_the_version_index_open_with_the_headline(site: Path) -> None:
    report = json.loads((site / "v1" / "data" / "site.json").read_text())
    index_html = (site / "v1" / "index.html").read_text(encoding="utf-8")
    index = " ".join("".join(parse(site / "v1" / "index.html").text).split())
    assert "Rubric status" not in index and STATUS not in index  # on the benchmark's pages instead
    for bench in report["benchmarks"]:
        sentence = bench["headline"]["sentence"]
        assert sentence in index
        path = site / "v1" / "b" / bench["id"] / "index.html"
        raw = path.read_text(encoding="utf-8")
        text = " ".join("".join(parse(path).text).split())
        assert sentence in text
        assert raw.index('<section class="headline"') < raw.index("<h2"), bench["id"]  # it opens the page
        block = raw[raw.index('<section class="headline"') : raw.index("</section>")]
        assert '<dl class="facts">' not in block, bench["id"]  # the sentence is not restated line by line
        caveats = [c["text"] for c in bench["headline"]["caveats"]]
        assert ("Read this first" in block) == bool(caveats), bench["id"]
        for caveat in caveats:
            assert caveat in text, (bench["id"], caveat)
        assert bench["headline"]["basis"] in text
    assert "P-A (Northwind Builder) leads on autonomous success with 73% (8 of 11)" in index
    assert "the data cannot separate the four providers at this n." in index
    assert index_html.count("<tr>") == len(report["benchmarks"]) + 1


def test_card_cells_are_headed_by_their_column(site: Path) -> None:
    """On a phone a cards table shows each cell under its data-label: it must be the column's heading
    (an empty cell may go without one: the phone hides it)."""
    problems: list[str] = []
    cards = [(path, t) for path in html_pages(site) for t in pages.parse(path).tables if t.cards]
    for path, table in cards:
        head = [pages.squash(c.text) for c in table.all_rows[0].cells]
        for row in table.all_rows[1:]:
            assert len(row.cells) == len(head), (path, row.id)
            for heading, cell in zip(head, row.cells, strict=True):
                empty = cell.label is None and not cell.text.strip()
                if cell.tag == "td" and not empty and cell.label != heading:
                    problems.append(f"{path.relative_to(site)} {row.id}: {cell.label!r} under {heading!r}")
    assert len(cards) > 30, len(cards)
    assert not problems, "\n".join(problems[:20])
