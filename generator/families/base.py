"""What a rubric family provides, and the context the pipeline hands it."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from pydantic import BaseModel

from generator.errors import Problem
from generator.inputs import VerifiedFolder
from generator.report import Disclosures, FamilySection


@dataclass(frozen=True)
class BenchmarkContext:
    """A verified benchmark folder with its declaration and contract already validated."""

    id: str
    label: str
    """The folder as the user named it, for messages (e.g. ``runs/agent-dx``)."""
    folder: VerifiedFolder
    declaration: Any
    contract: Any
    rubric_sha256: str
    reveal: VerifiedFolder | None = None
    """The family's reveal folder, when it has one and this build includes reveals."""
    extras: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class RunScored:
    """What scoring one run yields: a small summary kept in the report, and the run's rows,
    which the score stage spools to disk at once (never all runs' rows in memory together)."""

    summary: Any
    detail: BaseModel


class Family(ABC):
    """A rubric family: input models plus pure scoring, wired into the pipeline here."""

    name: ClassVar[str]
    declaration_model: ClassVar[type[BaseModel]]
    contract_model: ClassVar[type[BaseModel]]
    reveal_folder: ClassVar[str | None] = None
    """A sealed subfolder that is not a run but a reveal of blind identities (excluded from blind builds)."""

    @abstractmethod
    def prepare(self, bench: BenchmarkContext) -> tuple[Any, list[Problem]]:
        """Benchmark-level rules beyond the schemas; returns state handed to the other two methods."""

    @abstractmethod
    def score_run(
        self, bench: BenchmarkContext, state: Any, run_id: str, run: VerifiedFolder
    ) -> tuple[RunScored | None, list[Problem]]:
        """Parse and score one verified run; fold its figures into ``state``; return summary + rows."""

    @abstractmethod
    def finish(
        self, bench: BenchmarkContext, state: Any, runs: list[Any]
    ) -> tuple[FamilySection, Disclosures, list[Problem]]:
        """Aggregate the per-run results into the family's report section and disclosures."""
