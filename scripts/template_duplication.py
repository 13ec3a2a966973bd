"""Measure how much of each page is written twice: an HTML template against its mkdocs twin.

Run: ``.venv/bin/python scripts/template_duplication.py``. For every pair it prints the Jinja
expressions (``{{ … }}`` and ``{% … %}`` other than closing tags and ``else``, spaces normalised)
of the mkdocs template that the HTML template spells too (a multiset intersection), and the text
lines both hold once tags and Markdown/HTML markup are stripped. A page written once (``*.jinja``) and
rendered by both dialects has no mkdocs twin left, or one that only includes it: it counts once, in
neither twin. The two dialects of the block vocabulary (``_blocks.html``, ``mkdocs/_blocks.md``) are
measured as a pair too. Prints the longest template line as well.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
FAMILIES = ("points", "trials", "components", "definitions")
PAIRS = [
    *((f"{f}/methodology.html", f"mkdocs/{f}/methodology.md") for f in FAMILIES),
    *((f"{f}/run.html", f"mkdocs/{f}/run.md") for f in FAMILIES),
    ("disclosures.html", "mkdocs/disclosures.md"),
    ("_interpretations.html", "mkdocs/_interpretations.md"),
    ("_scoring.html", "mkdocs/_scoring.md"),
    ("_status.html", "mkdocs/_header.md"),
    ("definitions/_floors_note.html", "mkdocs/definitions/_floors_note.md"),
    ("index.html", "mkdocs/index.md"),
    ("_blocks.html", "mkdocs/_blocks.md"),
]
VOCABULARY = PAIRS[-1]
"""The one pair kept twice by design: the same macros, one dialect each (their signatures and the
``caller()`` of every block are the shared expressions); reported apart from the pages."""
TAG = re.compile(r"\{\{-?(.*?)-?\}\}|\{%-?(.*?)-?%\}", re.S)
CLOSING = re.compile(r"^(end\w+|else)$")
MARKUP = re.compile(r"<[^>]*>|\{#.*?#\}|[|#>*`\-]", re.S)


def expressions(text: str) -> Counter[str]:
    """The template's expressions and statements, spaces normalised, closing tags left out."""
    found = (" ".join((a or b).split()) for a, b in TAG.findall(text))
    return Counter(e for e in found if not CLOSING.match(e))


def text_lines(text: str) -> Counter[str]:
    """The lines of literal text, tags and markup removed, that say something (4+ letters)."""
    stripped = (" ".join(MARKUP.sub(" ", TAG.sub(" ", line)).split()) for line in text.splitlines())
    return Counter(line for line in stripped if sum(c.isalpha() for c in line) >= 4)


def main() -> None:
    """Print one row per pair and the totals."""
    total_shared = total_md = lines_shared = lines_md = 0
    print(f"{'pair':58} {'shared expr':>12} {'shared lines':>13}")
    for html, md in PAIRS:
        twin = TEMPLATES / md
        h, m = (TEMPLATES / html).read_text("utf-8"), twin.read_text("utf-8") if twin.exists() else ""
        shared, own = sum((expressions(h) & expressions(m)).values()), sum(expressions(m).values())
        same, lines = sum((text_lines(h) & text_lines(m)).values()), sum(text_lines(m).values())
        name = f"{html} / {md if twin.exists() else '(none: written once)'}"
        print(f"{name:58} {shared:>5}/{own:<6} {same:>6}/{lines:<6}")
        if (html, md) == VOCABULARY:
            continue
        total_shared, total_md, lines_shared, lines_md = (
            total_shared + shared,
            total_md + own,
            lines_shared + same,
            lines_md + lines,
        )
    share = total_shared / total_md if total_md else 0.0
    totals = f"{total_shared:>5}/{total_md:<6} {lines_shared:>6}/{lines_md:<6}"
    print(f"{'all page pairs':58} {totals} ({share:.0%} of expressions)")
    longest = max(
        (len(line), str(p.relative_to(TEMPLATES)))
        for p in TEMPLATES.rglob("*")
        if p.is_file()
        for line in p.read_text("utf-8").splitlines()
    )
    print(f"longest template line: {longest[0]} characters ({longest[1]})")


if __name__ == "__main__":
    main()
