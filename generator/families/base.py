"""What a rubric family provides, and the context the pipeline hands it."""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar, cast

from pydantic import BaseModel

from generator.canon import compact_json
from generator.errors import Problem, Result
from generator.families.input_base import SpecPin, spec_bounds
from generator.figures.disclosures import Disclosures
from generator.figures.model import Model
from generator.inputs.jsonio import load_json_bytes, load_model, validate_model
from generator.inputs.siteconfig import SiteLook

if TYPE_CHECKING:
    from generator.inputs.discover import VerifiedFolder

M = TypeVar("M", bound=BaseModel)
Decl = TypeVar("Decl", bound=BaseModel)
"""A family's ``benchmark.json`` model."""
Contract = TypeVar("Contract", bound=BaseModel)
"""A family's rubric contract, as ``Family.read_contract`` reads it."""
Spec = TypeVar("Spec", bound=BaseModel)
"""A family's scoring specification (``generator.families.specs``)."""
State = TypeVar("State")
"""What ``prepare`` returns: the compiled specification and the benchmark-wide facts, folded into."""
Part = TypeVar("Part", bound=BaseModel)
"""A run's share of the aggregates (``RunScored.part``)."""
Sec = TypeVar("Sec", bound=BaseModel)
"""A family's report section (``Section``)."""


@dataclass(frozen=True)
class BenchmarkContext(Generic[Decl, Contract]):
    """A verified benchmark folder with its declaration and contract already validated."""

    id: str
    label: str
    """The folder as the user named it, for messages (e.g. ``runs/agent-dx``)."""
    folder: VerifiedFolder
    declaration: Decl
    contract: Contract
    rubric_file: str
    """The contract's file name in the benchmark folder (pinned in ``benchmark.json``)."""
    rubric_sha256: str
    reveal: VerifiedFolder | None = None
    """The family's reveal folder, when it has one and this build includes reveals."""
    extras: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Finished(Generic[Sec]):
    """What ``Family.finish`` makes of a benchmark: its section of the report and its disclosures."""

    section: Sec
    disclosures: Disclosures


@dataclass(frozen=True)
class RunScored:
    """What scoring one run yields: a small summary kept in the report, the run's rows (which the
    score stage spools to disk at once, never all runs' rows in memory together), and the run's
    share of the benchmark's aggregates.

    ``part`` is data, not code: a frozen model that ``Family.fold`` merges into the benchmark's
    state. It crosses process boundaries and is kept in the run cache, so it is validated by
    ``Family.part_model`` whenever it is read back."""

    summary: BaseModel
    detail: BaseModel
    part: BaseModel


class RunStatus(Model):
    status: str | None


class RunView(Model):
    """What a run page shows of its benchmark: its title, its rubric status, and the few
    benchmark-wide facts its family's run template shows (``Family.run_section``). Never the
    version name or the inputs digest: a run page is the same in every version where its run and
    this view are unchanged, so it is kept in the run cache under the run's key and this view's
    digest, and rendered again only when either changes."""

    id: str
    title: str
    disclosures: RunStatus
    section: Any = None
    site: SiteLook = SiteLook()
    """How the site presents itself (name, accent, logo): its run pages are rendered again when it changes."""

    def digest(self) -> str:
        return hashlib.sha256(compact_json(self.model_dump(mode="json")).encode("utf-8")).hexdigest()


class Summary(Protocol):
    """What the pipeline and the shared templates read of a run's summary (``Family.summary_model``):
    its run id and its seal's digest (every run page's footer cites it)."""

    @property
    def id(self) -> str: ...

    @property
    def digest(self) -> str:
        """sha256 of the run folder's SHA256SUMS (``VerifiedFolder.digest``)."""
        ...


class Section(Protocol):
    """What the pipeline asks of every family's report section (its model, in ``<family>/report.py``).

    The section is a frozen pydantic model with a ``family`` literal; the leaderboard, methodology
    and run templates read its own fields, the pipeline only these."""

    family: str

    @property
    def runs(self) -> tuple[Summary, ...]:
        """The runs' summaries, in run order."""
        ...

    def detail_model(self) -> type[BaseModel]:
        """The type of a run's spooled rows (``RunScored.detail``)."""
        ...

    def frozen_scores(self) -> bytes | None:
        """The canonical bytes of the scores this section froze for a later reveal; None if none."""
        ...

    def reveal_citation(self) -> tuple[str, str] | None:
        """(version, digest) of the frozen scores this section's reveal applies to; None if no reveal."""
        ...

    def revealed_names(self) -> tuple[str, ...]:
        """The real names a reveal gives blind subjects (a blind version must show none of them)."""
        ...

    def attachments(self) -> tuple[tuple[str, str, str, int], ...]:
        """(run id, file name, sha256, size) of each input file the site publishes beside its run
        (an imported run's producer files); () for most families."""
        ...


class Family(ABC, Generic[Decl, Contract, Spec, State, Part, Sec]):
    """A rubric family: typed input models and a scoring specification, an engine parameterised by
    that specification, and the four steps the pipeline calls (``prepare``, ``score_run``, ``fold``,
    ``finish``). Adding a family is a subpackage ``generator/families/<name>/`` with such a class,
    one line in ``registry.py``, and its templates (docs/architecture.md)."""

    name: ClassVar[str]
    declaration_model: ClassVar[type[BaseModel]]
    contract_model: ClassVar[type[BaseModel]]
    spec_model: ClassVar[type[BaseModel] | None] = None
    """The family's scoring specification (``scoring.json``, or a contract's ``scoring`` object);
    None while a family's rules are code (docs/<family>.md states them)."""
    summary_model: ClassVar[type[BaseModel]]
    """A run's summary, as kept in the report."""
    part_model: ClassVar[type[BaseModel]]
    """A run's share of the aggregates (see ``RunScored.part``)."""
    section_model: ClassVar[type[BaseModel]]
    """The family's report section (``Section``)."""
    schemas: ClassVar[Mapping[str, type[BaseModel]]] = {}
    """The formats the family defines, by name (``benchsite schema <family>-<name>``)."""
    reveal_folder: ClassVar[str | None] = None
    """A sealed subfolder that is not a run but a reveal of blind identities (excluded from blind builds)."""
    row_writer: ClassVar[str | None] = None
    """The rows of its run pages' table written in Python, as ``module:function`` (a
    ``generator.families.rows.RowWriter``; the renderer alone imports it and names it ``<family>_rows`` in
    every template, for ``b.rows``); None: its ``_run.jinja`` writes them with the block macros,
    which is fine for a few rows a run and slow for thousands."""
    changes_model: ClassVar[type[BaseModel] | None] = None
    """What ``section_changes`` reports: its fields (each with a default) join every benchmark's
    record of changes in ``versions.json`` (``changes.BenchmarkChanges``); None: nothing of its own."""

    # --- the rubric contract and its scoring specification (generator.families.specs) -------------

    def read_contract(self, data: bytes, file: str) -> Result[Contract]:
        """Parse the pinned rubric file; by default a JSON contract validated by ``contract_model``, a
        ``scoring`` object in it first held to a specification's limits (``input_base.spec_bounds``)."""
        raw = load_json_bytes(data, file)
        if raw.value is None:
            return Result(None, raw.problems)
        scoring = raw.value.get("scoring") if isinstance(raw.value, dict) else None
        bounds = spec_bounds(scoring) if scoring is not None else None
        if bounds is not None:
            place, reason = bounds
            return Result(None, (Problem(file, "$.scoring" + place[1:], reason),))
        return cast(Result[Contract], validate_model(self.contract_model, raw.value, file))

    def recognises(self, raw: object) -> bool:
        """Whether a parsed contract (JSON, or None when the file is not JSON) has this family's shape:
        how ``benchsite rubric`` tells a contract's family."""
        return False

    def contract_spec(self, contract: Contract) -> Spec | None:
        """The specification the contract carries itself: its ``scoring`` object, when its model has
        one holding a ``spec_model`` (as ``spec_pin`` reads the declaration's ``scoring``)."""
        own = getattr(contract, "scoring", None)
        if self.spec_model is None or not isinstance(own, self.spec_model):
            return None
        return cast(Spec, own)

    def spec_pin(self, declaration: Decl) -> SpecPin | None:
        """The sealed ``scoring.json`` that ``benchmark.json`` pins (its ``scoring``), if any."""
        pin = getattr(declaration, "scoring", None)
        return pin if isinstance(pin, SpecPin) else None

    def builtin_spec(self, contract: Contract) -> Path | None:
        """The built-in specification file for a contract that states a seed contract's rules."""
        return None

    def agreement(self, spec: Spec, contract: Contract, contract_file: str, place: str) -> list[Problem]:
        """Where the contract's structured fields and the specification disagree, each problem naming
        both places (``place`` names the specification); none by default."""
        return []

    @abstractmethod
    def explain(self, spec: Spec) -> tuple[str, ...]:
        """Every rule of a specification as a sentence, in the order the engine applies them."""

    # --- the pipeline's steps ---------------------------------------------------------------------

    def run_section(self, section: Sec) -> BaseModel | None:
        """The facts of the finished section the family's run template shows; none by default."""
        return None

    def prepared_run_status(
        self, bench: BenchmarkContext[Decl, Contract], state: State
    ) -> tuple[RunStatus, BaseModel | None] | None:
        """What a run page shows of its benchmark (the status that ``finish`` discloses and
        ``run_section`` of the finished section) when the prepared state alone decides it, so each
        run's pages are rendered as soon as it is scored, from its rows in memory; None (the
        default) when it waits for every run, as judge agreement does. The pipeline compares it
        with the finished benchmark's and renders again where they differ. The pages are rendered
        from the run's rows as ``score_run`` made them, not as read back from their JSON: a family
        that says its view must have rows that read back equal (``RunScored.detail``, validated by
        the section's ``detail_model``; the golden site and the build tests compare every byte)."""
        return None

    def section_changes(self, before: Sec, after: Sec) -> BaseModel | None:
        """What moved in the family's own section from one version to the next, as a
        ``changes_model``, beyond what every benchmark reports (figures, folders, corrections, reveal);
        None when nothing did. Both sections are read through the report model (the earlier one from
        its version's ``data/site.json``). None by default."""
        return None

    def run_id(self, rel: str) -> str | None:
        """The run id of a sealed subfolder at ``rel``; None when this family has no run there."""
        return rel

    @abstractmethod
    def prepare(self, bench: BenchmarkContext[Decl, Contract]) -> Result[State]:
        """The specification resolved and compiled, and the benchmark-level rules beyond the schemas;
        returns the state handed to the other three steps (None when the benchmark cannot be scored;
        a state with problems when only its runs' scores would be refused)."""

    @abstractmethod
    def score_run(
        self, bench: BenchmarkContext[Decl, Contract], state: State, run_id: str, run: VerifiedFolder
    ) -> Result[RunScored]:
        """Parse and score one verified run on its own: summary, rows and its share of the aggregates.

        Runs are scored in worker processes and from the cache, so this reads ``state`` (what
        ``prepare`` returned) and never changes it: anything that spans runs belongs in ``fold``."""

    @abstractmethod
    def fold(
        self, bench: BenchmarkContext[Decl, Contract], state: State, run_id: str, part: Part
    ) -> list[Problem]:
        """Merge one run's share into ``state``, runs in sorted order; the checks that span runs."""

    @abstractmethod
    def finish(
        self, bench: BenchmarkContext[Decl, Contract], state: State, runs: list[Any]
    ) -> Result[Finished[Sec]]:
        """Aggregate the runs' summaries (``summary_model``, in run order) into the family's report
        section and disclosures; any problem found refuses the benchmark."""


AnyFamily = Family[Any, Any, Any, Any, Any, Any]
"""A family of any types, as the generic pipeline holds it."""


def provenance_problems(
    bench: BenchmarkContext[Any, Any], sources: dict[str, str], hashes: dict[str, str]
) -> list[Problem]:
    """Re-verify the contract's own provenance hashes against the sealed source files supplied."""
    file = f"{bench.label}/benchmark.json"
    problems = []
    for name, source in sorted(sources.items()):
        where = f"$.provenance_sources.{name}"
        if name not in hashes:
            problems.append(Problem(file, where, "the contract carries no such provenance hash"))
        elif source not in bench.folder.files:
            problems.append(Problem(file, where, f"source file {source!r} is not in the sealed folder"))
        elif hashlib.sha256(bench.folder.files[source]).hexdigest() != hashes[name]:
            problems.append(Problem(f"{bench.label}/{source}", "", f"does not match the contract's {name}"))
    return problems


def read_run_meta(run: VerifiedFolder, label: str, names: tuple[str, str], model: type[M]) -> Result[M]:
    """Check a run folder holds its two files and validate the first (its metadata)."""
    missing = tuple(
        Problem(f"{label}/{f}", "", "required file is missing") for f in names if f not in run.files
    )
    if missing:
        return Result(None, missing)
    return load_model(model, run.files[names[0]], f"{label}/{names[0]}")
