"""Write the example corpus in ``runs/``: a points benchmark under the seed-000 contract.

Deterministic: the same seed gives the same bytes. Usage (from the repository root):

    python scripts/make_example_corpus.py  # seeds from tests/seeds

It never touches an existing benchmark folder (sealed inputs are immutable): delete the folder
first when the corpus itself must change, and say so in the commit.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from generator.inputs.seal import write_seal

TASKS = [
    {
        "id": "T01-add-endpoint",
        "title": "Add a paginated list endpoint",
        "allowlist": ["src/api/", "tests/api/", "docs/api.md"],
    },
    {
        "id": "T02-fix-client-retry",
        "title": "Fix retry handling in the client SDK",
        "allowlist": ["src/client/", "tests/client/"],
    },
    {
        "id": "T03-cli-flag",
        "title": "Add a --dry-run flag to the CLI",
        "allowlist": ["src/cli/", "tests/cli/", "docs/cli.md"],
    },
    {
        "id": "T04-contract-field",
        "title": "Add a nullable field to the public contract",
        "allowlist": ["schema/*.json", "src/api/", "src/client/", "docs/"],
    },
]
SUBJECTS = {"subject-a3f1": 0.85, "subject-7c2e": 0.65, "subject-d940": 0.45, "subject-15bb": 0.7}
SURFACES = ["contract", "client", "cli", "documentation"]


def checks(rng: random.Random, prefix: str, n: int, p: float, **extra: Any) -> list[dict[str, Any]]:
    return [{"id": f"{prefix}{i + 1}", "passed": rng.random() < p, **extra} for i in range(n)]


def attempt(rng: random.Random, attempt_id: str, task: dict[str, Any], skill: float) -> dict[str, Any]:
    allow = task["allowlist"][0]
    inside = allow if allow.endswith("/") else "src/api/"
    changed = [f"{inside}module_{i}.py" for i in range(rng.randint(1, 4))]
    if rng.random() > skill + 0.15:
        changed.append(rng.choice(["setup.cfg", "ci/pipeline.yml", "vendor/lib.py"]))
    return {
        "attempt_id": attempt_id,
        "task": task["id"],
        "agent_started": True,
        "functional": checks(rng, "f", 6, skill + 0.1),
        "regression": [*checks(rng, "r", 4, skill + 0.2), *checks(rng, "rc", 1, skill + 0.25, critical=True)],
        "cross_surface": [
            {"id": f"s-{s}", "surface": s, "passed": rng.random() < skill + 0.15} for s in SURFACES
        ],
        "changed_paths": changed,
        "tests": {
            "relevant_tests_changed": rng.random() < skill,
            "passed_before": rng.random() < 0.8,
            "passed_after": rng.random() < skill + 0.1,
        },
        "trajectory": {
            "explored": rng.random() < skill + 0.2,
            "recovered_or_no_error": rng.random() < 0.7,
            "evidence_backed_termination": rng.random() < skill,
        },
        "tampering_detected": False,
        "prohibited_change_detected": False,
    }


def special_cases(subject: str, task_ids: list[str]) -> dict[int, dict[str, Any]]:
    """Deliberate edge cases, placed at fixed attempt positions per subject."""
    cases: dict[str, dict[int, dict[str, Any]]] = {
        "subject-a3f1": {
            2: {"trajectory": None},
            5: {"producer_outcome": "Ready"},
            7: {"producer_outcome": "NeedsReview"},
            9: {"tests": None, "trajectory": None},
        },
        "subject-7c2e": {
            1: {
                "invalid": {
                    "reason": "host_infrastructure_failure",
                    "detail": "runner lost its volume before the agent started",
                },
                "agent_started": False,
            },
            4: {"regression": []},
            7: {"tampering_detected": True},
            10: {"producer_outcome": "NeedsReview"},
        },
        "subject-d940": {
            0: {
                "invalid": {
                    "reason": "pre_agent_evaluator_failure",
                    "detail": "evaluator image failed to pull",
                },
                "agent_started": False,
            },
            3: {"cross_surface": []},
            4: {"changed_paths": ["src/cli/main.py", "vendor/patched_lib.py", "ci/pipeline.yml"]},
            6: {"prohibited_change_detected": True},
            8: {"changed_paths": None},
            11: {"tampering_detected": None},
        },
        "subject-15bb": {
            2: {"invalid": {"reason": "storage_exhaustion", "detail": "disk quota hit during the agent run"}},
            5: {"functional": []},
            9: {"regression": None, "producer_outcome": "NotReady"},
        },
    }
    return cases[subject]


def write_json(path: Path, value: Any) -> None:
    path.write_text(json.dumps(value, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def make_points(out: Path, seed_file: Path, seed: int) -> None:
    bench = out / "agent-dx"
    rng = random.Random(seed)
    rubric = seed_file.read_bytes()
    bench.mkdir(parents=True)
    (bench / "rubric.json").write_bytes(rubric)
    write_json(
        bench / "benchmark.json",
        {
            "schema_version": 1,
            "family": "points",
            "title": "Agent DX score (historical rubric)",
            "description": "Four coding-agent tasks across API, client SDK, CLI and contract surfaces, "
            "scored under the frozen `agent-dx-score-contract`. Example corpus.",
            "purpose": "historical",
            "rubric": {"file": "rubric.json", "sha256": hashlib.sha256(rubric).hexdigest()},
            "tasks": TASKS,
        },
    )
    for subject, skill in SUBJECTS.items():
        specials = special_cases(subject, [t["id"] for t in TASKS])
        rows = []
        for i in range(12):
            task = TASKS[i % len(TASKS)]
            row = attempt(rng, f"{subject[-4:]}-{i + 1:02d}", task, skill)
            row.update(specials.get(i, {}))
            if "invalid" in row and not row["agent_started"]:
                row = {k: row[k] for k in ("attempt_id", "task", "agent_started", "invalid")}
            rows.append(row)
        halves = [rows] if subject != "subject-a3f1" else [rows[:6], rows[6:]]
        for n, part in enumerate(halves, start=1):
            run = bench / f"run-{subject}-{n}"
            run.mkdir()
            write_json(
                run / "run.json",
                {"schema_version": 1, "subject": subject, "producer": "example harness 1.4 (synthetic)"},
            )
            text = "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in part)
            (run / "attempts.jsonl").write_text(text, encoding="utf-8")
            write_seal(run)
    write_seal(bench)


def write_points_runs(bench: Path, rng: random.Random, tasks: list[dict[str, Any]], prefix: str) -> None:
    """Twelve attempts per subject (one run each), by the same row builder as agent-dx."""
    for subject, skill in SUBJECTS.items():
        rows = [
            attempt(rng, f"{prefix}{subject[-4:]}-{i + 1:02d}", tasks[i % len(tasks)], skill)
            for i in range(12)
        ]
        run = bench / f"run-{subject}"
        run.mkdir()
        write_json(
            run / "run.json",
            {"schema_version": 1, "subject": subject, "producer": "example harness 2.0 (synthetic)"},
        )
        text = "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in rows)
        (run / "attempts.jsonl").write_text(text, encoding="utf-8")
        write_seal(run)


SUCCESSOR_WEIGHTS = {"functional correctness": 40, "regression avoidance": 20}
SUCCESSOR_READY = 85


def successor_contract(seed: dict[str, Any]) -> dict[str, Any]:
    """A frozen successor of seed 000: other weights and Ready threshold, its specification inside."""
    contract = json.loads(json.dumps(seed))
    contract["artifactVersion"] = "2026-12-01.1"
    contract["status"] = "frozen successor of agent-dx-score-contract 2026-09-17.1, for prospective release"
    contract["provenance"]["rawRuns"] = "included"
    for dim in contract["pointDimensions"]:
        if dim["name"] in SUCCESSOR_WEIGHTS:
            old, new = dim["weight"], SUCCESSOR_WEIGHTS[dim["name"]]
            dim["weight"] = new
            dim["predicate"] = dim["predicate"].replace(f"{old} ×", f"{new} ×", 1)
    contract["outcomes"]["ready"] = contract["outcomes"]["ready"].replace(
        "at least 80 of 90", f"at least {SUCCESSOR_READY} of 90"
    )
    contract["limitations"] = [
        "The documentation relation checker uses a disclosed bounded vocabulary and may reject valid paraphrases outside it.",
        "Weights and the Ready threshold were revised from the historical rubric before any prospective attempt was collected; figures are not comparable across the two rubrics.",
    ]
    builtin = (
        Path(__file__).resolve().parent.parent
        / "generator"
        / "families"
        / "points"
        / "builtin"
        / "agent-dx-score-contract.scoring.json"
    )
    spec = json.loads(builtin.read_text(encoding="utf-8"))
    for dim in spec["dimensions"]:
        dim["weight"] = SUCCESSOR_WEIGHTS.get(dim["name"], dim["weight"])
    spec["outcomes"]["ready"]["deterministic_at_least"] = SUCCESSOR_READY
    contract["scoring"] = spec
    return contract


def make_points_successor(out: Path, seed_file: Path, seed: int) -> None:
    """A second points benchmark under a frozen successor contract, over new attempts."""
    bench = out / "agent-dx-successor"
    bench.mkdir(parents=True)
    rubric = (
        json.dumps(successor_contract(json.loads(seed_file.read_bytes())), indent=2, ensure_ascii=False)
        + "\n"
    ).encode()
    (bench / "rubric.json").write_bytes(rubric)
    write_json(
        bench / "benchmark.json",
        {
            "schema_version": 1,
            "family": "points",
            "title": "Agent DX score (frozen successor)",
            "description": "The same four tasks under the frozen successor of `agent-dx-score-contract` (functional 40, regression 20, Ready at 85 of 90), for a prospective release. Example corpus.",
            "purpose": "prospective-release",
            "rubric": {"file": "rubric.json", "sha256": hashlib.sha256(rubric).hexdigest()},
            "tasks": TASKS,
        },
    )
    write_points_runs(bench, random.Random(seed + 1), TASKS, "s")
    write_seal(bench)


DOC_TASKS = [
    {
        "id": "D01-api-reference",
        "title": "Document the pagination parameters",
        "allowlist": ["docs/api/", "src/api/"],
    },
    {
        "id": "D02-tutorial",
        "title": "Write a first-request tutorial",
        "allowlist": ["docs/tutorials/", "src/api/"],
    },
    {"id": "D03-migration", "title": "Write the v2 migration guide", "allowlist": ["docs/*.md", "src/api/"]},
]


def docs_quality_spec() -> dict[str, Any]:
    ratio = {"kind": "check_ratio", "when_empty": "inconclusive", "when_not_run": "inconclusive"}
    return {
        "schema_version": 1,
        "family": "points",
        "rubric": "docs-quality-rubric",
        "dimensions": [
            {
                "key": "accuracy",
                "name": "technical accuracy",
                "weight": 50,
                "rule": {**ratio, "checks": "functional"},
            },
            {
                "key": "examples",
                "name": "examples run",
                "weight": 25,
                "rule": {**ratio, "checks": "regression"},
            },
            {
                "key": "coverage",
                "name": "surface coverage",
                "weight": 15,
                "rule": {**ratio, "checks": "cross_surface"},
            },
            {
                "key": "focus",
                "name": "change focus",
                "weight": 10,
                "rule": {"kind": "penalty", "items": "paths_outside_allowlist", "each": 5, "floor": 0},
            },
        ],
        "deterministic_total": 100,
        "blockers": {"critical_checks": ["regression"]},
        "mandatory_checks": ["functional checks", "regression checks", "changed-path scope check"],
        "mandatory_means": "executed_and_evaluable",
        "outcomes": {
            "ready": {"deterministic_at_least": 85, "minimums": {"accuracy": 45}},
            "needs_review": {"deterministic_at_least": 65},
        },
        "invalid": {
            "reasons": ["host_infrastructure_failure", "storage_exhaustion"],
            "after_agent_started": ["storage_exhaustion"],
        },
        "unavailable_diagnostic": "zero_labelled_unavailable",
        "allowlist": "folder_slash_or_fnmatch",
    }


def make_docs_quality(out: Path, seed_file: Path, seed: int) -> None:
    """A team's own points rubric (four dimensions), its specification in a pinned scoring.json."""
    bench = out / "docs-quality"
    bench.mkdir(parents=True)
    spec = docs_quality_spec()
    contract = {
        "schemaVersion": 1,
        "artifactId": "docs-quality-rubric",
        "artifactVersion": "2026-11-20.1",
        "status": "frozen",
        "provenance": {
            "sourceKind": "team rubric",
            "boundarySha256": hashlib.sha256(b"docs-quality evaluator 3.2").hexdigest(),
            "identityMapping": "withheld",
            "rawRuns": "excluded",
        },
        "pointDimensions": [
            {
                "name": "technical accuracy",
                "weight": 50,
                "predicate": "50 × accurate statements / checked statements",
            },
            {
                "name": "examples run",
                "weight": 25,
                "predicate": "25 × examples that run as written / examples; a broken example marked critical blocks release",
            },
            {
                "name": "surface coverage",
                "weight": 15,
                "predicate": "15 × surfaces documented / surfaces the change touches",
            },
            {
                "name": "change focus",
                "weight": 10,
                "predicate": "10 minus 5 for each file changed outside the task's documentation folders, floored at zero",
            },
        ],
        "outcomes": {
            "ready": "At least 85 of 100 and technical accuracy at least 45 of 50, no critical example broken.",
            "needsReview": "At least 65 of 100 without a blocker, but below the Ready bar.",
            "notReady": "A broken critical example, or below 65 of 100.",
        },
        "mandatoryChecks": spec["mandatory_checks"],
        "diagnostics": {
            "testBehavior": "Not scored by this rubric.",
            "trajectory": "Not scored by this rubric.",
            "invalidAttempt": "A host failure before the writer started, or storage exhaustion at any time, is invalid and excluded.",
            "inconclusive": "Examples or surfaces that could not be checked make the attempt inconclusive, never zero.",
        },
        "limitations": [
            "Accuracy checks are written by the documentation team and cover the statements they chose to check.",
            "Example runs use the staging API; production differences are out of scope.",
        ],
    }
    rubric = (json.dumps(contract, indent=2, ensure_ascii=False) + "\n").encode()
    scoring = (json.dumps(spec, indent=2, ensure_ascii=False) + "\n").encode()
    (bench / "rubric.json").write_bytes(rubric)
    (bench / "scoring.json").write_bytes(scoring)
    write_json(
        bench / "benchmark.json",
        {
            "schema_version": 1,
            "family": "points",
            "title": "Documentation quality (a team's own rubric)",
            "description": "Three documentation tasks scored under a team-made points rubric with four dimensions; its scoring specification is the sealed `scoring.json`. Example corpus.",
            "purpose": "prospective-release",
            "rubric": {"file": "rubric.json", "sha256": hashlib.sha256(rubric).hexdigest()},
            "scoring": {"file": "scoring.json", "sha256": hashlib.sha256(scoring).hexdigest()},
            "tasks": DOC_TASKS,
        },
    )
    write_points_runs(bench, random.Random(seed + 2), DOC_TASKS, "d")
    write_seal(bench)


PROVIDERS = ["P-A", "P-B", "P-C", "P-D"]
EVALUATORS = ["sha256:" + hashlib.sha256(f"evaluator-{n}".encode()).hexdigest() for n in (1, 2)]
PROMPTS = {
    "todo-app": ["loads", "adds-item", "persists"],
    "landing-page": ["loads", "form-submits"],
    "dashboard": ["loads", "chart-renders", "filters", "exports-csv"],
}
REAL_NAMES = {
    "P-A": "Northwind Builder",
    "P-B": "Contoso AppGen",
    "P-C": "Fabrikam Studio",
    "P-D": "Tailspin Forge",
}


def trial_result(rng: random.Random, trial: dict[str, Any], skill: float) -> dict[str, Any]:
    """One observed trial: mostly ordinary, with failures drawn by the provider's skill."""
    checks = [
        {"id": c, "state": "pass" if rng.random() < skill + 0.15 else rng.choice(["fail", "skipped"])}
        for c in PROMPTS[trial["prompt_id"]]
    ]
    interventions = [{"kind": "setup"}, {"kind": "initial_submit"}]
    if rng.random() < 0.3:
        interventions.append({"kind": "native_permission"})
    if rng.random() < 0.5:
        interventions.append({"kind": "publish"})
    if rng.random() > skill:
        interventions.append({"kind": rng.choice(["followup", "retry", "edit", "debugging"])})
    build = "pass" if rng.random() < skill + 0.2 else rng.choice(["fail", "not_observable"])
    boot = (
        "pass" if build == "pass" and rng.random() < skill + 0.15 else rng.choice(["fail", "not_observable"])
    )
    if rng.random() < 0.7:
        cost = {
            "state": "measured",
            "usd_micros": rng.randint(40_000, 900_000),
            "evidence": {
                "kind": rng.choice(["provider_usage", "invoice"]),
                "reference": f"usage-2026-10/{trial['trial_id']}",
            },
        }
    else:
        cost = {"state": "unavailable", "reason": "provider exposes no usage for this plan"}
    return {
        "trial_id": trial["trial_id"],
        "terminal": "completed",
        "build": build,
        "boot": boot,
        "checks": checks,
        "interventions": interventions,
        "cost": cost,
        "elapsed_ms": rng.randint(45_000, 600_000),
        "failure_code": None,
        "evaluator": EVALUATORS[int(trial["trial_id"][-2:]) % 2],
    }


def make_trials(out: Path, seed_file: Path, seed: int) -> None:
    bench = out / "vibe-delivery"
    rng = random.Random(seed)
    bench.mkdir(parents=True)
    rubric = seed_file.read_bytes()
    (bench / "rubric.json").write_bytes(rubric)
    corpus = "prompts-2026.10"
    trials = [
        {
            "trial_id": f"t{i + 1:02d}",
            "prompt_id": list(PROMPTS)[i % 3],
            "prompt_corpus_version": corpus,
            "provider": PROVIDERS[i % 4],
        }
        for i in range(44)
    ]
    write_json(bench / "trial-plan.json", {"schema_version": 1, "trials": trials})
    write_json(
        bench / "benchmark.json",
        {
            "schema_version": 1,
            "family": "trials",
            "title": "Autonomous app delivery",
            "description": "Four app-builder providers, 44 planned trials over three prompts. "
            "Example corpus.",
            "rubric": {"file": "rubric.json", "sha256": hashlib.sha256(rubric).hexdigest()},
            "plan": "trial-plan.json",
            "prompt_corpora": [
                {"version": corpus, "prompts": [{"id": p, "required_checks": c} for p, c in PROMPTS.items()]}
            ],
        },
    )
    plan_sha = hashlib.sha256((bench / "trial-plan.json").read_bytes()).hexdigest()
    skill = {"P-A": 0.8, "P-B": 0.65, "P-C": 0.5, "P-D": 0.7}
    rows = {p: [trial_result(rng, t, skill[p]) for t in trials if t["provider"] == p] for p in PROVIDERS}
    # Deliberate edge cases.
    rows["P-A"][1].update(terminal="timeout", failure_code="timeout", elapsed_ms=900_000)
    rows["P-B"][2].update(build="not_observable", boot="not_observable", failure_code="no_build_state")
    rows["P-B"][3]["interventions"] += [{"kind": "publish"}, {"kind": "publish"}]  # a publish counted twice
    rows["P-C"][0].update(terminal="error", failure_code="provider_error")
    rows["P-C"][4]["interventions"].append({"kind": "vendor_concierge_call"})  # unknown kind counts
    rows["P-D"][5]["checks"][0]["state"] = "not_evaluable"
    del rows["P-D"][7]  # a planned trial with no result
    del rows["P-C"][9]
    for provider, results in rows.items():
        for row in results:
            if row["failure_code"] is None and (row["build"] != "pass" or row["boot"] != "pass"):
                row["failure_code"] = "build_failed" if row["build"] != "pass" else "boot_failed"
        run = bench / f"run-{provider.lower()}"
        run.mkdir()
        write_json(
            run / "run.json",
            {
                "schema_version": 1,
                "plan_sha256": plan_sha,
                "producer": "example trial harness 0.9 (synthetic)",
            },
        )
        text = "".join(json.dumps(r, sort_keys=True) + "\n" for r in results)
        (run / "results.jsonl").write_text(text, encoding="utf-8")
        write_seal(run)
    write_seal(bench)
    # The reveal applies to the scores frozen in the blind version.
    from generator.score.run import ScoreOptions, score_inputs

    scored = score_inputs(out, "2026.11-blind", with_reveals=False, options=ScoreOptions(outputs=False))
    scored.details.close()
    section = next(b for b in scored.report.benchmarks if b.id == "vibe-delivery").section
    reveal = bench / "reveal"
    reveal.mkdir()
    write_json(
        reveal / "reveal.json",
        {
            "schema_version": 1,
            "scores_version": "2026.11-blind",
            "scores_sha256": section.scores_sha256,  # type: ignore[union-attr]
            "providers": REAL_NAMES,
        },
    )
    write_seal(reveal)


JUDGES = ["sha256:" + hashlib.sha256(f"judge-{n}".encode()).hexdigest() for n in (1, 2, 3)]
CRITERIA = ("identification", "evidence_grounding", "reasoning_validity", "disposition")


def je_tasks() -> list[dict[str, Any]]:
    def defects(prefix: str, n: int, figure_at: int | None = None) -> list[dict[str, Any]]:
        return [
            {
                "id": f"{prefix}-d{i}",
                "location": f"{prefix} ledger row {10 * (i + 1)}",
                "issue_type": ["misposting", "cutoff", "duplicate", "classification"][i % 4],
                **({"figure": f"{1250 * (i + 1)}.00"} if i == figure_at else {}),
            }
            for i in range(n)
        ]

    return [
        {
            "id": "JE-01",
            "family": "reconciliation",
            "level": "L1",
            "weights": {"outcome": 0.6, "process": 0.2, "rationale": 0.2},
            "seeded_defects": defects("JE-01", 2),
            "key_evidence": ["bank-stmt-03", "gl-1010", "rec-sheet-03"],
            "required_calls": ["open_ledger"],
            "hard_fail_rules": [
                {"id": "HF-approve-unreviewed", "description": "approves a reconciliation it never opened"}
            ],
        },
        {
            "id": "JE-02",
            "family": "accruals",
            "level": "L2",
            "weights": {"outcome": 0.55, "process": 0.25, "rationale": 0.2},
            "seeded_defects": defects("JE-02", 3, 1),
            "key_evidence": ["accrual-memo", "gl-2100", "invoice-448", "contract-12"],
            "required_calls": ["open_ledger", "open_contract"],
            "hard_fail_rules": [],
        },
        {
            "id": "JE-04",
            "family": "revenue",
            "level": "L4",
            "weights": {"outcome": 0.5, "process": 0.25, "rationale": 0.25},
            "seeded_defects": defects("JE-04", 4, 2),
            "key_evidence": [
                "rev-schedule",
                "gl-4000",
                "contract-77",
                "delivery-log",
                "credit-memo-9",
                "board-min",
            ],
            "required_calls": ["open_ledger", "open_contract", "query_gl"],
            "hard_fail_rules": [
                {"id": "HF-fabricated-figure", "description": "states a figure no document holds"}
            ],
        },
        {
            "id": "JE-00",
            "family": "reconciliation",
            "level": "L2",
            "weights": {"outcome": 0.55, "process": 0.25, "rationale": 0.2},
            "seeded_defects": [],
            "key_evidence": ["bank-stmt-07", "gl-1010"],
            "required_calls": ["open_ledger"],
            "hard_fail_rules": [],
        },
    ]


def episode(rng: random.Random, task: dict[str, Any], eid: str, seed: int, skill: float) -> dict[str, Any]:
    """One model episode drawn by skill; every component comes from these facts."""
    findings = []
    opened = [e for e in task["key_evidence"] if rng.random() < skill + 0.15]
    opened += [f"noise-doc-{n}" for n in range(rng.randint(0, 2))]
    for defect in task["seeded_defects"]:
        if rng.random() < skill:
            right = rng.random() < skill + 0.1
            finding = {
                "location": defect["location"],
                "issue_type": defect["issue_type"] if right else "misposting-other",
                "evidence_ids": [e for e in opened if e in task["key_evidence"]][:2],
            }
            if "figure" in defect:
                finding["figure"] = defect["figure"] if rng.random() < skill else "999.00"
            findings.append(finding)
    for n in range(rng.choice([0, 0, 1, 2]) if skill < 0.8 else 0):
        findings.append(
            {
                "location": f"{task['id']} ledger row {900 + n}",
                "issue_type": "duplicate",
                "evidence_ids": opened[:1],
            }
        )
    calls = [{"name": c, "arguments": "period=2026-09"} for c in task["required_calls"]]
    calls += [{"name": "open_document", "arguments": d} for d in opened]
    calls += [calls[0]] * rng.choice([0, 0, 1, 2])  # redundant repeats
    judges = JUDGES if task["level"] == "L4" else JUDGES[:1]
    judgments = [
        {
            "call_id": f"{eid}-j{j}-{c}",
            "judge": judge,
            "criterion": c,
            "score": max(0, min(3, round(3 * skill + rng.choice([-1, 0, 0, 1])))),
        }
        for j, judge in enumerate(judges)
        for c in CRITERIA
    ]
    return {
        "episode_id": eid,
        "task": task["id"],
        "seed": seed,
        "findings": findings,
        "opened_documents": opened,
        "calls": calls,
        "judgments": judgments,
        "hard_fails": [],
    }


def baseline_episode(task: dict[str, Any], kind: str, seed: int) -> dict[str, Any]:
    eid = f"{kind.split('_')[0]}-{task['id']}-s{seed}"
    judgments = [{"call_id": f"{eid}-{c}", "judge": JUDGES[0], "criterion": c, "score": 0} for c in CRITERIA]
    if task["level"] == "L4":
        judgments = [
            {"call_id": f"{eid}-j{j}-{c}", "judge": judge, "criterion": c, "score": 0}
            for j, judge in enumerate(JUDGES)
            for c in CRITERIA
        ]
    if kind == "flag_everything_baseline":
        everywhere = [f"{task['id']} ledger row {10 * (i + 1)}" for i in range(40)]
        findings = [
            {"location": loc, "issue_type": "misposting", "evidence_ids": task["key_evidence"][:1]}
            for loc in everywhere
        ]
        opened = list(task["key_evidence"]) + [f"noise-doc-{n}" for n in range(20)]
        calls = [{"name": c, "arguments": ""} for c in task["required_calls"]] * 3
    else:
        findings = [
            {"location": d["location"], "issue_type": "misposting", "evidence_ids": []}
            for d in task["seeded_defects"][:1]
        ]
        opened, calls = [], []
    return {
        "episode_id": eid,
        "task": task["id"],
        "seed": seed,
        "findings": findings,
        "opened_documents": opened,
        "calls": calls,
        "judgments": judgments,
        "hard_fails": [],
    }


def make_components(out: Path, seed_file: Path, seed: int) -> None:
    bench = out / "je-validation"
    rng = random.Random(seed)
    bench.mkdir(parents=True)
    rubric = seed_file.read_bytes()
    (bench / "rubric.json").write_bytes(rubric)
    tasks = je_tasks()
    write_json(
        bench / "benchmark.json",
        {
            "schema_version": 1,
            "family": "components",
            "title": "JE validation (journal-entry review)",
            "description": "Three models and a preview model review seeded journal-entry defects across "
            "L1, L2, L4 and a clean control task. Example corpus.",
            "rubric": {"file": "rubric.json", "sha256": hashlib.sha256(rubric).hexdigest()},
            "minimum_seeds": 5,
            "anti_gaming": {"flag_everything_max_outcome": 0.35, "no_evidence_max_outcome_l2_plus": 0.25},
            "tasks": tasks,
        },
    )
    models = {"m-alpha": (0.85, 5), "m-beta": (0.65, 5), "m-gamma": (0.5, 5), "m-delta-preview": (0.7, 2)}
    for model, (skill, seeds) in models.items():
        rows = [
            episode(rng, t, f"{model}-{t['id']}-s{s}", s, skill) for t in tasks for s in range(1, seeds + 1)
        ]
        if model == "m-beta":
            rows[0]["findings"].append(
                {
                    "location": "JE-01 ledger row 10",
                    "issue_type": "misposting",
                    "evidence_ids": ["bank-stmt-99"],
                }
            )  # a fabricated citation
            rows[3]["hard_fails"] = ["HF-approve-unreviewed"]
            rows[6]["calls"] = [c for c in rows[6]["calls"] if c["name"] != "open_contract"]
        if model == "m-gamma":
            l4 = next(r for r in rows if r["task"] == "JE-04")
            l4["judgments"] = [j for j in l4["judgments"] if j["judge"] != JUDGES[2]]  # one judge missing
        if model == "m-alpha":
            for row in rows[:6]:
                row["human_grades"] = [
                    {"criterion": j["criterion"], "score": max(0, j["score"] + rng.choice([-1, 0, 0, 0]))}
                    for j in row["judgments"][:4]
                ]
        write_run(
            bench / f"run-{model}",
            {
                "schema_version": 1,
                "subject": model,
                "kind": "model",
                "producer": "example JE harness 2.1 (synthetic)",
            },
            rows,
        )
    for kind in ("flag_everything_baseline", "no_evidence_baseline"):
        rows = [baseline_episode(t, kind, s) for t in tasks for s in (1, 2)]
        write_run(
            bench / f"run-{kind.replace('_', '-')}",
            {"schema_version": 1, "subject": kind, "kind": kind, "producer": "baseline generator"},
            rows,
        )
    write_seal(bench)


def write_run(run: Path, meta: dict[str, Any], rows: list[dict[str, Any]]) -> None:
    run.mkdir()
    write_json(run / "run.json", meta)
    text = "".join(json.dumps(r, sort_keys=True) + "\n" for r in rows)
    (run / "episodes.jsonl").write_text(text, encoding="utf-8")
    write_seal(run)


CHECKS = [
    {
        "key": "cites-source",
        "title": "Cites the catalogue source",
        "floor": {
            "kind": "uniform-choice",
            "params": {"alternatives": 4},
            "derivation": "the answer names one of 4 catalogue sources; a blind pick hits 1 in 4",
        },
    },
    {
        "key": "finds-sku",
        "title": "Surfaces a relevant SKU in the top 5",
        "floor": {
            "kind": "hypergeometric-at-least-one",
            "params": {"pool": 99, "favourable": 10, "draws": 5},
            "derivation": "5 SKUs drawn from a pool of 99 with 10 relevant",
        },
    },
    {
        "key": "policy-match",
        "title": "Follows the returns policy",
        "floor": {
            "kind": "empirical-policy",
            "params": {"successes": 3, "trials": 20},
            "derivation": "a scripted always-refuse policy met the check 3 times in 20",
        },
    },
    {
        "key": "tone-judged",
        "title": "Tone judged by a model",
        "floor": {
            "kind": "not-derivable",
            "params": {},
            "derivation": "a judged check: no draw budget defines chance agreement with the judge",
        },
    },
]


def store_json(value: Any) -> bytes:
    """The producer's encoder escapes '+' as \\u002B and non-ASCII as \\uXXXX."""
    return (json.dumps(value, indent=2, ensure_ascii=True).replace("+", "\\u002B") + "\n").encode()


ARMS = (
    ("baseline", "recsys-agent", 1, 3),
    ("candidate", "recsys-agent-v2", 2, 3),
    ("candidate-offline", "recsys-agent-v3", 3, 1),  # a finished run that measured nothing: PENDING
)
UNMEASURED_REPS = {
    # (arm, rep, case, check) → (label, measurement): cells whose reps are only partly measured
    ("candidate", 2, "c04", "finds-sku"): ("error", "notMeasured"),
    ("candidate", 1, "c12", "policy-match"): ("skipped", "notMeasured"),
    ("candidate", 3, "c12", "policy-match"): ("inapplicable", "notApplicable"),
    ("baseline", 3, "c15", "cites-source"): ("inapplicable", "notApplicable"),
}


def unmeasured(row: dict[str, Any], label: str, measurement: str) -> None:
    """Turn a generated row into one its eval did not measure (or found not applicable)."""
    tree = json.loads(row["output"])
    tree["score"].update(label=label, measurement=measurement, passed=False, value=0.0)
    row.update(output=json.dumps(tree), passed=False, score=0.0)


def mixed_case(row: dict[str, Any]) -> None:
    """The candidate's producer spells the text axes in another case: AgentEval compares them
    case-insensitively, so its rows still pool with the baseline's."""
    facts = row["comparability"]
    facts["evalKey"] = facts["evalKey"].replace("recsys-grounding", "RecSys-Grounding")
    if "judge" in facts:
        facts["judge"]["modelId"] = "Judge-Large-2"
        facts["judge"]["rubricDigest"] = facts["judge"]["rubricDigest"].upper().replace("SHA256:", "sha256:")


def definition_corpus(rng: random.Random) -> tuple[dict[str, Any], list[tuple[str, str, int, str]]]:
    from generator.families.definitions.models import Floor
    from generator.families.definitions.stats import derive_floor

    checks = []
    for c in CHECKS:
        floor = dict(c["floor"])
        floor["bar"] = derive_floor(Floor.model_validate({**floor, "bar": None}))[0]
        checks.append({**c, "floor": floor})
    runs = []
    for arm, subject, day, reps in ARMS:
        for rep in range(1, reps + 1):
            run_id = f"2026-10-0{day}_10-00-0{rep}_{hashlib.sha256(f'{arm}{rep}'.encode()).hexdigest()[:8]}"
            runs.append((arm, subject, rep, run_id))
    definition = {
        "schema_version": 1,
        "key": "recsys-grounding",
        "version": "1.2.0",
        "cases": [{"id": f"c{i:02d}", "title": f"Shopper question {i}"} for i in range(1, 21)],
        "checks": checks,
        "arms": [{"id": arm, "runs": [r for a, _, _, r in runs if a == arm]} for arm, _, _, _ in ARMS],
        "reference_arm": "baseline",
        "pass_at": 1.0,
        "paired_collapse": "majority",
    }
    return definition, runs


def store_row(
    rng: random.Random, case: str, check: dict[str, Any], skill: float, model: str
) -> dict[str, Any]:
    rid = f"{case}\u00b7{check['key']}"
    text = f"Shopper asks about {case}: which running shoe fits a wide foot + high arch? (Größe 44)"
    if check["key"] == "finds-sku" and case == "c07":
        label, measurement, passed = "inapplicable", "notApplicable", False
    elif rng.random() < 0.04:
        label, measurement, passed = rng.choice(["skipped", "error"]), "notMeasured", False
    else:
        passed = rng.random() < skill
        label, measurement = ("pass" if passed else "fail"), None
    judged = check["key"] == "tone-judged"
    if judged and label in ("pass", "fail") and rng.random() < 0.15:
        label = "warn"
    score = {"value": 1.0 if passed else 0.0, "label": label, "passed": passed, "severity": "info"}
    if measurement:
        score["measurement"] = measurement
    floor = check["floor"]
    tree = {
        "metric": {"key": check["key"], "name": check["title"], "category": "benchmark", "version": "1"},
        "score": score,
        "details": {
            "dimensions": {"chance_floor": floor["bar"]},
            "evidence": [
                {"source": "chance-floor", "reference": floor["kind"], "message": floor["derivation"]}
            ],
        },
        "provenance": {
            "type": "judge" if judged else "code",
            **({"judgeModel": "judge-large-2"} if judged else {}),
        },
    }
    comparability = {
        "evalKey": f"recsys-grounding/{check['key']}",
        "evalVersion": "1.2.0",
        "chanceFloor": {
            "kind": floor["kind"],
            "state": "derived" if floor["bar"] is not None else "notDerivable",
            **({"bar": floor["bar"]} if floor["bar"] is not None else {}),
            "derivation": floor["derivation"],
        },
    }
    comparability["effectiveBar"] = 1.0  # the eval's own pass bar (score.threshold), not the floor
    if judged:
        comparability["judge"] = {
            "modelId": "judge-large-2",
            "rubricDigest": "sha256:" + "ab" * 32,
            "subjectRelation": "differentModel",
        }
    return {
        "id": rid,
        "name": f"{case} {check['key']}",
        "input": text,
        "output": json.dumps(tree),
        "passed": passed,
        "score": score["value"],
        "metrics": {},
        "assertions": [],
        "duration": "00:00:00.9000000",
        "estimatedCost": 0.0002,
        "stimulusHash": "sha256:" + hashlib.sha256(text.encode()).hexdigest(),
        "comparability": comparability,
    }


def make_definitions(out: Path, seed_file: Path, seed: int) -> None:
    from generator.families.definitions.models import Scenario
    from generator.families.definitions.store import row_result, sanitized_name, verdict

    bench = out / "recsys-grounding"
    rng = random.Random(seed)
    bench.mkdir(parents=True)
    rubric = seed_file.read_bytes()
    (bench / "adr-032.txt").write_bytes(rubric)
    definition, runs = definition_corpus(rng)
    write_json(bench / "definition.json", definition)
    write_json(
        bench / "corrections.json",
        {
            "schema_version": 1,
            "corrections": [
                {
                    "id": "corr-2026-10-12",
                    "superseded": "policy-match floor from 1 scripted success in 20",
                    "corrected": "policy-match floor from 3 scripted successes in 20 (the script log was re-read)",
                    "direction": "raises the policy-match bar, so fewer arms read as above floor",
                    "blast_radius": "policy-match against-floor rows of both arms; no verdict changes (floors are unapplied)",
                    "prediction": "a re-run of the scripted policy on the same 20 cases succeeds between 1 and 6 times",
                    "affects": ["check:policy-match"],
                }
            ],
        },
    )
    write_json(
        bench / "benchmark.json",
        {
            "schema_version": 1,
            "family": "definitions",
            "title": "Recommendation grounding (AgentEval definition)",
            "description": "Twenty shopper questions × four atomic checks; a baseline and a candidate arm × three reps, "
            "and one candidate run that measured nothing (PENDING), read in the "
            "AgentEval store-v1 layout. Example corpus.",
            "rubric": {"file": "adr-032.txt", "sha256": hashlib.sha256(rubric).hexdigest()},
            "definition": "definition.json",
            "corrections": "corrections.json",
        },
    )
    skill = {"baseline": 0.55, "candidate": 0.75, "candidate-offline": 0.75}
    day = {arm: d for arm, _, d, _ in ARMS}
    for index, (arm, subject, rep, run_id) in enumerate(runs):
        folder = bench / ".agenteval" / "subjects" / "agents" / subject / "runs" / run_id
        (folder / "scenarios").mkdir(parents=True)
        rows = [
            store_row(rng, case["id"], check, skill[arm], subject)
            for case in definition["cases"]
            for check in definition["checks"]
        ]
        for row in rows:
            case, check_key = row["id"].split("\u00b7")
            if arm == "candidate-offline":
                unmeasured(row, "skipped", "notMeasured")  # the service was down: nothing measured
            elif (arm, rep, case, check_key) in UNMEASURED_REPS:
                unmeasured(row, *UNMEASURED_REPS[arm, rep, case, check_key])
            if arm == "candidate":
                mixed_case(row)
        results = [
            row_result(
                Scenario.model_validate(r), r["id"].split("\u00b7")[0], r["id"].split("\u00b7")[1], None
            )
            for r in rows
        ]
        recomputed = verdict(results)
        produced = (
            "WARN" if index == 4 else recomputed
        )  # a producer that counted a judged failure as a warning
        for row in rows:
            (folder / "scenarios" / sanitized_name(row["id"])).write_bytes(store_json(row))
        measured = [r for r in results if r.state == "measured"]
        stats = {
            "total": len(rows),
            "passed": sum(r.outcome == "pass" for r in measured),
            "failed": sum(r.outcome == "fail" for r in measured),
            "warnings": sum(r.outcome == "warn" for r in measured),
            "skipped": sum(r.state != "measured" for r in results),
        }
        (folder / "manifest.json").write_bytes(
            store_json(
                {
                    "schemaVersion": "1.0",
                    "solution": {"id": "galaxus-recs", "name": "Recommendations"},
                    "subject": {"kind": "agent", "name": subject, "modelId": f"{subject}-model"},
                    "run": {
                        "runId": run_id,
                        "timestamp": f"2026-10-0{day[arm]}T10:00:0{rep}+00:00",
                        "duration": "00:03:12.5000000",
                        "scenarioCount": len(rows),
                        "verdict": produced,
                        "kind": "benchmark",
                        "harness": "BenchmarkRunner/recsys-grounding@1.2.0",
                        "parentInvocationId": f"inv-{arm}",
                    },
                    "git": {"dirty": False},
                    "agentEval": {"version": "0.35.0"},
                    "environment": {},
                    "contentHash": "sha256:" + hashlib.sha256(run_id.encode()).hexdigest(),
                }
            )
        )
        (folder / "summary.json").write_bytes(
            store_json(
                {"schemaVersion": "1.0", "runId": run_id, "verdict": produced, "stats": stats, "metrics": {}}
            )
        )
        write_seal(folder)
    write_seal(bench)


INSPECT_LOGS = ("*_b4t4ad92h9H3E7CAXGiJ5v.eval", "*_NYmEAuWAtYnpUs575M3YAG.eval")
"""Two real inspect_ai logs of tests/data/inspect (the two mock models, zipped format)."""


def make_imported_inspect(out: Path, seed_file: Path, seed: int) -> None:
    """A benchmark imported from real inspect_ai logs, exactly as ``benchsite import inspect`` writes it."""
    from generator.importers import inspect_log
    from generator.importers.write import Options, write

    folder = Path(__file__).resolve().parent.parent / "tests" / "data" / "inspect"
    logs = [next(folder.glob(pattern)) for pattern in INSPECT_LOGS]
    title = "Quiz (imported from inspect_ai: two mock models, 8 samples × 2 epochs)"
    write(inspect_log.read(logs), out / "quiz-inspect", Options(title=title), "tests/data/inspect")


def make(out: Path, seeds: Path, seed: int) -> None:
    for name, maker, seed_name in (
        ("agent-dx", make_points, "000_4822e52dd1681ead.txt"),
        ("agent-dx-successor", make_points_successor, "000_4822e52dd1681ead.txt"),
        ("docs-quality", make_docs_quality, "000_4822e52dd1681ead.txt"),
        ("vibe-delivery", make_trials, "001_a89dc2f910ac40b2.txt"),
        ("je-validation", make_components, "003_8d1dd585b5526139.txt"),
        ("recsys-grounding", make_definitions, "004_3e2f1068dfea7cba.txt"),
        ("quiz-inspect", make_imported_inspect, ""),
    ):
        if (out / name).exists():
            print(f"{out / name} exists: kept (sealed inputs are immutable; remove it deliberately first)")
            continue
        maker(out, seeds / seed_name, seed)
        print(f"{out / name}: written and sealed")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--seeds", type=Path, default=Path("tests/seeds"), help="folder holding the seed contracts"
    )
    parser.add_argument("--out", type=Path, default=Path("runs"))
    parser.add_argument("--seed", type=int, default=20260917)
    args = parser.parse_args()
    make(args.out, args.seeds, args.seed)


if __name__ == "__main__":
    main()
