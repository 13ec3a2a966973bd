"""The command line by exit code and message."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from generator import __version__
from generator.inputs.seal import SEAL_NAME
from tests.conftest import corpus_counts, run_cli, snapshot


def test_version_and_help() -> None:
    assert run_cli("--version").output.strip() == f"benchsite, version {__version__}"
    help_text = run_cli("--help").output
    for command in ("build", "verify", "seal", "schema"):
        assert command in help_text
    for code in ("3  input refused", "4  invalid content", "5  version conflict"):
        assert code in help_text


COMMANDS = ("build", "compare", "schema", "seal", "verify")


@pytest.mark.parametrize("command", [(), *((name,) for name in COMMANDS)])
def test_dash_h_is_help_on_every_command(command: tuple[str, ...]) -> None:
    short, long = run_cli(*command, "-h"), run_cli(*command, "--help")
    assert short.exit_code == long.exit_code == 0
    assert short.output == long.output
    assert "-h, --help" in short.output


def _exit_codes(help_text: str) -> list[int]:
    listed = help_text.split("Exit codes:", 1)[1]
    return [int(line.split()[0]) for line in listed.splitlines() if line.strip()]


@pytest.mark.parametrize(
    ("command", "codes"),
    [
        ("build", [0, 2, 3, 4, 5]),
        ("compare", [0, 2, 3, 4, 13]),
        ("schema", [0, 2]),
        ("seal", [0, 2, 3]),
        ("verify", [0, 2, 3, 4, 5]),
        ("rubric explain", [0, 2, 3, 4]),
        ("rubric check", [0, 2, 3, 4]),
    ],
)
def test_each_command_lists_only_its_own_exit_codes(command: str, codes: list[int]) -> None:
    assert _exit_codes(run_cli(*command.split(), "--help").output) == codes


def test_the_group_lists_every_exit_code() -> None:
    assert _exit_codes(run_cli("--help").output) == [0, 2, 3, 4, 5, 13]


def test_python_dash_m_runs_the_same_cli() -> None:
    result = subprocess.run([sys.executable, "-m", "generator", "--version"], capture_output=True, text=True)
    assert result.returncode == 0
    assert result.stdout.strip() == f"benchsite, version {__version__}"


def test_verify_checks_everything_and_writes_nothing(corpus: Path) -> None:
    before = snapshot(corpus.parent)
    result = run_cli("verify", "--runs", corpus)
    assert result.exit_code == 0, result.output
    folders, benchmarks = corpus_counts(corpus)
    assert f"verified: {folders} sealed folders, {benchmarks} benchmarks" in result.output
    assert snapshot(corpus.parent) == before


def test_unknown_option_is_a_usage_error() -> None:
    assert run_cli("build", "--nope").exit_code == 2
    assert run_cli("build", "--runs", "/does/not/exist").exit_code == 2


def test_seal_writes_a_coreutils_seal_that_the_stock_tool_verifies(corpus: Path) -> None:
    run = corpus / "agent-dx" / "run-subject-15bb-1"
    fresh = corpus.parent / "fresh-run"
    shutil.copytree(run, fresh)
    (fresh / SEAL_NAME).unlink()
    (fresh / "sub").mkdir()
    (fresh / "sub" / "trace 1.json").write_text("{}")
    result = run_cli("seal", fresh)
    assert result.exit_code == 0, result.output
    lines = (fresh / SEAL_NAME).read_text().splitlines()
    assert [line.split("  ", 1)[1] for line in lines] == ["attempts.jsonl", "run.json", "sub/trace 1.json"]
    check = subprocess.run(["sha256sum", "-c", SEAL_NAME], cwd=fresh, capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr


def test_seal_refuses_to_change_an_existing_seal(corpus: Path) -> None:
    run = corpus / "agent-dx" / "run-subject-15bb-1"
    before = (run / SEAL_NAME).read_bytes()
    result = run_cli("seal", run)
    assert result.exit_code == 3
    assert "already exists" in result.output
    assert (run / SEAL_NAME).read_bytes() == before


def test_committed_cli_reference_matches_help() -> None:
    from generator.clidoc import cli_reference
    from tests.conftest import ROOT

    committed = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert committed == cli_reference(), "docs/cli.md drifted: python -m generator.clidoc > docs/cli.md"
