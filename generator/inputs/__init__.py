"""Inputs: the first stage. Reads what a user gives, strictly, and verifies it: seals and every
sealed file's bytes (``seal``, ``files``), benchmark and run folders (``discover``), strict JSON with
exact numbers (``jsonio``), the site's own configuration (``siteconfig``), text as a reader sees it
(``readable``), the generator's own identity (``identity``) and what differs between systems
(``portable``).

In: the inputs root, ``benchsite.toml`` and the site flags.
Out: verified folders (``discover.VerifiedFolder``: every file's bytes read once and hashed), parsed
JSON, the ``SiteLook``, digests.
May import: the shared leaves (``errors``, ``canon``) and the standard library, pydantic and
``jiter``; no later stage. The no-op rebuild runs on ``seal``, ``files``, ``discover``,
``identity`` and ``portable`` with the standard library alone.
"""
