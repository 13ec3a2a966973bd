"""Rubric families by name. A new family is a module with a :class:`Family` and one line here."""

from __future__ import annotations

from generator.families.base import Family
from generator.families.components.family import ComponentsFamily
from generator.families.definitions.family import DefinitionsFamily
from generator.families.points.family import PointsFamily
from generator.families.trials.family import TrialsFamily

FAMILIES: dict[str, Family] = {
    family.name: family
    for family in (PointsFamily(), TrialsFamily(), ComponentsFamily(), DefinitionsFamily())
}
