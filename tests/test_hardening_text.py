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
import yaml  # type: ignore[import-untyped]

from generator import mkdocs_export
from generator.mkdocs_export import nav_yaml
from generator.render import md_html
from generator.score import score_inputs
from tests.conftest import CORPUS

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
    scored = score_inputs(CORPUS, "v1")
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
