"""Figures: the vocabulary every benchmark's fold computes with. The frozen figure models
(``model``: rates, intervals, the ``Model`` base), exact statistics (``stats``, scipy), rankings with
rank bands (``ranking``), headlines (``headline``), disclosures (``disclosures``), number formats
(``numbers``, ``units``).

In: counts and exact values a family's fold hands over.
Out: frozen figure models, stored in each benchmark's section.
May import: ``inputs`` and the shared leaves; pydantic and scipy. No family, no report, no renderer:
every family builds its section from these.
"""
