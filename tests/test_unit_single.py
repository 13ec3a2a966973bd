"""Unit tests of ``generator.single``: a page's partial rewritten to stand alone in the single-file
report (ids namespaced, in-page links kept, other links plain text or absolute online)."""

from __future__ import annotations

from markupsafe import Markup

from generator.single import standalone

PAGE = "v1/b/bench/index.html"
HTML = (
    '<h2 id="top">T</h2><table aria-labelledby="top cap"><caption id="cap">C</caption></table>'
    '<a href="#top" class="x">back</a> <a href="../../runs/r1.html">run r1</a>'
)


def test_ids_and_their_references_move_under_the_prefix() -> None:
    out = standalone(HTML, "b1")
    assert isinstance(out, Markup)
    assert 'id="b1-top"' in out and 'id="b1-cap"' in out and 'id="top"' not in out
    assert 'aria-labelledby="b1-top b1-cap"' in out
    assert '<a href="#b1-top" class="x">back</a>' in out


def test_without_a_base_url_a_link_to_another_file_becomes_plain_text() -> None:
    out = standalone(HTML, "b1", (PAGE, None))
    assert '<span class="ref">run r1</span>' in out
    assert "r1.html" not in out


def test_with_a_base_url_a_link_is_absolute_from_the_pages_own_folder() -> None:
    out = standalone(HTML, "b1", (PAGE, "https://example.org/site/"))
    assert '<a href="https://example.org/site/v1/runs/r1.html">run r1</a>' in out
    assert '<a href="#b1-top" class="x">back</a>' in out  # in-page links stay in the page


def test_an_attribute_ending_in_id_is_not_an_id() -> None:
    assert standalone('<p valid="x" hid="y">z</p>', "b1") == '<p valid="x" hid="y">z</p>'
