"""The computed report model: the one thing every surface (HTML, Markdown, JSON) is rendered from.

Every figure a page shows is a field here. Templates display these values; they never compute.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from generator.families.components.report import ComponentsSection
from generator.families.definitions.report import DefinitionsSection
from generator.families.points.report import PointsSection
from generator.families.trials.report import TrialsSection
from generator.figures import Model
from generator.headline import Headline
from generator.ranking import Ranking

REPORT_SCHEMA_VERSION: Literal[1] = 1


class Interpretation(Model):
    """A reading benchsite chose where the rubric's prose admits more than one."""

    id: str = Field(description="Stable anchor id, e.g. 'points-mandatory-checks'.")
    text: str = Field(description="The contract's words this reading is about.")
    reading: str = Field(description="What benchsite implements.")


class ProvenanceHash(Model):
    """A hash the contract carries about its own source, and whether benchsite re-verified it."""

    name: str
    sha256: str
    state: Literal["verified", "not re-verified (source not supplied)"]
    source: str | None = Field(description="Sealed file the hash was checked against.")


class SealedInput(Model):
    """One sealed folder the build read, with the digest (sha256 of its SHA256SUMS)."""

    path: str
    digest: str


class Disagreement(Model):
    """A producer's own verdict that differs from the one benchsite recomputed."""

    run: str
    item: str
    producer: str
    recomputed: str
    anchor: str = Field(default="", description="Where on the run page the item is; empty for the page.")


class BlindRecord(Model):
    """Who was scored blind, by whom, and whether identities are revealed."""

    subjects_blind: bool
    statement: str
    evaluator_hashes: tuple[str, ...]
    identities_revealed: bool
    scores_frozen_in: str | None = Field(
        description="Earlier version whose frozen scores this version's reveal applies to; None if no reveal."
    )


class Disclosures(Model):
    """SPEC §4: what every report carries about its own limits."""

    status: str | None = Field(description="The contract's own status line, verbatim; None if it has none.")
    limitations: tuple[str, ...] = Field(description="The rubric's limitations, verbatim (may be none).")
    own_limitations: tuple[str, ...] = Field(description="What benchsite's own figures cannot say.")
    interpretations: tuple[Interpretation, ...]
    blind: BlindRecord
    excluded_counts: tuple[tuple[str, int], ...] = Field(
        description="(label, count): invalid, inconclusive and other items kept out of figures."
    )
    unavailable: tuple[tuple[str, int], ...] = Field(
        description="(metric, count): metrics unavailable and excluded, never zero."
    )
    floors_note: str | None
    corrections: tuple[str, ...]
    disagreements: tuple[Disagreement, ...]
    provenance: tuple[ProvenanceHash, ...]


FamilySection = Annotated[
    PointsSection | TrialsSection | ComponentsSection | DefinitionsSection, Field(discriminator="family")
]


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
