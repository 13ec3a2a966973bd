"""The wheel carries the templates and schemas: install it in a fresh venv and build outside the checkout."""

from __future__ import annotations

import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from tests.conftest import CORPUS, ROOT

pytestmark = pytest.mark.slow  # builds a wheel, makes a venv, installs it and builds a site


def test_wheel_installs_and_builds_outside_the_checkout(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(dist)],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    (wheel,) = dist.glob("benchsite-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "generator/templates/base.html" in names
    assert "generator/templates/points/leaderboard.html" in names
    assert "generator/schemas/report.schema.json" in names
    env = tmp_path / "venv"
    venv.create(env, with_pip=True)
    pip = subprocess.run([env / "bin" / "pip", "install", "-q", str(wheel)], capture_output=True, text=True)
    assert pip.returncode == 0, pip.stderr
    work = tmp_path / "elsewhere"
    work.mkdir()
    result = subprocess.run(
        [env / "bin" / "benchsite", "build", "--runs", str(CORPUS), "--out", "site", "--site-version", "w1"],
        cwd=work,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert (work / "site" / "w1" / "b" / "agent-dx" / "index.html").is_file()
    assert (work / "site" / "index.html").is_file()
