"""The mkdocs export, checked by building it with a real ``mkdocs build --strict`` (the test extra
installs mkdocs), as a user's site that pastes ``nav.yml`` under ``nav:`` would."""

from __future__ import annotations

import hashlib
import html
import json
import posixpath
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml  # type: ignore[import-untyped]

from generator.errors import OutputError
from generator.inputs.files import Stored
from generator.inputs.seal import SEAL_NAME, write_seal
from generator.render.mkdocs_export import inert, render_mkdocs
from generator.render.pages import attachments
from generator.report.model import SiteReport
from generator.score.run import score_inputs
from tests.conftest import CORPUS, ROOT, reader_percent, reader_range, rendering, snapshot
from tests.pages import tables_of

PREFIX = "results"
HOSTILE = (
    '<script>alert(1)</script> "><img src=x onerror=alert(1)> [x](javascript:alert(1)) '
    "<svg onload=alert(1)> | a | b | **bold** \\ `code`\n# not a heading\n- not a list\n1. nor this"
)
NEEDLES = ("onerror=", "onload=", 'href="javascript:', "<script>alert", "<svg", "<img", "<strong>bold")
LINK = re.compile(r"\]\(([^)]*)\)")
OWN_CHART = re.compile(r'<img alt="[^"<>]*" src="chart-[a-z0-9._-]+\.svg" />')


class DictSink:
    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}

    def add(self, path: str, data: bytes) -> None:
        assert path not in self.files, f"written twice: {path}"
        self.files[path] = data

    def add_stored(self, path: str, stored: Stored) -> None:
        self.add(path, stored.read())


class NoDetails:
    def get(self, bench: str, run: str) -> bytes:
        raise AssertionError(f"read {bench}/{run}")


@dataclass(frozen=True)
class Built:
    report: SiteReport
    files: dict[str, bytes]
    site: Path
    returncode: int
    output: str


def export(runs: Path) -> tuple[SiteReport, dict[str, bytes]]:
    scored = score_inputs(runs, "v1", options=rendering())
    try:
        sink = DictSink()
        render_mkdocs(scored.report, scored.details, sink, PREFIX, runs)
    finally:
        scored.details.close()
    return scored.report, sink.files


def mkdocs_build(runs: Path, root: Path) -> Built:
    """Export into ``<root>/docs/results/``, add a home page and a mkdocs.yml, build strictly."""
    report, files = export(runs)
    docs = root / "docs"
    for rel, data in files.items():
        (docs / PREFIX / rel).parent.mkdir(parents=True, exist_ok=True)
        (docs / PREFIX / rel).write_bytes(data)
    (docs / "index.md").write_text("# Home\n\nThe [benchmark results](results/index.md).\n", encoding="utf-8")
    nav = yaml.safe_load(files["nav.yml"].decode("utf-8"))
    config = {"site_name": "Export check", "docs_dir": "docs", "nav": [{"Home": "index.md"}, *nav]}
    (root / "mkdocs.yml").write_text(yaml.safe_dump(config, allow_unicode=True), encoding="utf-8")
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(root / "mkdocs.yml")]
    done = subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=300, check=False)
    return Built(report, files, root / "site", done.returncode, done.stdout + done.stderr)


def nav_paths(entries: object) -> list[str]:
    """The page paths of a ``nav:`` list of ``{title: path or [entries]}``."""
    assert isinstance(entries, list)
    found: list[str] = []
    for entry in entries:
        assert isinstance(entry, dict) and len(entry) == 1
        (target,) = entry.values()
        found += [target] if isinstance(target, str) else nav_paths(target)
    return found


def built_html(site: Path, page: str) -> Path:
    """Where mkdocs (directory URLs) puts ``results/<page>``."""
    folder, name = posixpath.split(f"{PREFIX}/{page}")
    stem = name.removesuffix(".md")
    return site / folder / ("index.html" if stem == "index" else f"{stem}/index.html")


def markdown_tables(text: str) -> list[list[str]]:
    """Each Markdown table of a page as its row lines (header, rule, rows)."""
    tables: list[list[str]] = []
    previous = False
    for line in text.splitlines():
        row = line.startswith("|")
        if row and not previous:
            tables.append([])
        if row:
            tables[-1].append(line)
        previous = row
    return tables


def assert_table_columns(files: dict[str, bytes]) -> int:
    """Every row of every Markdown table has the header's number of cells; returns the rows seen."""
    rows = 0
    for path, data in files.items():
        if not path.endswith(".md"):
            continue
        for table in markdown_tables(data.decode("utf-8")):
            widths = {len(line.strip().strip("|").split("|")) for line in table}
            assert len(widths) == 1, f"{path}: a table row has the wrong number of cells: {table}"
            rows += len(table)
    return rows


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    return mkdocs_build(CORPUS, tmp_path_factory.mktemp("mkdocs"))


def test_mkdocs_builds_the_export_strictly_without_a_warning(built: Built) -> None:
    assert built.returncode == 0, built.output
    assert "WARNING" not in built.output, built.output


def test_every_page_is_in_the_nav_and_in_the_built_site(built: Built) -> None:
    pages = {"index.md"}
    for bench in built.report.benchmarks:
        pages |= {f"{bench.id}/{name}" for name in ("index.md", "methodology.md", "disclosures.md")}
        pages |= {f"{bench.id}/runs/{run.id}.md" for run in bench.section.runs}
    charts = {f"{b.id}/chart-{r.id}.svg" for b in built.report.benchmarks for r in b.rankings if r.rows}
    producers = {f"{b.id}/{path}" for b in built.report.benchmarks for path, _ in attachments(b, CORPUS)}
    assert producers, "the example corpus has an imported benchmark whose producer files are published"
    assert set(built.files) == pages | charts | producers | {"nav.yml"}
    listed = nav_paths(yaml.safe_load(built.files["nav.yml"].decode("utf-8")))
    assert sorted(listed) == sorted(f"{PREFIX}/{page}" for page in pages)
    for page in pages:
        assert built_html(built.site, page).is_file(), page


def test_links_are_relative_md_links_that_resolve(built: Built) -> None:
    seen = 0
    for path, data in built.files.items():
        if not path.endswith((".md", ".yml")):
            continue
        for target in LINK.findall(data.decode("utf-8")):
            assert "://" not in target and not target.startswith("/"), f"{path}: {target}"
            producer_file = "/runs/" in f"/{path}" and "/" in target  # a run's sealed producer file
            assert producer_file or target.endswith((".md", ".svg")), f"{path}: {target}"
            assert posixpath.normpath(posixpath.join(posixpath.dirname(path), target)) in built.files
            seen += 1
    assert seen > 50


def test_leaderboard_and_run_figures_equal_the_json(built: Built) -> None:
    data = json.loads(built.report.model_dump_json(by_alias=True))
    bench = next(b for b in data["benchmarks"] if b["id"] == "agent-dx")
    notes = built.files["agent-dx/index.md"].decode("utf-8")
    cells = [c for t in tables_of(built_html(built.site, "agent-dx/index.md")) for r in t for c in r]
    for row in bench["section"]["leaderboard"]:
        rate = row["ready_rate"]
        n, d = rate["numerator"], rate["denominator"]
        interval = reader_range(rate["interval"]["low"], rate["interval"]["high"], d)
        figures = (f"{reader_percent(n, d)} ({n}/{d})", interval)  # the precision rule, on both surfaces
        for figure in figures:
            assert figure in notes and figure in cells, figure
    index = built.files["index.md"].decode("utf-8")
    for b in data["benchmarks"]:
        row = rf"\| \[.*\]\({re.escape(b['id'])}/index\.md\) \| .* \| {b['run_count']} \|$"
        assert re.search(row, index, re.M), b["id"]
    for run in bench["section"]["runs"]:
        page = built.files[f"agent-dx/runs/{run['id']}.md"].decode("utf-8")
        c = run["counts"]
        assert f"Ready {c['ready']} · NeedsReview {c['needs_review']} · NotReady {c['not_ready']}" in page
        assert f"(of {c['total']})" in page and run["digest"] in page
        assert len(tables_of(built_html(built.site, f"agent-dx/runs/{run['id']}.md"))[0]) == c["total"] + 1


def test_markdown_tables_keep_their_columns(built: Built) -> None:
    assert assert_table_columns(built.files) > 200


def test_the_export_is_deterministic(built: Built) -> None:
    assert export(CORPUS)[1] == built.files


def test_hostile_text_is_inert_in_the_built_site(corpus: Path, tmp_path: Path) -> None:
    bench = corpus / "agent-dx"
    decl = json.loads((bench / "benchmark.json").read_text())
    decl["title"] = HOSTILE
    decl["description"] = HOSTILE + "\n\n<iframe src=x></iframe> [click](javascript:alert(2))"
    decl["tasks"][0]["title"] = HOSTILE
    rubric = json.loads((bench / "rubric.json").read_text())
    rubric["artifactVersion"] = HOSTILE  # shown through the family's own release-notes.md table text
    rubric["limitations"] = [HOSTILE]
    (bench / "rubric.json").write_text(json.dumps(rubric))
    decl["rubric"]["sha256"] = hashlib.sha256((bench / "rubric.json").read_bytes()).hexdigest()
    (bench / "benchmark.json").write_text(json.dumps(decl))
    run = bench / "run-subject-15bb-1"
    meta = json.loads((run / "run.json").read_text())
    meta["producer"] = HOSTILE
    (run / "run.json").write_text(json.dumps(meta))
    for folder in (run, bench):
        (folder / SEAL_NAME).unlink()
        write_seal(folder)
    built = mkdocs_build(corpus, tmp_path / "site-root")
    assert built.returncode == 0, built.output
    assert "WARNING" not in built.output, built.output
    pages = sorted(built.site.rglob("*.html"))
    for page in pages:
        html = OWN_CHART.sub("", page.read_text(encoding="utf-8").lower())  # benchsite's own charts
        for needle in (*NEEDLES, "<iframe"):
            assert needle not in html, f"{page}: {needle}"
    assert_table_columns(built.files)
    shown = " ".join(HOSTILE.split())
    index_cells = [c for t in tables_of(built_html(built.site, "index.md")) for r in t for c in r]
    assert shown in index_cells
    methodology = tables_of(built_html(built.site, "agent-dx/methodology.md"))
    assert shown in [c for t in methodology for r in t for c in r]
    leaderboard = built_html(built.site, "agent-dx/index.md").read_text(encoding="utf-8")
    assert leaderboard.count("<h1") == 1 and "<li>not a list" not in leaderboard
    nav = yaml.safe_load(built.files["nav.yml"].decode("utf-8"))
    assert "<" not in repr(nav) and "onerror=" not in repr(nav)


@pytest.mark.parametrize(
    "text",
    [HOSTILE, "a|b\nc\r\nd\x00e\x1bf\u2028g", "- item", "1. x", ": term", "&lt;b&gt; &#60;", "${x}$ ~~s~~"],
)
def test_inert_text_has_no_markup_character_left(text: str) -> None:
    out = inert(text)
    bare = re.sub(r"&#\d+;", "", out)
    assert not set(bare) & set("<>&|[]()*_\\`~#!{}$^=+"), out
    assert "\n" not in out and "\r" not in out and not re.match(r"(-|:|\d+\.)(\s|$)", bare)


@pytest.mark.parametrize("prefix", ["", "/", "..", "a/../b", "a\\b", "docs//results", "a\nb"])
def test_an_unusable_prefix_is_refused_before_anything_is_written(built: Built, prefix: str) -> None:
    sink = DictSink()
    with pytest.raises(OutputError, match="mkdocs prefix"):
        render_mkdocs(built.report, NoDetails(), sink, prefix)
    assert sink.files == {}


def test_nothing_under_generator_imports_mkdocs() -> None:
    sources = sorted((ROOT / "generator").rglob("*.py"))
    for source in sources:
        assert not re.search(r"^\s*(import|from)\s+mkdocs\b", source.read_text(), re.M), source
    probe = (
        "import sys, generator.render.mkdocs_export, generator.build; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'mkdocs'))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT)
    assert done.stdout.strip() == "[]"


def test_leaderboards_and_index_open_with_the_headline_and_show_charts(built: Built) -> None:
    from xml.etree import ElementTree

    def text(page: str) -> str:
        return html.unescape(" ".join(built_html(built.site, page).read_text(encoding="utf-8").split()))

    index = text("index.md")
    for bench in built.report.benchmarks:
        page = text(f"{bench.id}/index.md")
        assert bench.headline.sentence in page and bench.headline.sentence in index, bench.id
        for ranking in bench.rankings:
            svg = built.files[f"{bench.id}/chart-{ranking.id}.svg"]
            root = ElementTree.fromstring(svg)  # a well-formed file of its own
            assert root.tag.endswith("svg") and b"<style>" in svg and b"var(--accent)" in svg
            assert f'src="chart-{ranking.id}.svg"' in page  # shown on the leaderboard, in mkdocs' HTML


def test_code_spans_of_the_inputs_show_as_code() -> None:
    from generator.render.mkdocs_export import inert_code

    assert (
        inert_code("the frozen `agent-dx-score-contract` here") == "the frozen `agent-dx-score-contract` here"
    )
    assert inert_code("`a` and `b<c>`") == "`a` and `b<c>`"
    for unsafe in ("odd ` one", "`{{ x }}`", "`a|b`", "` a`", "`$x$`", "``"):
        assert "`" not in inert_code(unsafe), unsafe  # all inert: the backticks become entities
    assert inert_code("- `x`").startswith("&#45;")  # no list at a line start


def test_description_code_span_renders_as_code(built: Built) -> None:
    page = built_html(built.site, "agent-dx/index.md").read_text(encoding="utf-8")
    assert "<code>agent-dx-score-contract</code>" in page


@pytest.mark.slow  # three builds, each in its own process
def test_an_export_leaves_no_compiled_template_a_later_build_would_load(
    one_benchmark: Path, tmp_path: Path
) -> None:
    """The export renders Markdown templates with other options than the Markdown site's; compiled
    under the same keys in the run cache, a later build (a new process, loading rather than compiling)
    ran the export's code: a TypeError, or other bytes. Kept templates must be the dialect's own."""
    cache = tmp_path / "cache"

    def benchsite(*args: str | Path) -> None:
        command = [sys.executable, "-m", "generator", *map(str, args)]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stdout + done.stderr

    benchsite(
        "build",
        "--runs",
        one_benchmark,
        "--format",
        "mkdocs",
        "--out",
        tmp_path / "docs" / "results",
        "--cache",
        cache,
    )
    benchsite("build", "--quiet", "--runs", one_benchmark, "--out", tmp_path / "kept", "--cache", cache)
    benchsite("build", "--quiet", "--runs", one_benchmark, "--out", tmp_path / "fresh", "--no-cache")
    kept, fresh = snapshot(tmp_path / "kept"), snapshot(tmp_path / "fresh")
    assert kept.pop(".benchsite.lock", None) == fresh.pop(".benchsite.lock", None)
    assert kept == fresh
