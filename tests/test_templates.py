"""The templates as text a reader can follow: no line longer than ``LINE_LIMIT``, one table row or
cell opened per line, and the two dialects of the block vocabulary (``_blocks.html`` for the site,
``mkdocs/_blocks.md`` for the mkdocs export) offering the same macros, so a page written once
(``*.jinja``) renders in both.

A template line may end in `` {# #}``: an empty comment, after which ``trim_blocks`` drops the
newline, so a long sentence or Markdown row is broken in the template and not in the output.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jinja2 import Environment
from markupsafe import Markup, escape

from generator.families import rows
from generator.families.registry import FAMILIES
from generator.families.rows import Cells, HtmlCells
from generator.figures.numbers import fmt_number
from generator.inputs.identity import templates_dir
from generator.render.mkdocs_export import MARKDOWN_CELLS, mkdocs_env
from generator.render.pages import html_env
from generator.render.single import ON_PAGE, Anchors

LINE_LIMIT = 160
"""Characters of a template line."""
RAW = {"_site.css"}
"""Files under templates/ that are not Jinja templates: the stylesheet is inlined byte for byte
and its hash is each page's Content-Security-Policy, so its lines stay as they are."""
TABLE_OPENERS = re.compile(r"<(?:tr|td|th)[\s>]")
MACRO = re.compile(r"\{%-?\s*macro\s+(\w+)\(([^)]*)\)")
EXPORT = re.compile(r"^\{%-?\s*set\s+(\w+)\s*=", re.MULTILINE)
"""A block a dialect writes in Python (``rows``): exported by a top-level ``set``."""


def layout_problems(name: str, text: str) -> list[str]:
    """What breaks the rules in one template: each line too long, each line opening two table rows
    or cells (``<tr``, ``<td``, ``<th``)."""
    problems = []
    for number, line in enumerate(text.splitlines(), start=1):
        if len(line) > LINE_LIMIT:
            problems.append(f"{name}:{number}: {len(line)} characters (at most {LINE_LIMIT})")
        if len(TABLE_OPENERS.findall(line)) > 1:
            problems.append(f"{name}:{number}: more than one <tr>, <td> or <th> opened on one line")
    return problems


def test_a_long_line_and_two_cells_on_a_line_are_found() -> None:
    text = "<tr>\n<td>a</td><td>b</td>\n" + "x" * (LINE_LIMIT + 1) + "\n<thead><tr>\n<th>c</th>\n"
    assert layout_problems("t.html", text) == [
        "t.html:2: more than one <tr>, <td> or <th> opened on one line",
        f"t.html:3: {LINE_LIMIT + 1} characters (at most {LINE_LIMIT})",
    ]


def test_every_template_keeps_its_lines_short_and_one_cell_a_line() -> None:
    root = templates_dir()
    files = sorted(p for p in root.rglob("*") if p.is_file() and p.name not in RAW)
    assert len(files) > 40
    problems = [
        problem
        for path in files
        for problem in layout_problems(str(path.relative_to(root)), path.read_text(encoding="utf-8"))
    ]
    assert problems == []


def macros(text: str) -> dict[str, str]:
    """Each macro a template defines, by name, with its parameters (spaces removed)."""
    return {name: "".join(params.split()) for name, params in MACRO.findall(text)}


def test_both_dialects_of_the_blocks_define_the_same_macros() -> None:
    root = templates_dir()
    html = macros((root / "_blocks.html").read_text(encoding="utf-8"))
    markdown = macros((root / "mkdocs" / "_blocks.md").read_text(encoding="utf-8"))
    assert {"h", "p", "facts", "fact", "table", "tr", "td", "code"} <= html.keys()
    assert markdown == html


INCLUDED = re.compile(r"\{%-?\s*(?:include|import|from)\s+(?:\"([^\"]+)\"|(blocks)\b)")
RAW_ID = re.compile(r"""\bid="(?!\{\{ anchor\()""")
RAW_LINK = re.compile(r"<a\s[^>]*href=")
CHART = re.compile(r"\b(?:forest|grid|trend)\([^,]+,(?!\s*anchor\()")
FIXTURE_TEMPLATES = templates_dir().parent / "tests" / "fixture_family" / "templates"
RUN_PAGES_ONLY = {"_pager.html"}
"""Included by a block no report part uses (``page_list``: where a long run's page sits among its pages)."""


def report_partials() -> dict[str, str]:
    """Every template a part of the single-file report renders (each family's ``_leaderboard.html``,
    the fixture family's too, and ``_disclosures.jinja``, with what they include and import), by name."""
    roots = [templates_dir(), FIXTURE_TEMPLATES]
    found = {p.relative_to(r).as_posix(): p for r in roots for p in r.glob("*/_leaderboard.html")}
    found["_disclosures.jinja"] = templates_dir() / "_disclosures.jinja"
    todo = list(found.values())
    while todo:
        text = todo.pop().read_text(encoding="utf-8")
        for quoted, _dialect in INCLUDED.findall(text):
            name = quoted or "_blocks.html"  # `blocks`: the dialect the environment names
            if name not in found and name not in RUN_PAGES_ONLY:
                found[name] = templates_dir() / name
                todo.append(found[name])
    return {name: path.read_text(encoding="utf-8") for name, path in sorted(found.items())}


def anchor_problems(name: str, text: str) -> list[str]:
    """Where a report partial writes an id, a chart id or a link of its own instead of through
    ``anchor(...)`` and the ``a`` macro of ``_blocks.html`` (the one place a link is written)."""
    problems = []
    for number, line in enumerate(text.splitlines(), start=1):
        if RAW_ID.search(line) or CHART.search(line):
            problems.append(f"{name}:{number}: an id not written through anchor()")
        if RAW_LINK.search(line) and not (
            name == "_blocks.html" and "{% macro a(" in text.splitlines()[number - 2]
        ):
            problems.append(f"{name}:{number}: a link not written through the a macro of _blocks.html")
    return problems


def test_a_raw_id_chart_id_and_link_are_found() -> None:
    text = '<h2 id="x">\n<h2 id="{{ anchor(\'x\') }}">\n{{ forest(r, "f") }}\n<a href="{{ url(t) }}">t</a>\n'
    assert anchor_problems("t.html", text) == [
        "t.html:1: an id not written through anchor()",
        "t.html:3: an id not written through anchor()",
        "t.html:4: a link not written through the a macro of _blocks.html",
    ]


def test_the_report_partials_write_ids_and_links_through_their_anchors() -> None:
    """So a partial stands in the single-file report as rendered, its ids namespaced and its links
    led by the report (``generator/render/single.py``), with nothing rewritten after rendering."""
    partials = report_partials()
    assert {"_blocks.html", "_ranking.html", "_history.html", "tally/_leaderboard.html"} <= partials.keys()
    assert [p for name, text in partials.items() for p in anchor_problems(name, text)] == []


def test_both_dialects_export_the_same_python_blocks() -> None:
    root = templates_dir()
    html = EXPORT.findall((root / "_blocks.html").read_text(encoding="utf-8"))
    markdown = EXPORT.findall((root / "mkdocs" / "_blocks.md").read_text(encoding="utf-8"))
    assert html == markdown == ["rows"]


HOSTILE = [
    'a < b & "c" | d',
    "-x [y](z) *e* `f` {g} #1 @u",
    "t'itle <x>\nnext",
    "Ready",
    0.5,
    None,
    "flag_everything_baseline usage-2026-10/t03 79.5 a.b_<c>",
]
"""Values whose markup and escaping a Python row piece and its block macro must agree on."""

PIECES: list[tuple[str, Callable[[Cells, Any], Markup], str]] = [
    (
        "td",
        lambda out, v: out.cell("num", "Score", v),
        "{% call b.td('num', 'Score') %}{{ v|breakable }}{% endcall %}",
    ),
    (
        "td, title",
        lambda out, v: out.cell(None, "Why", "x", v),
        "{% call b.td(none, 'Why', v) %}x{% endcall %}",
    ),
    (
        "td, bare",
        lambda out, v: out.cell("id", None, v, ""),
        "{% call b.td('id', none, '') %}{{ v|breakable }}{% endcall %}",
    ),
    (
        "tr",
        lambda out, v: out.row(f"r-{v}", [out.cell(None, None, v)]),
        "{% call b.tr('r-' ~ v) %}{% call b.td() %}{{ v|breakable }}{% endcall %}{% endcall %}",
    ),
    ("text", lambda out, v: out.text(v), "{{ v|breakable }}"),
    (
        "figure",
        lambda out, v: out.figure(fmt_number(v if isinstance(v, float) else None)),
        "{{ (v if v is float else none)|num }}",
    ),
    ("badge", lambda out, v: out.badge(str(v)), "{{ b.badge(v|string) }}"),
    ("muted", lambda out, v: out.muted(v), "{{ b.muted(v) }}"),
    ("strong", lambda out, v: out.strong(v), "{{ b.strong(v) }}"),
    ("span", lambda out, v: out.span(v, "id"), "{{ b.span(v, 'id') }}"),
    ("hint", lambda out, v: out.hint(out.text(v), v), "{{ b.hint(v, v) }}"),
    ("code_hint", lambda out, v: out.code_hint(v, v), "{{ b.code_hint(v, v) }}"),
]
"""(block, the Python piece of ``generator.families.rows.Cells``, the template spelling it with the
block's macro)."""
DIALECTS = [(html_env, HtmlCells(ON_PAGE)), (mkdocs_env, MARKDOWN_CELLS)]


@pytest.mark.parametrize(("env", "out"), DIALECTS, ids=["html", "markdown"])
@pytest.mark.parametrize(("block", "piece", "template"), PIECES, ids=[p[0] for p in PIECES])
@pytest.mark.parametrize("value", HOSTILE)
def test_a_row_piece_writes_what_its_block_macro_writes(
    env: Callable[[], Environment],
    out: Cells,
    block: str,
    piece: Callable[[Cells, Any], Markup],
    template: str,
    value: object,
) -> None:
    text = (
        env().from_string("{% import blocks as b with context %}" + template).render(v=value, page_path="x")
    )
    assert str(piece(out, value)) == text


def test_a_row_in_the_single_file_report_takes_its_anchor_from_the_report() -> None:
    head = "{% import blocks as b with context %}"
    anchors = Anchors(prefix="bench")
    macro = html_env().from_string(head + "{% call b.tr('attempt-1') %}{% endcall %}").render(anchors=anchors)
    assert str(HtmlCells(anchors).row("attempt-1", [])) == macro == '<tr id="bench-attempt-1">\n</tr>\n'


def test_every_built_in_family_writes_its_run_rows_in_python() -> None:
    """A built-in family's run rows come from its row writer (``Family.row_writer``), named
    ``<family>_rows`` in both dialects, not from a loop of macros: one call per page."""
    root = templates_dir()
    for name, family in FAMILIES.items():
        writer = f"{name}_rows"
        assert family.row_writer == f"generator.families.{name}.rows:{writer}", name
        assert writer in html_env().globals and writer in mkdocs_env().globals, name
        used = "".join(p.read_text(encoding="utf-8") for p in (root / name).glob("_*.jinja"))
        assert f"b.rows({writer}," in used, name


@pytest.mark.parametrize("value", HOSTILE)
def test_a_row_piece_is_markup_and_escapes_as_markupsafe_does(value: object) -> None:
    out = HtmlCells(ON_PAGE)
    for _, piece, _ in PIECES:
        assert type(piece(out, value)) is Markup
    assert rows._escaped(value) == str(escape(value))


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_the_python_escape_is_markupsafes(text: str) -> None:
    assert rows._escape_text(text) == rows._escape_inner(text) == str(escape(text))
