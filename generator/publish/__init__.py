"""Publish: the only stage that writes the site. ``write`` holds the site lock, stages a version
beside the site, places its files (hard links to the last version's equal files, read-only),
checks an existing version for identity, and publishes with one rename; ``past`` derives what
earlier versions yield once per content; ``blind_scan`` checks that a blind version shows no
revealed provider name before it is published; ``rederive`` reads a published version and its
re-derivation for the auditor's check (``build.rederive``).

In: the rendered files of a version, the site folder, earlier versions.
Out: ``site/<version>/``, ``index.html``, ``versions.json``, ``badges/``.
May import: every earlier stage and the shared leaves. The build (``generator.build``) hands it the
renderer of the site-level pages.
"""
