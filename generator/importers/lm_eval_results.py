"""lm-evaluation-harness output (``lm_eval --output_path DIR --log_samples``) read into an Imported.

What lm-eval 0.4 writes, per run: ``DIR/<model>/results_<timestamp>.json`` (the aggregates, the task
configs, ``n-samples``, the model and seeds under ``config``) and, with ``--log_samples``, one
``samples_<task>_<timestamp>.jsonl`` per task beside it. The results files are found and read
by :mod:`.lm_eval_files`, the samples files by :mod:`.lm_eval_samples`. With
``--output_path FILE.json`` the results file is named after the path's stem instead
(``results_<stem>_<timestamp>.json`` or ``<stem>_<timestamp>.json``, by release) and the samples
files sit beside it. ``read`` takes ``DIR`` or one model's subfolder.

The mapping, one :class:`ImportedRun` per (results file, task in its ``configs``):

- **version**: ``lm_eval_version`` of any 0.4 release or source install (``0.4.9.2``,
  ``0.4.13.dev0``); a results file without one (lm-eval before 0.4.8) is read as 0.4 when it has a
  0.4 file's objects, and a note says so.
- **subject**: the model's own name: ``pretrained=`` or ``model=`` of ``config.model_args``
  (``Qwen/Qwen3-8B``, ``gpt-4o``), else ``config.model`` (``dummy``). The model and its arguments
  are in a note. **variant**: when another results file of the import ran the same model on one of
  its tasks, what tells them apart: the model's other arguments, then its seeds (``seed=1``), then
  its file's timestamp (``run 2026-12-06T05-07-39…``), as few as do.
- **check**: per task, its metric (``--metric TASK=METRIC``, else ``--metric METRIC``, else the
  task's first metric whose per-sample value decides a sample: a corpus-level ``f1`` whose value is
  a [gold, prediction] pair is passed over, and a note says so). ``acc`` names ``acc,<filter>`` when
  the task has one filter for it.
- **planned**: doc ids 0 to ``n-samples.<task>.effective`` - 1, epoch 1, whatever lines the samples
  file holds: lm-eval runs the first ``effective`` docs (all of them, or ``--limit`` many, which a
  note discloses). Fewer docs without ``--limit`` is a ``--samples`` selection, whose ids the results
  file does not record: refused. A task with ``repeats`` > 1 is still one epoch.
- **groups**: a results row of a group (``groups``, or ``group_subtasks`` with subtasks) is the
  group's aggregate, not a task: never a run; its figures are noted on its subtasks' runs.
- **left out**: a task without its samples file is not derivable: the other tasks are imported, and
  :attr:`Imported.left_out` and the runs' notes say so (all tasks without one: refused).
- **reported**: ``results.<task>.<metric>,<filter>`` as written, with a note when it is not passes /
  planned to within one unit of its last written place.
- **status**: ``success`` (lm-eval writes a results file only when a run ends). **created**: the
  results file's ``date`` in UTC. **sources**: the results file and the task's samples file.

Every problem is collected, then raised once as a :class:`ProblemReport` (exit 4).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

from generator.errors import Problem, ProblemReport, Problems, Result
from generator.importers import lm_eval_files as files
from generator.importers import lm_eval_samples as samples
from generator.importers import reading
from generator.importers.lm_eval_files import PRODUCER, ResultsFile
from generator.importers.lm_eval_samples import Line, text
from generator.importers.model import Imported, ImportedRun, Reported, SourceFile
from generator.inputs import numbers


@dataclass(frozen=True)
class _Task:
    """One task of one results file, with its samples file's bytes and lines."""

    results: ResultsFile
    task: str
    source: SourceFile
    lines: tuple[Line, ...]

    @property
    def path(self) -> Path:
        return self.results.path.with_name(self.source.name)


@dataclass(frozen=True)
class _Found:
    """The tasks with a samples file, and those without one (left out)."""

    tasks: tuple[_Task, ...]
    absent: tuple[tuple[ResultsFile, str], ...]


@dataclass(frozen=True)
class _Choice:
    """A task's check, and the corpus-level metrics passed over to reach it (by default)."""

    check: str
    skipped: tuple[str, ...] = ()


def read(
    results_dir: Path,
    *,
    metric: str | None = None,
    task_metrics: Mapping[str, str] | None = None,
    threshold: Decimal | None = None,
) -> Imported:
    """Every (results file, task) under ``results_dir`` (lm-eval's ``--output_path`` or one of its
    per-model subfolders) as one run. A task's check is ``task_metrics[task]``, else ``metric``
    (``acc``, or ``acc,<filter>``), else its first per-sample metric. Raises :class:`ProblemReport`
    naming every problem."""
    problems = Problems()
    if threshold is not None and not threshold.is_finite():
        problems.append(Problem(str(results_dir), "", f"threshold {threshold} is not a finite number"))
    loaded = problems.take(_loaded(results_dir)) or []
    found = problems.take(_gather(loaded)) or _Found((), ())
    choices = problems.take(_choices(results_dir, found.tasks, metric, task_metrics or {})) or {}
    variants = _variants(loaded)
    runs: list[ImportedRun] = []
    for task in found.tasks:
        choice = choices.get(task.task)
        run = problems.take(_run(task, choice, threshold, variants, found.absent)) if choice else None
        runs += [run] if run is not None else []
    problems.extend(_same_run_twice(loaded, variants))
    if problems:
        raise ProblemReport(problems)
    checks = tuple(dict.fromkeys(choices[task].check for task in sorted(choices)))
    return Imported(
        producer=PRODUCER,
        checks=checks,
        success=samples.success(threshold),
        runs=_with_left_out_notes(tuple(runs), found.tasks, found.absent),
        task_checks=tuple((task, (choices[task].check,)) for task in sorted(choices)),
        left_out=tuple(
            f"{task} of {r.path.name}: not derivable: no per-sample file" for r, task in found.absent
        ),
    )


def _loaded(results_dir: Path) -> Result[list[ResultsFile]]:
    """Every results file under ``results_dir`` that parses as one."""
    problems = Problems()
    paths = problems.take(files.results_files(results_dir)) or []
    loaded = [problems.take(files.load(path)) for path in paths]
    return problems.result([results for results in loaded if results is not None])


def _gather(loaded: list[ResultsFile]) -> Result[_Found]:
    """Each task's samples file read, or the task set aside when it has none; with none at all,
    refused (there is nothing per sample to import)."""
    problems = Problems()
    tasks: list[_Task] = []
    absent: list[tuple[ResultsFile, str]] = []
    for results in loaded:
        for task in results.tasks:
            path = results.path.with_name(f"samples_{task}_{results.stamp}.jsonl")
            if not path.is_file():
                absent.append((results, task))
                continue
            data = problems.take(reading.read_file(path))
            lines = problems.take(samples.lines(path, data)) if data is not None else None
            if data is not None and lines is not None:
                tasks.append(_Task(results, task, SourceFile(path.name, data), lines))
    if not tasks and not problems:
        for results, task in absent:
            message = (
                f"no samples_{task}_{results.stamp}.jsonl beside it: run lm_eval with --log_samples "
                "to write each sample's result"
            )
            problems.append(Problem(str(results.path), f"$.configs.{task}", message))
    return problems.result(_Found(tuple(tasks), tuple(absent)))


def _choices(
    results_dir: Path, tasks: tuple[_Task, ...], metric: str | None, task_metrics: Mapping[str, str]
) -> Result[dict[str, _Choice]]:
    """Each task's check: chosen by task, or for every task, or its first per-sample metric (read
    from the first results file that ran it)."""
    problems = Problems()
    names = sorted({task.task for task in tasks})
    for name, wanted in sorted(task_metrics.items()):
        if name not in names:
            message = f"no task {name} with a samples file here (tasks: {', '.join(names) or 'none'})"
            problems.append(Problem(str(results_dir), f"--metric {name}={wanted}", message))
    choices: dict[str, _Choice] = {}
    for task in tasks:
        if task.task in choices:
            continue
        chosen = task_metrics.get(task.task, metric)
        choice = _Choice(chosen) if chosen is not None else problems.take(_first_per_sample(task))
        if choice is not None:
            choices[task.task] = choice
    return problems.result(choices)


def _first_per_sample(task: _Task) -> Result[_Choice]:
    """The task's first metric whose samples lines give each sample a value (not a list)."""
    keys = files.metric_keys(task.results.doc["results"].get(task.task))
    skipped: list[str] = []
    for key in keys:
        name, _, filter_ = key.partition(",")
        lines = samples.of_filter(task.lines, filter_)
        if samples.corpus_level(lines, name) is not None:
            skipped.append(name)
        elif any(name in line for _, line in lines):
            one = sum(1 for other in keys if other.partition(",")[0] == name) == 1
            return Result(_Choice(name if one else key, tuple(skipped)))
    listed = "; ".join(keys) or "none"
    message = f"no metric of the task gives each sample a value (its metrics, metric,filter: {listed})"
    if skipped:
        message = f"every metric of the task is corpus-level ({', '.join(skipped)}): {message}"
    return Result(None, (Problem(str(task.results.path), f"$.results.{task.task}", message),))


def _variants(loaded: list[ResultsFile]) -> dict[Path, str]:
    """Each results file's variant: empty, or when other results files of the import ran the same
    model on one of its tasks, its facets that tell it from them, as few as do, in order."""
    variants: dict[Path, str] = {}
    for results in loaded:
        rivals = [
            o
            for o in loaded
            if o is not results and o.name == results.name and set(o.tasks) & set(results.tasks)
        ]
        shown: list[str] = []
        for index, facet in enumerate(results.facets):
            if any(other.facets[index] != facet for other in rivals):
                shown.append(facet or "no arguments")
                rivals = [other for other in rivals if other.facets[index] == facet]
        variants[results.path] = " ".join(shown)
    return variants


def _same_run_twice(loaded: list[ResultsFile], variants: dict[Path, str]) -> Iterator[Problem]:
    """Two results files whose runs would share a model, variant and task (the same model, seeds
    and timestamp in two folders) cannot both be imported."""
    first: dict[tuple[str, str, str], Path] = {}
    for results in loaded:
        who = f"{results.name} {variants[results.path]}".strip()
        for task in results.tasks:
            other = first.setdefault((results.name, variants[results.path], task), results.path)
            if other != results.path:
                message = f"runs {who} on {task}, as {other} does: import one of them"
                yield Problem(str(results.path), f"$.configs.{task}", message)


def _run(
    task: _Task,
    choice: _Choice,
    threshold: Decimal | None,
    variants: dict[Path, str],
    absent: tuple[tuple[ResultsFile, str], ...],
) -> Result[ImportedRun]:
    """One task of one results file: its plan, its samples file's lines, lm-eval's own aggregate."""
    problems = Problems()
    results = task.results
    key = problems.take(_metric_key(results, task.task, choice.check))
    size = problems.take(_plan_size(results, task.task))
    if key is None or size is None:
        return problems.result(None)
    rule = samples.Rule(choice.check, key.partition(",")[2], threshold)
    lines = samples.of_filter(task.lines, rule.filter)
    corpus = samples.corpus_level(lines, rule.metric)
    if corpus is not None:
        return Result(None, (_corpus_level_problem(task, rule, corpus),))
    observations = problems.take(samples.observations(task.path, lines, rule, size))
    if observations is None:
        return problems.result(None)
    reported = _reported(results, task.task, key, choice.check)
    variant = variants[results.path]
    rest = (
        *_version_notes(results),
        *_choice_notes(choice),
        *_plan_notes(results, task.task, size),
        *_group_notes(results, task.task),
        *_cross_check(reported, observations, size),
    )
    named = (*_model_notes(results, variant, blind=False), *_left_out_notes(results, absent, blind=False))
    unnamed = (*_model_notes(results, variant, blind=True), *_left_out_notes(results, absent, blind=True))
    run = ImportedRun(
        subject=results.name,
        variant=variant,
        task=task.task,
        planned=tuple((str(doc_id), 1) for doc_id in range(size)),
        observations=observations,
        sources=(SourceFile(results.path.name, results.data), task.source),
        producer=results.producer,
        status="success",
        reported=(reported,),
        notes=(*named, *rest),
        blind_notes=(*unnamed, *rest),
        created=results.created,
    )
    return problems.result(run)


def _metric_key(results: ResultsFile, task: str, check: str) -> Result[str]:
    """The task's aggregate key of ``check``: ``acc`` names ``acc,<filter>`` when the task has one
    filter for it; ``acc,<filter>`` names itself."""
    keys = files.metric_keys(results.doc["results"].get(task))
    wanted = [key for key in keys if key == check or key.partition(",")[0] == check]
    if len(wanted) == 1:
        return Result(wanted[0])
    known = "; ".join(keys) or "none"
    if wanted:
        message = f"metric {check} has several filters here ({known}): choose one as metric=<metric>,<filter>"
    else:
        message = f"the task has no metric {check}; its metrics (metric,filter): {known}"
    return Result(None, (Problem(str(results.path), f"$.results.{task}", message),))


def _corpus_level_problem(task: _Task, rule: samples.Rule, corpus: Line) -> Problem:
    """One problem for a task whose chosen metric is corpus-level, naming the per-sample ones."""
    number, line = corpus
    names = [key.partition(",")[0] for key in files.metric_keys(task.results.doc["results"].get(task.task))]
    available = ", ".join(dict.fromkeys(samples.per_sample_metrics(line, names))) or "none"
    message = (
        f"corpus-level: its per-sample value is a list ({text(line[rule.metric])[:60]}) that lm-eval "
        f"scores only over the whole task, so it decides no sample; the task's per-sample metrics: "
        f"{available} (choose one with --metric {task.task}=METRIC)"
    )
    return Problem(str(task.path), f"line {number}: {rule.metric}", message)


def _plan_size(results: ResultsFile, task: str) -> Result[int]:
    """How many docs lm-eval ran (``n-samples.<task>.effective``): the plan is doc ids 0 to that - 1.
    Fewer than the task's docs without ``--limit`` means a ``--samples`` selection, whose doc ids
    the results file does not record: refused."""
    file, where = str(results.path), f"$.n-samples.{task}"
    counts = results.doc["n-samples"].get(task)
    if not isinstance(counts, dict):
        return Result(None, (Problem(file, where, "missing: the task's planned sample count"),))
    original, effective = samples.count(counts.get("original")), samples.count(counts.get("effective"))
    if original is None or effective is None or effective > original:
        counted = f"original {text(counts.get('original'))}, effective {text(counts.get('effective'))}"
        message = f"{counted}: not two counts with effective ≤ original"
        return Result(None, (Problem(file, where, message),))
    if effective < original and results.doc["config"].get("limit") is None:
        message = (
            f"{effective} of the task's {original} docs ran without --limit (a --samples selection?): "
            "which ones is not recorded, so the plan cannot be read"
        )
        return Result(None, (Problem(file, where, message),))
    return Result(effective)


def _reported(results: ResultsFile, task: str, key: str, check: str) -> Reported:
    metric, _, filter_ = key.partition(",")
    basis = f"lm-eval's {metric}: mean over the task's samples (filter {filter_})"
    value = results.doc["results"][task][key]
    return Reported(name=metric, check=check, value=text(value), basis=basis)


def _cross_check(reported: Reported, observations: tuple[Any, ...], size: int) -> tuple[str, ...]:
    """A note when lm-eval's figure is not passes / planned, by the rule the build discloses by
    (``inputs.numbers.agrees``: lm-eval writes a double's shortest text, its nearest double)."""
    if numbers.figure_problem(reported.value) is not None:
        return (f"lm-eval's {reported.name} is {reported.value}, not a number: not compared",)
    passes = sum(1 for observation in observations if observation.checks[0][1] == "pass")
    if size == 0 or numbers.agrees(reported.value, Fraction(passes, size)):
        return ()
    return (
        f"lm-eval reports {reported.name} {reported.value}, but {passes} of the {size} planned samples "
        f"pass ({passes}/{size}): lm-eval's mean is of its values over the samples it ran",
    )


def _model_notes(results: ResultsFile, variant: str, blind: bool) -> Iterator[str]:
    """How lm-eval ran the model, and what tells this run from another of the same model; when
    ``blind``, without the model, its arguments or seeds (they may name it)."""
    if blind:
        if variant:
            yield (
                "another results file of this import ran the same model on this task too: what tells the "
                "two apart is in the producer's files, withheld while the models are blind"
            )
        return
    args = ",".join(f"{key}={value}" for key, value in results.model_args) or "none"
    yield f"lm-eval's config: model {results.doc['config']['model']}, model_args {args}, {results.facets[1]}"
    if variant:
        yield (
            f"another results file of this import ran {results.name} on this task too: {variant} tells "
            "this run apart (the model's arguments, then its seeds, then its file's timestamp, as few as do)"
        )


def _version_notes(results: ResultsFile) -> Iterator[str]:
    if results.version is None:
        yield (
            "the results file records no lm_eval_version (lm-eval wrote none before 0.4.8): read as an "
            "lm-eval 0.4 results file by its objects (results, configs, n-samples, config)"
        )


def _choice_notes(choice: _Choice) -> Iterator[str]:
    if choice.skipped:
        yield (
            f"{', '.join(choice.skipped)}: corpus-level (each sample's value is a list that lm-eval "
            f"scores only over the whole task), passed over: {choice.check}, the task's first "
            "per-sample metric, decides"
        )


def _plan_notes(results: ResultsFile, task: str, size: int) -> Iterator[str]:
    original = results.doc["n-samples"][task]["original"]
    if size < original:
        limit = text(results.doc["config"].get("limit"))
        yield f"lm-eval ran {size} of the task's {original} docs (--limit {limit}): the plan is those {size}"
    repeats = results.doc["configs"][task].get("repeats")
    if isinstance(repeats, int) and repeats > 1:
        yield f"the task repeats each request {repeats} times; lm-eval's filter made one value of each doc"


def _group_notes(results: ResultsFile, task: str) -> Iterator[str]:
    """lm-eval's figures of each group the task is a subtask of: a group's row, not a run."""
    for group, subtasks in results.groups.items():
        if task not in subtasks:
            continue
        rows = results.doc.get("groups")
        row = rows.get(group) if isinstance(rows, dict) else None
        row = row if isinstance(row, dict) else results.doc["results"].get(group)
        figures = "; ".join(f"{key} {text(row[key])}" for key in files.metric_keys(row)) or "no figure"
        yield (
            f"lm-eval's group {group} (subtasks {', '.join(subtasks)}) reports {figures}: a group's "
            "aggregate over its subtasks, not imported as a run"
        )


def _left_out_notes(
    results: ResultsFile, absent: tuple[tuple[ResultsFile, str], ...], blind: bool
) -> Iterator[str]:
    """The tasks of this run's results file left out for want of a samples file (a blind note
    leaves out the file's name: ``--output_path`` may have named it after the model)."""
    for other, task in absent:
        if other is results:
            yield _left_out(task, "this results file" if blind else results.path.name)


def _left_out(task: str, where: str) -> str:
    return f"task {task} of {where}: not derivable: no per-sample file (lm_eval --log_samples): not imported"


def _with_left_out_notes(
    runs: tuple[ImportedRun, ...], tasks: tuple[_Task, ...], absent: tuple[tuple[ResultsFile, str], ...]
) -> tuple[ImportedRun, ...]:
    """The runs, the first also noting the tasks left out of results files none of whose tasks has
    a samples file (every other run notes its own file's)."""
    with_runs = {task.results.path for task in tasks}
    orphans = [(results, task) for results, task in absent if results.path not in with_runs]
    if not runs or not orphans:
        return runs
    first = runs[0]
    named = tuple(_left_out(task, results.path.name) for results, task in orphans)
    unnamed = tuple(_left_out(task, "another results file") for _, task in orphans)
    blind = (*(first.blind_notes or first.notes), *unnamed)
    return (replace(first, notes=(*first.notes, *named), blind_notes=blind), *runs[1:])
