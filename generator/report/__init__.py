"""Report: the one computed model every surface is rendered from (``model``: ``SiteReport``,
``BenchmarkReport``, ``BuildRecord``), and what is derived from two versions' reports (``changes``:
what changed since the version before; ``history``: the history points of each ranking).

In: the benchmarks' sections (the families' models, through the registry) and figures.
Out: the frozen report models (``data/site.json`` is ``SiteReport`` dumped) and the changes and
history derived from them.
May import: ``inputs``, ``figures``, ``families`` (the registry and the seam) and the shared leaves.
It computes no score: the score stage fills it in.
"""
