"""The single-file report: one HTML file per version, to attach to a release, with nothing outside it.

It is assembled from the pages this version already rendered: each benchmark's leaderboard and
disclosures, their ``<main>`` taken whole. Ids are namespaced per benchmark so they stay unique,
in-page fragment links follow them, and links to other files become plain text (the file must
stand alone), or, when the site has a base URL, absolute links to the published version online.
All text from inputs was escaped when the pages were rendered, so every ``<a``, ``id=`` and
``<main`` this module sees is the generator's own markup.
"""

from __future__ import annotations

import posixpath
import re

from markupsafe import Markup

MAIN = re.compile(r'<main id="main">\n?(.*)</main>', re.S)
LINK = re.compile(r'<a href="([^"]*)"([^>]*)>(.*?)</a>', re.S)
ID = re.compile(r'\bid="([^"]*)"')
LABELLED = re.compile(r'\baria-labelledby="([^"]*)"')


def main_of(page: str) -> str:
    found = MAIN.search(page)
    if found is None:  # our own templates always have one; a missing one is a generator bug
        raise ValueError('a rendered page has no <main id="main">')
    return found.group(1)


def standalone(html: str, prefix: str, origin: tuple[str, str | None] = ("", None)) -> Markup:
    """One page's main content, with ids under ``prefix`` and only in-page links left; ``origin``
    is the page's path in the site (``<version>/b/<id>/index.html``) and the site's base URL (None:
    no base URL), under which its other links are kept, absolute."""
    page, online = origin

    def link(match: re.Match[str]) -> str:
        target, rest, text = match.groups()
        if target.startswith("#"):
            return f'<a href="#{prefix}-{target[1:]}"{rest}>{text}</a>'
        if online is None:
            return f'<span class="ref">{text}</span>'
        path = posixpath.normpath(posixpath.join(posixpath.dirname(page), target))
        return f'<a href="{online}{path}"{rest}>{text}</a>'

    html = ID.sub(lambda m: f'id="{prefix}-{m.group(1)}"', html)
    html = LABELLED.sub(
        lambda m: 'aria-labelledby="' + " ".join(f"{prefix}-{t}" for t in m.group(1).split()) + '"', html
    )
    return Markup(LINK.sub(link, html))  # the generator's own escaped markup, rewritten
