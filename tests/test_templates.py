"""The templates as text a reader can follow: no line longer than ``LINE_LIMIT``, one table row or
cell opened per line, and the two dialects of the block vocabulary (``_blocks.html`` for the site,
``mkdocs/_blocks.md`` for the mkdocs export) offering the same macros, so a page written once
(``*.jinja``) renders in both.

A template line may end in `` {# #}``: an empty comment, after which ``trim_blocks`` drops the
newline, so a long sentence or Markdown row is broken in the template and not in the output.
"""

from __future__ import annotations

import re

from generator.identity import templates_dir

LINE_LIMIT = 160
"""Characters of a template line."""
RAW = {"_site.css"}
"""Files under templates/ that are not Jinja templates: the stylesheet is inlined byte for byte
and its hash is each page's Content-Security-Policy, so its lines stay as they are."""
TABLE_OPENERS = re.compile(r"<(?:tr|td|th)[\s>]")
MACRO = re.compile(r"\{%-?\s*macro\s+(\w+)\(([^)]*)\)")


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
