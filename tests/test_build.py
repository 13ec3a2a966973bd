"""The whole pipeline: determinism, immutable versions, atomic publishing, the version index."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from generator.inputs.discover import BenchmarkLayout
from generator.inputs.seal import write_seal
from generator.score import run as score
from tests.conftest import CORPUS, corpus_of, run_cli, snapshot


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """A writable copy of the corpus's ``agent-dx`` benchmark alone: what these cases change or
    check is the pipeline, not a family (the whole corpus is built by the determinism test below
    and by tests/test_golden.py)."""
    return corpus_of(tmp_path / "runs", "agent-dx")


def build(runs: Path, out: Path, *extra: str) -> tuple[int, str]:
    result = run_cli("build", "--runs", runs, "--out", out, *extra)
    assert "Traceback" not in result.output
    return result.exit_code, result.output


def test_two_builds_of_the_same_inputs_are_byte_identical(tmp_path: Path) -> None:
    assert build(CORPUS, tmp_path / "a")[0] == 0
    assert build(CORPUS, tmp_path / "b")[0] == 0
    a, b = snapshot(tmp_path / "a"), snapshot(tmp_path / "b")
    a.pop(".benchsite.lock", None), b.pop(".benchsite.lock", None)
    assert a == b
    assert any(path.endswith("release-notes.md") for path in a)


def test_a_blind_rebuild_scores_again_only_the_benchmarks_with_a_reveal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The blind version takes every other benchmark from the revealed build (the same bytes); the
    golden site holds that both versions are still what a full rebuild of each made."""
    scored: list[tuple[str, bool]] = []
    real = score.score_benchmark

    def counted(root: Path, layout: BenchmarkLayout, *args: Any, **kwargs: Any) -> score.BenchmarkScore:
        scored.append((layout.id, args[1] if len(args) > 1 else kwargs.get("with_reveals", True)))
        return real(root, layout, *args, **kwargs)

    monkeypatch.setattr(score, "score_benchmark", counted)
    assert build(CORPUS, tmp_path / "site")[0] == 0
    revealed = [bench for bench, with_reveals in scored if with_reveals]
    assert sorted(revealed) == sorted(p.name for p in CORPUS.iterdir() if p.is_dir())
    assert [bench for bench, with_reveals in scored if not with_reveals] == ["vibe-delivery"]
    assert len(json.loads((tmp_path / "site" / "versions.json").read_text())["versions"]) == 2


def test_default_version_is_named_by_the_inputs_digest(corpus: Path, tmp_path: Path) -> None:
    assert build(corpus, tmp_path / "site")[0] == 0
    version = json.loads((tmp_path / "site" / "versions.json").read_text())["versions"][-1]
    record = json.loads((tmp_path / "site" / version / "data" / "build.json").read_text())
    assert version == "sha-" + record["inputs_digest"][:12]


def test_rebuilding_a_version_from_the_same_inputs_is_a_verified_no_op(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    assert build(corpus, out, "--site-version", "v1")[0] == 0
    before = snapshot(out)
    code, output = build(corpus, out, "--site-version", "v1")
    assert code == 0
    assert "unchanged" in output
    assert snapshot(out) == before


def _change_inputs(corpus: Path) -> None:
    """A new sealed run: different inputs, still valid."""
    source = corpus / "agent-dx" / "run-subject-15bb-1"
    target = corpus / "agent-dx" / "run-subject-15bb-2"
    target.mkdir()
    for name in ("run.json", "attempts.jsonl"):
        (target / name).write_bytes((source / name).read_bytes())
    write_seal(target)


def test_rebuilding_a_version_from_different_inputs_is_refused(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    assert build(corpus, out, "--site-version", "v1")[0] == 0
    before = snapshot(out)
    _change_inputs(corpus)
    code, output = build(corpus, out, "--site-version", "v1")
    assert code == 5
    assert "different inputs" in output and "v1" in output
    assert snapshot(out) == before


def test_a_new_version_keeps_the_old_one_and_the_index_lists_both(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    assert build(corpus, out, "--site-version", "v1")[0] == 0
    old = snapshot(out / "v1")
    _change_inputs(corpus)
    assert build(corpus, out, "--site-version", "v2")[0] == 0
    assert snapshot(out / "v1") == old
    index = (out / "index.html").read_text()
    assert 'href="v1/index.html"' in index and 'href="v2/index.html"' in index
    assert json.loads((out / "versions.json").read_text())["versions"][-2:] == ["v1", "v2"]
    assert 'Latest: <a href="v2/index.html">' in index


def test_output_inside_the_inputs_is_refused(corpus: Path) -> None:
    code, output = build(corpus, corpus / "site")
    assert code == 2
    assert "inside the inputs" in output
    assert not (corpus / "site").exists()


def test_unsafe_site_version_is_refused(corpus: Path, tmp_path: Path) -> None:
    code, output = build(corpus, tmp_path / "site", "--site-version", "../evil")
    assert code == 2
    assert "--site-version" in output


@pytest.mark.parametrize("where", ["staging", "spool"])
def test_a_failed_write_leaves_the_previous_site_untouched(
    corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    """A full disk while rendering into the staging folder, or while spooling run details."""
    out = tmp_path / "site"
    assert build(corpus, out, "--site-version", "v1")[0] == 0
    before = snapshot(out)
    real = Path.write_bytes
    calls = {"n": 0}

    def failing(self: Path, data: bytes) -> int:
        targeted = ".benchsite-tmp-" in str(self) if where == "staging" else "benchsite-details-" in str(self)
        calls["n"] += targeted
        if targeted and calls["n"] == 5:
            raise OSError(28, "No space left on device", str(self))
        return real(self, data)

    monkeypatch.setattr(Path, "write_bytes", failing)
    # --no-cache: every run is scored and spooled (a run reused from the cache is not spooled)
    code, output = build(corpus, out, "--site-version", "v2", "--no-cache")
    monkeypatch.undo()
    assert code == 2, output
    assert "No space left on device" in output
    assert snapshot(out) == before


def test_unwritable_output_fails_cleanly(corpus: Path, tmp_path: Path) -> None:
    if os.geteuid() == 0:
        blocker = tmp_path / "file"
        blocker.write_text("not a folder")
        code, output = build(corpus, blocker / "site")
    else:  # pragma: no cover - CI runs as root
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        code, output = build(corpus, locked / "site")
    assert code == 2
    assert "cannot write the site" in output


def test_outputs_that_differ_only_in_case_are_refused_before_they_overwrite(tmp_path: Path) -> None:
    from generator.errors import InvalidContent
    from generator.publish.write import Staging

    stage = Staging(tmp_path / "stage")
    stage.add("data/csv/b/check-Tone.csv", b"a")
    with pytest.raises(InvalidContent, match="differ by more than letter case"):
        stage.add("data/csv/b/check-tone.csv", b"b")
    stage.add("b/caf\u00e9.html", b"composed")
    with pytest.raises(InvalidContent):
        stage.add("b/cafe\u0301.html", b"decomposed: the same name after Unicode normalisation")


def test_a_no_op_rebuild_parses_nothing_and_another_generator_is_checked_byte_for_byte(
    corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import generator.build
    import generator.families.points.family

    out = tmp_path / "site"
    assert build(corpus, out, "--site-version", "v1")[0] == 0
    before = snapshot(out)

    def no_parsing(*args: object, **kwargs: object) -> None:
        raise AssertionError("a no-op rebuild scored a run")

    def rebuilt_scoring_nothing() -> tuple[int, str]:
        with monkeypatch.context() as patch:
            patch.setattr(generator.families.points.family.PointsFamily, "score_run", no_parsing)
            return build(corpus, out, "--site-version", "v1")

    code, output = rebuilt_scoring_nothing()
    assert code == 0 and "nothing re-rendered" in output, output
    assert snapshot(out) == before
    # an upgraded generator (another digest) takes the full path: re-rendered, compared byte for byte
    monkeypatch.setattr(generator.build, "generator_digest", lambda: "0" * 64)
    code, output = build(corpus, out, "--site-version", "v1")
    assert code == 0 and "verified byte for byte" in output, output
    assert snapshot(out) == before
    # ... once: the run cache notes that it reproduces the version, and its next rebuild is a no-op
    code, output = rebuilt_scoring_nothing()
    assert code == 0 and "nothing re-rendered" in output, output
    assert snapshot(out) == before
    # a third generator has no such note: the full path again
    monkeypatch.setattr(generator.build, "generator_digest", lambda: "1" * 64)
    code, output = build(corpus, out, "--site-version", "v1")
    assert code == 0 and "verified byte for byte" in output, output


def _upgraded(corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A site with version v1 built, then the generator 'upgraded' (another digest, the same bytes)."""
    import generator.build

    out = tmp_path / "site"
    assert build(corpus, out, "--site-version", "v1")[0] == 0
    monkeypatch.setattr(generator.build, "generator_digest", lambda: "0" * 64)
    return out


def test_a_version_an_upgrade_reproduced_is_still_checked_file_by_file(
    corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = _upgraded(corpus, tmp_path, monkeypatch)
    assert "verified byte for byte" in build(corpus, out, "--site-version", "v1")[1]
    page = out / "v1" / "index.html"
    page.chmod(0o644)
    page.write_bytes(page.read_bytes().replace(b"</body>", b"<p>edited</p></body>"))
    code, output = build(corpus, out, "--site-version", "v1")
    assert code == 5 and "index.html" in output and "changed after publication" in output, output


def test_a_note_of_reproduction_not_signed_with_the_users_key_is_not_taken(
    corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from generator.publish.write import IndexRecord

    out = _upgraded(corpus, tmp_path, monkeypatch)
    kept: list[Path] = []
    real = IndexRecord.keep_reproduced

    def keeping(self: IndexRecord, target: Path, generator: str) -> None:
        real(self, target, generator)
        kept.extend(self.folder.glob("reproduced-v1/*.json"))

    monkeypatch.setattr(IndexRecord, "keep_reproduced", keeping)
    assert "verified byte for byte" in build(corpus, out, "--site-version", "v1")[1]
    (note,) = set(kept)
    note.write_text("0" * 64, encoding="utf-8")  # a forged MAC: the full path, never a no-op on trust
    code, output = build(corpus, out, "--site-version", "v1")
    assert code == 0 and "verified byte for byte" in output, output


def test_a_long_run_is_paged_and_every_link_to_its_rows_finds_its_page(corpus: Path, tmp_path: Path) -> None:
    import re

    from generator.render.pages import PAGE_ROWS

    run = corpus / "agent-dx" / "run-subject-15bb-1"
    lines = (run / "attempts.jsonl").read_text(encoding="utf-8").splitlines()
    copies = -(-2 * PAGE_ROWS // len(lines)) + 1
    rows = []
    for k in range(copies):
        for line in lines:
            row = json.loads(line)
            row["attempt_id"] = f"{row['attempt_id']}-{k}"
            rows.append(json.dumps(row, sort_keys=True))
    (run / "attempts.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
    for folder in (run, corpus / "agent-dx"):
        (folder / "SHA256SUMS").unlink()
        write_seal(folder)
    out = tmp_path / "site"
    assert build(corpus, out, "--site-version", "v1")[0] == 0
    runs = out / "v1" / "b" / "agent-dx" / "runs"
    pages = [runs / "run-subject-15bb-1.html", *sorted((runs / "run-subject-15bb-1").glob("page-*.html"))]
    assert len(pages) == -(-len(rows) // PAGE_ROWS) >= 3
    shown = [re.findall(r'<tr id="attempt-([^"]+)"', p.read_text(encoding="utf-8")) for p in pages]
    assert all(len(ids) <= PAGE_ROWS for ids in shown)
    assert [i for ids in shown for i in ids] == [json.loads(r)["attempt_id"] for r in rows]  # once, in order
    disclosures = (out / "v1" / "b" / "agent-dx" / "disclosures.html").read_text(encoding="utf-8")
    links = re.findall(r'href="(runs/run-subject-15bb-1[^"#]*)#attempt-([^"]+)"', disclosures)
    assert len(links) == copies  # the one disagreement, once per copy
    for target, anchor in links:
        page = (out / "v1" / "b" / "agent-dx" / target).read_text(encoding="utf-8")
        assert f'id="attempt-{anchor}"' in page, (target, anchor)
