"""Hostile text in sealed inputs is displayed, never executed, in HTML and in Markdown."""

from __future__ import annotations

import json
from pathlib import Path

from generator.render.pages import md_cell
from tests.conftest import reseal, run_cli

HOSTILE = '<script>alert(1)</script>"><img src=x onerror=alert(1)> [x](javascript:alert(1)) | **b**'


def test_hostile_declaration_text_is_inert(corpus: Path, tmp_path: Path) -> None:
    bench = corpus / "agent-dx"
    decl = json.loads((bench / "benchmark.json").read_text())
    decl["title"] = HOSTILE
    decl["description"] = HOSTILE + "\n\n<iframe src=x></iframe> [click](javascript:alert(2))"
    decl["tasks"][0]["title"] = HOSTILE
    (bench / "benchmark.json").write_text(json.dumps(decl))
    run = bench / "run-subject-15bb-1"
    meta = json.loads((run / "run.json").read_text())
    meta["producer"] = HOSTILE
    (run / "run.json").write_text(json.dumps(meta))
    reseal(run)
    reseal(bench)
    out = tmp_path / "site"
    result = run_cli("build", "--runs", corpus, "--out", out, "--site-version", "h1")
    assert result.exit_code == 0, result.output
    for page in (out / "h1").rglob("*.html"):
        html = page.read_text()
        assert "<script" not in html.lower(), page
        assert "<img" not in html.lower() and "<iframe" not in html.lower(), page
        assert 'href="javascript:' not in html.lower(), page
    notes = (out / "h1" / "release-notes.md").read_text()
    assert "<script>" not in notes
    assert "\\<script\\>" in notes


def test_markdown_cell_escape_keeps_tables_intact() -> None:
    cell = md_cell("a | b\nc [x](javascript:y) <b>")
    assert "\n" not in cell
    assert "|" not in cell.replace("\\|", "")
    assert "<" not in cell.replace("\\<", "")
    assert "[" not in cell.replace("\\[", "")
