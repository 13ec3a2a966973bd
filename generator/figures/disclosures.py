"""What every report carries about its own limits (SPEC §4): the disclosures a family's ``finish``
returns beside its section, in models no stage beyond scoring needs to import from the report."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from generator.figures.model import Model


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
