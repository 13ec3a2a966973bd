"""The single-file report: one HTML file per version, to attach to a release, with nothing outside it.

``report.html`` renders each benchmark's leaderboard and disclosures from the report model, with the
partials their own pages render (``<family>/_leaderboard.html``, ``_disclosures.jinja``), each
through the ``standalone`` filter: ids are namespaced per benchmark so they stay unique, in-page
fragment links follow them, and links to other files become plain text (the file must stand
alone), or, when the site has a base URL, absolute links to the published version online. All
text from inputs is escaped by the time the filter sees it, so every ``<a`` and ``id=`` it
rewrites is the generator's own markup.
"""

from __future__ import annotations

import posixpath
import re

from markupsafe import Markup

LINK = re.compile(r'<a href="([^"]*)"([^>]*)>(.*?)</a>', re.S)
ID = re.compile(r'\bid="([^"]*)"')
LABELLED = re.compile(r'\baria-labelledby="([^"]*)"')


def standalone(html: str, prefix: str, origin: tuple[str, str | None] = ("", None)) -> Markup:
    """A page's main content (a leaderboard's or disclosures' partial, rendered for its own page's
    path), with ids under ``prefix`` and only in-page links left; ``origin`` is that page's path in
    the site (``<version>/b/<id>/index.html``) and the site's base URL (None: no base URL), under
    which its other links are kept, absolute."""
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
