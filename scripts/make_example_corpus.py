"""Write the example corpus in ``runs/``: a points benchmark under the seed-000 contract.

Deterministic: the same seed gives the same bytes. Usage (from the repository root):

    python scripts/make_example_corpus.py --seed-file ../shared/seeds/000_4822e52dd1681ead.txt

It refuses to touch an existing benchmark folder (sealed inputs are immutable): delete the
folder first when the corpus itself must change, and say so in the commit.
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
from generator.seal import write_seal

TASKS = [
    {"id": "T01-add-endpoint", "title": "Add a paginated list endpoint",
     "allowlist": ["src/api/", "tests/api/", "docs/api.md"]},
    {"id": "T02-fix-client-retry", "title": "Fix retry handling in the client SDK",
     "allowlist": ["src/client/", "tests/client/"]},
    {"id": "T03-cli-flag", "title": "Add a --dry-run flag to the CLI",
     "allowlist": ["src/cli/", "tests/cli/", "docs/cli.md"]},
    {"id": "T04-contract-field", "title": "Add a nullable field to the public contract",
     "allowlist": ["schema/*.json", "src/api/", "src/client/", "docs/"]},
]  # fmt: skip
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
        "tests": {"relevant_tests_changed": rng.random() < skill, "passed_before": rng.random() < 0.8,
                  "passed_after": rng.random() < skill + 0.1},
        "trajectory": {"explored": rng.random() < skill + 0.2, "recovered_or_no_error": rng.random() < 0.7,
                       "evidence_backed_termination": rng.random() < skill},
        "tampering_detected": False,
        "prohibited_change_detected": False,
    }  # fmt: skip


def special_cases(subject: str, task_ids: list[str]) -> dict[int, dict[str, Any]]:
    """Deliberate edge cases, placed at fixed attempt positions per subject."""
    cases: dict[str, dict[int, dict[str, Any]]] = {
        "subject-a3f1": {2: {"trajectory": None}, 5: {"producer_outcome": "Ready"},
                         9: {"tests": None, "trajectory": None}},
        "subject-7c2e": {1: {"invalid": {"reason": "host_infrastructure_failure",
                                         "detail": "runner lost its volume before the agent started"},
                             "agent_started": False},
                         4: {"regression": []}, 7: {"tampering_detected": True},
                         10: {"producer_outcome": "NeedsReview"}},
        "subject-d940": {0: {"invalid": {"reason": "pre_agent_evaluator_failure",
                                         "detail": "evaluator image failed to pull"},
                             "agent_started": False},
                         3: {"cross_surface": []}, 6: {"prohibited_change_detected": True},
                         8: {"changed_paths": None}, 11: {"tampering_detected": None}},
        "subject-15bb": {2: {"invalid": {"reason": "storage_exhaustion",
                                         "detail": "disk quota hit during the agent run"}},
                         5: {"functional": []}, 9: {"regression": None, "producer_outcome": "NotReady"}},
    }  # fmt: skip
    return cases[subject]


def write_json(path: Path, value: Any) -> None:
    path.write_text(json.dumps(value, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def make(out: Path, seed_file: Path, seed: int) -> None:
    bench = out / "agent-dx"
    if bench.exists():
        raise SystemExit(f"{bench} exists: sealed inputs are immutable; remove it deliberately first")
    rng = random.Random(seed)
    rubric = seed_file.read_bytes()
    bench.mkdir(parents=True)
    (bench / "rubric.json").write_bytes(rubric)
    write_json(bench / "benchmark.json", {
        "schema_version": 1, "family": "points",
        "title": "Agent DX score (historical rubric)",
        "description": "Four coding-agent tasks across API, client SDK, CLI and contract surfaces, "
                       "scored under the frozen `agent-dx-score-contract`. Example corpus.",
        "purpose": "historical",
        "rubric": {"file": "rubric.json", "sha256": hashlib.sha256(rubric).hexdigest()},
        "tasks": TASKS,
    })  # fmt: skip
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed-file", type=Path, required=True, help="the seed-000 contract")
    parser.add_argument("--out", type=Path, default=Path("runs"))
    parser.add_argument("--seed", type=int, default=20260917)
    args = parser.parse_args()
    make(args.out, args.seed_file, args.seed)


if __name__ == "__main__":
    main()
