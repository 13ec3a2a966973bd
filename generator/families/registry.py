"""Rubric families by name. A new family is a subpackage ``generator/families/<name>/`` with a
:class:`~generator.families.base.Family` subclass, its templates in ``templates/<name>/``, and one
line in ``REGISTERED`` (docs/architecture.md, "Adding a family"; tests/test_family_seam.py does it)."""

from __future__ import annotations

import importlib

from generator.families.base import AnyFamily, Family

REGISTERED = (
    "generator.families.points.family:PointsFamily",
    "generator.families.trials.family:TrialsFamily",
    "generator.families.components.family:ComponentsFamily",
    "generator.families.definitions.family:DefinitionsFamily",
)
"""Each family's class as ``module:Class``: adding a family adds one line here."""


def load(entry: str) -> AnyFamily:
    """The family instance that a ``module:Class`` entry names."""
    module, _, name = entry.partition(":")
    family = getattr(importlib.import_module(module), name)()
    if not isinstance(family, Family):
        raise TypeError(f"{entry} is not a Family")
    return family


FAMILIES: dict[str, AnyFamily] = {family.name: family for family in map(load, REGISTERED)}
"""Rubric families, registered by name: each is typed input models, a scoring specification and
an engine parameterised by it."""
