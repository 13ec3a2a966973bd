"""Rubric families by name. A new family is a subpackage ``generator/families/<name>/`` with a
:class:`~generator.families.base.Family` subclass, and one line here."""

from __future__ import annotations

from generator.families.base import AnyFamily
from generator.families.components.family import ComponentsFamily
from generator.families.definitions.family import DefinitionsFamily
from generator.families.points.family import PointsFamily
from generator.families.trials.family import TrialsFamily

FAMILIES: dict[str, AnyFamily] = {
    family.name: family
    for family in (PointsFamily(), TrialsFamily(), ComponentsFamily(), DefinitionsFamily())
}
"""Rubric families, registered by name: each is typed input models, a scoring specification and
an engine parameterised by it."""
