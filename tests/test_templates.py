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

import pytest
from jinja2 import Environment

from generator.identity import templates_dir
from generator.mkdocs_export import mkdocs_env
from generator.render import html_env

LINE_LIMIT = 160
"""Characters of a template line."""
RAW = {"_site.css"}
"""Files under templates/ that are not Jinja templates: the stylesheet is inlined byte for byte
and its hash is each page's Content-Security-Policy, so its lines stay as they are."""
TABLE_OPENERS = re.compile(r"<(?:tr|td|th)[\s>]")
MACRO = re.compile(r"\{%-?\s*macro\s+(\w+)\(([^)]*)\)")
EXPORT = re.compile(r"^\{%-?\s*set\s+(\w+)\s*=", re.MULTILINE)
"""A block a dialect writes in Python (``cell``): exported by a top-level ``set``."""


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


def test_both_dialects_export_the_same_python_blocks() -> None:
    root = templates_dir()
    html = EXPORT.findall((root / "_blocks.html").read_text(encoding="utf-8"))
    markdown = EXPORT.findall((root / "mkdocs" / "_blocks.md").read_text(encoding="utf-8"))
    assert html == markdown == ["cell"]


CELLS = [
    ("num", "Score", 0.5, None),
    (None, "Why", 'a < b & "c" | d', "5/6 passed"),
    ("id", None, "-x [y](z)", ""),
    (None, None, None, "t'itle <x>"),
]
"""(class, label, value, title) of cells whose markup and escaping ``cell`` and ``td`` must agree on."""


@pytest.mark.parametrize("env", [html_env, mkdocs_env])
@pytest.mark.parametrize(("class_", "label", "value", "title"), CELLS)
def test_cell_writes_what_td_writes_around_the_same_value(
    env: Callable[[], Environment], class_: str | None, label: str | None, value: object, title: str | None
) -> None:
    head = "{% import blocks as b with context %}"
    td = "{% call b.td(class_, label, title) %}{{ value }}{% endcall %}"
    cell = "{{ b.cell(class_, label, value, title) }}"
    values = {"class_": class_, "label": label, "value": value, "title": title, "page_path": "x"}
    assert env().from_string(head + cell).render(values) == env().from_string(head + td).render(values)
