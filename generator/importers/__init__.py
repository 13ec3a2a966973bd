"""``benchsite import``: other producers' result files turned into sealed benchmark folders.

An importer is a module with one ``read`` function: a producer's files in, an :class:`Imported`
(``importers.model``) out, or a ``ProblemReport`` naming each file, place and reason. The shared
writer (``importers.write``) turns any ``Imported`` into a trials benchmark folder, sealed, with the
producer's files byte for byte inside each run folder. docs/importers.md says how to add one.
"""
