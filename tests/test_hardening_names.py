"""Names as read, wherever a producer's text or a site option reaches a page (issue 44, item 5).

A model name, producer version or task name holding a character a reader does not see is refused at
import with the producer file that holds it (not imported for the build to refuse later), and by the
build in a hand-written run; a site name that reads as blank, holds private-use or unassigned code
points or stacks dozens of combining marks is refused; the ``--key`` file is private to its owner;
``--into`` inside an output site or a published version is refused.
"""

from __future__ import annotations

import json
import shutil
import stat
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import corpus_of, edit_json, reseal, run_cli

DATA = Path(__file__).parent / "data" / "inspect"
MODEL_JSON = DATA / "2026-12-06T05-19-06-00-00_quiz_Ex8pV7vgC9E4uTbkdUAyMy.json"
RLO, ZWSP = "\u202e", "\u200b"


def _log_copy(tmp_path: Path, change: Any) -> Path:
    log = json.loads(MODEL_JSON.read_bytes())
    change(log)
    target = tmp_path / "logs" / MODEL_JSON.name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(log), encoding="utf-8")
    return target


def _set_model(log: dict[str, Any]) -> None:
    log["eval"]["model"] = f"mockllm/{RLO}ledom"


def _set_version(log: dict[str, Any]) -> None:
    log["eval"]["packages"]["inspect_ai"] = f"0.3{ZWSP}.285"


def _set_task(log: dict[str, Any]) -> None:
    log["eval"]["task"] = f"quiz{RLO}zing"


@pytest.mark.parametrize(
    ("change", "place", "code_point"),
    [(_set_model, "model", "U+202E"), (_set_version, "producer", "U+200B"), (_set_task, "task", "U+202E")],
    ids=["model-name", "package-version", "task-name"],
)
def test_hidden_characters_in_producer_text_are_refused_at_import(
    tmp_path: Path, change: Any, place: str, code_point: str
) -> None:
    log = _log_copy(tmp_path, change)
    into = tmp_path / "runs" / "quiz"
    result = run_cli("import", "inspect", log, "--into", into, "--title", "Quiz")
    assert result.exit_code == 4, result.output
    assert f"{log.name}: {place}: " in result.output and code_point in result.output, result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "runs").exists()  # nothing written, not even the parents


def test_a_hand_written_run_naming_its_subject_with_a_bidi_control_is_refused_by_the_build(
    tmp_path: Path,
) -> None:
    log = _log_copy(tmp_path, lambda log: None)
    into = tmp_path / "runs" / "quiz"
    assert run_cli("import", "inspect", log, "--into", into).exit_code == 0
    (run,) = [p for p in into.iterdir() if p.is_dir()]

    def rename(value: dict[str, Any]) -> None:
        value["subject"] = f"mockllm/{RLO}ledom"

    edit_json(run / "run.json", rename)
    reseal(run)
    reseal(into)
    result = run_cli("build", "--runs", tmp_path / "runs", "--out", tmp_path / "site", "--no-cache")
    assert result.exit_code == 4, result.output
    assert "run.json: $.subject: " in result.output and "U+202E" in result.output


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("\u2800\u2800\u2800", "reads as blank"),
        ("Results \ue000", "U+E000, a private-use code point"),
        ("Results \U000f0000", "U+F0000, a private-use code point"),
        ("Results \u0378", "U+0378, an unassigned code point"),
        ("Z" + "\u0301" * 48, "stacks more than 8 combining marks"),
    ],
    ids=["braille-blanks", "private-use", "supplementary-private-use", "unassigned", "stacked-marks"],
)
def test_a_site_name_a_reader_cannot_read_is_refused(tmp_path: Path, name: str, said: str) -> None:
    runs = corpus_of(tmp_path / "runs", "agent-dx")
    result = run_cli("build", "--runs", runs, "--out", tmp_path / "site", "--site-name", name)
    assert result.exit_code == 2, result.output
    assert f"--site-name: {said}" in result.output or f"--site-name: holds {said}" in result.output
    assert not (tmp_path / "site").exists()


@pytest.mark.parametrize("name", ["ผลการทดสอบ ที่ดี", "Kết quả đánh giá", "Ergebnisse ǘ"])
def test_site_names_in_scripts_that_stack_a_few_marks_are_accepted(tmp_path: Path, name: str) -> None:
    from generator.inputs.readable import unreadable

    assert unreadable(name) is None


def test_the_key_file_is_readable_by_its_owner_only(tmp_path: Path) -> None:
    key = tmp_path / "key.json"
    result = run_cli("import", "inspect", MODEL_JSON, "--into", tmp_path / "quiz", "--blind", "--key", key)
    assert result.exit_code == 0, result.output
    assert stat.S_IMODE(key.stat().st_mode) == 0o600


@pytest.mark.parametrize("where", ["site", "version"])
def test_an_import_into_an_output_site_is_refused(tmp_path: Path, where: str) -> None:
    runs = corpus_of(tmp_path / "runs", "agent-dx")
    site = tmp_path / "site"
    assert run_cli("build", "--runs", runs, "--out", site, "--site-version", "v1").exit_code == 0
    parent = site if where == "site" else site / "v1" / "b"
    into = parent / "evil"
    result = run_cli("import", "inspect", MODEL_JSON, "--into", into)
    assert result.exit_code == 2, result.output
    assert "inside the published site" in result.output
    assert not into.exists()
    shutil.rmtree(site)
