"""Lint, strict types, and the layering rule: each stage loads only what it may (scoring no rendering
or CLI library, the writer no renderer), checked in a fresh interpreter."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import ROOT

PRESENTATION = ("click", "jinja2", "markdown_it", "markupsafe")
"""The CLI's and the renderer's libraries."""

STAGES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # stage: (the modules imported together in a fresh interpreter, the modules none of them may load)
    "load": (
        (
            "generator.inputs.files",
            "generator.inputs.discover",
            "generator.inputs.jsonio",
            "generator.inputs.seal",
        ),
        (*PRESENTATION, "scipy", "generator.score.run", "generator.render.pages", "generator.publish.write"),
    ),
    "score": (
        (
            "generator.score.run",
            "generator.figures.stats",
            "generator.figures.ranking",
            "generator.figures.model",
            "generator.report.model",
        ),
        (
            *PRESENTATION,
            "generator.render.pages",
            "generator.families.rows",
            "generator.render.charts",
            "generator.render.mkdocs_export",
            "generator.publish.write",
        ),
    ),
    "render": (
        ("generator.render.pages", "generator.render.mkdocs_export"),
        ("click", "scipy", "generator.score.run", "generator.score.workers", "generator.publish.write"),
    ),
    "write": (
        ("generator.publish.write", "generator.publish.past"),
        (
            *PRESENTATION,
            "generator.render.pages",
            "generator.render.charts",
            "generator.render.mkdocs_export",
            "generator.score.run",
            "generator.score.workers",
        ),
    ),
}
"""Dependencies point one way (load → verify → score → render → write): each stage is checked from
outside, in a fresh interpreter's ``sys.modules``, never by reading its import lines (a module's
imports reach further than its own lines). ``score`` also imports every module of
``generator.families``."""

PROBE = """
import importlib, json, pkgutil, sys
modules, forbidden = json.loads(sys.argv[1])
for name in modules:
    importlib.import_module(name)
if "generator.score.run" in modules:
    import generator.families
    for found in pkgutil.walk_packages(generator.families.__path__, "generator.families."):
        if found.name.rpartition(".")[2] != "rows":  # a family's rows are render code: the renderer's
            importlib.import_module(found.name)
print(json.dumps(sorted(name for name in forbidden if name in sys.modules)))
"""


def loaded_of(modules: tuple[str, ...], forbidden: tuple[str, ...]) -> list[str]:
    """The ``forbidden`` modules that importing ``modules`` loads, in a fresh interpreter."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps([modules, forbidden])],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    result: list[str] = json.loads(done.stdout)
    return result


@pytest.mark.parametrize("stage", sorted(STAGES))
def test_each_stage_loads_only_what_it_may(stage: str) -> None:
    modules, forbidden = STAGES[stage]
    assert loaded_of(modules, forbidden) == [], f"{stage}: {', '.join(modules)}"


def test_the_stage_check_sees_an_import_made_through_another_module() -> None:
    assert loaded_of(("generator.cli",), ("click", "generator.errors")) == ["click", "generator.errors"]


def test_ruff_is_clean() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "generator", "scripts", "tests"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_leaves_every_file_as_it_is() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", "generator", "scripts", "tests"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_no_line_asks_the_formatter_to_look_away() -> None:
    marked = [
        f"{path.relative_to(ROOT)}:{number}"
        for folder in ("generator", "scripts", "tests")
        for path in sorted((ROOT / folder).rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if line.rstrip().endswith("# fmt" + ": skip") or "# fmt" + ": off" in line
    ]
    assert marked == []


@pytest.mark.slow  # a strict check of the whole package from no cache: about 20 s
def test_mypy_strict_is_clean() -> None:
    result = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
