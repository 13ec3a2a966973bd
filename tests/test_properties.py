"""Scoring invariants as hypothesis properties, on the example corpus and on variations of it.

Every property edits a private copy of benchmark folders of ``runs/`` (in a temporary folder of its
own, so hypothesis examples share nothing), re-seals what it changed (``generator.inputs.seal.write_seal``)
and runs the in-process pipeline (``generator.score.run.score_inputs``, always under one version name);
only (e) builds whole sites. The reveal of ``vibe-delivery`` is always dropped: it cites the digest
of the frozen scores, which cite every run's seal digest, so any edit of a trials run voids it.
What may legitimately differ after an edit is therefore only a seal digest, the inputs digest and
the trials scores digest (and the statement quoting it).

What each family's model makes possible:

- (a) **row order**: permuting the lines of ``attempts.jsonl`` (points), ``results.jsonl`` (trials)
  and ``episodes.jsonl`` (components) changes nothing in the report but seal digests. store-v1
  (definitions) has one file per row, read in sorted file-name order, so its rows have no order to
  permute; what a definition orders is its case list and each arm's rep list, and permuting those
  changes nothing but that order and the rep numbers. Points means are summed exactly, so they
  are equal in any order even for points that are not binary fractions (sevenths below).
- (b) **run folder names**: renaming run folders (points, components), renaming them and dealing
  the results out to any number of run folders (trials: a run is only a batch of planned trials),
  and renaming a store-v1 run consistently (folder, manifest, summary, definition) changes no
  leaderboard figure.
- (c) **conservation**: every attempt lands in exactly one outcome bucket of its run, subject and
  total; every planned trial is once in every denominator and in exactly one failure code or
  success; every episode is once in its run, subject, cells and baselines; every store-v1 row is
  measured, not applicable or not measured, and the census adds up to cases × reps.
- (d) **monotonicity**: flipping failing required checks to passing never lowers a points Ready
  count; passing a failed required check, build or boot never lowers a trials success count;
  clearing a triggered hard-fail rule never lowers a components mean outcome or score; turning a
  failed store-v1 row into a passed one never lowers a check's k under any collapse rule.
- (e) **surfaces agree**: for any subset of run folders, every leaderboard number of
  ``b/<id>/index.html``, ``release-notes.md`` and the version's ``index.html`` is the one in
  ``data/site.json``.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import tempfile
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from decimal import ROUND_HALF_UP, Decimal
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.build import BuildConfig, build
from generator.inputs.seal import SEAL_NAME, write_seal
from generator.render.pages import md_cell
from generator.score.run import score_inputs
from tests.conftest import CORPUS, edit_json, rendering, reseal
from tests.pages import rows_of

POINTS, TRIALS, COMPONENTS, DEFINITIONS = "agent-dx", "vibe-delivery", "je-validation", "recsys-grounding"
ROW_FILE = {POINTS: "attempts.jsonl", TRIALS: "results.jsonl", COMPONENTS: "episodes.jsonl"}
BUCKETS = ("ready", "needs_review", "not_ready", "inconclusive", "invalid")
SCORED_CHECKS = ("functional", "regression", "cross_surface")
TRIAL_RATES = ("success", "build_pass", "boot_pass", "all_functional_checks_pass", "zero_intervention")
SAFE_NAME = r"[A-Za-z0-9][A-Za-z0-9._-]{0,15}"

Report = dict[str, Any]
Rows = list[dict[str, Any]]


def examples(count: int) -> settings:
    """Few examples (each scores a benchmark or builds a site), no deadline."""
    return settings(max_examples=count, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --- workspace: a private copy of some benchmarks, edited and re-sealed ------------------------


@contextmanager
def workspace(*benches: str) -> Iterator[Path]:
    """An inputs root holding copies of ``benches`` (without the trials reveal), removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="benchsite-properties-") as tmp:
        root = Path(tmp) / "runs"
        for bench in benches:
            shutil.copytree(CORPUS / bench, root / bench)
        shutil.rmtree(root / TRIALS / "reveal", ignore_errors=True)
        yield root


def run_folders(bench: Path) -> list[Path]:
    """The sealed run folders directly below a points, trials or components benchmark."""
    return sorted(p for p in bench.iterdir() if (p / SEAL_NAME).is_file())


def store_runs(bench: Path) -> list[Path]:
    """The sealed store-v1 run folders of a definitions benchmark."""
    return sorted(p.parent for p in bench.glob(".agenteval/subjects/*/*/runs/*/manifest.json"))


def read_rows(path: Path) -> Rows:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def write_rows(path: Path, rows: Rows) -> None:
    path.write_text("".join(json.dumps(row, sort_keys=True) + "\n" for row in rows), encoding="utf-8")
    reseal(path.parent)


def score(root: Path) -> Report:
    """The report of the inputs under ``root`` as plain JSON, scored in-process."""
    scored = score_inputs(root, "properties", options=rendering())
    try:
        report: Report = scored.report.model_dump(mode="json")
        return report
    finally:
        scored.details.close()


def section_of(report: Report, bench: str) -> Report:
    found: list[Report] = [b for b in report["benchmarks"] if b["id"] == bench]
    assert len(found) == 1, bench
    return found[0]


@cache
def corpus_json(bench: str) -> str:
    """The untouched benchmark's report (JSON text, so the cached value cannot be changed)."""
    with workspace(bench) as root:
        return json.dumps(score(root))


def corpus_report(bench: str) -> Report:
    report: Report = json.loads(corpus_json(bench))
    return report


def without_seals(report: Report) -> Any:
    """The report with every seal digest (and the trials scores digest that cites them) blanked.

    Re-sealing an edited folder changes its digest, the inputs digest and, for trials, the frozen
    scores file (it lists run digests) and the blind statement that quotes its digest.
    """
    digests = {report["inputs_digest"]}
    for bench in report["benchmarks"]:
        digests |= {i["digest"] for i in bench["inputs"]}
        digests.add(bench["section"].get("scores_sha256", ""))
    digests.discard("")

    def blank(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: blank(v) for k, v in value.items()}
        if isinstance(value, list):
            return [blank(v) for v in value]
        if isinstance(value, str):
            for digest in digests:
                value = value.replace(digest, "<sealed>")
        return value

    return blank(report)


def leaderboard_figures(bench: Report) -> Report:
    """Every figure a benchmark's leaderboards publish, without the names of the run folders."""
    s, disclosures = bench["section"], bench["disclosures"]
    figures = {
        "rankings": bench["rankings"],
        "excluded": disclosures["excluded_counts"],
        "unavailable": disclosures["unavailable"],
    }
    if bench["family"] == "points":
        rows = [{**row, "runs": len(row["runs"])} for row in s["leaderboard"]]
        return figures | {"totals": s["totals"], "leaderboard": rows}
    if bench["family"] == "trials":
        return figures | {k: s["scores"][k] for k in ("overall", "leaderboard", "missing", "evaluators")}
    if bench["family"] == "components":
        return figures | {k: s[k] for k in ("leaderboard", "cells", "baselines", "agreement")}
    return figures | {k: s[k] for k in ("floors", "floor_tests", "values", "paired", "census")}


# --- (a) permuting rows changes no figure -------------------------------------------------------


@pytest.mark.parametrize("bench", [POINTS, TRIALS, COMPONENTS])
@pytest.mark.slow  # several examples, each scoring benchmarks or building a site
@examples(6)
@given(data=st.data())
def test_permuting_the_rows_of_every_run_changes_nothing_but_seal_digests(
    bench: str, data: st.DataObject
) -> None:
    expected = without_seals(corpus_report(bench))
    with workspace(bench) as root:
        for run in run_folders(root / bench):
            path = run / ROW_FILE[bench]
            lines = path.read_bytes().splitlines(keepends=True)
            path.write_bytes(b"".join(data.draw(st.permutations(lines), label=run.name)))
            reseal(run)
        assert without_seals(score(root)) == expected


def order_neutral_definitions(report: Report) -> Any:
    """What may change when cases and reps are reordered: that order, and each run's rep number."""
    report = without_seals(report)
    s = section_of(report, DEFINITIONS)["section"]
    s["definition"]["cases"].sort(key=lambda case: case["id"])
    for arm in s["definition"]["arms"]:
        arm["runs"].sort()
    s["runs"] = sorted(({k: v for k, v in run.items() if k != "rep"} for run in s["runs"]), key=str)
    return report


@pytest.mark.slow  # several examples, each scoring benchmarks or building a site
@examples(5)
@given(data=st.data())
def test_permuting_a_definitions_cases_and_reps_changes_nothing_but_their_order(data: st.DataObject) -> None:
    expected = order_neutral_definitions(corpus_report(DEFINITIONS))

    def permute(definition: dict[str, Any]) -> None:
        definition["cases"] = data.draw(st.permutations(definition["cases"]), label="cases")
        for arm in definition["arms"]:
            arm["runs"] = data.draw(st.permutations(arm["runs"]), label=arm["id"])

    with workspace(DEFINITIONS) as root:
        edit_json(root / DEFINITIONS / "definition.json", permute)
        reseal(root / DEFINITIONS)
        assert order_neutral_definitions(score(root)) == expected


def points_runs(root: Path, subjects: dict[str, Rows]) -> None:
    """An agent-dx benchmark with one run per subject, holding its attempts in the given order."""
    bench = root / POINTS
    for run in run_folders(bench):
        shutil.rmtree(run)
    for subject, attempts in subjects.items():
        run = bench / f"run-{subject}"
        run.mkdir()
        (run / "run.json").write_text(json.dumps({"schema_version": 1, "subject": subject}))
        (run / "attempts.jsonl").write_text("".join(json.dumps(a) + "\n" for a in attempts))
        write_seal(run)


def sevenths(number: int, passed: int) -> dict[str, Any]:
    """A valid attempt whose functional points are 45·passed/7: not a dyadic number."""
    surfaces = ("contract", "client", "cli", "documentation")
    return {
        "attempt_id": f"a{number}",
        "task": "T01-add-endpoint",
        "agent_started": True,
        "functional": [{"id": f"f{i}", "passed": i < passed} for i in range(7)],
        "regression": [{"id": "r1", "passed": True}],
        "cross_surface": [{"id": s, "passed": True, "surface": s} for s in surfaces],
        "changed_paths": ["src/api/list.py"],
        "tests": None,
        "trajectory": None,
        "tampering_detected": False,
        "prohibited_change_detected": False,
    }


SEVENTHS = [sevenths(0, 1), sevenths(1, 2), sevenths(2, 3)]
REORDERED = [SEVENTHS[0], SEVENTHS[2], SEVENTHS[1]]


def test_points_means_do_not_depend_on_the_order_of_attempts() -> None:
    reports = []
    for order in (SEVENTHS, REORDERED):
        with workspace(POINTS) as root:
            points_runs(root, {"subject-1": order})
            reports.append(without_seals(score(root)))
    first, second = (section_of(r, POINTS)["section"]["leaderboard"][0] for r in reports)
    assert first["mean_deterministic"] == second["mean_deterministic"]
    assert reports[0] == reports[1]


def test_two_subjects_with_the_same_attempts_tie_and_are_ordered_by_id() -> None:
    with workspace(POINTS) as root:
        points_runs(root, {"subject-a": SEVENTHS, "subject-b": REORDERED})
        rows = section_of(score(root), POINTS)["section"]["leaderboard"]
    assert rows[0]["mean_deterministic"] == rows[1]["mean_deterministic"]
    assert [row["subject"] for row in rows] == ["subject-a", "subject-b"]


# --- (b) renaming run folders changes no leaderboard figure -------------------------------------


def new_names(count: int) -> st.SearchStrategy[list[str]]:
    names = st.from_regex(SAFE_NAME, fullmatch=True).filter(lambda n: n.casefold() != "reveal")
    return st.lists(names, min_size=count, max_size=count, unique_by=str.casefold)


@pytest.mark.parametrize("bench", [POINTS, COMPONENTS])
@pytest.mark.slow  # several examples, each scoring benchmarks or building a site
@examples(6)
@given(data=st.data())
def test_renaming_run_folders_changes_no_leaderboard_figure(bench: str, data: st.DataObject) -> None:
    expected = leaderboard_figures(section_of(corpus_report(bench), bench))
    with workspace(bench) as root:
        runs = run_folders(root / bench)
        names = data.draw(new_names(len(runs)), label="names")
        for run, name in zip(runs, names, strict=True):
            run.rename(run.with_name(f"tmp-{name}"))
        for name in names:
            (root / bench / f"tmp-{name}").rename(root / bench / name)
        report = section_of(score(root), bench)
        assert sorted(r["id"] for r in report["section"]["runs"]) == sorted(names)
        assert leaderboard_figures(report) == expected


@pytest.mark.slow  # several examples, each scoring benchmarks or building a site
@examples(6)
@given(data=st.data())
def test_dealing_trial_results_into_any_run_folders_changes_no_leaderboard_figure(
    data: st.DataObject,
) -> None:
    expected = leaderboard_figures(section_of(corpus_report(TRIALS), TRIALS))
    with workspace(TRIALS) as root:
        bench = root / TRIALS
        runs = run_folders(bench)
        meta = (runs[0] / "run.json").read_bytes()
        lines = [line for run in runs for line in (run / "results.jsonl").read_bytes().splitlines(True)]
        for run in runs:
            shutil.rmtree(run)
        names = data.draw(new_names(data.draw(st.integers(1, 6), label="runs")), label="names")
        owner = data.draw(st.lists(st.sampled_from(names), min_size=len(lines), max_size=len(lines)))
        for name in set(owner):
            (bench / name).mkdir()
            (bench / name / "run.json").write_bytes(meta)
            held = b"".join(line for line, o in zip(lines, owner, strict=True) if o == name)
            (bench / name / "results.jsonl").write_bytes(held)
            write_seal(bench / name)
        report = section_of(score(root), TRIALS)
        assert sum(r["trial_count"] for r in report["section"]["scores"]["runs"]) == len(lines)
        assert leaderboard_figures(report) == expected


def rename_store_run(run: Path, new: str) -> None:
    """A store-v1 run renamed as its harness would have named it: folder, manifest and summary."""

    def manifest(value: dict[str, Any]) -> None:
        value["run"]["runId"] = new

    def summary(value: dict[str, Any]) -> None:
        value["runId"] = new

    edit_json(run / "manifest.json", manifest)
    edit_json(run / "summary.json", summary)
    reseal(run)
    run.rename(run.with_name(new))


@pytest.mark.slow  # several examples, each scoring benchmarks or building a site
@examples(4)
@given(data=st.data())
def test_renaming_store_runs_consistently_changes_no_leaderboard_figure(data: st.DataObject) -> None:
    expected = leaderboard_figures(section_of(corpus_report(DEFINITIONS), DEFINITIONS))
    with workspace(DEFINITIONS) as root:
        bench = root / DEFINITIONS
        runs = store_runs(bench)
        renamed = dict(zip((r.name for r in runs), data.draw(new_names(len(runs))), strict=True))
        for run in runs:
            rename_store_run(run, renamed[run.name])

        def rebind(definition: dict[str, Any]) -> None:
            for arm in definition["arms"]:
                arm["runs"] = [renamed[r] for r in arm["runs"]]

        edit_json(bench / "definition.json", rebind)
        reseal(bench)
        report = section_of(score(root), DEFINITIONS)
        assert sorted(r["id"] for r in report["section"]["runs"]) == sorted(renamed.values())
        assert leaderboard_figures(report) == expected


# --- variations: hypothesis-chosen edits of the corpus rows, valid under each family's schema ---


def flip_check(attempt: dict[str, Any], rnd: random.Random, passed: bool) -> None:
    checks = [c for key in SCORED_CHECKS for c in attempt.get(key) or () if c["passed"] != passed]
    if checks:
        rnd.choice(checks)["passed"] = passed


POINTS_EDITS: dict[str, Callable[[dict[str, Any], random.Random], None]] = {
    "keep": lambda a, r: None,
    "fail-check": lambda a, r: flip_check(a, r, passed=False),
    "pass-check": lambda a, r: flip_check(a, r, passed=True),
    "no-regression-run": lambda a, r: a.update(regression=None),
    "no-functional-checks": lambda a, r: a.update(functional=[]),
    "tampering": lambda a, r: a.update(tampering_detected=True),
    "detection-not-run": lambda a, r: a.update(prohibited_change_detected=None),
    "out-of-scope": lambda a, r: a.update(changed_paths=[*(a.get("changed_paths") or ()), "vendor/x.py"]),
    "storage-exhausted": lambda a, r: a.update(invalid={"reason": "storage_exhaustion", "detail": "full"}),
    "critical-failure": lambda a, r: a.update(
        regression=[*(a.get("regression") or ()), {"id": "rc-new", "passed": False, "critical": True}]
    ),
}


def set_check(trial: dict[str, Any], rnd: random.Random, state: str) -> None:
    if trial["checks"]:
        rnd.choice(trial["checks"])["state"] = state


TRIALS_EDITS: dict[str, Callable[[dict[str, Any], random.Random], None]] = {
    "keep": lambda t, r: None,
    "error": lambda t, r: t.update(terminal="error", failure_code=None),
    "timeout": lambda t, r: t.update(terminal="timeout", failure_code="timeout"),
    "build-fails": lambda t, r: t.update(build="fail", failure_code="build_failed"),
    "boot-unobservable": lambda t, r: t.update(boot="not_observable"),
    "check-skipped": lambda t, r: set_check(t, r, "skipped"),
    "check-fails": lambda t, r: set_check(t, r, "fail"),
    "check-passes": lambda t, r: set_check(t, r, "pass"),
    "followup": lambda t, r: t.update(interventions=[*t["interventions"], {"kind": "followup"}]),
    "cost-unavailable": lambda t, r: t.update(cost={"state": "unavailable", "reason": "no usage"}),
}


def hard_fail(episode: dict[str, Any], rules: dict[str, list[str]]) -> None:
    if rules[episode["task"]]:
        episode["hard_fails"] = sorted({*episode["hard_fails"], rules[episode["task"]][0]})


def unopen(episode: dict[str, Any], rnd: random.Random) -> None:
    if episode["opened_documents"]:
        episode["opened_documents"].remove(rnd.choice(episode["opened_documents"]))


def component_edits(
    rules: dict[str, list[str]],
) -> dict[str, Callable[[dict[str, Any], random.Random], None]]:
    return {
        "keep": lambda e, r: None,
        "hard-fail": lambda e, r: hard_fail(e, rules),
        "no-findings": lambda e, r: e.update(findings=[]),
        "unopened-evidence": unopen,
        "no-calls": lambda e, r: e.update(calls=[]),
    }


T = TypeVar("T")


def some(data: st.DataObject, items: list[T], label: str, most: int | None = None) -> list[T]:
    """Distinct items drawn from ``items`` (at most ``most``); none when there are none."""
    if not items:
        return []
    size = len(items) if most is None else most
    indices = data.draw(st.lists(st.integers(0, len(items) - 1), unique=True, max_size=size), label=label)
    return [items[i] for i in indices]


def draw_edits(data: st.DataObject, edits: dict[str, Any], count: int, label: str) -> list[str]:
    return data.draw(st.lists(st.sampled_from(sorted(edits)), min_size=count, max_size=count), label=label)


def vary_rows(
    data: st.DataObject, bench: Path, edits: dict[str, Any], drop: int, keep: int = 1
) -> dict[str, int]:
    """Edit each row of each run by a drawn edit, drop up to ``drop`` rows (leaving ``keep``); re-seal.

    Returns the number of rows each run folder holds afterwards.
    """
    rnd = data.draw(st.randoms(use_true_random=False), label="random")
    held = {}
    for run in run_folders(bench):
        path = run / next(n for n in ROW_FILE.values() if (run / n).is_file())
        rows = read_rows(path)
        for row, edit in zip(rows, draw_edits(data, edits, len(rows), run.name), strict=True):
            edits[edit](row, rnd)
        dropped = data.draw(st.integers(0, min(drop, len(rows) - keep)), label=f"{run.name} dropped")
        rows = rnd.sample(rows, len(rows) - dropped)
        write_rows(path, rows)
        held[run.name] = len(rows)
    return held


def set_row(scenario: Path, state: str) -> None:
    """A store-v1 row made to pass, fail, or not be measured or not apply, in every field that says so."""
    value = json.loads(scenario.read_text(encoding="utf-8"))
    tree = json.loads(value["output"])
    score_value = 1.0 if state == "pass" else 0.0
    tree["score"] = {"value": score_value, "label": state, "passed": state == "pass", "severity": "info"}
    if state == "skipped":
        tree["score"]["measurement"] = "notMeasured"
    if state == "inapplicable":
        tree["score"]["measurement"] = "notApplicable"
    value.update(output=json.dumps(tree), passed=state == "pass", score=score_value)
    scenario.write_text(json.dumps(value, indent=2), encoding="utf-8")


def row_state(scenario: Path) -> str:
    tree = json.loads(json.loads(scenario.read_text(encoding="utf-8"))["output"])
    label: str = tree["score"]["label"]
    return label


def vary_store_rows(data: st.DataObject, bench: Path, states: tuple[str, ...], only: str | None) -> int:
    """Set a drawn state on drawn rows (only rows now labelled ``only``, when given); re-seal."""
    edited = 0
    for run in store_runs(bench):
        rows = sorted((run / "scenarios").glob("*.json"))
        candidates = [r for r in rows if only is None or row_state(r) == only]
        chosen = some(data, candidates, run.name, most=12)
        for row in chosen:
            set_row(row, data.draw(st.sampled_from(states), label=row.name))
        edited += len(chosen)
        reseal(run)
    return edited


def task_rules() -> dict[str, list[str]]:
    declaration = json.loads((CORPUS / COMPONENTS / "benchmark.json").read_text(encoding="utf-8"))
    return {t["id"]: [r["id"] for r in t["hard_fail_rules"]] for t in declaration["tasks"]}


# --- (c) counts are conserved -------------------------------------------------------------------


def points_conserved(bench: Report, held: dict[str, int]) -> None:
    s = bench["section"]
    assert {r["id"]: r["counts"]["total"] for r in s["runs"]} == held
    per_subject: dict[str, Counter[str]] = defaultdict(Counter)
    for run in s["runs"]:
        counts = run["counts"]
        assert sum(counts[b] for b in BUCKETS) == counts["total"], run["id"]
        per_subject[run["subject"]].update({k: counts[k] for k in (*BUCKETS, "total")})
    for row in s["leaderboard"]:
        counts = row["counts"]
        subject = per_subject[row["subject"]]
        assert {k: counts[k] for k in (*BUCKETS, "total")} == {k: subject[k] for k in (*BUCKETS, "total")}
        rate = row["ready_rate"]
        assert (rate["numerator"], rate["denominator"]) == (
            counts["ready"],
            counts["total"] - counts["invalid"],
        )
    totals = s["totals"]
    assert sum(totals[b] for b in BUCKETS) == totals["total"] == sum(held.values())
    excluded = dict(bench["disclosures"]["excluded_counts"])
    assert list(excluded.values()) == [totals["invalid"], totals["inconclusive"]]


def trials_conserved(bench: Report, results: int) -> None:
    scores = bench["section"]["scores"]
    plan = json.loads((CORPUS / TRIALS / "trial-plan.json").read_text(encoding="utf-8"))["trials"]
    planned = Counter(t["provider"] for t in plan)
    overall, rows = scores["overall"], scores["leaderboard"]
    assert {r["provider"]: r["metrics"]["planned"] for r in rows} == dict(planned)
    assert overall["planned"] == len(plan) == results + len(scores["missing"])
    assert sum(r["trial_count"] for r in scores["runs"]) == results
    assert sum(e["trials"] for e in scores["evaluators"]) == results
    for metrics in (overall, *(r["metrics"] for r in rows)):
        assert all(metrics[name]["denominator"] == metrics["planned"] for name in TRIAL_RATES)
        failures = sum(f["count"] for f in metrics["failure_codes"])
        assert failures == metrics["planned"] - metrics["success"]["numerator"]
        assert metrics["elapsed_n"] + metrics["elapsed_unavailable"] == metrics["planned"]
        assert metrics["cost_measured"] + metrics["cost_unavailable"] == metrics["planned"]
    for name in TRIAL_RATES:
        assert sum(r["metrics"][name]["numerator"] for r in rows) == overall[name]["numerator"]


def components_conserved(bench: Report, held: dict[str, int]) -> None:
    s = bench["section"]
    assert {r["id"]: r["episode_count"] for r in s["runs"]} == held
    episodes: Counter[str] = Counter()
    for run in s["runs"]:
        episodes[run["subject"]] += run["episode_count"]
    models = {r["subject"] for r in s["runs"] if r["kind"] == "model"}
    assert {row["subject"]: row["episodes"] for row in s["leaderboard"]} == {m: episodes[m] for m in models}
    seeds: Counter[str] = Counter()
    for cell in s["cells"]:
        seeds[cell["subject"]] += cell["seeds"]
    assert {m: seeds[m] for m in models} == {m: episodes[m] for m in models}
    baselines: Counter[str] = Counter()
    for check in s["baselines"]:
        baselines[check["baseline"]] += check["episodes"]
    assert dict(baselines) == {b: n for b, n in episodes.items() if b not in models}
    for row in s["leaderboard"]:
        spreads = row["spreads"]
        assert spreads["outcome"]["n"] == spreads["process"]["n"] == row["episodes"]
        assert row["pass_bar"]["denominator"] == spreads["rationale"]["n"] <= row["episodes"]


def definitions_conserved(bench: Report, root: Path) -> None:
    s = bench["section"]
    definition = s["definition"]
    rows = len(definition["cases"]) * len(definition["checks"])
    files = {r.name: len(list((r / "scenarios").glob("*.json"))) for r in store_runs(root / DEFINITIONS)}
    for run in s["runs"]:
        c = run["counts"]
        assert c["measured"] + c["not_applicable"] + c["not_measured"] == rows, run["id"]
        assert (
            c["measured"] + c["not_applicable"] + c["not_measured"] + c["ignored_not_applicable"]
            == files[run["id"]]
        )
        assert c["passed"] + c["failed"] + c["warned"] == c["measured"], run["id"]
    reps = {arm["id"]: len(arm["runs"]) for arm in definition["arms"]}
    assert len(s["census"]) == len(definition["checks"]) * len(reps)
    for row in s["census"]:  # collapsed cases, not cases × reps (seed 004)
        total = row["measured"] + row["not_applicable"] + row["not_measured"]
        assert total == len(definition["cases"]), (row["check"], row["arm"])
    for arm, count in reps.items():  # a measured case had every one of its reps measured
        cases = sum(c["measured"] for c in s["census"] if c["arm"] == arm)
        rows_measured = sum(r["counts"]["measured"] for r in s["runs"] if r["arm"] == arm)
        assert cases * count <= rows_measured, arm
    for test in s["floor_tests"]:
        assert 0 <= test["successes"] <= test["cases"] <= len(definition["cases"])


def lines_per_run(bench: Path) -> dict[str, int]:
    return {run.name: len(read_rows(run / ROW_FILE[bench.name])) for run in run_folders(bench)}


def test_the_corpus_conserves_every_count() -> None:
    with workspace(POINTS, TRIALS, COMPONENTS, DEFINITIONS) as root:
        report = score(root)
        counted = {b: lines_per_run(root / b) for b in ROW_FILE}
        points_conserved(section_of(report, POINTS), counted[POINTS])
        trials_conserved(section_of(report, TRIALS), sum(counted[TRIALS].values()))
        components_conserved(section_of(report, COMPONENTS), counted[COMPONENTS])
        definitions_conserved(section_of(report, DEFINITIONS), root)


@pytest.mark.slow  # several examples, each scoring benchmarks or building a site
@examples(12)
@given(data=st.data())
def test_every_attempt_lands_in_exactly_one_outcome(data: st.DataObject) -> None:
    with workspace(POINTS) as root:
        held = vary_rows(data, root / POINTS, POINTS_EDITS, drop=5)
        points_conserved(section_of(score(root), POINTS), held)


@pytest.mark.slow  # several examples, each scoring benchmarks or building a site
@examples(12)
@given(data=st.data())
def test_every_planned_trial_is_once_in_every_denominator(data: st.DataObject) -> None:
    with workspace(TRIALS) as root:
        held = vary_rows(data, root / TRIALS, TRIALS_EDITS, drop=4)
        trials_conserved(section_of(score(root), TRIALS), sum(held.values()))


@pytest.mark.slow  # several examples, each scoring benchmarks or building a site
@examples(10)
@given(data=st.data())
def test_every_episode_is_once_in_its_run_subject_cells_and_baselines(data: st.DataObject) -> None:
    # At least 3 episodes stay in a run, so no model is left with a constant score (see ZERO_SD in
    # test_published.py: a zero sd makes scipy warn, an error here).
    with workspace(COMPONENTS) as root:
        held = vary_rows(data, root / COMPONENTS, component_edits(task_rules()), drop=5, keep=3)
        components_conserved(section_of(score(root), COMPONENTS), held)


@pytest.mark.slow  # several examples, each scoring benchmarks or building a site
@examples(6)
@given(data=st.data())
def test_every_store_row_is_measured_not_applicable_or_not_measured(data: st.DataObject) -> None:
    with workspace(DEFINITIONS) as root:
        vary_store_rows(data, root / DEFINITIONS, ("pass", "fail", "warn", "skipped", "inapplicable"), None)
        definitions_conserved(section_of(score(root), DEFINITIONS), root)


# --- (d) passing more never lowers a score ------------------------------------------------------


def ready_counts(bench: Report) -> dict[str, int]:
    s = bench["section"]
    counts = {f"run {r['id']}": r["counts"]["ready"] for r in s["runs"]}
    counts |= {f"subject {r['subject']}": r["ready_rate"]["numerator"] for r in s["leaderboard"]}
    return counts | {"total": s["totals"]["ready"]}


@pytest.mark.slow  # several examples, each scoring benchmarks or building a site
@examples(10)
@given(data=st.data())
def test_passing_a_failing_required_check_never_lowers_the_ready_count(data: st.DataObject) -> None:
    """Points: from a varied corpus, flip drawn failing functional / regression / cross-surface checks."""
    with workspace(POINTS) as root:
        bench = root / POINTS
        vary_rows(data, bench, POINTS_EDITS, drop=0)
        before = ready_counts(section_of(score(root), POINTS))
        for run in run_folders(bench):
            attempts = read_rows(run / "attempts.jsonl")
            failing = [c for a in attempts for k in SCORED_CHECKS for c in a.get(k) or () if not c["passed"]]
            for check in some(data, failing, run.name):
                check["passed"] = True
            write_rows(run / "attempts.jsonl", attempts)
        after = ready_counts(section_of(score(root), POINTS))
        assert after.keys() == before.keys()
        assert all(after[k] >= before[k] for k in before), (before, after)


def trial_counts(bench: Report) -> dict[str, int]:
    scores = bench["section"]["scores"]
    rows = [("all", scores["overall"]), *((r["provider"], r["metrics"]) for r in scores["leaderboard"])]
    return {f"{who} {name}": m[name]["numerator"] for who, m in rows for name in TRIAL_RATES}


def pass_something(trial: dict[str, Any], what: str) -> None:
    if what in ("build", "boot"):
        trial[what] = "pass"
    else:
        for check in trial["checks"]:
            check["state"] = "pass" if check["id"] == what else check["state"]


@pytest.mark.slow  # several examples, each scoring benchmarks or building a site
@examples(10)
@given(data=st.data())
def test_passing_a_required_check_build_or_boot_never_lowers_a_trials_success_count(
    data: st.DataObject,
) -> None:
    with workspace(TRIALS) as root:
        bench = root / TRIALS
        vary_rows(data, bench, TRIALS_EDITS, drop=0)
        before = trial_counts(section_of(score(root), TRIALS))
        for run in run_folders(bench):
            trials = read_rows(run / "results.jsonl")
            options = [
                (t, what) for t in trials for what in ("build", "boot", *(c["id"] for c in t["checks"]))
            ]
            for trial, what in some(data, options, run.name, most=8):
                pass_something(trial, what)
            write_rows(run / "results.jsonl", trials)
        after = trial_counts(section_of(score(root), TRIALS))
        assert all(after[k] >= before[k] for k in before), (before, after)


def component_means(bench: Report) -> dict[str, float]:
    means = {}
    for row in bench["section"]["leaderboard"]:
        for name in ("outcome", "score"):
            value = row["spreads"][name]["mean"]
            if value is not None:
                means[f"{row['subject']} {name}"] = value
    return means


@pytest.mark.slow  # several examples, each scoring benchmarks or building a site
@examples(8)
@given(data=st.data())
def test_clearing_a_triggered_hard_fail_never_lowers_a_mean_outcome_or_score(data: st.DataObject) -> None:
    rules = task_rules()
    with workspace(COMPONENTS) as root:
        bench = root / COMPONENTS
        edits = component_edits(rules)
        vary_rows(data, bench, {"keep": edits["keep"], "hard-fail": edits["hard-fail"]}, drop=0)
        before = component_means(section_of(score(root), COMPONENTS))
        for run in run_folders(bench):
            episodes = read_rows(run / "episodes.jsonl")
            for episode in some(data, [e for e in episodes if e["hard_fails"]], run.name):
                episode["hard_fails"] = []
            write_rows(run / "episodes.jsonl", episodes)
        after = component_means(section_of(score(root), COMPONENTS))
        assert after.keys() == before.keys()
        assert all(after[k] >= before[k] for k in before), (before, after)


def floor_ks(bench: Report) -> dict[str, tuple[int, int]]:
    tests = bench["section"]["floor_tests"]
    return {f"{t['check']} {t['arm']} {t['rule']}": (t["successes"], t["cases"]) for t in tests}


@pytest.mark.slow  # several examples, each scoring benchmarks or building a site
@examples(5)
@given(data=st.data())
def test_turning_a_failed_store_row_into_a_passed_one_never_lowers_k(data: st.DataObject) -> None:
    """Definitions: k of every (check, arm, collapse rule) against its floor; n stays."""
    before = floor_ks(section_of(corpus_report(DEFINITIONS), DEFINITIONS))
    with workspace(DEFINITIONS) as root:
        vary_store_rows(data, root / DEFINITIONS, ("pass",), only="fail")
        after = floor_ks(section_of(score(root), DEFINITIONS))
    assert after.keys() == before.keys()
    for key, (k, n) in before.items():
        assert after[key][1] == n and after[key][0] >= k, (key, before[key], after[key])


# --- (e) HTML, Markdown and JSON agree, whatever runs a build holds -----------------------------


def places(n: int) -> int:
    """Decimals of a percentage of n things on every page: none up to n = 100, one up to 1000, ...
    (written out here: one thing more or less must be able to move the last digit)."""
    return max(0, len(str(max(n, 1) - 1)) - 2)


def half_up(value: float, digits: int) -> str:
    """``value`` to ``digits`` decimals, half up from its shortest spelling."""
    return str(Decimal(repr(value)).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP))


def band(row: dict[str, Any]) -> str:
    best, worst = row["rank_best"], row["rank_worst"]
    if best is None:
        return "not ranked"
    return str(best) if best == worst else f"{best}–{worst}"


def shown(row: dict[str, Any], kind: str) -> list[str]:
    """What a leaderboard row must show of a ranking row: its figure and interval, as text, in the
    precision its n carries (a mean two decimals more than a percentage of as many things)."""
    if row["estimate"] is None:
        return []
    n, d = row.get("numerator"), row["denominator"]
    if kind == "mean":
        digits = places(d) + 2
        return [f"{half_up(row['estimate'], digits)} ± {half_up(row['sd'], digits)} (n = {d})"]
    interval = row["interval"]
    digits = places(d)
    scaled = 100 * n * 10**digits
    figure = Decimal(scaled // d + (2 * (scaled % d) >= d)).scaleb(-digits)  # exact, half up
    low, high = (
        (Decimal(repr(interval[k])) * 100).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)
        for k in ("low", "high")
    )
    return [f"{figure}% ({n}/{d})", f"{low}–{high}%"]


def row_shows(cells: list[str], row: dict[str, Any], kind: str, subject: str, title: str | None) -> bool:
    for i in range(len(cells) - 1):
        if cells[i] == band(row) and (cells[i + 1] == subject or cells[i + 1].startswith(subject + " ")):
            rest = cells[i + 2 :]
            figures = all(any(c == f or c.startswith(f + " ") for c in rest) for f in shown(row, kind))
            return figures and (title is None or i == 0 or title in cells[:i])
    return False


def ranking_shown(rows: list[list[str]], ranking: dict[str, Any], md: bool) -> bool:
    """Some run of consecutive table rows shows every ranking row, in the published order."""
    wanted = ranking["rows"]

    def subject(row: dict[str, Any]) -> str:
        return md_cell(row["subject"]) if md else str(row["subject"])

    title = md_cell(ranking["title"]) if md else None

    def shows_from(start: int) -> bool:
        window = rows[start : start + len(wanted)]
        return all(
            row_shows(cells, row, ranking["kind"], subject(row), title)
            for cells, row in zip(window, wanted, strict=True)
        )

    return any(shows_from(start) for start in range(len(rows) - len(wanted) + 1))


def markdown_rows(text: str) -> list[list[str]]:
    """Cells of every Markdown table line (split at pipes a backslash does not escape)."""
    lines = [line.strip() for line in text.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in re.split(r"(?<!\\)\|", line)[1:-1]] for line in lines]


def drop_runs(data: st.DataObject, root: Path) -> None:
    """Delete drawn run folders of every benchmark, keeping one per benchmark (one per arm)."""
    for bench in (POINTS, TRIALS, COMPONENTS):
        runs = run_folders(root / bench)
        for run in some(data, runs, bench, most=len(runs) - 1):
            shutil.rmtree(run)
    folder = root / DEFINITIONS
    stored = {r.name: r for r in store_runs(folder)}

    def thin(definition: dict[str, Any]) -> None:
        for arm in definition["arms"]:
            gone = some(data, arm["runs"], arm["id"], most=len(arm["runs"]) - 1)
            for run in gone:
                shutil.rmtree(stored[run])
            arm["runs"] = [r for r in arm["runs"] if r not in gone]

    edit_json(folder / "definition.json", thin)
    reseal(folder)


@pytest.mark.slow  # several examples, each scoring benchmarks or building a site
@examples(5)
@given(data=st.data())
def test_pages_release_notes_and_json_agree_for_any_subset_of_runs(data: st.DataObject) -> None:
    with workspace(POINTS, TRIALS, COMPONENTS, DEFINITIONS) as root:
        drop_runs(data, root)
        version = build(BuildConfig(root, root.parent / "site", "subset")).published.path
        site = json.loads((version / "data" / "site.json").read_text(encoding="utf-8"))
        notes = markdown_rows((version / "release-notes.md").read_text(encoding="utf-8"))
        index = rows_of(version / "index.html")
        for bench in site["benchmarks"]:
            page = rows_of(version / "b" / bench["id"] / "index.html")
            standings = [(ranking, row) for ranking in bench["rankings"] for row in ranking["rows"]]
            if standings:  # a miscounted row is not found: the comparison bites
                ranking, first = standings[0]
                miscounted = {**ranking, "rows": [{**first, "denominator": first["denominator"] + 1}]}
                assert not ranking_shown(page, miscounted, md=False)
                assert not ranking_shown(notes, miscounted, md=True)
            for ranking in bench["rankings"]:
                assert ranking_shown(page, ranking, md=False), (bench["id"], ranking["id"], "index.html")
                assert ranking_shown(notes, ranking, md=True), (
                    bench["id"],
                    ranking["id"],
                    "release-notes.md",
                )
            assert [row[-1] for row in index if row[0].endswith(f"({bench['id']})")] == [
                str(bench["run_count"])
            ]
