"""The wheel carries the templates and schemas: install it in a fresh venv and build outside the checkout.

The fresh venv gets the wheel alone (``--no-deps``); its dependencies are those installed here, on a
path its interpreter appends after its own site-packages (a plain path line: this venv's editable
install of the checkout is not loaded). Installing scipy and the rest again would cost about twenty
seconds and test pip; the README's install command resolves the same requirements.
"""

from __future__ import annotations

import site
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
    venv.create(env, with_pip=False)
    python = env / "bin" / "python"
    own = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
    )
    Path(own.stdout.strip(), "dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    pip = subprocess.run(
        [sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-deps", str(wheel)],
        capture_output=True,
        text=True,
    )
    assert pip.returncode == 0, pip.stderr
    where = subprocess.run(
        [python, "-c", "import generator; print(generator.__file__)"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert Path(where.stdout.strip()).is_relative_to(env), where.stdout + where.stderr
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
