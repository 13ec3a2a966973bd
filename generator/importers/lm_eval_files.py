"""lm-eval's results files (``results_<timestamp>.json``, or ``[results_]<stem>_<timestamp>.json``
after ``--output_path FILE.json``): found under an output folder, parsed, their version checked, and
what they say of the model that ran (:class:`ResultsFile`). Read by
:mod:`generator.importers.lm_eval_results`.

A results file of any 0.4 release or source install names its version (``lm_eval_version``); lm-eval
wrote none before 0.4.8, so a file without one is read as 0.4 when it has a 0.4 file's objects
(:data:`REQUIRED`), and says so (:data:`UNVERSIONED`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from generator.errors import Problem, Problems, Result
from generator.importers import lm_eval_samples as samples
from generator.importers import reading
from generator.importers.lm_eval_samples import text

PRODUCER = "lm-eval"
KNOWN_VERSION = re.compile(r"0\.4\.\d+(?:\.\d+)?(?:\.dev\d+|rc\d+)?")
"""The lm-eval versions whose files this reader knows: every 0.4 release (``0.4.9.2``) and source
install (``0.4.10.dev0``)."""
UNVERSIONED = "0.4 (no lm_eval_version: before 0.4.8)"
"""The version a results file without ``lm_eval_version`` is read as."""
RESULTS_NAME = re.compile(r"(?P<stem>.+)_(?P<stamp>\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d(?:\.\d+)?)\.json")
"""``results_<timestamp>.json``; with ``--output_path FILE.json``, ``[results_]<FILE>_<timestamp>.json``."""
NAME_ARGS = ("pretrained", "model")
"""The ``model_args`` that hold the model's own name (hf, vllm: ``pretrained``; API models: ``model``)."""
SEED_KEYS = ("random_seed", "numpy_seed", "torch_seed", "fewshot_seed")
"""``config``'s seeds, in the order of lm-eval's ``--seed a,b,c,d``."""
REQUIRED = ("results", "configs", "n-samples", "config")
"""The objects of a results file this reader reads: what a 0.4 file without a version must have."""


@dataclass(frozen=True)
class ResultsFile:
    """One results file, parsed: its place, bytes and document, its version and time."""

    path: Path
    data: bytes
    doc: dict[str, Any]
    version: str | None
    created: str

    @property
    def stamp(self) -> str:
        """The timestamp lm-eval put in the file's name, which its samples files' names share."""
        found = RESULTS_NAME.fullmatch(self.path.name)
        return found["stamp"] if found else ""

    @property
    def producer(self) -> str:
        return f"{PRODUCER} {self.version or UNVERSIONED}"

    @property
    def groups(self) -> dict[str, tuple[str, ...]]:
        """Each group's subtasks: ``group_subtasks`` entries with subtasks, and ``groups``' rows."""
        listed = self.doc.get("group_subtasks")
        listed = listed if isinstance(listed, dict) else {}
        subtasks = {
            g: tuple(s for s in v if isinstance(s, str)) for g, v in listed.items() if isinstance(v, list)
        }
        rows = self.doc.get("groups")
        named = set(rows) if isinstance(rows, dict) else set()
        return {g: subtasks.get(g, ()) for g in sorted(named | {g for g, s in subtasks.items() if s})}

    @property
    def tasks(self) -> tuple[str, ...]:
        """The tasks that ran (a group's own aggregate has no samples file)."""
        groups = self.groups
        return tuple(task for task in self.doc["configs"] if task not in groups)

    @property
    def model_args(self) -> tuple[tuple[str, str], ...]:
        """``config.model_args`` as (name, value) pairs, from the object or the command line's text."""
        args = self.doc["config"].get("model_args")
        if isinstance(args, dict):
            return tuple((key, text(value)) for key, value in args.items())
        pairs = [part.partition("=") for part in text(args).split(",")] if args else []
        return tuple((key.strip(), value.strip()) for key, _, value in pairs if key.strip())

    @property
    def name(self) -> str:
        """The model's own name: ``pretrained=`` or ``model=`` of its arguments, else ``config.model``."""
        args = dict(self.model_args)
        named = [args[key] for key in NAME_ARGS if args.get(key)]
        return named[0] if named else str(self.doc["config"]["model"])

    @property
    def facets(self) -> tuple[str, str, str]:
        """What may tell two runs of one model apart, in the order tried: the model and its other
        arguments, the seeds (``seed=1``: one number when all four agree), the file's timestamp."""
        rest = ",".join(f"{key}={value}" for key, value in self.model_args if value != self.name)
        model = f"{self.doc['config']['model']} {rest}".strip()
        seeds = [text(self.doc["config"].get(key)) for key in SEED_KEYS]
        seed = f"seed={seeds[0]}" if len(set(seeds)) == 1 else "seed=" + ",".join(seeds)
        return model, seed, f"run {self.stamp}"


def results_files(results_dir: Path) -> Result[list[Path]]:
    """lm-eval's results files in the folder itself and in its subfolders (one per model), sorted."""
    if not results_dir.is_dir():
        return Result(None, (Problem(str(results_dir), "", "is not a folder: give lm_eval's --output_path"),))
    candidates = [*results_dir.glob("*.json"), *results_dir.glob("*/*.json")]
    found = sorted(path for path in candidates if RESULTS_NAME.fullmatch(path.name) and path.is_file())
    if not found:
        message = (
            "holds no lm-eval results file (results_<timestamp>.json, or <name>_<timestamp>.json from "
            "--output_path <name>.json), in itself or a per-model subfolder: give lm_eval's --output_path"
        )
        return Result(None, (Problem(str(results_dir), "", message),))
    return Result(found)


def load(path: Path) -> Result[ResultsFile]:
    """A results file parsed and checked for the objects this reader relies on."""
    file = str(path)
    data = reading.read_file(path)
    if data.value is None:
        return Result(None, data.problems)
    parsed = samples.parse(data.value, file, "")
    doc = parsed.value
    if parsed.problems:
        return Result(None, parsed.problems)
    if not isinstance(doc, dict):
        return Result(None, (Problem(file, "", "is not a JSON object: not an lm-eval results file"),))
    problems = Problems(_shape_problems(doc, file))
    if problems:
        return problems.result(None)
    version = doc.get("lm_eval_version")
    if version is not None and (not isinstance(version, str) or not KNOWN_VERSION.fullmatch(version)):
        message = f"lm-eval version {text(version)} is not one this reader knows (0.4.x[.y][.devN|rcN])"
        return Result(None, (Problem(file, "$.lm_eval_version", message),))
    created = _created(doc.get("date"))
    if created is None:
        return Result(None, (Problem(file, "$.date", f"{text(doc.get('date'))} is not a time (seconds)"),))
    return Result(ResultsFile(path, data.value, doc, version, created))


def _shape_problems(doc: dict[str, Any], file: str) -> Iterator[Problem]:
    unversioned = "lm_eval_version" not in doc
    for key in REQUIRED:
        if not isinstance(doc.get(key), dict):
            why = ": no lm_eval_version either, so not an lm-eval 0.4 results file" if unversioned else ""
            yield Problem(file, f"$.{key}", f"missing or not an object{why}")
    config = doc.get("config")
    if isinstance(config, dict) and not isinstance(config.get("model"), str):
        yield Problem(file, "$.config.model", "missing or not text: which model ran is not recorded")
    configs = doc.get("configs")
    for task, task_config in configs.items() if isinstance(configs, dict) else ():
        if not isinstance(task_config, dict):
            yield Problem(file, f"$.configs.{task}", "not an object: the task's config")


def metric_keys(aggregates: object) -> list[str]:
    """The ``<metric>,<filter>`` keys of one task's aggregates, without their ``_stderr`` companions."""
    if not isinstance(aggregates, dict):
        return []
    keys = [key for key in aggregates if "," in key]
    return [key for key in keys if not _is_stderr(key, keys)]


def _is_stderr(key: str, keys: list[str]) -> bool:
    name, _, filter_ = key.partition(",")
    return name.endswith("_stderr") and f"{name.removesuffix('_stderr')},{filter_}" in keys


def _created(date: object) -> str | None:
    """``date`` (seconds since 1970, as lm-eval wrote it) as UTC ISO 8601 text, to the microsecond;
    None when it is not such a time."""
    seconds = samples.decimal(date)
    if seconds is None or not seconds.is_finite() or not 0 <= seconds < 253402300800:  # year 10000
        return None
    whole = int(seconds)
    micro = int((seconds - whole) * 1_000_000)
    return (datetime.fromtimestamp(whole, UTC) + timedelta(microseconds=micro)).isoformat()
