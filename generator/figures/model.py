"""Figures the report publishes: the frozen base model, rates, intervals and means.

Models are frozen and strict; sequences are tuples; floats are finite (NaN is never stored: a
figure that cannot be computed is ``None`` and says why next to it).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import PurePosixPath

from pydantic import BaseModel, ConfigDict, Field


class Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)


class SectionDefaults(Model):
    """What a family section says when it has no frozen scores and no reveal (most families)."""

    def frozen_scores(self) -> bytes | None:
        return None

    def reveal_citation(self) -> tuple[str, str] | None:
        return None

    def revealed_names(self) -> tuple[str, ...]:
        return ()

    def attachments(self) -> tuple[tuple[str, str, str, int], ...]:
        """(run id, file name, sha256, size) of each producer file the site publishes beside its run
        (where: :func:`producer_file_path`)."""
        return ()


INERT_SUFFIXES: Mapping[str, str] = {".json": ".json", ".eval": ".zip", ".zip": ".zip"}
"""The suffix a producer's file is published under, by its own (lower-cased): types that every
browser and static host knows and none runs or sniffs as a page; any other file is ``.txt``."""


def producer_file_path(name: str, sha256: str) -> str:
    """Where a producer's file is published, under its run's folder: a name the site chooses, never
    the producer's (``evil.html``, ``page-2.html`` or ``x.svg`` would be a page of the site's origin,
    or one it writes itself): ``files/<sha256><inert suffix>``, the same bytes at the same path."""
    suffix = INERT_SUFFIXES.get(PurePosixPath(name).suffix.lower(), ".txt")
    return f"files/{sha256}{suffix}"


class Interval(Model):
    """A confidence interval: exact on a proportion, Student t on a mean (``method`` says which)."""

    low: float = Field(description="Lower bound.")
    high: float = Field(description="Upper bound.")
    confidence: float = Field(description="Confidence level, e.g. 0.95.")
    method: str = Field(description="Test, sidedness and implementation.")
    n: int = Field(description="Number of trials the interval rests on.")


class Rate(Model):
    """A proportion published as integers, never as a rounded rate alone."""

    numerator: int
    denominator: int
    basis_points: int | None = Field(description="floor(10000·n/d); None when d = 0.")
    interval: Interval | None = Field(description="Exact 95% interval; None when d = 0.")


class Mean(Model):
    """A mean over the observations that had a value; ``n`` says how many."""

    value: float | None = Field(description="None when n = 0 (never shown as zero).")
    n: int
