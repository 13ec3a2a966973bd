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

import re

import pytest

from generator.render import md_html

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
