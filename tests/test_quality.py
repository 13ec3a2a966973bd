"""Lint, strict types, and the layering rule: scoring never imports rendering or the CLI."""

from __future__ import annotations

import ast
import subprocess
import sys

import pytest

from tests.conftest import ROOT

SCORING = [
    "generator/families",
    "generator/stats.py",
    "generator/figures.py",
    "generator/report.py",
    "generator/score.py",
    "generator/inputs.py",
    "generator/seal.py",
    "generator/jsonio.py",
]


def test_ruff_is_clean() -> None:
    result = subprocess.run([sys.executable, "-m", "ruff", "check", "generator", "scripts", "tests"],
                            cwd=ROOT, capture_output=True, text=True)  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_is_clean() -> None:
    result = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("module", sorted(
    str(p.relative_to(ROOT)) for entry in SCORING for p in
    ((ROOT / entry).rglob("*.py") if (ROOT / entry).is_dir() else [ROOT / entry])
))  # fmt: skip
def test_scoring_modules_do_not_import_jinja_or_click(module: str) -> None:
    tree = ast.parse((ROOT / module).read_text())
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names}  # fmt: skip
    imported |= {
        (node.module or "").split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
    }
    assert not imported & {"jinja2", "click", "markdown_it", "markupsafe"}, module
