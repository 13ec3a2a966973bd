"""``benchsite import`` end to end, on files the real producers wrote (``tests/data``): three
commands publish a leaderboard whose figures equal a count made directly from the producer's files,
with a paired test for two models on the same samples and the original files sealed and linked;
every bad input is refused with its exit code and nothing written."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_cli, snapshot

DATA = ROOT / "tests" / "data"
INSPECT = DATA / "inspect"
MODEL_LOG = next(INSPECT.glob("*_Ex8pV7vgC9E4uTbkdUAyMy.json"))
OTHER_LOG = next(INSPECT.glob("*_cAF8BwqaxXqrqido84MRvj.json"))
MODEL_EVAL = next(INSPECT.glob("*_b4t4ad92h9H3E7CAXGiJ5v.eval"))
LM_EVAL = DATA / "lm-eval" / "output"
EEE = DATA / "eee" / "two-models"


def _build(runs: Path, out: Path) -> dict[str, object]:
    built = run_cli("build", "--runs", runs, "--out", out, "--site-version", "v1", "--quiet")
    assert built.exit_code == 0, built.output
    site: dict[str, object] = json.loads((out / "v1" / "data" / "site.json").read_text())
    return site


def _board(site: dict[str, object], bench: str) -> dict[str, dict[str, int]]:
    (report,) = [b for b in site["benchmarks"] if b["id"] == bench]  # type: ignore[attr-defined,index]
    rows = report["section"]["scores"]["leaderboard"]
    return {row["provider"]: row["metrics"]["success"] for row in rows}


def _inspect_counts(log: Path) -> tuple[int, int, dict[str, int]]:
    """(correct samples, planned trials, per sample id its correct epochs), read from the log itself."""
    data = json.loads(log.read_text())
    planned = len(data["eval"]["dataset"]["sample_ids"]) * data["eval"]["config"]["epochs"]
    per_sample: dict[str, int] = {str(s): 0 for s in data["eval"]["dataset"]["sample_ids"]}
    for sample in data["samples"]:
        value = (sample.get("scores") or {}).get("includes", {}).get("value")
        if not sample.get("error") and value == "C":
            per_sample[str(sample["id"])] += 1
    return sum(per_sample.values()), planned, per_sample


def test_inspect_logs_publish_in_three_commands(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    made = run_cli("import", "inspect", MODEL_LOG, OTHER_LOG, "--into", runs / "quiz")
    assert made.exit_code == 0, made.output
    assert "2 runs of 2 models, 32 planned trials" in made.output
    site = _build(runs, tmp_path / "site")
    board = _board(site, "quiz")
    for log, label in ((MODEL_LOG, "mockllm-model"), (OTHER_LOG, "mockllm-other")):
        correct, planned, _ = _inspect_counts(log)
        assert (board[label]["numerator"], board[label]["denominator"]) == (correct, planned)
    # the two models on the same samples: wins and losses counted from the logs directly
    a, b = _inspect_counts(MODEL_LOG)[2], _inspect_counts(OTHER_LOG)[2]
    wins = sum(a[s] > b[s] for s in a)
    losses = sum(a[s] < b[s] for s in a)
    (report,) = [r for r in site["benchmarks"] if r["id"] == "quiz"]  # type: ignore[attr-defined,index]
    (pair,) = report["section"]["paired"]
    assert pair["first"] == "mockllm-model"
    assert (pair["wins"], pair["losses"], pair["prompts"]) == (wins, losses, 8)
    # the original log, sealed in its run folder, published byte for byte under a name the site
    # chooses, and linked from its run page for download under its own name
    run = tmp_path / "site" / "v1" / "b" / "quiz" / "runs"
    sha = hashlib.sha256(MODEL_LOG.read_bytes()).hexdigest()
    assert (run / "run-mockllm-model" / "files" / f"{sha}.json").read_bytes() == MODEL_LOG.read_bytes()
    page = (run / "run-mockllm-model.html").read_text()
    assert f'href="run-mockllm-model/files/{sha}.json" download="{MODEL_LOG.name}"' in page
    assert "Ex8pV7vgC9E4uTbkdUAyMy.json</a>" in page.replace("<wbr>", "")
    # inspect's own accuracy beside benchsite's count, and where they differ, disclosed with both
    assert "0.625" in page
    disagreements = report["disclosures"]["disagreements"]
    assert [(d["run"], d["producer"].split(" ")[0], d["recomputed"]) for d in disagreements] == [
        ("run-mockllm-model", "0.625", "9/16 planned trials passed")
    ]


def test_the_zipped_log_reads_as_the_json_one(tmp_path: Path) -> None:
    for name, log in (("from-json", MODEL_LOG), ("from-eval", MODEL_EVAL)):
        assert run_cli("import", "inspect", log, "--into", tmp_path / name).exit_code == 0
    lines = {
        name: (tmp_path / name / "run-mockllm-model" / "results.jsonl").read_text().splitlines()
        for name in ("from-json", "from-eval")
    }

    # the same samples, states and failure codes; only the timings of the two runs differ
    def states(rows: list[str]) -> list[tuple[str, str, object, object]]:
        parsed = [json.loads(row) for row in rows]
        return [(r["trial_id"], r["terminal"], r["checks"], r["failure_code"]) for r in parsed]

    assert states(lines["from-json"]) == states(lines["from-eval"])


def test_the_same_log_imported_twice_gives_the_same_bytes(tmp_path: Path) -> None:
    for name in ("one", "two"):
        assert run_cli("import", "inspect", MODEL_EVAL, OTHER_LOG, "--into", tmp_path / name).exit_code == 0
    assert snapshot(tmp_path / "one") == snapshot(tmp_path / "two")


def test_lm_eval_output_publishes_with_a_direct_count(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    made = run_cli("import", "lm-eval", LM_EVAL, "--into", runs / "mc")
    assert made.exit_code == 0, made.output
    board = _board(_build(runs, tmp_path / "site"), "mc")
    for samples in LM_EVAL.glob("*/samples_*.jsonl"):
        rows = [json.loads(line) for line in samples.read_text().splitlines()]
        seed = json.loads(next(samples.parent.glob("results_*.json")).read_text())["config"]["random_seed"]
        # two runs of one model: each label suffixed with the start of sha256 of what tells it apart
        suffix = hashlib.sha256(f"seed={seed}".encode()).hexdigest()[:6]
        (label,) = [label for label in board if label.endswith(f"-{suffix}")]
        assert board[label]["numerator"] == sum(row["acc"] == 1.0 for row in rows)
        assert board[label]["denominator"] == len(rows) == 10


def test_every_eval_ever_records_publish_with_a_direct_count(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    made = run_cli(
        "import",
        "eee",
        EEE / "model-a.json",
        EEE / "model-b.json",
        "--instances",
        EEE / "model-a_samples.jsonl",
        "--instances",
        EEE / "model-b_samples.jsonl",
        "--into",
        runs / "arith",
    )
    assert made.exit_code == 0, made.output
    site = _build(runs, tmp_path / "site")
    board = _board(site, "arith")
    for model in ("model-a", "model-b"):
        rows = [json.loads(line) for line in (EEE / f"{model}_samples.jsonl").read_text().splitlines()]
        correct = sum(r["evaluation"]["is_correct"] is True and r.get("error") is None for r in rows)
        (label,) = [label for label in board if label.endswith(model)]
        assert board[label]["numerator"] == correct
    (report,) = [r for r in site["benchmarks"] if r["id"] == "arith"]  # type: ignore[attr-defined,index]
    assert len(report["section"]["paired"]) == 1


@pytest.mark.parametrize(
    ("args", "code", "says"),
    [
        (("inspect", MODEL_LOG, "--blind"), 2, "--blind needs --key FILE"),
        (("inspect", MODEL_LOG, "--threshold", "abc"), 2, "'abc' is not a number"),
        (("eee", EEE / "model-a.json"), 4, "pass it with --instances model-a_samples.jsonl"),
        (("eee", DATA / "eee" / "aggregate-only.json"), 4, "is an aggregate-only record"),
        (("inspect", next(INSPECT.glob("started-*.eval"))), 4, "pass --allow-unfinished"),
    ],
)
def test_refusals_write_nothing(tmp_path: Path, args: tuple[object, ...], code: int, says: str) -> None:
    result = run_cli("import", *map(str, args), "--into", tmp_path / "new")
    assert result.exit_code == code, result.output
    assert says in result.output
    assert list(tmp_path.iterdir()) == []


def test_a_truncated_log_is_refused_with_its_file_and_place(tmp_path: Path) -> None:
    cut = tmp_path / "cut.eval"
    cut.write_bytes(MODEL_EVAL.read_bytes()[:5000])
    result = run_cli("import", "inspect", cut, "--into", tmp_path / "new")
    assert result.exit_code == 4, result.output
    assert f"{cut}: " in result.output
    assert not (tmp_path / "new").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cut.eval"]


def test_an_existing_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "quiz").mkdir()
    result = run_cli("import", "inspect", MODEL_LOG, "--into", tmp_path / "quiz")
    assert result.exit_code == 2
    assert "already exists" in result.output
    assert list((tmp_path / "quiz").iterdir()) == []


def test_blind_import_writes_the_labels_to_the_key_only(tmp_path: Path) -> None:
    key = tmp_path / "labels.json"
    result = run_cli(
        "import", "inspect", MODEL_LOG, OTHER_LOG, "--blind", "--key", key, "--into", tmp_path / "quiz"
    )
    assert result.exit_code == 0, result.output
    labels = json.loads(key.read_text())["providers"]
    assert sorted(labels.values()) == ["mockllm/model", "mockllm/other"]
    plan = (tmp_path / "quiz" / "trial-plan.json").read_text()
    assert "mockllm" not in plan
    assert {
        json.loads((r / "run.json").read_text()).get("subject") for r in (tmp_path / "quiz").glob("run-*")
    } == {None}
