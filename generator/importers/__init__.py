"""``benchsite import``: other tools' result files written as new sealed benchmark folders.

In: a producer's own files (inspect_ai logs, lm-evaluation-harness output, Every Eval Ever records).
Out: a new benchmark folder under the inputs root, in benchsite's own trials formats, sealed, with
the producer's files byte for byte inside each run folder; the ``inputs`` stage reads it like any
other. An importer is a module with one ``read`` function: the producer's files in, an
:class:`~generator.importers.model.Imported` out, or a ``ProblemReport`` naming each file, place and
reason; the shared writer (``importers.write``) turns any ``Imported`` into the folder.
docs/importers.md says how to add one.
May import: the leaves only (errors, canon): an importer knows the producer's format and the
folder it writes, never how a family scores it.
"""
