"""The example site, byte for byte: a build of runs/ equals the committed golden site.

Any change to a page, a figure or a JSON file shows up here as a failing test and, once intended, as
a reviewable diff of tests/golden/site after ``scripts/refresh-golden``. Only the generator digest
in data/build.json (a hash of the generator's own source) is masked: it changes with every commit.
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path

from tests.conftest import CORPUS, ROOT, run_cli, snapshot

GOLDEN = ROOT / "tests" / "golden" / "site"
REFRESH = "scripts/refresh-golden"


def _masked(path: str, data: bytes) -> bytes:
    if not path.endswith("data/build.json"):
        return data
    record = json.loads(data)
    record["generator_digest"] = "(masked)"
    return json.dumps(record, sort_keys=True).encode()


def _diff(path: str, want: bytes, got: bytes) -> str:
    try:
        lines = difflib.unified_diff(
            want.decode().splitlines(),
            got.decode().splitlines(),
            "golden/" + path,
            "built/" + path,
            lineterm="",
            n=1,
        )
        return "\n".join(list(lines)[:20])
    except UnicodeDecodeError:
        return f"{path}: binary content differs"


def test_the_example_site_equals_the_golden_site(tmp_path: Path) -> None:
    out = tmp_path / "site"
    result = run_cli("build", "--runs", CORPUS, "--out", out, "--no-cache", "--quiet")
    assert result.exit_code == 0, result.output
    built = {p: _masked(p, d) for p, d in snapshot(out).items()}
    golden = {p: _masked(p, d) for p, d in snapshot(GOLDEN).items()}
    missing, extra = sorted(golden.keys() - built.keys()), sorted(built.keys() - golden.keys())
    changed = sorted(p for p in golden.keys() & built.keys() if golden[p] != built[p])
    report = [f"{len(missing)} missing, {len(extra)} new, {len(changed)} changed; intended? run {REFRESH}"]
    report += [f"missing: {p}" for p in missing[:10]] + [f"new: {p}" for p in extra[:10]]
    report += [_diff(p, golden[p], built[p]) for p in changed[:5]]
    assert not (missing or extra or changed), "\n".join(report)
