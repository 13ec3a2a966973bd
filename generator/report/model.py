"""The computed report model: the one thing every surface (HTML, Markdown, JSON) is rendered from.

Every figure a page shows is a field here. Templates display these values; they never compute.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal, Union

from pydantic import Field

from generator.families.base import Section
from generator.families.registry import FAMILIES
from generator.figures.disclosures import Disclosures
from generator.figures.headline import Headline
from generator.figures.model import Model
from generator.figures.ranking import Ranking

REPORT_SCHEMA_VERSION: Literal[1] = 1


class SealedInput(Model):
    """One sealed folder the build read, with the digest (sha256 of its SHA256SUMS)."""

    path: str
    digest: str


if TYPE_CHECKING:
    FamilySection = Section
else:
    FamilySection = Annotated[
        Union[tuple(family.section_model for family in FAMILIES.values())],  # noqa: UP007
        Field(discriminator="family"),
    ]
"""A benchmark's section: one of the registered families' section models, told apart by ``family``.
Generic code sees only the ``Section`` protocol; each family's templates read its own fields."""


class BenchmarkReport(Model):
    """Everything published about one benchmark."""

    id: str
    title: str
    description: str
    family: str
    rubric_file: str
    rubric_sha256: str
    inputs: tuple[SealedInput, ...]
    run_count: int = Field(description="Sealed run folders scored.")
    disclosures: Disclosures
    section: FamilySection
    rankings: tuple[Ranking, ...] = Field(description="Leaderboards with rank bands, from the section.")
    headline: Headline = Field(description="Who leads on the primary ranking, worded by the family.")


class SiteReport(Model):
    """One build: every benchmark, the inputs it rests on, and the generator that computed it."""

    schema_version: Literal[1] = REPORT_SCHEMA_VERSION
    generator: str = Field(description="'benchsite <version>'.")
    site_version: str
    inputs_digest: str = Field(description="sha256 over every sealed folder's path and digest.")
    benchmarks: tuple[BenchmarkReport, ...]


class BuiltBenchmark(Model):
    id: str
    title: str
    family: str
    status: str | None = Field(description="The contract's status line, when it has one.")
    headline: str = Field(default="", description="The benchmark's headline (empty from older generators).")


class BuildRecord(Model):
    """``data/build.json``: what identifies a published version."""

    schema_version: Literal[1] = 1
    site_version: str
    generator: str
    generator_digest: str = Field(
        default="",
        description="sha256 over the generator's code, templates and schemas (empty from older generators); "
        "not part of a version's identity check, only of the no-op rebuild's.",
    )
    inputs_digest: str
    benchmarks: tuple[BuiltBenchmark, ...]
    files: dict[str, str] = Field(
        default_factory=dict,
        description="sha256 of every other file of the version, by path (empty from older generators): "
        "a no-op rebuild checks the published bytes against them.",
    )


class LatestHeadline(Model):
    """One benchmark's headline, as the site's home page shows it for the latest version."""

    id: str
    title: str
    headline: Headline


class Headlines(Model):
    """A version's benchmarks and their headlines, in the report's order: the home page's "who leads".
    The whole ``Headline``, so what a headline says beside its sentence reaches the home page too. Not
    a published file: kept in the run cache (``publish.past``) and rendered into ``site/index.html``."""

    benchmarks: tuple[LatestHeadline, ...]


def headlines(report: SiteReport) -> Headlines:
    """Each benchmark of a version with its headline, from the version's report."""
    return Headlines(
        benchmarks=tuple(
            LatestHeadline(id=bench.id, title=bench.title, headline=bench.headline)
            for bench in report.benchmarks
        )
    )
