"""What a rubric family provides, and the context the pipeline hands it."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
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


class Family(ABC):
    """A rubric family: input models plus pure scoring, wired into the pipeline here."""

    name: ClassVar[str]
    declaration_model: ClassVar[type[BaseModel]]
    contract_model: ClassVar[type[BaseModel]]

    @abstractmethod
    def check_benchmark(self, bench: BenchmarkContext) -> list[Problem]:
        """Benchmark-level rules beyond the schemas (purpose vs status, provenance sources)."""

    @abstractmethod
    def score_run(
        self, bench: BenchmarkContext, run_id: str, run: VerifiedFolder
    ) -> tuple[Any, list[Problem]]:
        """Parse and score one verified run; return a small per-run result."""

    @abstractmethod
    def finish(self, bench: BenchmarkContext, runs: list[Any]) -> tuple[FamilySection, Disclosures]:
        """Aggregate the per-run results into the family's report section and disclosures."""
