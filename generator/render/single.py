"""The single-file report: one HTML file per version, to attach to a release, with nothing outside it.

``report.html`` is rendered, never rewritten: it renders each benchmark's leaderboard and disclosures
from the report model with the partials their own pages render (``<family>/_leaderboard.html``,
``_disclosures.jinja``), each given an :class:`Anchors` value as ``anchors`` in its context. A
partial writes every id through ``anchor(name)``, every link through the ``a`` macro of
``_blocks.html`` (``href(target, fragment, local)``) and input Markdown through the ``md`` filter,
and each asks the partial's ``anchors``:

- on a benchmark's own page (:data:`ON_PAGE`) ids are as written and links relative to the page;
- in the report (:func:`standalone`) ids are namespaced per benchmark (``<bench>-`` for the
  leaderboard, ``<bench>-d-`` for the disclosures) so they stay unique, in-page links follow them,
  and a link to another file is plain text (``<span class="ref">``: the file must stand alone) or,
  when the site has a base URL, an absolute link to that file of the published version online (a
  link to another site, from input Markdown, is kept as written).
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from urllib.parse import urlsplit


@dataclass(frozen=True)
class Anchors:
    """How a partial writes its ids and links: on its own page, or as a part of the single-file report."""

    prefix: str | None = None
    """The namespace of the partial's ids in the report (``<bench>``, ``<bench>-d``); None on its own page."""
    version: str = ""
    """The report's version: the folder, in the site, of the page the partial stands for."""
    online: str | None = None
    """The site's base URL, under which the report links other files; None: they are named in plain text."""

    def id(self, name: str) -> str:
        """The id the partial writes for ``name``."""
        return name if self.prefix is None else f"{self.prefix}-{name}"

    def link(self, page: str, href: str) -> str | None:
        """Where a link written on ``page`` (a path in the version) as ``href`` (relative to the page,
        a ``#fragment`` or another site's address) leads from here; None: nowhere, shown as text."""
        if href.startswith("#"):
            return "#" + self.id(href[1:])
        if self.prefix is None:
            return href
        if self.online is None:
            return None
        if urlsplit(href).scheme or href.startswith("//"):
            return href
        path, hash_, fragment = href.partition("#")
        folder = posixpath.dirname(f"{self.version}/{page}")
        return self.online + posixpath.normpath(posixpath.join(folder, path)) + hash_ + fragment


ON_PAGE = Anchors()
"""A partial on its own page: its ids as written, its links relative to the page."""


def standalone(prefix: str, version: str, online: str | None) -> Anchors:
    """A partial as a part of version ``version``'s single-file report, its ids under ``prefix``;
    ``online``: the site's base URL (None: links to other files become text)."""
    return Anchors(prefix=prefix, version=version, online=online)
