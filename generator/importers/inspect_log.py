"""inspect_ai logs (``.json`` and the zipped ``.eval``, log format 2) read into an :class:`Imported`.

Each log file is read as JSON records by :mod:`generator.importers.inspect_file` (the format, the
zip and its zstd members); this module maps the records to benchsite's trials.

The mapping, decided here (and stated in :attr:`Imported.success` where it concerns the states):

* one run per log file: subject ``eval.model``; task ``eval.task``, with ``@<task_version>`` when
  the version is not 0 (two versions of a task are two prompt corpora, never pooled);
* plan: every id of ``eval.dataset.sample_ids`` × epochs ``1..eval.config.epochs``, sample by
  sample; a log written before ``sample_ids`` is planned from its records' ids when they are the
  whole dataset (``eval.dataset.samples`` of them), else refused (its plan cannot be known);
* sample ids kept as written, in any script (the writer makes a file-safe trial id from a digest);
* checks: each scorer, or ``scorer:key`` for each key of a scorer whose value is a dict;
* reported: every metric of each check whatever its name, but a spread; each reducer once;
* terminal: ``error`` for a record with ``error``; ``timeout`` for a ``limit`` of type time or
  working; ``error`` with failure code ``limit:<type>`` for any other limit; else ``completed``;
* check state: ``C`` and ``true`` pass; ``I``, ``P`` (partial: the strict reading, a partial answer
  is not a correct one), ``N`` and ``false`` fail; a number passes when at least ``--threshold``
  (compared as the decimal text inspect wrote, never through a float); anything else is refused;
* a log that ended in ``error`` is imported with a note; ``started`` / ``cancelled`` only on request.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from generator.errors import Problem, ProblemReport, Problems, Result
from generator.importers.inspect_file import (
    LOG_VERSION,
    Log,
    Number,
    Place,
    Record,
    as_id,
    decimal,
    field_integer,
    field_object,
    field_text,
    kind,
    load,
    problem,
)
from generator.importers.model import (
    CheckState,
    Imported,
    ImportedRun,
    Observation,
    Reported,
    SourceFile,
    Terminal,
)
from generator.inputs import numbers
from generator.inputs.readable import hidden_character

UNFINISHED = ("started", "cancelled")
STATES: Mapping[str, CheckState] = {"C": "pass", "I": "fail", "P": "fail", "N": "fail"}
"""inspect_ai's value_to_float letters: correct, incorrect, partial, no answer."""
TIMEOUTS = ("time", "working")


def read(
    paths: Sequence[Path],
    *,
    scorer: str | None = None,
    threshold: Decimal | None = None,
    allow_unfinished: bool = False,
) -> Imported:
    """Every inspect_ai log of ``paths`` (files, or folders of ``*.json`` / ``*.eval`` logs), one run
    each; raises :class:`ProblemReport` naming every file, place and reason that stops the import."""
    found = Problems()
    if threshold is not None and not threshold.is_finite():
        found.append(Problem("--threshold", "", f"{threshold} is not a finite number"))
    files = found.take(_files(paths)) or ()
    logs = [log for log in (found.take(load(path)) for path in files) if log is not None]
    checks = found.take(_checks(logs, scorer)) if logs else None
    runs = [found.take(_run(log, checks, threshold, allow_unfinished)) for log in logs if checks]
    if found or checks is None:
        raise ProblemReport(found)
    ids = tuple(check.id for check in checks)
    return Imported("inspect_ai", ids, _success(threshold, checks), tuple(run for run in runs if run))


def _success(threshold: Decimal | None, checks: Sequence[Check]) -> str:
    numbers = f"a number passes when it is at least {threshold}" if threshold is not None else ""
    keyed = (
        "a scorer whose value is a dict gives one check per key (scorer:key), each key's value read"
        " as a value is"
        if any(check.key is not None for check in checks)
        else ""
    )
    return "; ".join(
        part
        for part in (
            "inspect_ai's score value of each sample and epoch: C (correct) and true are a pass",
            "I (incorrect), P (partial: a partial answer is not a correct one) and N (no answer)"
            " and false are a fail",
            numbers,
            keyed,
            "a sample that raised an error and has no score is not evaluable",
            "a planned sample and epoch without a record is a failure",
        )
        if part
    )


def _files(paths: Sequence[Path]) -> Result[tuple[Path, ...]]:
    found = Problems()
    if not paths:
        found.append(Problem("inspect_ai logs", "", "none given: name at least one log file or folder"))
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            logs = sorted(p for p in path.iterdir() if _is_log(p))
            if not logs:
                found.append(Problem(str(path), "", "no inspect_ai log (*.json, *.eval) in this folder"))
            files.extend(logs)
        elif path.is_file():
            files.append(path)
        else:
            found.append(Problem(str(path), "", "no such file or folder"))
    return found.result(tuple(files))


def _is_log(path: Path) -> bool:
    """A log file of a folder: ``*.json`` or ``*.eval``, not inspect's own ``logs.json`` listing."""
    return path.is_file() and path.suffix in (".json", ".eval") and path.name != "logs.json"


@dataclass(frozen=True)
class Check:
    """A check of the benchmark: a scorer, or one key of a scorer whose value is a dict."""

    scorer: str
    key: str | None = None

    @property
    def id(self) -> str:
        """``scorer``, or ``scorer:key`` for a key of a dict value."""
        return self.scorer if self.key is None else f"{self.scorer}:{self.key}"


def _scorers(log: Log) -> tuple[str, ...]:
    """The log's scorer names: from ``results.scores`` (an entry's ``scorer``: a dict-valued scorer
    has one entry per key, named after the key), else ``eval.scorers`` (a log whose every sample
    errored has no results), else the keys of its samples' scores."""
    results = log.header.data.get("results")
    if isinstance(results, dict) and isinstance(results.get("scores"), list):
        entries = [entry for entry in results["scores"] if isinstance(entry, dict)]
        return tuple(dict.fromkeys(str(entry.get("scorer") or entry.get("name")) for entry in entries))
    spec = log.header.data.get("eval")
    declared = spec.get("scorers") if isinstance(spec, dict) else None
    if isinstance(declared, list) and declared:
        return tuple(dict.fromkeys(str(item.get("name")) for item in declared if isinstance(item, dict)))
    keys = (record.data.get("scores") for record in log.samples)
    return tuple(sorted({key for scores in keys if isinstance(scores, dict) for key in scores}))


def _keys(logs: Sequence[Log], scorer: str) -> tuple[str, ...]:
    """The keys of ``scorer``'s values over every sample of ``logs``, sorted, when every value is a
    dict; () when one is not (a dict among single values is then refused at its place)."""
    keys: set[str] = set()
    for record in (record for log in logs for record in log.samples):
        scores = record.data.get("scores")
        score = scores.get(scorer) if isinstance(scores, dict) else None
        value = score.get("value") if isinstance(score, dict) else None
        if isinstance(score, dict) and not isinstance(value, dict):
            return ()
        keys.update(value if isinstance(value, dict) else ())
    return tuple(sorted(keys))


def _checks(logs: Sequence[Log], scorer: str | None) -> Result[tuple[Check, ...]]:
    """The checks of every run: each of the logs' common scorers, one per key for a scorer whose
    value is a dict; or those ``scorer`` picks (``NAME``, or ``NAME:KEY`` for one key)."""
    named = {log.path: _scorers(log) for log in logs}
    kinds = {frozenset(names) for names in named.values() if names}
    if len(kinds) > 1:
        return Result(None, tuple(_disagree(path, names) for path, names in named.items() if names))
    known = next((names for names in named.values() if names), ())
    if not known:
        message = "no scorer: the log names no scorer (results.scores, eval.scorers) and holds no score"
        return Result(None, tuple(Problem(str(log.path), "results.scores", message) for log in logs))
    checks = tuple(
        check
        for name in known
        for check in ([Check(name, key) for key in _keys(logs, name)] or [Check(name)])
    )
    if scorer is None:
        return Result(checks)
    picked = tuple(check for check in checks if scorer in (check.id, check.scorer))
    if picked:
        return Result(picked)
    message = f"no scorer named {scorer!r}: the logs' scorers are {', '.join(c.id for c in checks)}"
    return Result(None, (Problem(str(logs[0].path), "results.scores", message),))


def _disagree(path: Path, names: tuple[str, ...]) -> Problem:
    message = f"scorers {', '.join(names)}: the logs do not share their scorers; import them apart"
    return Problem(str(path), "results.scores", message)


def _run(
    log: Log, checks: tuple[Check, ...], threshold: Decimal | None, allow_unfinished: bool
) -> Result[ImportedRun]:
    found = Problems()
    header, path = log.header, log.path
    if log.status in UNFINISHED and not allow_unfinished:
        message = (
            f"the log's status is {log.status!r} (the eval did not finish); pass --allow-unfinished"
            " to import it, each planned trial without a result counting as a failure"
        )
        return Result(None, (problem(path, header.place.at("status"), message),))
    if log.status not in ("success", "error", *UNFINISHED):
        message = f"unknown status {log.status!r}: expected success, error, started or cancelled"
        return Result(None, (problem(path, header.place.at("status"), message),))
    spec = field_object(header, "eval", path, found)
    planned = _plan(spec, log, found)
    if found:
        return found.result(None)
    if threshold is None and (unthresholded := _numbers(log, checks)):
        return Result(None, unthresholded)
    observations = _observations(log, planned, checks, threshold, found)
    if found:
        return found.result(None)
    run = ImportedRun(
        subject=field_text(spec, "model", path, found) or "",
        task=_task(spec, path, found),
        planned=planned,
        observations=observations,
        sources=(SourceFile(path.name, log.data),),
        producer=f"inspect_ai {_package_version(spec)}, log format {LOG_VERSION}",
        status=log.status,
        reported=_reported(log, checks, spec),
        notes=_notes(log, spec, planned, len(observations)) + _unreported(log, checks, spec),
        created=field_text(spec, "created", path, found, required=False) or "",
    )
    return found.result(run)


def _task(spec: Record, path: Path, found: Problems) -> str:
    """``eval.task``, with ``@<task_version>`` when the version is not 0."""
    task = field_text(spec, "task", path, found) or ""
    version = spec.data.get("task_version", 0)
    return task if version in (0, "0", None) else f"{task}@{as_id(version) or version}"


def _package_version(spec: Record) -> str:
    packages = spec.data.get("packages")
    version = packages.get("inspect_ai") if isinstance(packages, dict) else None
    return version if isinstance(version, str) else "(version not recorded)"


def _plan(spec: Record, log: Log, found: Problems) -> tuple[tuple[str, int], ...]:
    """Every declared sample id × epochs 1..``eval.config.epochs``, sample by sample; for a log
    written before ``eval.dataset.sample_ids``, the ids its records list, when they are the whole
    dataset (:func:`_listed_ids`)."""
    path = log.path
    dataset = field_object(spec, "dataset", path, found)
    config = field_object(spec, "config", path, found)
    epochs = field_integer(config, "epochs", path, found, 1)
    if epochs < 1:
        message = "no epoch: a log runs each sample at least once"
        found.append(problem(path, config.place.at("epochs"), message))
    if "sample_ids" in dataset.data:
        ids = _sample_ids(dataset, path, found)
        declared = field_integer(dataset, "samples", path, found, len(ids))
    else:
        ids = _listed_ids(log, dataset, found)
        declared = len(ids)
    if len(ids) > declared:
        message = f"{len(ids)} sample ids, more than the dataset's {declared} samples"
        found.append(problem(path, dataset.place.at("samples"), message))
    return tuple((sample, epoch) for sample in ids for epoch in range(1, epochs + 1))


def _sample_ids(dataset: Record, path: Path, found: Problems) -> list[str]:
    """``sample_ids`` as text, each once; the problems of a bad list, a bad or repeated id."""
    where = dataset.place.at("sample_ids")
    raw = dataset.data.get("sample_ids")
    if not isinstance(raw, list):
        found.append(problem(path, where, "no list of sample ids: the plan (the denominator) is unknown"))
        return []
    ids: dict[str, None] = {}
    for index, value in enumerate(raw):
        sample = as_id(value)
        reason = _id_problem(sample, value, ids)
        if reason is not None:
            found.append(problem(path, where.at(index), reason))
        ids[sample or ""] = None
    return [sample for sample in ids if sample]


def _id_problem(sample: str | None, value: object, ids: Mapping[str, None]) -> str | None:
    """Why a declared sample id cannot be a prompt's id (the pages show it as written), or None."""
    if sample is None:
        return f"a sample id must be text or a whole number, found {kind(value)}"
    if not sample:
        return "an empty sample id: a prompt needs an id to be shown by"
    if sample in ids:
        return f"sample id {sample!r} is declared twice"
    hidden = hidden_character(sample)
    return f"sample id {sample!r}: {hidden}" if hidden else None


def _listed_ids(log: Log, dataset: Record, found: Problems) -> list[str]:
    """The sample ids a log without ``eval.dataset.sample_ids`` lists in its records, in their
    order, when they are as many as the dataset's ``samples``: the plan is then the whole dataset.
    Otherwise a sample it never ran would be left out of the plan: refused."""
    listed = [as_id(record.data.get("id")) for record in log.samples]
    ids = list(dict.fromkeys(sample for sample in listed if sample is not None))
    declared = dataset.data.get("samples")
    if isinstance(declared, int) and not isinstance(declared, bool) and len(ids) == declared > 0:
        return ids
    size = (
        f"the dataset's {declared} samples"
        if isinstance(declared, int)
        else "no count of the dataset's samples"
    )
    message = (
        "no sample_ids (a log written before inspect_ai recorded them): its records list"
        f" {len(ids)} sample ids and it declares {size}, so the samples it planned but did not run"
        " are unknown; import a log of the whole dataset, or re-run the eval with a current"
        " inspect_ai (which records the planned ids)"
    )
    found.append(problem(log.path, dataset.place.at("sample_ids"), message))
    return []


def _observations(
    log: Log,
    planned: tuple[tuple[str, int], ...],
    checks: tuple[Check, ...],
    threshold: Decimal | None,
    found: Problems,
) -> tuple[Observation, ...]:
    """One observation per sample record, in the plan's order; strays and repeats are problems."""
    order = {trial: index for index, trial in enumerate(planned)}
    seen: dict[tuple[str, int], Place] = {}
    kept: list[Observation] = []
    for record in log.samples:
        observation = _observation(record, log.path, checks, threshold, found)
        if observation is None:
            continue
        trial = (observation.sample_id, observation.epoch)
        if trial not in order:
            found.append(problem(log.path, record.place, _stray(trial, planned)))
        elif trial in seen:
            message = f"a second record of sample {trial[0]!r} epoch {trial[1]} (the first: {seen[trial]})"
            found.append(problem(log.path, record.place, message))
        else:
            seen[trial] = record.place
            kept.append(observation)
    return tuple(sorted(kept, key=lambda o: order[(o.sample_id, o.epoch)]))


def _stray(trial: tuple[str, int], planned: tuple[tuple[str, int], ...]) -> str:
    sample, epoch = trial
    if any(planned_id == sample for planned_id, _ in planned):
        return f"epoch {epoch} of sample {sample!r} is outside the log's epochs (eval.config.epochs)"
    return f"sample id {sample!r} is not one of the log's declared ids (eval.dataset.sample_ids)"


def _observation(
    record: Record, path: Path, checks: tuple[Check, ...], threshold: Decimal | None, found: Problems
) -> Observation | None:
    sample = as_id(record.data.get("id"))
    epoch = record.data.get("epoch")
    before = len(found)
    if sample is None:
        message = f"expected a sample id, found {kind(record.data.get('id'))}"
        found.append(problem(path, record.place.at("id"), message))
    if not isinstance(epoch, int) or isinstance(epoch, bool) or epoch < 1:
        found.append(problem(path, record.place.at("epoch"), f"expected an epoch ≥ 1, found {kind(epoch)}"))
    terminal, failure = _terminal(record, path, found)
    states = _states(record, path, checks, threshold, found)
    elapsed = _elapsed(record, path, found)
    tokens = _tokens(field_object(record, "model_usage", path, found, required=False), path, found)
    if len(found) > before or sample is None or not isinstance(epoch, int):
        return None
    return Observation(
        sample_id=sample,
        epoch=epoch,
        terminal=terminal,
        checks=tuple((check, state) for check, state, _ in states),
        failure_code=failure,
        elapsed_ms=elapsed,
        tokens_in=tokens[0],
        tokens_out=tokens[1],
        values=tuple((check, text) for check, _, text in states),
    )


def _terminal(record: Record, path: Path, found: Problems) -> tuple[Terminal, str | None]:
    """How the sample ended; the error's message is not kept (it may hold anything)."""
    if record.data.get("error") is not None:
        return "error", "error"
    limit = field_object(record, "limit", path, found, required=False)
    if not limit.data:
        return "completed", None
    kind = field_text(limit, "type", path, found) or "unknown"
    return ("timeout" if kind in TIMEOUTS else "error"), f"limit:{kind}"


def _states(
    record: Record, path: Path, checks: tuple[Check, ...], threshold: Decimal | None, found: Problems
) -> list[tuple[str, CheckState, str]]:
    """(check, state, the value as text) for each check the record has a score of; a key its dict
    value does not hold is a check without a score."""
    scores = field_object(record, "scores", path, found, required=False)
    states: list[tuple[str, CheckState, str]] = []
    for check in (check for check in checks if check.scorer in scores.data):
        score = field_object(scores, check.scorer, path, found)
        place, value = score.place.at("value"), score.data.get("value")
        if check.key is not None:
            if not isinstance(value, dict):
                message = (
                    f"expected a dict of {check.scorer}'s keys (as its other scores), found {kind(value)}"
                )
                found.append(problem(path, place, message))
                continue
            if check.key not in value:
                continue
            place, value = place.at(check.key), value[check.key]
        read = _state(value, threshold)
        if isinstance(read, str):
            found.append(problem(path, place, read))
        else:
            states.append((check.id, *read))
    return states


def _numbers(log: Log, checks: tuple[Check, ...]) -> tuple[Problem, ...]:
    """Once per check whose scores are numbers, at the first: it needs ``--threshold`` (one message,
    not one per sample)."""
    found: dict[str, tuple[Place, str, int]] = {}
    for record in log.samples:
        for check in checks:
            place, value = _score_value(record, check)
            if isinstance(value, int | Number) and not isinstance(value, bool):
                text = value.text if isinstance(value, Number) else str(value)
                first, shown, count = found.get(check.id, (place, text, 0))
                found[check.id] = (first, shown, count + 1)
    problems = []
    for check_id, (place, text, count) in found.items():
        more = f" ({count - 1} more of {check_id}'s scores are numbers)" if count > 1 else ""
        message = f"the score is a number ({text}): pass --threshold to say which numbers are a pass{more}"
        problems.append(problem(log.path, place, message))
    return tuple(problems)


def _score_value(record: Record, check: Check) -> tuple[Place, object]:
    """The place and value of ``check`` in a record (None when it has none there)."""
    scores = record.data.get("scores")
    score = scores.get(check.scorer) if isinstance(scores, dict) else None
    place = record.place.at("scores").at(check.scorer).at("value")
    value = score.get("value") if isinstance(score, dict) else None
    if check.key is None:
        return place, value
    return place.at(check.key), value.get(check.key) if isinstance(value, dict) else None


def _state(value: object, threshold: Decimal | None) -> tuple[CheckState, str] | str:
    """A score value's state and text, or why it cannot be read as pass / fail."""
    if isinstance(value, bool):
        return ("pass" if value else "fail"), str(value).lower()
    if isinstance(value, str):
        known = STATES.get(value)
        return (known, value) if known else f"score value {value!r} is none of C, I, P, N"
    if isinstance(value, int | Number):
        text = value.text if isinstance(value, Number) else str(value)
        if threshold is None:
            return f"the score is a number ({text}): pass --threshold to say which numbers are a pass"
        number = decimal(text)
        if number is None:
            return f"the score {text} is not a finite number"
        return ("pass" if number >= threshold else "fail"), text
    return (
        f"the score is {kind(value)} (a scorer with several values?), not one value to read as pass or fail"
    )


def _elapsed(record: Record, path: Path, found: Problems) -> int | None:
    """``total_time`` (seconds, as written) in whole milliseconds, half to even."""
    value = record.data.get("total_time")
    if value is None:
        return None
    text = value.text if isinstance(value, Number) else str(value)
    seconds = decimal(text) if isinstance(value, int | Number) and not isinstance(value, bool) else None
    if seconds is None or seconds < 0:
        message = f"expected seconds ≥ 0, found {kind(value)}"
        found.append(problem(path, record.place.at("total_time"), message))
        return None
    milliseconds = numbers.whole(seconds, 1000)
    if milliseconds is None:
        message = f"{text[:40]} seconds: a time may hold at most {numbers.MAX_DIGITS} digits of milliseconds"
        found.append(problem(path, record.place.at("total_time"), message))
    return milliseconds


def _tokens(usage: Record, path: Path, found: Problems) -> tuple[int | None, int | None]:
    """Input and output tokens summed over the models of ``model_usage``; None when not recorded."""
    if not usage.data:
        return None, None
    per_model = [field_object(usage, model, path, found) for model in sorted(usage.data)]
    inputs = sum(field_integer(model, "input_tokens", path, found, 0) for model in per_model)
    outputs = sum(field_integer(model, "output_tokens", path, found, 0) for model in per_model)
    return inputs, outputs


DISPERSION = frozenset(("stderr", "std", "var"))
"""Metrics of a scorer's spread, not a rate of its samples: not set beside benchsite's pass rate."""


@dataclass(frozen=True)
class Figure:
    """One metric of one ``results.scores`` entry: its check, reducer, name and value as written."""

    check: str
    reducer: str
    metric: str
    value: str


def _reported(log: Log, checks: tuple[Check, ...], spec: Record) -> tuple[Reported, ...]:
    """inspect_ai's own figures of each check, exactly as written: every metric whatever its name
    (accuracy, mean, all, pass_at_k, a category's) but a spread (stderr…), each reducer once; one
    that is not a finite number is noted instead (:func:`_unreported`). Its counts
    (``scored_samples``, ``total_samples``…) are not reported: the writer sets each reported figure
    beside benchsite's pass rate, and a count is not a rate."""
    return tuple(
        Reported(name, figure.check, figure.value, _basis(figure))
        for name, figure in _named(log, checks, spec)
        if decimal(figure.value) is not None
    )


def _unreported(log: Log, checks: tuple[Check, ...], spec: Record) -> tuple[str, ...]:
    """A note for each figure inspect_ai wrote as NaN or Infinity (as it does where no sample was
    scored): not a figure to set beside a pass rate, and not a reason to refuse the log."""
    return tuple(
        f"inspect_ai's {name} of {figure.check} is {figure.value}, not a number: not recorded"
        for name, figure in _named(log, checks, spec)
        if decimal(figure.value) is None
    )


def _named(log: Log, checks: tuple[Check, ...], spec: Record) -> list[tuple[str, Figure]]:
    """Each figure and its name: the metric's, with its reducer when the check has several."""
    figures = _figures(log, {check.id: check for check in checks}, _reducers(spec))
    reducers: dict[str, set[str]] = {}
    for figure in figures:
        reducers.setdefault(figure.check, set()).add(figure.reducer)
    return [(f"{f.metric} ({f.reducer})" if len(reducers[f.check]) > 1 else f.metric, f) for f in figures]


def _reducers(spec: Record) -> tuple[str, ...]:
    config = spec.data.get("config")
    reducers = config.get("epochs_reducer") if isinstance(config, dict) else None
    return tuple(map(str, reducers)) if isinstance(reducers, list) and reducers else ("mean",)


def _figures(log: Log, checks: Mapping[str, Check], reducers: tuple[str, ...]) -> list[Figure]:
    """Every figure of the chosen checks, each (check, reducer, metric) once. An entry names its
    reducer; one of a log older than that field is attributed only when the log has one reducer."""
    results = log.header.data.get("results")
    entries = results.get("scores") if isinstance(results, dict) else None
    figures: dict[tuple[str, str, str], Figure] = {}
    for entry in entries if isinstance(entries, list) else ():
        check = _entry_check(entry, checks)
        reducer = entry.get("reducer") if check is not None else None
        if reducer is None and len(reducers) == 1:
            reducer = reducers[0]
        if check is None or not isinstance(reducer, str):
            continue
        metrics = entry.get("metrics")
        for metric in sorted(metrics) if isinstance(metrics, dict) else ():
            value = _metric(entry, metric)
            if value is not None and metric not in DISPERSION:
                figures.setdefault((check, reducer, metric), Figure(check, reducer, metric, value))
    return list(figures.values())


def _entry_check(entry: object, checks: Mapping[str, Check]) -> str | None:
    """The check a ``results.scores`` entry is of: its scorer, or ``scorer:name`` for a key of a
    dict-valued scorer; None when it is none of ``checks``."""
    if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
        return None
    name: str = entry["name"]
    written = entry.get("scorer")
    scorer = written if isinstance(written, str) else name
    check = Check(scorer) if name == scorer else Check(scorer, name)
    return check.id if check.id in checks else None


def _basis(figure: Figure) -> str:
    """How inspect_ai computed the figure, in words (accuracy's as it always was)."""
    what = (
        "inspect_ai's accuracy: the mean"
        if figure.metric == "accuracy"
        else f"inspect_ai's metric {figure.metric!r}, computed"
    )
    return (
        f"{what} over scored samples of each sample's score reduced over its epochs by"
        f" {figure.reducer}; an errored sample and epoch has no score and is left out"
    )


def _metric(entry: Mapping[str, Any], name: str) -> str | None:
    """The metric's value as written, when it is a number (NaN and Infinity included)."""
    metrics = entry.get("metrics")
    metric = metrics.get(name) if isinstance(metrics, dict) else None
    value = metric.get("value") if isinstance(metric, dict) else None
    if isinstance(value, Number):
        return value.text
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else None


def _notes(log: Log, spec: Record, planned: tuple[tuple[str, int], ...], observed: int) -> tuple[str, ...]:
    """What the run page must disclose: a log without its format version, an unfinished or failed
    eval, a subset of the dataset, a plan read from the records of a log written before
    ``sample_ids``."""
    notes: list[str] = []
    if "version" not in log.header.data:
        notes.append(f"the log has no 'version': read as format {LOG_VERSION}, as inspect_ai reads it")
    have = f"{observed} of {len(planned)} planned trials have a result; each missing one counts as a failure"
    if log.status == "started":
        notes.append(f"the log is still 'started': {have}")
    elif log.status == "cancelled":
        notes.append(f"the log was 'cancelled': {have}")
    elif log.status == "error":
        notes.append(f"the eval ended in error (inspect_ai status 'error'): {have}")
    dataset = spec.data.get("dataset")
    declared = dataset.get("samples") if isinstance(dataset, dict) else None
    ran = len(dict.fromkeys(sample for sample, _ in planned))
    if isinstance(dataset, dict) and "sample_ids" not in dataset:
        notes.append(
            f"the log predates eval.dataset.sample_ids: the plan is the {ran} sample ids its records"
            f" list, which are all of its dataset's {declared} samples"
        )
    elif isinstance(declared, int) and ran < declared:
        selection = "(a --limit or --sample-id selection)"
        notes.append(f"the log ran {ran} of its dataset's {declared} samples {selection}")
    return tuple(notes)
