"""Rubric families: each is one package (``points``, ``trials``, ``components``, ``definitions``)
holding its input models, its scoring specification, its engine, its report section, its run pages'
row writer (``<family>/rows.py``) and its own commands (``definitions/compare.py``). Generic code
reaches a family only through the typed seam (``base.Family``) and the registry (``registry``); the
shared parts are ``input_base`` (strict input models, limits, ``Shown`` text), ``specs`` (where a
specification comes from), ``rules``, ``rubric`` (``benchsite rubric``) and ``rows`` (the row-writer
base a family's rows use).

In: a benchmark's verified folder (declaration, contract, scoring specification, runs).
Out: per run a summary, rows and a share of the aggregates; per benchmark a finished section of
figures and a run view.
May import: ``inputs``, ``figures`` and the shared leaves. A family's ``rows`` module is render code
(markupsafe, Jinja's context), imported by the renderer alone; no family imports another.
"""
