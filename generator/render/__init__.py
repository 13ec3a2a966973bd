"""Render: the report as files. HTML pages (``pages``: one Jinja environment, autoescaped; the
families' row writers for run-page rows), charts as inline SVG (``charts``), the single-file report
(``single``), badges (``badges``), the Atom feed and sitemap (``syndication``), the mkdocs export
(``mkdocs_export``).

In: the ``SiteReport``, each run's details, the ``SiteLook``.
Out: bytes for each path of a version, added to the stage the writer gives (a sink), never written
by itself.
May import: every earlier stage (``inputs``, ``figures``, ``families``, ``report``, ``score``) and the
shared leaves; never the writer. scipy is not loaded here.
"""
