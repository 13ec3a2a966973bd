"""Unit tests of ``generator.render.single``: how a partial writes its ids and links on its own page and as a
part of the single-file report (ids namespaced, in-page links following them, other links plain text
or absolute online), and the same for links in input Markdown (``render.md_html``)."""

from __future__ import annotations

from generator.render.pages import md_html
from generator.render.single import ON_PAGE, standalone

PAGE = "b/bench/index.html"
ONLINE = "https://example.org/site/"


def test_on_its_own_page_a_partial_writes_ids_and_links_as_given() -> None:
    assert ON_PAGE.id("leaderboard") == "leaderboard"
    for href in ("#top", "runs/r1.html", "../../index.html", "https://example.com/x"):
        assert ON_PAGE.link(PAGE, href) == href


def test_in_the_report_ids_and_in_page_links_move_under_the_prefix() -> None:
    for anchors in (standalone("b1", "v1", None), standalone("b1", "v1", ONLINE)):
        assert anchors.id("leaderboard") == "b1-leaderboard"
        assert anchors.link(PAGE, "#leaderboard") == "#b1-leaderboard"


def test_without_a_base_url_a_link_to_another_file_or_site_leads_nowhere() -> None:
    anchors = standalone("b1", "v1", None)
    for href in ("runs/r1.html", "../../v0/index.html", "https://example.com/x", "mailto:a@b.c"):
        assert anchors.link(PAGE, href) is None, href


def test_with_a_base_url_a_link_is_absolute_from_the_pages_own_folder() -> None:
    anchors = standalone("b1", "v1", ONLINE)
    assert anchors.link(PAGE, "runs/r1.html#row-a/../b") == f"{ONLINE}v1/b/bench/runs/r1.html#row-a/../b"
    assert anchors.link(PAGE, "../../../v0/index.html") == f"{ONLINE}v0/index.html"
    assert anchors.link("b/bench/disclosures.html", "../../data/x.json") == f"{ONLINE}v1/data/x.json"


def test_with_a_base_url_a_link_to_another_site_is_kept_as_written() -> None:
    anchors = standalone("b1", "v1", ONLINE)
    for href in ("https://example.com/a?b=1", "//example.com/a", "mailto:a@b.c"):
        assert anchors.link(PAGE, href) == href


TEXT = 'See [top](#top), [run](runs/r1.html "a title") and [site](https://example.com/a?b=1&c=2).'


def test_markdown_links_on_their_own_page_are_as_markdown_writes_them() -> None:
    html = md_html(TEXT)
    assert '<a href="#top">top</a>' in html and '<a href="runs/r1.html" title="a title">run</a>' in html
    assert md_html(TEXT, ON_PAGE, PAGE) == html


def test_markdown_links_in_the_report_without_a_base_url_are_text_but_in_page_ones() -> None:
    html = md_html(TEXT, standalone("b1", "v1", None), PAGE)
    expected = '<a href="#b1-top">top</a>, <span class="ref">run</span> and <span class="ref">site</span>'
    assert html == f"<p>See {expected}.</p>\n"


def test_markdown_links_in_the_report_online_keep_their_title_and_lead_online() -> None:
    html = md_html(TEXT, standalone("b1", "v1", ONLINE), PAGE)
    assert f'<a href="{ONLINE}v1/b/bench/runs/r1.html" title="a title">run</a>' in html
    assert '<a href="https://example.com/a?b=1&amp;c=2">site</a>' in html
    assert '<a href="#b1-top">top</a>' in html
