"""lm-evaluation-harness output (``lm_eval --output_path DIR --log_samples``) read into an Imported.

What lm-eval 0.4 writes, per run: ``DIR/<model>/results_<timestamp>.json`` (the aggregates, the task
configs, ``n-samples``, the model and seeds under ``config``) and, with ``--log_samples``, one
``samples_<task>_<timestamp>.jsonl`` per task beside it: one line per (doc, filter), with the doc's
``doc_id`` and one key per metric (``"acc": 1.0``). ``read`` takes ``DIR`` or one model's subfolder.

The mapping, one :class:`ImportedRun` per (results file, task in its ``configs``):

- **subject**: ``config.model`` and ``config.model_args`` as the command line takes them
  (``hf/pretrained=gpt2,dtype=bfloat16``; ``dummy`` alone when it had no arguments), not
  ``model_name``, which drops every argument but one and is a random word when there is none.
  When several results files of one import name the same model, each also gets its seeds
  (``dummy seed=1``), and when those agree too, its file's timestamp (``run 2026-12-06T05-07-39…``).
- **planned**: doc ids 0 to ``n-samples.<task>.effective`` - 1, epoch 1, whatever lines the samples
  file holds: lm-eval runs the first ``effective`` docs (all of them, or ``--limit`` many, which a
  note discloses). Fewer docs without ``--limit`` is a ``--samples`` selection, whose ids the results
  file does not record: refused. A task with ``repeats`` > 1 is still one epoch (its filter made one
  value of the repeats; a note says so).
- **observations**: one per samples line of the metric's filter, ``sample_id`` its ``doc_id``, state
  by :func:`success`, values the metric's text and the line's ``doc_hash`` (the same doc across
  models). lm-eval records no per-sample error: every line is ``completed``.
- **check**: one metric for the whole import, ``acc`` or ``acc,<filter>`` (by default the first
  metric of the first task); every task must have it, with one filter unless one is named.
- **reported**: ``results.<task>.<metric>,<filter>`` as written, with a note when it is not passes /
  planned to within one unit of its last written place.
- **status**: ``success``. lm-eval keeps no run status: it writes a results file only when a run
  ends. **created**: the results file's ``date`` in UTC; **producer**: ``lm-eval <lm_eval_version>``;
  **sources**: the results file and the task's samples file, byte for byte.

Numbers are kept as their JSON text (:class:`_Number`) and compared as exact decimals, never as
floats. Every problem is collected, then raised once as a :class:`ProblemReport` (exit 4).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from pathlib import Path
from typing import Any

from generator.errors import Problem, ProblemReport, Problems, Result
from generator.importers import reading
from generator.importers.model import CheckState, Imported, ImportedRun, Observation, Reported, SourceFile
from generator.inputs import numbers

PRODUCER = "lm-eval"
KNOWN_VERSION = re.compile(r"0\.4\.\d+")
"""The lm-eval versions whose files this reader knows (fixtures: tests/data/lm-eval, 0.4.13)."""
SEED_KEYS = ("random_seed", "numpy_seed", "torch_seed", "fewshot_seed")
"""``config``'s seeds, in the order of lm-eval's ``--seed a,b,c,d``."""


def success(threshold: Decimal | None) -> str:
    """The rule that made every check state, in words (:attr:`Imported.success`)."""
    values = (
        "true or exactly 1 is a pass, false or exactly 0 a fail (any other number is refused)"
        if threshold is None
        else f"true is a pass, false a fail, and a number is a pass when it is at least {threshold}"
    )
    return (
        f"lm-eval's own per-sample value of the metric, from its samples file (the lines of the "
        f"metric's filter): {values}; null or NaN is not evaluable. lm-eval records no per-sample "
        "errors: every sample it logged completed, and a planned doc without a line is missing. "
        "The plan is docs 0 to n-samples.effective - 1 of each task, one epoch."
    )


@dataclass(frozen=True)
class _Number:
    """A JSON number with a fraction or exponent, kept as the file wrote it."""

    text: str

    @property
    def value(self) -> Decimal:
        return Decimal(self.text)


@dataclass(frozen=True)
class _Results:
    """One results file, parsed: its place, bytes and document, and what names its model."""

    path: Path
    data: bytes
    doc: dict[str, Any]
    version: str
    created: str
    model: str
    seeds: str

    @property
    def date_id(self) -> str:
        """The timestamp lm-eval put in the file's name, which its samples files' names share."""
        return self.path.stem.removeprefix("results_")

    @property
    def tasks(self) -> tuple[str, ...]:
        """The tasks that ran (a group's own aggregate has no config and no samples file)."""
        return tuple(self.doc["configs"])


def read(results_dir: Path, *, metric: str | None = None, threshold: Decimal | None = None) -> Imported:
    """Every (results file, task) under ``results_dir`` (lm-eval's ``--output_path`` or one of its
    per-model subfolders) as one run; ``metric`` (``acc``, or ``acc,<filter>``) is the check, by
    default the first task's first metric. Raises :class:`ProblemReport` naming every problem."""
    problems = Problems()
    if threshold is not None and not threshold.is_finite():
        problems.append(Problem(str(results_dir), "", f"threshold {threshold} is not a finite number"))
    loaded: list[_Results] = []
    for path in problems.take(_results_files(results_dir)) or ():
        results = problems.take(_load(path))
        if results is not None:
            loaded.append(results)
    check = metric if metric is not None else _default_metric(loaded)
    subjects = _subjects(loaded)
    runs: list[ImportedRun] = []
    for results in loaded:
        for task in results.tasks:
            run = problems.take(_run(results, task, check, threshold, subjects[results.path]))
            if run is not None:
                runs.append(run)
    problems.extend(_same_run_twice(loaded, subjects))
    if problems:
        raise ProblemReport(problems)
    return Imported(producer=PRODUCER, checks=(check,), success=success(threshold), runs=tuple(runs))


def _results_files(results_dir: Path) -> Result[list[Path]]:
    """``results_*.json`` in the folder itself and in its subfolders (one per model), sorted."""
    if not results_dir.is_dir():
        return Result(None, (Problem(str(results_dir), "", "is not a folder: give lm_eval's --output_path"),))
    found = sorted([*results_dir.glob("results_*.json"), *results_dir.glob("*/results_*.json")])
    if not found:
        message = "holds no results_*.json, in itself or a per-model subfolder: give lm_eval's --output_path"
        return Result(None, (Problem(str(results_dir), "", message),))
    return Result(found)


def _default_metric(loaded: list[_Results]) -> str:
    """The first metric of the first task of the first results file (its bare name)."""
    for results in loaded:
        for task in results.tasks:
            keys = _metric_keys(results.doc["results"].get(task))
            if keys:
                return keys[0].partition(",")[0]
    return "acc"


def _metric_keys(aggregates: object) -> list[str]:
    """The ``<metric>,<filter>`` keys of one task's aggregates, without their ``_stderr`` companions."""
    if not isinstance(aggregates, dict):
        return []
    keys = [key for key in aggregates if "," in key]
    return [key for key in keys if not _is_stderr(key, keys)]


def _is_stderr(key: str, keys: list[str]) -> bool:
    name, _, filter_ = key.partition(",")
    return name.endswith("_stderr") and f"{name.removesuffix('_stderr')},{filter_}" in keys


def _load(path: Path) -> Result[_Results]:
    """A results file parsed and checked for the keys this reader relies on."""
    file = str(path)
    data = _read(path)
    if data.value is None:
        return Result(None, data.problems)
    parsed = _parse(data.value, file, "")
    doc = parsed.value
    if parsed.problems:
        return Result(None, parsed.problems)
    if not isinstance(doc, dict):
        return Result(None, (Problem(file, "", "is not a JSON object: not an lm-eval results file"),))
    problems = Problems(_shape_problems(doc, file))
    if problems:
        return problems.result(None)
    version = doc["lm_eval_version"]
    if not isinstance(version, str) or not KNOWN_VERSION.fullmatch(version):
        message = f"lm-eval version {_text(version)} is not one this reader knows (0.4.x)"
        return Result(None, (Problem(file, "$.lm_eval_version", message),))
    created = _created(doc.get("date"))
    if created is None:
        return Result(None, (Problem(file, "$.date", f"{_text(doc.get('date'))} is not a time (seconds)"),))
    config = doc["config"]
    return Result(_Results(path, data.value, doc, version, created, _model(config), _seeds(config)))


def _read(path: Path) -> Result[bytes]:
    return reading.read_file(path)


def _parse(data: bytes, file: str, where: str) -> Result[object]:
    """One JSON document, numbers with a fraction (and NaN, Infinity) as :class:`_Number`.
    ``where`` names the line of a JSONL file; a whole file's place is the error's line and column."""
    try:
        text = data.decode("utf-8")
        value = json.loads(text, parse_float=_Number, parse_constant=_Number, object_pairs_hook=_object)
        return Result(value)
    except _DuplicateKey as exc:
        message = f"not valid JSON: the key {exc.key!r} twice in one object"
        return Result(None, (Problem(file, where, message),))
    except UnicodeDecodeError as exc:
        return Result(None, (Problem(file, where or f"byte {exc.start}", "is not valid UTF-8"),))
    except json.JSONDecodeError as exc:
        place = f"{where} column {exc.colno}" if where else f"line {exc.lineno} column {exc.colno}"
        return Result(None, (Problem(file, place, f"not valid JSON: {exc.msg}"),))
    except RecursionError:
        return Result(None, (Problem(file, where, "not valid JSON: nested too deeply"),))
    except ValueError as exc:  # an integer literal longer than Python's digit limit
        return Result(None, (Problem(file, where, f"not valid JSON: {exc}"),))


class _DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object; a key twice is refused (the standard parser keeps the last silently)."""
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise _DuplicateKey(key)
        found[key] = value
    return found


REQUIRED = ("results", "configs", "n-samples", "config")
"""The objects of a results file this reader reads."""


def _shape_problems(doc: dict[str, Any], file: str) -> Iterator[Problem]:
    if "lm_eval_version" not in doc:
        yield Problem(file, "$.lm_eval_version", "missing: not a results file of lm-eval 0.4")
    for key in REQUIRED:
        if not isinstance(doc.get(key), dict):
            yield Problem(file, f"$.{key}", "missing or not an object")
    config = doc.get("config")
    if isinstance(config, dict) and not isinstance(config.get("model"), str):
        yield Problem(file, "$.config.model", "missing or not text: which model ran is not recorded")
    configs = doc.get("configs")
    for task, task_config in configs.items() if isinstance(configs, dict) else ():
        if not isinstance(task_config, dict):
            yield Problem(file, f"$.configs.{task}", "not an object: the task's config")


def _model(config: Mapping[str, Any]) -> str:
    """``model/model_args`` as lm-eval's command line takes them (``hf/pretrained=gpt2,dtype=bfloat16``);
    the bare model (``dummy``) when it had no arguments."""
    args = config.get("model_args")
    if isinstance(args, dict):
        args = ",".join(f"{key}={_text(value)}" for key, value in args.items())
    model: str = config["model"]
    return f"{model}/{_text(args)}" if args else model


def _seeds(config: Mapping[str, Any]) -> str:
    """The run's seeds as ``--seed`` takes them: one number when all four agree (``seed=1``)."""
    seeds = [_text(config.get(key)) for key in SEED_KEYS]
    return f"seed={seeds[0]}" if len(set(seeds)) == 1 else "seed=" + ",".join(seeds)


def _text(value: object) -> str:
    """A JSON value as text: a number as written, text as is, anything else as compact JSON."""
    if isinstance(value, _Number):
        return value.text
    if isinstance(value, str):
        return value
    return json.dumps(value, default=_text, separators=(",", ":"))


def _subjects(loaded: list[_Results]) -> dict[Path, str]:
    """Each results file's subject: its model; when another results file of the import ran the same
    model on one of its tasks, also its seeds, and when those agree too, its timestamp (lm-eval's
    dummy model is ``dummy`` in every run: two seeds of it are told apart by the seed)."""
    subjects: dict[Path, str] = {}
    for results in loaded:
        rivals = [other for other in loaded if other is not results and _same_model_and_task(results, other)]
        if not rivals:
            subjects[results.path] = results.model
        elif all(other.seeds != results.seeds for other in rivals):
            subjects[results.path] = f"{results.model} {results.seeds}"
        else:
            subjects[results.path] = f"{results.model} {results.seeds} run {results.date_id}"
    return subjects


def _same_model_and_task(one: _Results, other: _Results) -> bool:
    return one.model == other.model and bool(set(one.tasks) & set(other.tasks))


def _same_run_twice(loaded: list[_Results], subjects: dict[Path, str]) -> Iterator[Problem]:
    """Two results files whose runs would share a subject and a task (the same model, seeds and
    timestamp in two folders) cannot both be imported."""
    first: dict[tuple[str, str], Path] = {}
    for results in loaded:
        for task in results.tasks:
            other = first.setdefault((subjects[results.path], task), results.path)
            if other != results.path:
                message = f"runs {subjects[results.path]} on {task}, as {other} does: import one of them"
                yield Problem(str(results.path), f"$.configs.{task}", message)


def _run(
    results: _Results, task: str, check: str, threshold: Decimal | None, subject: str
) -> Result[ImportedRun]:
    """One task of one results file: its plan, its samples file's lines, lm-eval's own aggregate."""
    problems = Problems()
    key = problems.take(_metric_key(results, task, check))
    size = problems.take(_plan_size(results, task))
    samples = problems.take(_samples_file(results, task))
    if key is None or size is None or samples is None:
        return problems.result(None)
    rule = _Rule(check, key.partition(",")[2], threshold)
    observations = problems.take(
        _observations(results.path.with_name(samples.name), samples.data, rule, size)
    )
    if observations is None:
        return problems.result(None)
    reported = _reported(results, task, key, check)
    rest = (*_plan_notes(results, task, size), *_cross_check(reported, observations, size))
    named = tuple(_subject_notes(results, subject, blind=False))
    blind_notes = (*_subject_notes(results, subject, blind=True), *rest) if named else None
    run = ImportedRun(
        subject=subject,
        task=task,
        planned=tuple((str(doc_id), 1) for doc_id in range(size)),
        observations=observations,
        sources=(SourceFile(results.path.name, results.data), samples),
        producer=f"lm-eval {results.version}",
        status="success",
        reported=(reported,),
        notes=(*named, *rest),
        blind_notes=blind_notes,
        created=results.created,
    )
    return problems.result(run)


def _metric_key(results: _Results, task: str, check: str) -> Result[str]:
    """The task's aggregate key of ``check``: ``acc`` names ``acc,<filter>`` when the task has one
    filter for it; ``acc,<filter>`` names itself."""
    aggregates = results.doc["results"].get(task)
    keys = _metric_keys(aggregates)
    wanted = [key for key in keys if key == check or key.partition(",")[0] == check]
    if len(wanted) == 1:
        return Result(wanted[0])
    known = "; ".join(keys) or "none"
    if wanted:
        message = f"metric {check} has several filters here ({known}): choose one as metric=<metric>,<filter>"
    else:
        message = f"the task has no metric {check}; its metrics (metric,filter): {known}"
    return Result(None, (Problem(str(results.path), f"$.results.{task}", message),))


def _plan_size(results: _Results, task: str) -> Result[int]:
    """How many docs lm-eval ran (``n-samples.<task>.effective``): the plan is doc ids 0 to that - 1.
    Fewer than the task's docs without ``--limit`` means a ``--samples`` selection, whose doc ids
    the results file does not record: refused."""
    file, where = str(results.path), f"$.n-samples.{task}"
    counts = results.doc["n-samples"].get(task)
    if not isinstance(counts, dict):
        return Result(None, (Problem(file, where, "missing: the task's planned sample count"),))
    original, effective = _count(counts.get("original")), _count(counts.get("effective"))
    if original is None or effective is None or effective > original:
        counted = f"original {_text(counts.get('original'))}, effective {_text(counts.get('effective'))}"
        message = f"{counted}: not two counts with effective ≤ original"
        return Result(None, (Problem(file, where, message),))
    if effective < original and results.doc["config"].get("limit") is None:
        message = (
            f"{effective} of the task's {original} docs ran without --limit (a --samples selection?): "
            "which ones is not recorded, so the plan cannot be read"
        )
        return Result(None, (Problem(file, where, message),))
    return Result(effective)


def _count(value: object) -> int | None:
    """``value`` when it is a JSON integer ≥ 0, else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _samples_file(results: _Results, task: str) -> Result[SourceFile]:
    """The task's samples file beside the results file, with the same timestamp, byte for byte."""
    path = results.path.with_name(f"samples_{task}_{results.date_id}.jsonl")
    if not path.is_file():
        message = f"no {path.name} beside it: run lm_eval with --log_samples to write each sample's result"
        return Result(None, (Problem(str(results.path), f"$.configs.{task}", message),))
    data = _read(path)
    if data.value is None:
        return Result(None, data.problems)
    return Result(SourceFile(path.name, data.value))


@dataclass(frozen=True)
class _Rule:
    """What turns a samples line into a check state: the metric, its filter, the threshold."""

    check: str
    filter: str
    threshold: Decimal | None

    @property
    def metric(self) -> str:
        return self.check.partition(",")[0]


def _observations(path: Path, data: bytes, rule: _Rule, size: int) -> Result[tuple[Observation, ...]]:
    """One observation per line of the rule's filter, in doc order; every line is checked."""
    problems = Problems()
    found: dict[int, tuple[int, Observation]] = {}
    for number, text in enumerate(data.split(b"\n"), start=1):
        if not text.strip():
            continue
        line = problems.take(_line(path, number, text, rule.filter))
        if line is None:
            continue
        doc_id = problems.take(_doc_id(path, number, line, size, found))
        observation = problems.take(_observation(path, number, line, rule))
        if doc_id is not None and observation is not None:
            found[doc_id] = (number, observation)
    ordered = tuple(found[doc_id][1] for doc_id in sorted(found))
    return problems.result(ordered)


def _line(path: Path, number: int, text: bytes, filter_: str) -> Result[dict[str, Any]]:
    """A samples line as an object when it is of ``filter_`` (lines of other filters: None)."""
    where = f"line {number}"
    parsed = _parse(text, str(path), where)
    if parsed.problems:
        return Result(None, parsed.problems)
    line = parsed.value
    if not isinstance(line, dict):
        return Result(None, (Problem(str(path), where, "is not a JSON object"),))
    if not isinstance(line.get("filter"), str):
        return Result(None, (Problem(str(path), f"{where}: filter", "missing or not text"),))
    return Result(line if line["filter"] == filter_ else None)


def _doc_id(
    path: Path, number: int, line: dict[str, Any], size: int, found: dict[int, tuple[int, Observation]]
) -> Result[int]:
    where = f"line {number}: doc_id"
    doc_id = _count(line.get("doc_id"))
    if doc_id is None:
        message = f"{_text(line.get('doc_id'))} is not a doc id (an integer ≥ 0)"
        return Result(None, (Problem(str(path), where, message),))
    if doc_id >= size:
        message = f"{doc_id} is outside the plan (doc ids 0 to {size - 1}: n-samples.effective is {size})"
        return Result(None, (Problem(str(path), where, message),))
    if doc_id in found:
        message = f"{doc_id} again: line {found[doc_id][0]} has it too (same filter)"
        return Result(None, (Problem(str(path), where, message),))
    return Result(doc_id)


def _observation(path: Path, number: int, line: dict[str, Any], rule: _Rule) -> Result[Observation]:
    where = f"line {number}: {rule.metric}"
    if rule.metric not in line:
        listed = line.get("metrics")
        names = listed if isinstance(listed, list) else []
        has = ", ".join(name for name in names if isinstance(name, str)) or "none"
        return Result(None, (Problem(str(path), where, f"missing; the line's metrics: {has}"),))
    value = line[rule.metric]
    state = _state(value, rule.threshold)
    if isinstance(state, Problem):
        return Result(None, (Problem(str(path), where, state.message),))
    values = [(rule.check, _text(value))]
    if isinstance(line.get("doc_hash"), str):
        values.append(("doc_hash", line["doc_hash"]))
    observation = Observation(
        sample_id=_text(line.get("doc_id")),
        epoch=1,
        terminal="completed",
        checks=((rule.check, state),),
        values=tuple(values),
    )
    return Result(observation)


def _state(value: object, threshold: Decimal | None) -> CheckState | Problem:
    """The rule of :func:`success` for one value; a Problem (place left empty) when it cannot apply."""
    if isinstance(value, bool):
        return "pass" if value else "fail"
    if value is None:
        return "not_evaluable"
    number = _decimal(value)
    if number is None:
        return Problem("", "", f"{_text(value)} is not a number or true/false")
    if number.is_nan():
        return "not_evaluable"
    if threshold is not None:
        return "pass" if number >= threshold else "fail"
    if number in (0, 1):
        return "pass" if number == 1 else "fail"
    return Problem("", "", f"{_text(value)} is neither 0 nor 1: give a threshold to read it as pass / fail")


def _decimal(value: object) -> Decimal | None:
    if isinstance(value, _Number):
        try:
            return value.value
        except InvalidOperation:
            return None
    if isinstance(value, int) and not isinstance(value, bool):
        return Decimal(value)
    return None


def _reported(results: _Results, task: str, key: str, check: str) -> Reported:
    metric, _, filter_ = key.partition(",")
    basis = f"lm-eval's {metric}: mean over the task's samples (filter {filter_})"
    value = results.doc["results"][task][key]
    return Reported(name=metric, check=check, value=_text(value), basis=basis)


def _cross_check(reported: Reported, observations: tuple[Observation, ...], size: int) -> tuple[str, ...]:
    """A note when lm-eval's figure is not passes / planned: they agree when they differ by less than
    one unit in the last place lm-eval wrote (it writes a double's shortest text, not a rounding)."""
    if numbers.figure_problem(reported.value) is not None:
        return (f"lm-eval's {reported.name} is {reported.value}, not a number: not compared",)
    passes = sum(1 for observation in observations if observation.checks[0][1] == "pass")
    if size == 0:
        return ()
    if numbers.agrees(reported.value, Fraction(passes, size)):
        return ()
    return (_disagree(reported, passes, size),)


def _disagree(reported: Reported, passes: int, size: int) -> str:
    return (
        f"lm-eval reports {reported.name} {reported.value}, but {passes} of the {size} planned samples "
        f"pass ({passes}/{size}): lm-eval's mean is of its values over the samples it ran"
    )


def _subject_notes(results: _Results, subject: str, blind: bool) -> Iterator[str]:
    """Why the subject is more than the model's name; when ``blind``, without the model's name nor
    the seeds (the subject is made of both: ``dummy seed=1``)."""
    if subject != results.model and blind:
        yield (
            "another results file of this import ran the same model on this task too: what tells the "
            "two apart is in the producer's files, withheld while the models are blind"
        )
    elif subject != results.model:
        yield (
            f"another results file of this import ran {results.model} on this task too: "
            "its seeds (config.random_seed, numpy_seed, torch_seed, fewshot_seed) tell this run apart"
            + ("" if subject.endswith(results.seeds) else ", with the timestamp of its file name")
        )


def _plan_notes(results: _Results, task: str, size: int) -> Iterator[str]:
    original = results.doc["n-samples"][task]["original"]
    if size < original:
        limit = _text(results.doc["config"].get("limit"))
        yield f"lm-eval ran {size} of the task's {original} docs (--limit {limit}): the plan is those {size}"
    repeats = results.doc["configs"][task].get("repeats")
    if isinstance(repeats, int) and repeats > 1:
        yield f"the task repeats each request {repeats} times; lm-eval's filter made one value of each doc"


def _created(date: object) -> str | None:
    """``date`` (seconds since 1970, as lm-eval wrote it) as UTC ISO 8601 text, to the microsecond;
    None when it is not such a time."""
    seconds = _decimal(date)
    if seconds is None or not seconds.is_finite() or not 0 <= seconds < 253402300800:  # year 10000
        return None
    whole = int(seconds)
    micro = int((seconds - whole) * 1_000_000)
    return (datetime.fromtimestamp(whole, UTC) + timedelta(microseconds=micro)).isoformat()
