"""What every importer reads a producer's files into: plain frozen values, no I/O, no pydantic.

The seam between a producer's format and benchsite's: an importer (``importers.inspect``,
``importers.lm_eval``, ``importers.eee``) reads its files into an :class:`Imported`, and the writer
(``importers.write``) turns that into a sealed trials benchmark folder. Nothing here is a score:
a check's state is what the producer's own scorer said, mapped to pass / fail / not_evaluable by a
rule the importer states in :attr:`Imported.success`; benchsite computes every figure afterwards.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Terminal = Literal["completed", "error", "timeout"]
"""How a sample ended: scored (``completed``), raised or was refused (``error``), or hit a time limit."""
CheckState = Literal["pass", "fail", "not_evaluable"]
"""A check's state: the producer's scorer said correct / not correct, or gave no usable value."""


@dataclass(frozen=True)
class SourceFile:
    """One of the producer's own files, kept byte for byte and sealed inside the run folder."""

    name: str
    """Its file name (no folder part): the name the producer gave it."""
    data: bytes


@dataclass(frozen=True)
class Observation:
    """One sample of one epoch, as the producer recorded it: one trial of the plan."""

    sample_id: str
    """The producer's sample id, as text (an integer id reads as its decimal digits)."""
    epoch: int
    """1-based repetition of the sample (1 for producers without epochs)."""
    terminal: Terminal
    checks: tuple[tuple[str, CheckState], ...]
    """(check id, state), one per check of :attr:`Imported.checks` the producer scored; a check it
    did not score is left out (the scoring specification reads it as not evaluable)."""
    failure_code: str | None = None
    """Why the trial did not complete (``error``, ``limit:time``…), None when it completed."""
    elapsed_ms: int | None = None
    """Wall time of the sample in whole milliseconds (from the producer's decimal text), if recorded."""
    tokens_in: int | None = None
    tokens_out: int | None = None
    values: tuple[tuple[str, str], ...] = ()
    """(check id, the producer's own value as text: ``C``, ``0.5``, ``true``) for the run page."""


@dataclass(frozen=True)
class Reported:
    """A figure the producer computed itself. Shown beside benchsite's own figure, never used."""

    name: str
    """The producer's name for it (``accuracy``)."""
    check: str
    """The check (scorer / metric) it is of."""
    value: str
    """Exactly as the producer wrote it (the JSON number's text, never re-rounded)."""
    basis: str
    """How the producer computed it, in words (epochs reduced by mean, errored samples left out…)."""


@dataclass(frozen=True)
class ImportedRun:
    """One (task, model, producer file): one run folder."""

    subject: str
    """The model (or agent) by the name people know it by: ``mockllm/model``, ``Qwen/Qwen3-8B``."""
    task: str
    """The task (dataset) the samples come from; a prompt corpus of the benchmark."""
    planned: tuple[tuple[str, int], ...]
    """Every (sample id, epoch) the producer declared it would run, in its order: the denominator.
    A planned pair without an observation is a missing result (a failure)."""
    observations: tuple[Observation, ...]
    sources: tuple[SourceFile, ...]
    """The producer's own files this run was read from, byte for byte."""
    producer: str
    """Producer and version, and the file format's version: ``inspect_ai 0.3.285, log format 2``."""
    status: str
    """The producer's own status of the run (``success``, ``error``, ``cancelled``, ``started``)."""
    reported: tuple[Reported, ...] = ()
    notes: tuple[str, ...] = ()
    """What the importer must disclose about this run (an unfinished log imported on request…)."""
    blind_notes: tuple[str, ...] | None = None
    """The notes as a blind import writes them, when :attr:`notes` quote producer text that may name
    the model (an EEE ``evaluation_id``, another results file's model): the same disclosures with
    that text left out. None when no note quotes such text (a blind import writes :attr:`notes`)."""
    created: str = ""
    """The producer's timestamp of the run, as text (orders runs; shown)."""
    variant: str = ""
    """What tells this run from another run of the same :attr:`subject` in the import (lm-eval:
    ``seed=1``, ``dtype=bfloat16``, ``run 2026-12-06T05-07-39.1``), empty when no other run of the
    model shares a task with it. Never part of the model's name; the run's notes explain it."""

    @property
    def who(self) -> str:
        """The subject and, when set, its variant: one run of one model (``dummy seed=1``)."""
        return f"{self.subject} {self.variant}" if self.variant else self.subject


@dataclass(frozen=True)
class Imported:
    """Everything an importer read: the benchmark's checks, the rule that made their states, its runs."""

    producer: str
    """Short name of the producer: ``inspect_ai``, ``lm-eval``, ``every-eval-ever``."""
    checks: tuple[str, ...]
    """The required checks of every sample: the scorers or metrics that decide success."""
    success: str
    """The rule that turned the producer's values into pass / fail, in words: shown in the rubric."""
    runs: tuple[ImportedRun, ...]
    task_checks: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """(task, the checks its samples require) for a task decided by checks other than all of
    :attr:`checks` (lm-eval: each task's own metric); a task not listed requires every check."""
    left_out: tuple[str, ...] = ()
    """What the producer's files list but the import could not derive, in words (lm-eval: a task
    without its per-sample file). The runs' notes disclose it; the command's summary names it."""

    def required_checks(self, task: str) -> tuple[str, ...]:
        """The checks every sample of ``task`` must pass."""
        return dict(self.task_checks).get(task, self.checks)
