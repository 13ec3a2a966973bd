"""Security: hostile input text stays inert, ids used in output paths pass an allow-list, and the
output folder never overlaps the inputs.

(a) OWASP filter-evasion vectors are written into the free-text fields of every family (titles,
descriptions, task and case titles, producer strings, rubric status and limitations, ADR lines,
corrections, reveal names, finding and check texts, …), each edited folder re-sealed and each
edited rubric re-pinned, and the example corpus built once. Every HTML page is parsed: no script-
capable element, no ``on*`` attribute, no ``javascript:``/``data:``/``vbscript:`` URL after entity
decoding and whitespace removal (the site's own ``data:,`` icon aside), and a Content-Security-Policy
that forbids scripts. ``release-notes.md`` (and the mkdocs export) are rendered with markdown-it-py
with raw HTML **on** — GitHub would sanitise, but the text must be inert before that — and checked
the same way; every Markdown table keeps its column count. Fields the release notes once printed without
escaping (a task family in the agreement note, a definition key, a trials rubric id) are checked one
by one as well.

(b) Every output file name passes ``[A-Za-z0-9._-]`` per path segment; folder names that are not
such ids, and ids that differ only in letter case, are refused as invalid content (exit 4).

(c) An output folder inside the inputs, equal to them or containing them is a usage error (exit 2)
and nothing is written.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from collections.abc import Callable, Iterator
from functools import cache
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from markdown_it import MarkdownIt

from generator.families.trials.report import TrialsSection
from generator.inputs.seal import SEAL_NAME
from generator.score.run import score_inputs
from tests.conftest import CORPUS, ROOT, edit_json, rendering, reseal, run_cli, snapshot

POINTS, TRIALS, COMPONENTS, DEFINITIONS = "agent-dx", "vibe-delivery", "je-validation", "recsys-grounding"
VERSION = "x1"
BLIND = "2026.11-blind"

VECTORS: tuple[str, ...] = (
    "<script>alert('v01')</script>",
    "<SCRIPT>alert('v02')</SCRIPT>",
    "<ScRiPt SRC=//evil.example/v03.js></sCrIpT>",
    "<script/xss src=//evil.example/v04.js></script>",
    "<<script>alert('v05');//<</script>",
    "<img src=x onerror=alert('v06')>",
    "<IMG SRC=\"javascript:alert('v07');\">",
    "<img src=`javascript:alert('v08')`>",
    "<svg/onload=alert('v09')>",
    "<svg><script>alert('v10')</script></svg>",
    "<body onload=alert('v11')>",
    "\" onmouseover=\"alert('v12')",
    "' onfocus='alert(`v13`)' autofocus='",
    "'><script>alert('v14')</script>",
    "\"><img src=x onerror=alert('v15')>",
    "<a href=\"javascript:alert('v16')\">v16</a>",
    "<a href=\"JaVaScRiPt:alert('v17')\">v17</a>",
    "<a href=\"&#106;avascript:alert('v18')\">v18</a>",
    "<a href=\"&#x6A;&#x61;&#x76;&#x61;&#x73;&#x63;&#x72;&#x69;&#x70;&#x74;&#x3A;alert('v19')\">v19</a>",
    "<a href=\"jav&#x09;ascript:alert('v20')\">v20</a>",
    "<a href=\" &#14;  javascript:alert('v21')\">v21</a>",
    '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgndjIyJyk8L3NjcmlwdD4=">v22</a>',
    "<a href=\"vbscript:msgbox('v23')\">v23</a>",
    "<iframe src=\"javascript:alert('v24')\"></iframe>",
    "<iframe srcdoc=\"<script>alert('v25')</script>\"></iframe>",
    "<object data=\"javascript:alert('v26')\"></object>",
    '<embed src="data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMjcpPg==">',
    "<style>@import 'javascript:alert(\"v28\")';</style>",
    "<div style=\"width: expression(alert('v29'));\">v29</div>",
    "<scr\x00ipt>alert('v30')</scr\x00ipt>",
    '<meta http-equiv="refresh" content="0;url=javascript:alert(\'v31\')">',
    "<form action=\"javascript:alert('v32')\"><button>v32</button></form>",
    "<base href=\"javascript:alert('v33')//\">",
    '<link rel="stylesheet" href="javascript:alert(\'v34\')">',
    "<!--<script>alert('v35')</script>-->",
    "<![CDATA[<script>alert('v36')</script>]]>",
    "<details open ontoggle=alert('v37')>",
    "<math><mtext></form><form><mglyph><style></math><img src onerror=alert('v38')>",
    "[v39](javascript:alert('v39'))",
    "[v40]( javascript:alert('v40') )",
    "[v41](JaVaScRiPt:alert('v41'))",
    "[v42](&#106;avascript:alert('v42'))",
    "<javascript:alert('v43')>",
    "![v44](javascript:alert('v44'))",
    "[v45][r45]\n\n[r45]: javascript:alert('v45')",
    "[v46](data:text/html;base64,PHNjcmlwdD5hbGVydCgndjQ2Jyk8L3NjcmlwdD4=)",
    "[v47](vbscript:msgbox('v47'))",
    "a | b | c || d \\| e \\",
)
MARKDOWN = "\n\n".join(VECTORS)
"""Markdown fields (descriptions): every vector its own block, so reference definitions parse."""
LINE = " ".join(v.replace("\n", " ") for v in VECTORS)
"""Plain-text fields: all vectors on one line."""
NAMES = {
    label: f"{label} Qzvx <img src=x onclick=confirm('{label}')> [{label}](data:,qzvx)"
    for label in ("P-A", "P-B", "P-C", "P-D")
}
"""Reveal names: hostile, and spelled nowhere else, not even a distinctive word of them (the blind
version is scanned for every word of four or more letters that is not common English, and its free
text carries the VECTORS)."""

SCRIPT_TAGS = frozenset(
    {
        "script",
        "iframe",
        "frame",
        "frameset",
        "object",
        "embed",
        "applet",
        "base",
        "form",
        "input",
        "button",
        "textarea",
        "select",
        "img",
        "image",
        "video",
        "audio",
        "source",
        "math",
        "details",
        "template",
        "noscript",
        "marquee",
        "portal",
        "body-extra",
    }
)
OWN_CHART = re.compile(r"chart-[a-z0-9][a-z0-9._-]*\.svg")
"""The one picture a page may show: a chart benchsite drew, a file beside the page (the mkdocs
export's forest plots), never a URL or a name from the inputs."""


def own_chart(tag: str, attrs: dict[str, str]) -> bool:
    return tag == "img" and set(attrs) <= {"src", "alt"} and bool(OWN_CHART.fullmatch(attrs.get("src", "")))


URL_ATTRIBUTES = frozenset(
    {
        "href",
        "src",
        "srcset",
        "action",
        "formaction",
        "data",
        "poster",
        "cite",
        "background",
        "xlink:href",
        "dynsrc",
        "lowsrc",
        "longdesc",
        "codebase",
        "ping",
        "manifest",
    }
)
BAD_SCHEMES = ("javascript:", "vbscript:", "data:", "livescript:", "mocha:")
ICON = "data:,"
SAFE_SEGMENT = re.compile(r"^[A-Za-z0-9._-]+$")


# --- helpers: edit, re-seal, re-pin -------------------------------------------------------------


def edit_lines(path: Path, change: Callable[[dict[str, Any]], object]) -> None:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    for row in rows:
        change(row)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")


def repin(bench: Path) -> None:
    """Point benchmark.json at its (edited) rubric's sha256, as a producer re-freezing it would."""

    def pin(declaration: dict[str, Any]) -> None:
        rubric = (bench / declaration["rubric"]["file"]).read_bytes()
        declaration["rubric"]["sha256"] = hashlib.sha256(rubric).hexdigest()

    edit_json(bench / "benchmark.json", pin)


def runs_of(bench: Path) -> list[Path]:
    return sorted(p for p in bench.iterdir() if (p / SEAL_NAME).is_file() and p.name != "reveal")


def declare(bench: Path, markdown: str = MARKDOWN, line: str = LINE) -> None:
    edit_json(bench / "benchmark.json", lambda d: d.update(title=line, description=markdown))


def hostile_points(bench: Path) -> None:
    declare(bench)
    edit_json(bench / "benchmark.json", lambda d: [t.update(title=LINE) for t in d["tasks"]])
    status = "historical-rubric; " + LINE
    edit_json(
        bench / "rubric.json", lambda r: r.update(status=status, limitations=[*r["limitations"], *VECTORS])
    )

    def attempt(a: dict[str, Any]) -> None:
        a["producer_outcome"] = "Ready"  # a disagreement, listed with its run on the disclosures page
        if a.get("functional"):
            a["functional"] = [{"id": v, "passed": False} for v in VECTORS]
        if a.get("changed_paths") is not None:
            a["changed_paths"] = [*a["changed_paths"], "docs/" + LINE.replace("..", ". .")]
        if a.get("invalid"):
            a["invalid"]["detail"] = LINE

    for run in runs_of(bench):
        edit_json(run / "run.json", lambda r: r.update(producer=LINE))
        edit_lines(run / "attempts.jsonl", attempt)
        reseal(run)
    repin(bench)
    reseal(bench)


def hostile_trials(bench: Path, names: dict[str, str]) -> None:
    declare(bench)

    def trial(t: dict[str, Any]) -> None:
        t["checks"] = [*t["checks"], {"id": LINE, "state": "fail"}]
        t["interventions"] = [*t["interventions"], {"kind": LINE, "note": LINE}]
        t["failure_code"] = None if t["failure_code"] is None else LINE
        if t["cost"]["state"] == "unavailable":
            t["cost"]["reason"] = LINE
        else:
            t["cost"]["evidence"]["reference"] = LINE

    for run in runs_of(bench):
        edit_json(run / "run.json", lambda r: r.update(producer=LINE))
        edit_lines(run / "results.jsonl", trial)
        reseal(run)
    reseal(bench)
    reveal = bench / "reveal"
    if reveal.is_dir():  # the reveal cites the frozen scores, which now differ: cite them again
        blind = bench.parent.parent / "blind-scoring"
        blind.mkdir()
        shutil.copytree(bench, blind / bench.name, ignore=shutil.ignore_patterns("reveal"))
        scored = score_inputs(blind, BLIND, with_reveals=False, options=rendering())
        scored.details.close()
        (section,) = [b.section for b in scored.report.benchmarks]
        assert isinstance(section, TrialsSection)
        digest = section.scores_sha256
        edit_json(reveal / "reveal.json", lambda r: r.update(scores_sha256=digest, providers=names))
        reseal(reveal)


def hostile_components(bench: Path) -> None:
    declare(bench)

    def tasks(declaration: dict[str, Any]) -> None:
        for task in declaration["tasks"]:
            for rule in task["hard_fail_rules"]:
                rule["description"] = LINE

    edit_json(bench / "benchmark.json", tasks)
    edit_json(bench / "rubric.json", lambda r: r.update(_provenance=LINE))

    def episode(e: dict[str, Any]) -> None:
        e["findings"] = [*e["findings"], {"location": LINE, "issue_type": LINE, "evidence_ids": [LINE]}]
        e["calls"] = [*e["calls"], {"name": LINE, "arguments": LINE}]

    for run in runs_of(bench):
        edit_json(run / "run.json", lambda r: r.update(producer=LINE))
        edit_lines(run / "episodes.jsonl", episode)
        reseal(run)
    repin(bench)
    reseal(bench)


def hostile_definitions(bench: Path) -> None:
    declare(bench)

    def definition(d: dict[str, Any]) -> None:
        d["version"] = LINE
        for item in (*d["cases"], *d["checks"]):
            item["title"] = LINE
        for check in d["checks"]:
            check["floor"]["derivation"] = LINE

    edit_json(bench / "definition.json", definition)
    fields = ("superseded", "corrected", "direction", "blast_radius", "prediction")
    edit_json(
        bench / "corrections.json",
        lambda c: [e.update(dict.fromkeys(fields, LINE)) for e in c["corrections"]],
    )
    adr = bench / "adr-032.txt"  # the rubric: its title, status and decision lines are shown
    lines = adr.read_text(encoding="utf-8").splitlines(keepends=True)
    for prefix in ("ADR-032", "Status:", "Decision in one line:"):
        first = next(i for i, text in enumerate(lines) if text.startswith(prefix))
        lines[first] = f"{prefix.rstrip(':')}: {LINE}\n"
    adr.write_text("".join(lines), encoding="utf-8")
    # Edited ADR text is no longer the seed's, so it brings its own specification: the seed's rules,
    # pinned as a sealed scoring.json (docs/definitions.md, "Scoring specification").
    spec = (ROOT / "generator" / "families" / "definitions" / "builtin" / "adr-032.scoring.json").read_bytes()
    (bench / "scoring.json").write_bytes(spec)
    edit_json(
        bench / "benchmark.json",
        lambda d: d.update(scoring={"file": "scoring.json", "sha256": hashlib.sha256(spec).hexdigest()}),
    )
    for manifest in bench.glob(".agenteval/subjects/*/*/runs/*/manifest.json"):
        edit_json(manifest, lambda m: (m["solution"].update(name=LINE), m["run"].update(harness=LINE)))
        for row in (manifest.parent / "scenarios").glob("*.json"):
            edit_json(row, lambda r: r.update(name=LINE))
        reseal(manifest.parent)
    repin(bench)
    reseal(bench)


def build(runs: Path, out: Path, *extra: str) -> Result:
    result = run_cli("build", "--runs", runs, "--out", out, *extra)
    assert "Traceback" not in result.output, result.output
    return result


# --- the parsers that decide what is inert ------------------------------------------------------


def squeezed(url: str) -> str:
    """A URL as a browser reads its scheme: no whitespace or control characters, lower case."""
    return "".join(c for c in url if ord(c) > 0x20 and c != "\x7f").lower()


class Inertness(HTMLParser):
    """Everything in one HTML document that could run script or load something."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)  # attribute values are entity-decoded either way
        self.found: list[str] = []
        self.csp: list[str] = []
        self.bodies = 0
        self._style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag in SCRIPT_TAGS and not own_chart(tag, a):
            self.found.append(f"<{tag}>")
        self.bodies += tag == "body"
        for name, value in a.items():
            if name.startswith("on") or name in ("srcdoc", "formaction"):
                self.found.append(f"<{tag} {name}=…>")
            if name == "style" and re.search(r"expression|javascript|url\(|@import", value, re.I):
                self.found.append(f"<{tag} style={value!r}>")
            url = name in URL_ATTRIBUTES or name.endswith(":href")
            if url and squeezed(value).startswith(BAD_SCHEMES) and not (tag == "link" and value == ICON):
                self.found.append(f"<{tag} {name}={value!r}>")
        if tag == "link" and a.get("href") != ICON:
            self.found.append(f"<link href={a.get('href')!r}>")
        if tag == "meta" and a.get("http-equiv"):
            if a["http-equiv"].lower() == "content-security-policy":
                self.csp.append(a.get("content", ""))
            else:
                self.found.append(f"<meta http-equiv={a['http-equiv']!r}>")
        self._style = tag == "style"

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        self._style = False

    def handle_endtag(self, tag: str) -> None:
        self._style = False

    def handle_data(self, data: str) -> None:
        if self._style and re.search(r"@import|expression\(|javascript:|url\(", data, re.I):
            self.found.append("<style> with an import, expression or URL")

    def handle_comment(self, data: str) -> None:
        self.found.append(f"<!--{data[:40]}-->")

    def unknown_decl(self, data: str) -> None:
        self.found.append(f"<![{data[:40]}]>")

    def handle_pi(self, data: str) -> None:
        self.found.append(f"<?{data[:40]}>")


def inspect(html: str) -> Inertness:
    parser = Inertness()
    parser.feed(html)
    parser.close()
    if parser.bodies > 1:
        parser.found.append(f"{parser.bodies} <body> elements")
    return parser


@cache
def github_like() -> MarkdownIt:
    """GitHub-flavoured Markdown as markdown-it-py offers it, with raw HTML passed through."""
    try:
        return MarkdownIt("gfm-like", {"html": True, "linkify": False})
    except (KeyError, ModuleNotFoundError):  # an older markdown-it-py without that preset
        return MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])


def markdown_problems(text: str) -> list[str]:
    """What survives rendering ``text`` with raw HTML enabled, and every table that lost its shape."""
    md = github_like()
    tokens = md.parse(text)
    problems = inspect(md.renderer.render(tokens, md.options, {})).found
    lines = 0
    for table in tables(text):
        widths = {len(re.findall(r"(?<!\\)\|", line)) for line in table}
        if len(widths) != 1:
            problems.append(f"table starting {table[0][:60]!r} has rows of {sorted(widths)} pipes")
        lines += len(table) - 1  # every line but the delimiter row is a table row
    rows = sum(token.type == "tr_open" for token in tokens)
    if rows != lines:
        problems.append(f"{rows} table rows rendered from {lines} table lines")
    return problems


def tables(text: str) -> Iterator[list[str]]:
    """Runs of consecutive lines starting with '|' (the only tables benchsite writes)."""
    table: list[str] = []
    for line in [*text.splitlines(), ""]:
        if line.startswith("|"):
            table.append(line)
        elif table:
            yield table
            table = []


# --- (a) the hostile corpus, built once ----------------------------------------------------------


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example corpus with hostile text in every family, built (blind version first)."""
    root = tmp_path_factory.mktemp("hostile")
    runs = root / "runs"
    shutil.copytree(CORPUS, runs)
    hostile_points(runs / POINTS)
    hostile_trials(runs / TRIALS, NAMES)
    hostile_components(runs / COMPONENTS)
    hostile_definitions(runs / DEFINITIONS)
    out = root / "site"
    result = build(runs, out, "--site-version", VERSION)
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir() if p.is_dir()) == sorted([BLIND, "badges", VERSION])
    export = run_cli("build", "--format", "mkdocs", "--runs", runs, "--out", root / "docs" / "results")
    assert export.exit_code == 0, export.output
    return root


def test_the_vectors_reach_the_published_data(hostile: Path) -> None:
    """The injection took: the JSON carries each vector verbatim (so the pages had to escape it)."""
    site = (hostile / "site" / VERSION / "data" / "site.json").read_text(encoding="utf-8")
    texts = json.dumps(json.loads(site), ensure_ascii=False)
    for vector in VECTORS:
        assert json.dumps(vector, ensure_ascii=False)[1:-1] in texts, vector
    for bench in (POINTS, TRIALS, COMPONENTS, DEFINITIONS):
        page = (hostile / "site" / VERSION / "b" / bench / "index.html").read_text(encoding="utf-8")
        assert "&lt;script&gt;alert(&#39;v01&#39;)&lt;/script&gt;" in page, bench


def test_every_html_page_is_inert_and_forbids_scripts(hostile: Path) -> None:
    pages = sorted((hostile / "site").rglob("*.html"))
    assert len(pages) > 40
    found = {}
    for page in pages:
        parsed = inspect(page.read_text(encoding="utf-8"))
        if parsed.found:
            found[page.relative_to(hostile).as_posix()] = parsed.found
        assert len(parsed.csp) == 1, page
        policy = {d.split()[0]: d.split()[1:] for d in parsed.csp[0].split(";") if d.strip()}
        assert policy["default-src"] == ["'none'"], page
        assert "script-src" not in policy and "script-src-elem" not in policy, page
    assert found == {}


@pytest.mark.parametrize("version", [BLIND, VERSION])
def test_release_notes_stay_inert_rendered_with_raw_html(hostile: Path, version: str) -> None:
    notes = (hostile / "site" / version / "release-notes.md").read_text(encoding="utf-8")
    assert "\\<script\\>" in notes  # the vectors are there, escaped
    assert markdown_problems(notes) == []


@pytest.mark.slow  # builds an mkdocs site from the hostile export
def test_mkdocs_export_stays_inert_rendered_with_raw_html(hostile: Path) -> None:
    pages = sorted((hostile / "docs" / "results").rglob("*.md"))
    assert len(pages) > 20
    found = {
        p.name: problems for p in pages if (problems := markdown_problems(p.read_text(encoding="utf-8")))
    }
    assert found == {}


def one_benchmark(tmp_path: Path, bench: str) -> Path:
    runs = tmp_path / "runs"
    shutil.copytree(CORPUS / bench, runs / bench, ignore=shutil.ignore_patterns("reveal"))
    return runs


HOSTILE_ID = "x` <img src=x onerror=alert(1)> `"
"""Closes a code span it is printed in; in plain text (the task family) the backticks would open one."""
HOSTILE_FAMILY = "<img src=x onerror=alert(1)>"


def task_family(bench: Path) -> None:
    edit_json(bench / "benchmark.json", lambda d: [t.update(family=HOSTILE_FAMILY) for t in d["tasks"]])


def definition_key(bench: Path) -> None:
    edit_json(bench / "definition.json", lambda d: d.update(key=HOSTILE_ID))


def rubric_id(bench: Path) -> None:
    edit_json(bench / "rubric.json", lambda r: r.update(rubric_id=HOSTILE_ID))
    repin(bench)


UNESCAPED_FIELDS: dict[str, tuple[str, Callable[[Path], None]]] = {
    "task-family": (COMPONENTS, task_family),
    "definition-key": (DEFINITIONS, definition_key),
    "rubric-id": (TRIALS, rubric_id),
}


def hostile_field(tmp_path: Path, field: str) -> Path:
    """One benchmark with one field the release notes print unescaped made hostile, built."""
    bench, edit = UNESCAPED_FIELDS[field]
    runs = one_benchmark(tmp_path, bench)
    edit(runs / bench)
    reseal(runs / bench)
    result = build(runs, tmp_path / "site", "--site-version", VERSION)
    assert result.exit_code == 0, result.output
    return tmp_path / "site" / VERSION


def strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict | list):
        for item in value.values() if isinstance(value, dict) else value:
            yield from strings(item)


@pytest.mark.parametrize("field", sorted(UNESCAPED_FIELDS))
def test_fields_the_release_notes_print_raw_are_inert_in_pages_and_mkdocs(tmp_path: Path, field: str) -> None:
    version = hostile_field(tmp_path, field)
    published = json.loads((version / "data" / "site.json").read_text(encoding="utf-8"))
    assert {HOSTILE_ID, HOSTILE_FAMILY} & set(strings(published))
    assert {
        p.name: f for p in version.rglob("*.html") if (f := inspect(p.read_text(encoding="utf-8")).found)
    } == {}
    export = run_cli(
        "build", "--format", "mkdocs", "--runs", tmp_path / "runs", "--out", tmp_path / "results"
    )
    assert export.exit_code == 0, export.output
    pages = sorted((tmp_path / "results").rglob("*.md"))
    assert {p.name: f for p in pages if (f := markdown_problems(p.read_text(encoding="utf-8")))} == {}


@pytest.mark.parametrize(
    "field",
    [
        pytest.param("task-family"),
        pytest.param("definition-key"),
        pytest.param("rubric-id"),
    ],
)
def test_fields_the_release_notes_print_raw_are_inert_there_too(tmp_path: Path, field: str) -> None:
    notes = (hostile_field(tmp_path, field) / "release-notes.md").read_text(encoding="utf-8")
    assert markdown_problems(notes) == []


def test_the_checkers_catch_what_they_look_for() -> None:
    """The parsers are not vacuous: each kind of surviving vector is reported."""
    assert inspect("<p>&lt;script&gt; javascript:alert(1)</p>").found == []
    for html in (
        "<script>x</script>",
        "<svg/onload=alert(1)>",
        '<a href=" &#14; JaVa&#x09;script:x">a</a>',
        '<a href="data:text/html,x">a</a>',
        "<!-- x -->",
        '<link rel="icon" href="x.ico">',
        '<meta http-equiv="refresh" content="0">',
        "<style>@import 'x';</style>",
    ):
        assert inspect(html).found, html
    assert markdown_problems("<img src=x onerror=alert(1)>") != []
    assert markdown_problems("| a | b |\n|---|---|\n| x | y | z |\n") != []
    assert markdown_problems("| a | b |\n|---|---|\n| x \\| y | z |\n") == []


# --- (b) ids that become output paths ------------------------------------------------------------


def test_every_output_file_name_is_an_allow_listed_id(hostile: Path) -> None:
    for tree in (hostile / "site", hostile / "docs" / "results"):
        paths = [p.relative_to(tree) for p in tree.rglob("*")]
        assert len(paths) > 40
        bad = [p.as_posix() for p in paths if not all(SAFE_SEGMENT.match(part) for part in p.parts)]
        assert bad == []


def refused(runs: Path, tmp_path: Path, message: str) -> None:
    """Build and verify both refuse with exit 4 and ``message``; nothing is written."""
    before = snapshot(runs)
    out = tmp_path / "site"
    result = build(runs, out)
    assert result.exit_code == 4, result.output
    assert message in result.output
    assert "invalid content (exit 4)" in result.output
    assert not out.exists()
    verified = run_cli("verify", "--runs", runs)
    assert verified.exit_code == 4 and message in verified.output
    assert snapshot(runs) == before


@pytest.mark.parametrize(
    ("bench", "run"),
    [(POINTS, "run-subject-15bb-1"), (COMPONENTS, "run-m-alpha"), (TRIALS, "run-p-a")],
)
def test_run_folders_differing_only_in_case_are_refused(tmp_path: Path, bench: str, run: str) -> None:
    runs = one_benchmark(tmp_path, bench)
    shutil.copytree(runs / bench / run, runs / bench / run.upper())
    if bench == TRIALS:  # one trial's result in two folders would be refused too: split the run
        lines = (runs / bench / run / "results.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
        for folder, part in ((run, lines[:5]), (run.upper(), lines[5:])):
            (runs / bench / folder / "results.jsonl").write_text("".join(part), encoding="utf-8")
            reseal(runs / bench / folder)
    refused(runs, tmp_path, "run id collides with")


def test_benchmark_folders_differing_only_in_case_are_refused(tmp_path: Path) -> None:
    runs = one_benchmark(tmp_path, POINTS)
    shutil.copytree(runs / POINTS, runs / POINTS.upper())
    refused(runs, tmp_path, "benchmark id collides with 'AGENT-DX' when case is ignored")


def test_store_runs_differing_only_in_case_are_refused(tmp_path: Path) -> None:
    runs = one_benchmark(tmp_path, DEFINITIONS)
    bench = runs / DEFINITIONS
    (run,) = bench.glob(".agenteval/subjects/agents/recsys-agent/runs/2026-10-01_10-00-01_*")
    shutil.copytree(run, run.with_name(run.name.upper()))
    refused(runs, tmp_path, "run id collides with")


NOT_IDS = [".hidden", "-x", "_x", "a b", "é", "run:1", "x" * 129, "a\tb", "ｒｕｎ"]


@pytest.mark.parametrize("name", NOT_IDS)
def test_run_folder_names_that_are_not_ids_are_refused(tmp_path: Path, name: str) -> None:
    runs = one_benchmark(tmp_path, POINTS)
    (runs / POINTS / "run-subject-15bb-1").rename(runs / POINTS / name)
    shown = name if len(name) <= 60 else name[:60] + "…"
    refused(runs, tmp_path, f"run id {shown!r} is not usable in output paths")


@pytest.mark.parametrize("name", NOT_IDS)
def test_benchmark_folder_names_that_are_not_ids_are_refused(tmp_path: Path, name: str) -> None:
    runs = one_benchmark(tmp_path, POINTS)
    (runs / POINTS).rename(runs / name)
    refused(runs, tmp_path, "is not usable in output paths")


def test_the_longest_id_and_every_allowed_character_are_accepted(tmp_path: Path) -> None:
    runs = one_benchmark(tmp_path, POINTS)
    name = ("Az09._-" * 19)[:128]
    (runs / POINTS / "run-subject-15bb-1").rename(runs / POINTS / name)
    result = build(runs, tmp_path / "site", "--site-version", VERSION)
    assert result.exit_code == 0, result.output
    assert (tmp_path / "site" / VERSION / "b" / POINTS / "runs" / f"{name}.html").is_file()


# --- (c) the output folder and the inputs never overlap ------------------------------------------


@pytest.mark.parametrize("fmt", ["site", "mkdocs"])
@pytest.mark.parametrize("where", ["inside", "same", "inside-a-run", "through-a-link", "parent"])
def test_an_output_folder_overlapping_the_inputs_is_refused_and_nothing_is_written(
    tmp_path: Path, fmt: str, where: str
) -> None:
    runs = one_benchmark(tmp_path, POINTS)
    out = {
        "inside": runs / "site",
        "same": runs,
        "inside-a-run": runs / POINTS / "run-subject-15bb-1" / "site",
        "through-a-link": tmp_path / "link" / "site",
        "parent": tmp_path,
    }[where]
    if where == "through-a-link":
        (tmp_path / "link").symlink_to(runs / POINTS, target_is_directory=True)
    before = (snapshot(tmp_path), entries(tmp_path))
    result = run_cli("build", "--format", fmt, "--runs", runs, "--out", out)
    assert result.exit_code == 2, result.output
    relation = "contain" if where == "parent" else "be inside"
    assert f"the output folder may not {relation} the inputs" in result.output
    assert (snapshot(tmp_path), entries(tmp_path)) == before


def entries(root: Path) -> set[str]:
    """Every file and folder below ``root`` (links not followed), so a new empty folder shows too."""
    return {
        (Path(d) / n).relative_to(root).as_posix() for d, dirs, files in os.walk(root) for n in dirs + files
    }
