"""Any importer's :class:`~generator.importers.model.Imported` written as a new, sealed trials
benchmark folder: ``benchmark.json``, a generated contract with its own scoring specification, the
frozen trial plan, and one sealed run folder per (task, model, producer file) holding the results
and the producer's own files byte for byte.

The mapping (docs/importers.md): a planned trial is a (model, sample, epoch) the producer declared;
a trial succeeds when the sample completed and every check passed; build, boot and interventions
are not applicable. The same ``Imported`` always gives the same bytes: nothing here reads a clock,
and every list is sorted. The folder is made beside its target and renamed into place, so a refused
import leaves nothing behind and an existing folder is never touched.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path, PurePosixPath
from typing import Any

from generator.canon import canonical_json
from generator.errors import OutputError, Problem, ProblemReport
from generator.importers.model import Imported, ImportedRun, Observation
from generator.inputs import numbers
from generator.inputs.outputs import output_around
from generator.inputs.readable import hidden_character

SEAL = "SHA256SUMS"
SAFE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
UNSAFE_CHARS = re.compile(r"[^A-Za-z0-9._-]+")
BLIND_PREFIX = "m-"
"""A blind label is this and a number: no word a model's name could share with it."""
BLIND_SUFFIXES = (".eval", ".json", ".jsonl")
"""The producer files' suffixes a blind import keeps on the name it gives them (the formats read)."""

Scan = Callable[[Iterable[tuple[str, Callable[[], bytes]]], Iterable[str]], tuple[str, str] | None]
"""The blind scan (``publish.blind_scan.find_revealed``): (file, name shown) of the first of the
files that shows one of the names, None when none does."""


@dataclass(frozen=True)
class Options:
    """How an import is written: never what a figure is."""

    title: str | None = None
    blind: bool = False
    """Publish the models under opaque labels (``m-1``…) and keep the names for a later reveal."""
    blind_scan: Scan | None = None
    """With ``blind``: the blind scan, run over every file the import writes (and its path) except
    the producer's own files, which wait for the reveal; a file that shows a model's name refuses
    the import. The command line passes it (the importers do not import the publish stage)."""


@dataclass(frozen=True)
class Written:
    """What an import wrote: the folder, its runs, and the label of each subject."""

    folder: Path
    runs: tuple[str, ...]
    planned: int
    labels: Mapping[str, str]
    """Label → subject as the producer names it, and its variant when it has one (``ImportedRun.who``)."""


def safe_name(text: str) -> str:
    """``text`` as a file name and id: runs of other characters become one '-', at most 100 long."""
    name = UNSAFE_CHARS.sub("-", text).strip("-._")[:100].rstrip("-._")
    return name or "x"


Model = tuple[str, str]
"""A model as a label names it: (subject, variant) of its runs (``ImportedRun``)."""


def blind_labels(subjects: Iterable[str]) -> dict[str, str]:
    """Subject → an opaque label ``m-N``, numbered in the order of the names' sha256 (not their
    alphabetical order, which would say something of them). A label holds no word of two letters or
    more, so it cannot show a word of a model's name to the blind scan (which looks for words of four
    letters or more); a number whose label holds a subject's whole name (``m-1``, ``1``) is skipped."""
    distinct = set(subjects)
    return _numbered({subject: subject for subject in distinct}, distinct)


def _numbered(keys: Mapping[Any, str], subjects: set[str]) -> dict[Any, str]:
    """Each key → ``m-N``, numbered in the order of the sha256 of its text (:func:`blind_labels`)."""
    forms = {form.casefold() for subject in subjects for form in (subject, safe_name(subject))}
    names = {name for name in forms if name not in BLIND_PREFIX}  # those show in every label
    numbered = [f"{BLIND_PREFIX}{n}" for n in range(1, 10 * (len(keys) + 1))]
    usable = [label for label in numbered if not any(name in label for name in names)]
    ordered = sorted(keys, key=lambda key: hashlib.sha256(keys[key].encode("utf-8")).hexdigest())
    return dict(zip(ordered, usable if len(usable) >= len(ordered) else numbered, strict=False))


def labels_of(subjects: Iterable[str], blind: bool) -> dict[str, str]:
    """Subject → label: its own name made safe, or when ``blind`` an opaque one (:func:`blind_labels`)."""
    distinct = set(subjects)
    if blind:
        return blind_labels(distinct)
    labels: dict[str, str] = {}
    for subject in sorted(distinct):
        base = safe_name(subject)
        label, n = base, 1
        while label.casefold() in {v.casefold() for v in labels.values()}:
            n += 1
            label = f"{base}-{n}"
        labels[subject] = label
    return labels


def variant_suffixes(variants: Iterable[str]) -> dict[str, str]:
    """Each variant of one model → the first hex digits of its sha256, six or as many more as keep
    them apart: the same variant always has the same suffix."""
    digests = {variant: hashlib.sha256(variant.encode("utf-8")).hexdigest() for variant in set(variants)}
    size = next(n for n in range(6, 65) if len({d[:n] for d in digests.values()}) == len(digests))
    return {variant: digest[:size] for variant, digest in digests.items()}


def model_labels(models: Iterable[Model], blind: bool) -> dict[Model, str]:
    """(subject, variant) → label. The subject's own label (:func:`labels_of`) when its runs have one
    variant; else that label and a suffix per variant (:func:`variant_suffixes`). Blind: ``m-N`` for
    each, numbered by the sha256 of the subject (and its variant, when it has one)."""
    distinct = set(models)
    if blind:
        keys = {model: model[0] if not model[1] else f"{model[0]}\n{model[1]}" for model in distinct}
        return _numbered(keys, {subject for subject, _ in distinct})
    base = labels_of((subject for subject, _ in distinct), blind=False)
    variants: dict[str, list[str]] = {}
    for subject, variant in sorted(distinct):
        variants.setdefault(subject, []).append(variant)
    labels: dict[Model, str] = {}
    for subject, kinds in variants.items():
        suffixes = variant_suffixes(kinds) if len(kinds) > 1 else {kinds[0]: ""}
        for variant in kinds:
            label = f"{base[subject]}-{suffixes[variant]}" if suffixes[variant] else base[subject]
            labels[(subject, variant)] = label
    return labels


def _prompt_ids(imported: Imported) -> dict[tuple[str, str], str]:
    """(task, sample id) → prompt id: the sample id as the producer wrote it, in any script. A prompt
    id is text the pages show, never a file name: a trial id that needs one is made from a digest
    (:meth:`Layout.trial_id`), so two ids a letter apart stay two prompts."""
    return {(run.task, sample): sample for run in imported.runs for sample, _ in run.planned}


def _one_run_per_subject_and_task(imported: Imported, file: str) -> None:
    seen: dict[tuple[str, str, str], ImportedRun] = {}
    for run in imported.runs:
        key = (run.subject, run.variant, run.task)
        if key in seen:
            names = ", ".join(s.name for s in (*seen[key].sources, *run.sources))
            message = (
                f"two runs of {run.subject!r} on task {run.task!r} ({names}) that nothing the producer "
                "recorded tells apart: a benchmark plans each model's samples once; import them into "
                "two benchmarks"
            )
            raise ProblemReport([Problem(file, "", message)])
        seen[key] = run


class Layout:
    """The ids of everything written: labels, run folders, corpora, prompts and trials."""

    def __init__(self, imported: Imported, blind: bool, file: str) -> None:
        _one_run_per_subject_and_task(imported, file)
        self.labels = model_labels(((r.subject, r.variant) for r in imported.runs), blind)
        self.blind = blind
        subjects = [subject for subject, _ in self.labels]
        self.suffixed = {model for model in self.labels if subjects.count(model[0]) > 1}
        """Models whose label carries a variant's suffix: their subject has runs of other variants."""
        self.tasks = sorted({r.task for r in imported.runs})
        self.prompts = _prompt_ids(imported)
        self.many_tasks = len(self.tasks) > 1

    def label(self, run: ImportedRun) -> str:
        return self.labels[(run.subject, run.variant)]

    def label_note(self, run: ImportedRun) -> str | None:
        """Why a label carries a suffix, for the run's notes (never blind: a variant may name the model)."""
        model = (run.subject, run.variant)
        if self.blind or model not in self.suffixed:
            return None
        label = self.labels[model]
        others = sum(1 for subject, _ in self.labels if subject == run.subject) - 1
        said = run.variant or "nothing recorded (the other runs record something)"
        return (
            f"Labelled {label}: this benchmark holds runs of {run.subject} of {others + 1} kinds, each "
            "label suffixed with the start of the sha256 of what tells its runs apart; this run's is: "
            f"{said}."
        )

    def run_id(self, run: ImportedRun) -> str:
        label = self.label(run)
        return f"run-{label}-{safe_name(run.task)}" if self.many_tasks else f"run-{label}"

    def trial_id(self, run: ImportedRun, sample: str, epoch: int) -> str:
        parts = [self.label(run)]
        if self.many_tasks:
            parts.append(str(self.tasks.index(run.task) + 1))
        parts += [self.prompts[(run.task, sample)], f"e{epoch}"]
        trial = ".".join(parts)
        if SAFE.match(trial):
            return trial
        return f"{parts[0][:40]}.{hashlib.sha256(trial.encode('utf-8')).hexdigest()[:16]}"


def pretty(value: Any) -> bytes:
    """A JSON file as people read it: two-space indent, keys in the order written, UTF-8."""
    return (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def line(value: Any) -> str:
    """One JSON Lines line: keys sorted, UTF-8."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True) + "\n"


def seal_bytes(files: Mapping[str, bytes]) -> bytes:
    """A ``SHA256SUMS`` of ``files`` (name → bytes), sorted by name: what ``sha256sum -c`` verifies."""
    lines = (f"{hashlib.sha256(data).hexdigest()}  {name}\n" for name, data in sorted(files.items()))
    return "".join(lines).encode("utf-8")


def evaluator_of(imported: Imported) -> str:
    """The one-way hash standing for the producer's scorer: its name, checks and success rule."""
    described = canonical_json(
        {"producer": imported.producer, "checks": list(imported.checks), "rule": imported.success}
    )
    return "sha256:" + hashlib.sha256(described.encode("utf-8")).hexdigest()


def result_line(trial_id: str, observation: Observation, evaluator: str, producer: str) -> dict[str, Any]:
    """One ``results.jsonl`` line: the sample as the trials family reads it."""
    tokens = [
        f"{n} {kind} tokens"
        for n, kind in ((observation.tokens_in, "input"), (observation.tokens_out, "output"))
        if n is not None
    ]
    reason = (
        f"{producer} records tokens, not a price: {' and '.join(tokens)} recorded"
        if tokens
        else f"{producer} records no cost for this sample"
    )
    return {
        "trial_id": trial_id,
        "terminal": observation.terminal,
        "build": "not_observable",
        "boot": "not_observable",
        "checks": [{"id": check, "state": state} for check, state in observation.checks],
        "interventions": [],
        "cost": {"state": "unavailable", "reason": reason},
        "elapsed_ms": observation.elapsed_ms,
        "failure_code": observation.failure_code,
        "evaluator": evaluator,
    }


# --- the benchmark's own files ---------------------------------------------------------------------


def rubric_id(imported: Imported) -> str:
    return f"{safe_name(imported.producer)}-import-v1"


def scoring(imported: Imported, blind: bool) -> dict[str, Any]:
    """The generated contract's scoring specification: success = completed ∧ every check passes;
    build, boot and interventions not applicable; paired comparisons by sample."""
    why = f"{imported.producer} evaluates model outputs: there is no {{}} to observe"
    return {
        "schema_version": 1,
        "family": "trials",
        "rubric": rubric_id(imported),
        "primary": {
            "name": "autonomous_success_rate",
            "all_of": [
                {"kind": "terminal", "accept": ["completed"]},
                {"kind": "required_checks", "accept": ["pass"]},
            ],
        },
        "secondary": [
            {"kind": "not_applicable", "name": "build_pass_rate", "why": why.format("build")},
            {"kind": "not_applicable", "name": "boot_pass_rate", "why": why.format("boot")},
            {
                "kind": "rate",
                "name": "all_functional_checks_pass_rate",
                "counts": {"kind": "required_checks", "accept": ["pass"]},
            },
            {
                "kind": "not_applicable",
                "name": "zero_intervention_rate",
                "why": why.format("human intervention"),
            },
            {"kind": "percentile", "name": "median_elapsed_ms", "of": "elapsed_ms", "percentile": 50},
            {"kind": "percentile", "name": "p95_elapsed_ms", "of": "elapsed_ms", "percentile": 95},
            {
                "kind": "percentile",
                "name": "median_measured_cost_usd_micros",
                "of": "measured_cost_usd_micros",
                "percentile": 50,
            },
            {"kind": "failure_code_counts", "name": "failure_code_counts"},
        ],
        "rates": {
            "denominator": "planned_trials",
            "missing_result": "meets_no_condition",
            "basis_points": "floor",
            "interval": {"method": "clopper_pearson", "confidence": 0.95},
        },
        "percentile_method": "nearest_rank",
        "interventions": {"free": [], "others": "counted"},
        "required_checks": {"absent": "not_evaluable", "unrequired": "shown_not_deciding"},
        "failure_codes": {
            "success": "none",
            "missing_result": "missing_result",
            "uncoded_terminal": ["timeout", "error"],
            "uncoded_otherwise": "not_correct",
        },
        "cost": {
            "evidence": ["provider_usage", "invoice", "versioned_allocation"],
            "unavailable": "excluded_and_counted",
        },
        "blind": {
            "labels": "plan_labels" if blind else "subject_names",
            "evaluator_identifier": "sha256",
            "reveal": "after_scores_frozen" if blind else "never",
        },
        "leaderboard": "success_basis_points_then_successes_then_label",
        "paired": {"by": "prompt", "test": "sign_test"},
    }


def contract(imported: Imported, blind: bool) -> dict[str, Any]:
    """A ``bia.vibe-benchmark-rubric/v1`` contract stating how the producer's samples are scored,
    with its specification inline (``scoring``)."""
    producer = imported.producer
    absent = f"{producer} has no such stage; not applicable to this benchmark"
    spec = scoring(imported, blind)
    return {
        "schema": "bia.vibe-benchmark-rubric/v1",
        "rubric_id": rubric_id(imported),
        "primary_metric": {
            "id": "autonomous_success_rate",
            "numerator": "planned trials (sample × epoch × model) that completed with every check "
            f"passing: {imported.success}",
            "denominator": "every trial the producer's own files declare: each declared sample × epoch, "
            "including samples that errored, hit a limit or have no record",
            "aggregation": "publish integer numerator, denominator and basis points; never a rounded "
            "rate alone",
        },
        "dimensions": {
            "build": {"pass": absent, "fail": absent, "not_observable": absent},
            "boot": {"pass": absent, "fail": absent, "not_observable": absent},
            "functionality": {
                "pass": f"every check ({', '.join(imported.checks)}) passes: {imported.success}",
                "fail": "a check did not pass, or has no value (an errored sample)",
            },
            "human_intervention": {"zero": absent, "positive": absent},
            "cost": {
                "measured": "never: the producer records tokens, not a price",
                "unavailable": "every trial: excluded from cost figures and counted, never zero",
            },
            "time": {
                "unit": "milliseconds",
                "clock": f"the sample's own wall time as {producer} recorded it, where it did",
                "failed_trial": "kept as recorded",
            },
        },
        "secondary_metrics": [metric["name"] for metric in spec["secondary"]],
        "blind_scoring": {
            "required": blind,
            "evaluator_identifier": "one-way hash only",
            "provider_identity_revealed_after_score_is_frozen": blind,
        },
        "scoring": spec,
    }


def declaration(imported: Imported, layout: Layout, rubric: bytes, title: str | None) -> dict[str, Any]:
    corpora = []
    for task in layout.tasks:
        prompts = sorted({p for (t, _), p in layout.prompts.items() if t == task})
        corpora.append(
            {
                "version": task,
                "prompts": [
                    {"id": p, "required_checks": list(imported.required_checks(task))} for p in prompts
                ],
            }
        )
    runs = len(imported.runs)
    models = len(layout.labels)
    return {
        "schema_version": 1,
        "family": "trials",
        "title": title or f"{', '.join(layout.tasks)} ({imported.producer})",
        "description": f"Imported by benchsite import from {runs} {imported.producer} "
        f"run{'s' if runs != 1 else ''} of {models} model{'s' if models != 1 else ''}: every declared "
        "sample × epoch is a planned trial.",
        "rubric": {"file": "rubric.json", "sha256": hashlib.sha256(rubric).hexdigest()},
        "plan": "trial-plan.json",
        "prompt_corpora": corpora,
    }


def plan(imported: Imported, layout: Layout) -> dict[str, Any]:
    trials = [
        {
            "trial_id": layout.trial_id(run, sample, epoch),
            "prompt_id": layout.prompts[(run.task, sample)],
            "prompt_corpus_version": run.task,
            "provider": layout.label(run),
        }
        for run in imported.runs
        for sample, epoch in run.planned
    ]
    trials.sort(key=lambda t: t["trial_id"])
    return {"schema_version": 1, "trials": trials}


def source_name(name: str, number: int, blind: bool) -> str:
    """A producer file's name in its run folder: its own name made safe, or when ``blind`` one the
    site chooses, by the file's place among the run's (``src-1.json``: producers name files after
    the model, ``quiz_mockllm-model_log.json``), keeping the suffix of a format the importers read."""
    if not blind:
        return safe_name(name)
    suffix = PurePosixPath(name).suffix.lower()
    return f"src-{number}{suffix if suffix in BLIND_SUFFIXES else ''}"


def run_files(
    imported: Imported, run: ImportedRun, layout: Layout, plan_sha256: str, blind: bool, file: str
) -> dict[str, bytes]:
    """One run folder's files: ``run.json``, ``results.jsonl`` and the producer's own files."""
    evaluator = evaluator_of(imported)
    planned = set(run.planned)
    problems = []
    lines = []
    for index, observation in enumerate(run.observations):
        key = (observation.sample_id, observation.epoch)
        if key not in planned:
            where = f"samples[{index}]"
            message = (
                f"sample {observation.sample_id!r} epoch {observation.epoch} is not one the run declared"
            )
            problems.append(Problem(file, where, message))
            continue
        trial = layout.trial_id(run, *key)
        lines.append((trial, line(result_line(trial, observation, evaluator, imported.producer))))
    source = run.sources[0].name if run.sources else file  # the producer's file that reported it
    for figure in run.reported:
        reason = numbers.figure_problem(figure.value)
        if reason is not None:
            place = f"the reported {figure.name} of {figure.check} (task {run.task})"
            problems.append(Problem(source, place, reason))
    if problems:
        raise ProblemReport(problems)
    sources = {source_name(s.name, n, blind): s.data for n, s in enumerate(run.sources, start=1)}
    label = layout.label(run)
    suffixed = layout.label_note(run)
    meta: dict[str, Any] = {
        "schema_version": 1,
        "plan_sha256": plan_sha256,
        "producer": run.producer,
        "sources": [
            {"file": name, "sha256": hashlib.sha256(data).hexdigest()}
            for name, data in sorted(sources.items())
        ],
        "reported": [
            {
                "name": r.name,
                "check": r.check,
                "provider": label,
                "prompt_corpus_version": run.task,
                "value": r.value,
                "basis": r.basis,
            }
            for r in run.reported
        ],
        "notes": [
            *(run.blind_notes if blind and run.blind_notes is not None else run.notes),
            *([suffixed] if suffixed else []),
        ],
    }
    if not blind:
        meta["subject"] = run.subject
    files = {
        "run.json": pretty(meta),
        "results.jsonl": "".join(text for _, text in sorted(lines)).encode("utf-8"),
    }
    clash = sorted(set(sources) & {*files, SEAL})
    if clash:
        message = f"a producer file is named {clash[0]!r}, which a run folder uses"
        raise ProblemReport([Problem(file, "", message)])
    return {**files, **sources}


def shown_text_problems(imported: Imported, options: Options, file: str) -> list[Problem]:
    """The producer's text that a page shows (model, task, sample ids, producer and version, checks,
    figures' names, notes, the title), each checked as a name or title in our own inputs is: a character a
    reader does not see is refused here, with the producer file that holds it, not by the build."""
    shown: list[tuple[str, str, str]] = [("--title", "", options.title or "")]
    shown += [(file, "checks", check) for check in imported.checks]
    for run in imported.runs:
        source = run.sources[0].name if run.sources else file
        shown += [
            (source, "model", run.subject),
            (source, "task", run.task),
            (source, "variant", run.variant),
        ]
        shown += [(source, "sample id", sample) for sample in dict.fromkeys(s for s, _ in run.planned)]
        shown.append((source, "producer", run.producer))
        for figure in run.reported:
            shown += [(source, "reported", figure.name), (source, "reported", figure.check)]
        shown += [(source, "note", note) for note in run.notes]
    problems = {}
    for where, place, text in shown:
        reason = hidden_character(text)
        if reason is not None:
            problems[(where, place, reason)] = Problem(where, place, f"{text!a}: {reason}")
    return list(problems.values())


def folder_files(imported: Imported, options: Options, file: str) -> tuple[dict[str, bytes], Layout]:
    """Every file of the benchmark folder, by its path in it (run folders' files under their id),
    seals included."""
    if not imported.runs:
        raise ProblemReport([Problem(file, "", "holds no run to import")])
    unreadable = shown_text_problems(imported, options, file)
    if unreadable:
        raise ProblemReport(unreadable)
    layout = Layout(imported, options.blind, file)
    rubric = pretty(contract(imported, options.blind))
    plan_bytes = pretty(plan(imported, layout))
    own = {
        "benchmark.json": pretty(declaration(imported, layout, rubric, options.title)),
        "rubric.json": rubric,
        "trial-plan.json": plan_bytes,
    }
    files = {**own, SEAL: seal_bytes(own)}
    plan_sha256 = hashlib.sha256(plan_bytes).hexdigest()
    for run in sorted(imported.runs, key=layout.run_id):
        folder = layout.run_id(run)
        inside = run_files(imported, run, layout, plan_sha256, options.blind, file)
        inside[SEAL] = seal_bytes(inside)
        files.update({f"{folder}/{name}": data for name, data in inside.items()})
    return files, layout


OWN_FILES = frozenset(("benchmark.json", "rubric.json", "trial-plan.json", "run.json", "results.jsonl", SEAL))
"""What an import writes itself; every other file of the folder is a producer's."""


def check_blind(
    files: Mapping[str, bytes], imported: Imported, into: Path, options: Options, file: str
) -> None:
    """A blind import's own files and their paths (the folder's name first: it is the benchmark's
    id) must not show a model's name to the blind scan, or the reveal would be refused once the
    blind version is published; the producer's files are withheld until the reveal."""
    names = sorted({run.subject for run in imported.runs if run.subject.strip()})
    if not options.blind or options.blind_scan is None or not names:
        return
    ours = sorted(rel for rel in files if PurePosixPath(rel).name in OWN_FILES)
    folder: list[tuple[str, Callable[[], bytes]]] = [(into.name, bytes)]  # its name alone, first
    readers = folder + [(f"{into.name}/{rel}", partial(files.__getitem__, rel)) for rel in ours]
    found = options.blind_scan(readers, names)
    if found is not None:
        where, shown = found
        message = (
            f"a blind import would show the model name {shown!r} here, and the reveal would be refused: "
            "name the folder (--into) or the title (--title) otherwise, or import without --blind"
        )
        raise ProblemReport([Problem(file, where, message)])


def write(imported: Imported, into: Path, options: Options, file: str) -> Written:
    """Write the benchmark folder ``into`` (which must not exist), all or nothing."""
    if os.path.lexists(into):
        raise OutputError(
            f"{into}: already exists; benchsite import writes a new benchmark folder and never changes one"
        )
    parent = into.parent
    site = output_around(parent.resolve())
    if site is not None:
        raise OutputError(
            f"{into}: inside the published site {site}; import into the inputs (runs/), never a site"
        )
    files, layout = folder_files(imported, options, file)
    check_blind(files, imported, into, options, file)
    try:
        parent.mkdir(parents=True, exist_ok=True)  # as every tool's output option does
        staging = Path(tempfile.mkdtemp(prefix=f".{into.name}.import-", dir=parent))
    except OSError as exc:
        raise OutputError(f"{parent}: cannot write here: {exc.strerror}") from None
    try:
        for rel, data in files.items():
            target = staging / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        if os.path.lexists(into):
            raise OutputError(f"{into}: appeared while importing; nothing was written")
        staging.rename(into)
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise OutputError(f"{into}: cannot be written: {exc.strerror}; nothing was written") from None
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    runs = tuple(sorted(layout.run_id(run) for run in imported.runs))
    planned = sum(len(run.planned) for run in imported.runs)
    named = {
        label: f"{subject} {variant}" if variant else subject
        for (subject, variant), label in layout.labels.items()
    }
    return Written(into, runs, planned, named)
