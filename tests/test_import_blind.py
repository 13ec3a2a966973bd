"""A blind import is blind (issue 44): for each producer, two files the real tool wrote imported
with ``--blind``, then built: no model's name (nor the producer's file names that hold it) is in any
published file or path of the blind version; the reveal added afterwards builds and shows them."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from generator.importers.write import blind_labels
from generator.inputs.seal import write_seal
from tests.conftest import ROOT, run_cli

DATA = ROOT / "tests" / "data"
MODEL_LOG = next((DATA / "inspect").glob("*_Ex8pV7vgC9E4uTbkdUAyMy.json"))  # mockllm/model
OTHER_LOG = next((DATA / "inspect").glob("*_cAF8BwqaxXqrqido84MRvj.json"))  # mockllm/other
EEE = DATA / "eee" / "two-models"
BENCH = "quiz"


def inspect_logs(folder: Path) -> list[Path]:
    """The two logs under names that hold their models, as producers name files."""
    named = [folder / "quiz_mockllm-model_log.json", folder / "quiz_mockllm-other_log.json"]
    for source, target in zip((MODEL_LOG, OTHER_LOG), named, strict=True):
        shutil.copyfile(source, target)
    return named


def blind_import(tmp_path: Path, producer: str, *args: str | Path) -> Path:
    """``args`` imported blind into ``runs/quiz`` and built as version v1: the site folder."""
    runs = tmp_path / "runs"
    runs.mkdir()
    key = tmp_path / "key.json"
    result = run_cli("import", producer, *args, "--blind", "--key", key, "--into", runs / BENCH)
    assert result.exit_code == 0, result.output
    site = tmp_path / "site"
    result = run_cli("build", "--runs", runs, "--out", site, "--site-version", "v1", "--quiet")
    assert result.exit_code == 0, result.output
    return site


def shown(folder: Path, texts: list[str]) -> list[tuple[str, str]]:
    """(published path, text) for each text any file's path or bytes hold, as written or escaped
    for JSON, HTML or a URL, ignoring case."""
    forms = {t.lower() for text in texts for t in (text, json.dumps(text)[1:-1], text.replace("/", "%2F"))}
    forms |= {t.replace("/", "\\/") for t in forms}
    found = []
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        haystack = rel.lower() + (
            "\n" + path.read_bytes().decode("utf-8", "replace").lower() if path.is_file() else ""
        )
        found += [(rel, form) for form in sorted(forms) if form in haystack]
    return found


def reveal(tmp_path: Path) -> Path:
    """The reveal of the key's labels added to the inputs (docs/trials.md), built as v2: the site."""
    site, runs = tmp_path / "site", tmp_path / "runs"
    scores = (site / "v1" / "data" / "scores" / f"{BENCH}.json").read_bytes()
    providers = json.loads((tmp_path / "key.json").read_text())["providers"]
    folder = runs / BENCH / "reveal"
    folder.mkdir()
    record = {
        "schema_version": 1,
        "scores_version": "v1",
        "scores_sha256": hashlib.sha256(scores).hexdigest(),
        "providers": providers,
    }
    (folder / "reveal.json").write_text(json.dumps(record, indent=2) + "\n")
    write_seal(folder)
    result = run_cli("build", "--runs", runs, "--out", site, "--site-version", "v2", "--quiet")
    assert result.exit_code == 0, result.output
    return site / "v2"


def producer_files(version: Path) -> list[str]:
    """The sha256 of every producer file a version publishes (as ``files/<sha256>.<ext>``)."""
    return sorted(p.name.partition(".")[0] for p in version.glob("b/*/runs/*/files/*"))


@pytest.mark.parametrize(
    ("producer", "names", "args"),
    [
        pytest.param(
            "inspect",
            ["mockllm/model", "mockllm/other", "mockllm"],
            lambda tmp: inspect_logs(tmp),
            id="inspect: mockllm/model, a name holding the word model",
        ),
        pytest.param(
            "lm-eval",
            ["dummy seed=1", "dummy seed=2", "dummy"],
            lambda tmp: [DATA / "lm-eval" / "output"],
            id="lm-eval: dummy seed=1 and seed=2",
        ),
        pytest.param(
            "eee",
            ["example-org/model-a", "example-org/model-b", "example-org", "model-a", "model-b"],
            lambda tmp: [
                *(EEE / "model-a.json", "--instances", EEE / "model-a_samples.jsonl"),
                *(EEE / "model-b.json", "--instances", EEE / "model-b_samples.jsonl"),
            ],
            id="eee: example-org/model-a in model-a.json",
        ),
    ],
)
def test_a_blind_import_names_no_model_until_its_reveal(
    tmp_path: Path, producer: str, names: list[str], args: Callable[[Path], Sequence[str | Path]]
) -> None:
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    site = blind_import(tmp_path, producer, *args(inputs))
    assert shown(site / "v1", names) == []
    assert producer_files(site / "v1") == []  # withheld until the reveal
    revealed = reveal(tmp_path)
    pages = "".join(p.read_text() for p in revealed.rglob("*.html"))
    assert all(name in pages for name in names[:2])
    metas = [json.loads(run.read_text()) for run in (tmp_path / "runs" / BENCH).glob("run-*/run.json")]
    pinned = {(run, pin["sha256"]) for run, meta in enumerate(metas) for pin in meta["sources"]}
    assert pinned and producer_files(revealed) == sorted(sha256 for _, sha256 in pinned)


def test_a_blind_import_whose_folder_names_a_model_is_refused(tmp_path: Path) -> None:
    """The benchmark's id is its folder's name: a blind import there would publish the model's name."""
    key = tmp_path / "key.json"
    into = tmp_path / "mockllm-quiz"
    result = run_cli("import", "inspect", MODEL_LOG, OTHER_LOG, "--blind", "--key", key, "--into", into)
    assert result.exit_code == 4, result.output
    assert f"{into}: mockllm-quiz: a blind import would show the model name 'mockllm'" in result.output
    assert "Traceback" not in result.output
    assert not into.exists() and not key.exists()


def test_a_blind_title_that_names_a_model_is_refused(tmp_path: Path) -> None:
    key = tmp_path / "key.json"
    into = tmp_path / "quiz"
    args = (
        "import",
        "inspect",
        MODEL_LOG,
        "--blind",
        "--key",
        key,
        "--into",
        into,
        "--title",
        "Mockllm quiz",
    )
    result = run_cli(*args)
    assert result.exit_code == 4, result.output
    assert f"{into}: quiz/benchmark.json: a blind import would show the model name 'mockllm'" in result.output
    assert not into.exists() and not key.exists()


@pytest.mark.parametrize(
    "subjects",
    [("model", "other"), ("m-1", "acme/m-2"), ("1", "2", "3"), ("m", "m-"), ("org/model-1", "model-2")],
)
def test_blind_labels_never_hold_a_subjects_name(subjects: tuple[str, ...]) -> None:
    labels = blind_labels(subjects)
    assert sorted(labels) == sorted(subjects)
    assert len(set(labels.values())) == len(subjects)
    whole = [s for s in subjects if s not in "m-"]  # a name inside every label's prefix shows anyway
    for label in labels.values():
        assert not any(name.casefold() in label for name in whole), label
        assert all(len(word) < 2 for word in label.replace("-", " ").split() if word.isalpha())


REAL_NAMES = [
    ("meta-llama/Llama-3.1-8B-Instruct", "openai/gpt-4o-mini"),
    ("Qwen/Qwen2.5-7B-Instruct", "qwen/qwen-plus"),
    ("microsoft/phi-4-reasoning", "google/gemini-2.0-flash"),
]


@pytest.mark.parametrize("models", REAL_NAMES, ids=["-".join(m) for m in REAL_NAMES])
def test_real_model_names_are_imported_blind_and_revealed(tmp_path: Path, models: tuple[str, str]) -> None:
    """Words real model names are made of ("meta", "mini", "plus", "reasoning") stand in the site's
    own text (``<meta>``, "Benjamini", the reasoning_validity criterion): they must not block a reveal."""
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    logs = []
    for source, model in zip((MODEL_LOG, OTHER_LOG), models, strict=True):
        log = json.loads(source.read_bytes())
        log["eval"]["model"] = model
        target = inputs / source.name
        target.write_text(json.dumps(log), encoding="utf-8")
        logs.append(target)
    site = blind_import(tmp_path, "inspect", *logs)
    assert shown(site / "v1", list(models)) == []
    pages = "".join(p.read_text() for p in reveal(tmp_path).rglob("*.html"))
    assert all(model in pages for model in models)
