"""Score: the map over runs and the fold. ``run`` composes a benchmark's steps (read, prepare,
score each run, fold, finish, render each run's pages with the renderer the build hands in,
report); ``workers`` scores one run (verified against its seal) in a forked process (``pool``) or on
a dask cluster (``cluster``); ``cache`` keeps what a run yields under its seal's digest, signed with
the user's key (``userkey``); ``details`` and ``spool`` keep each run's rows and pages outside
memory until the writer takes them.

In: verified inputs, the families, the ``SiteLook``, and the page renderer (``ScoreOptions.pages``).
Out: one ``report.model.SiteReport`` and the run details (``details.Details``).
May import: ``inputs``, ``figures``, ``families``, ``report`` and the shared leaves; never the
renderer (it is handed in), the writer or click.
"""
