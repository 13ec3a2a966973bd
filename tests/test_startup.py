"""Start-up: ``--version`` and a no-op rebuild import no heavy library (each command imports the
stages it runs), and the no-op re-renders the site-level files only when its signed note of them
does not hold. Checked from outside, in a fresh interpreter's ``sys.modules``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import CORPUS, run_cli

HEAVY = ("pydantic", "jinja2", "scipy", "markdown_it", "yaml", "multiprocessing")
"""The libraries only a build that scores or renders needs (multiprocessing: 15 ms, for its workers)."""
PROBE = f"""
import json, runpy, sys
sys.argv = ["benchsite", *json.loads(sys.argv[1])]
try:
    runpy.run_module("generator", run_name="__main__")
except SystemExit as exc:
    code = exc.code
else:
    code = 0
print(json.dumps({{"code": code, "loaded": sorted(m for m in {HEAVY!r} if m in sys.modules)}}))
"""


def loaded(*args: str | Path) -> tuple[int, list[str]]:
    """The exit code of ``benchsite ARGS`` and the heavy modules it imported, in a fresh process."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps([str(a) for a in args])],
        capture_output=True,
        text=True,
        check=False,
    )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    return result["code"], result["loaded"]


def test_version_and_help_import_no_heavy_library() -> None:
    assert loaded("--version") == (0, [])
    assert loaded("--help") == (0, [])
    assert loaded("build", "--help") == (0, [])


@pytest.mark.slow
def test_a_no_op_rebuild_imports_no_heavy_library_and_repairs_a_changed_index(tmp_path: Path) -> None:
    site = tmp_path / "site"
    assert run_cli("build", "--quiet", "--runs", CORPUS, "--out", site).exit_code == 0
    before = (site / "index.html").read_bytes()
    assert loaded("build", "--quiet", "--runs", CORPUS, "--out", site) == (0, [])
    assert (site / "index.html").read_bytes() == before
    # a site-level file changed by hand: the signed note no longer holds, so it is rendered again
    (site / "index.html").write_bytes(before.replace(b"<h1", b"<h1 data-tampered", 1))
    code, heavy = loaded("build", "--quiet", "--runs", CORPUS, "--out", site)
    assert code == 0 and "jinja2" in heavy
    assert (site / "index.html").read_bytes() == before
    # without a run cache there is no note: the no-op renders them, and they are the same bytes
    assert run_cli("build", "--quiet", "--no-cache", "--runs", CORPUS, "--out", site).exit_code == 0
    assert (site / "index.html").read_bytes() == before
