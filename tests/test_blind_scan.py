"""Blind protection: the blind version holds no withheld identity in any byte or file name.

The trials family (``runs/vibe-delivery``) is the one blind benchmark of the example corpus. What
it withholds:

- provider names: ``reveal/reveal.json`` maps every blind label of the trial plan to a name
  (docs/trials.md, *Blind scoring and reveals*); they may appear only from the revealed version on;
- evaluator identities: a result names its evaluator only as ``sha256:`` + 64 hex (a cleartext id
  is refused, exit 4) and are never revealed. The cleartext ids are known only to whoever hashed
  them — for the example corpus ``scripts/make_example_corpus.py`` (``sha256("evaluator-<n>")``) —
  and could reach the output only through free text of the inputs (producer strings, cost evidence
  references, intervention notes, check ids, failure codes), which benchsite cannot recognise.

A build of the corpus publishes ``2026.11-blind`` first (the inputs without the reveal folder).
Every file of it — HTML, Markdown, JSON, CSV, ``report.html`` — and every file name is scanned for
each withheld name in several spellings (as is, lower case, HTML-, JSON- and URL-escaped, the first
word of a multi-word name); so is an mkdocs export of the blind inputs. The revealed version and a
planted file show that the scan finds what it looks for. Last, the build's own scan of a rebuilt
blind version: it refuses a whole provider name in a blind field, its distinctive first word and
its URL-encoded spelling.
"""

from __future__ import annotations

import hashlib
import html
import json
import shutil
from pathlib import Path
from urllib.parse import quote, quote_plus

import pytest

from generator.families.trials.report import TrialsSection
from generator.inputs.readable import hidden_character
from generator.inputs.seal import SEAL_NAME
from generator.score.run import score_inputs
from tests.conftest import CORPUS, corpus_of, rendering, reseal, run_cli, snapshot

BENCH = "vibe-delivery"
REVEAL = CORPUS / BENCH / "reveal" / "reveal.json"
BLIND = json.loads(REVEAL.read_text(encoding="utf-8"))["scores_version"]
REVEALED = "2026.12"
KINDS = {".html", ".md", ".json", ".csv"}


def provider_names() -> dict[str, str]:
    providers: dict[str, str] = json.loads(REVEAL.read_text(encoding="utf-8"))["providers"]
    return providers


def evaluator_hashes() -> set[str]:
    return {
        json.loads(line)["evaluator"]
        for path in sorted((CORPUS / BENCH).glob("*/results.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    }


def cleartext_evaluators() -> dict[str, str]:
    """hash → cleartext id, for every evaluator hash of the corpus (its producer's ids, re-derived)."""
    hashes = evaluator_hashes()
    candidates = (f"evaluator-{n}" for n in range(1, 1000))
    found = {"sha256:" + hashlib.sha256(c.encode("utf-8")).hexdigest(): c for c in candidates}
    return {digest: clear for digest, clear in found.items() if digest in hashes}


def withheld() -> list[str]:
    return [*provider_names().values(), *cleartext_evaluators().values()]


def spellings(name: str) -> set[bytes]:
    """A name as a file could spell it, lower-cased (the haystack is lower-cased too)."""
    forms = {
        name,
        html.escape(name),
        html.escape(name, quote=False),
        json.dumps(name)[1:-1],
        json.dumps(name, ensure_ascii=False)[1:-1],
        quote(name),
        quote(name, safe=""),
        quote_plus(name),
        name.replace(" ", "&#32;"),
        name.replace(" ", "&nbsp;"),
        name.replace(" ", "\\ "),
    }
    words = name.split()
    if len(words) > 1:  # the distinctive first word alone: Northwind, Contoso, Fabrikam, Tailspin
        forms.add(words[0])
    return {form.lower().encode("utf-8") for form in forms}


def scan(folder: Path, names: list[str]) -> list[tuple[str, str, str]]:
    """(path, name, spelling) for every spelling of every name in a file's bytes or path."""
    found = []
    for path in [folder, *sorted(folder.rglob("*"))]:
        relative = path.relative_to(folder.parent).as_posix()
        haystack = relative.lower().encode("utf-8")
        if path.is_file():
            haystack += b"\n" + path.read_bytes().lower()
        for name in names:
            for form in sorted(spellings(name)):
                if form in haystack:
                    found.append((relative, name, form.decode("utf-8")))
    return found


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The corpus built: the reveal publishes the blind version it cites, then the revealed one."""
    root = tmp_path_factory.mktemp("blind-scan")
    shutil.copytree(CORPUS, root / "runs")
    out = root / "site"
    result = run_cli("build", "--runs", root / "runs", "--out", out, "--site-version", REVEALED)
    assert result.exit_code == 0, result.output
    assert json.loads((out / "versions.json").read_bytes())["versions"] == [BLIND, REVEALED]
    return out


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An mkdocs export of the blind inputs: the corpus without the reveal folder."""
    root = tmp_path_factory.mktemp("blind-mkdocs")
    runs = root / "runs"
    shutil.copytree(CORPUS, runs)
    seal = (runs / BENCH / SEAL_NAME).read_text(encoding="utf-8")
    assert "reveal/" not in seal  # the reveal is its own sealed folder: the benchmark seal stays
    shutil.rmtree(runs / BENCH / "reveal")
    out = root / "docs" / "results"
    result = run_cli("build", "--format", "mkdocs", "--runs", runs, "--out", out)
    assert result.exit_code == 0, result.output
    return out


def test_the_withheld_identities_are_known() -> None:
    names = provider_names()
    plan = json.loads((CORPUS / BENCH / "trial-plan.json").read_text(encoding="utf-8"))["trials"]
    assert set(names) == {t["provider"] for t in plan}
    assert len(set(names.values())) == len(names) == 4
    clear = cleartext_evaluators()
    assert set(clear) == evaluator_hashes() and len(clear) == 2  # every hash has its cleartext id


def test_the_scan_finds_every_spelling_in_bytes_and_file_names(tmp_path: Path) -> None:
    folder = tmp_path / "planted"
    folder.mkdir()
    for number, name in enumerate(withheld()):
        for form in spellings(name):
            text = form.decode("utf-8")
            (folder / f"{number}-{len(text)}.txt").write_bytes(b"x " + text.upper().encode("utf-8") + b" y")
            assert any(f == text for _, _, f in scan(folder, [name])), text
    (folder / "northwind-builder.csv").write_bytes(b"")
    assert ("planted/northwind-builder.csv", "Northwind Builder", "northwind") in scan(folder, withheld())


def test_the_blind_version_holds_no_withheld_identity_in_any_byte_or_file_name(built: Path) -> None:
    blind = built / BLIND
    files = [p for p in blind.rglob("*") if p.is_file()]
    assert {p.suffix for p in files} >= KINDS
    assert {"report.html", "release-notes.md", "site.json", f"{BENCH}.json"} <= {p.name for p in files}
    assert any(p.suffix == ".csv" and BENCH in p.parts for p in files)
    assert scan(blind, withheld()) == []
    site = json.loads((blind / "data" / "site.json").read_bytes())
    (section,) = [b for b in site["benchmarks"] if b["id"] == BENCH]
    assert section["disclosures"]["blind"]["identities_revealed"] is False
    assert section["section"]["reveal"] is None


def test_the_revealed_version_names_every_provider_in_every_kind_of_file(built: Path) -> None:
    """The scan can fail: the same build's next version holds every name, in each file kind."""
    revealed = built / REVEALED
    found = scan(revealed, list(provider_names().values()))
    for name in provider_names().values():
        files = {path for path, who, _ in found if who == name}
        assert {Path(p).suffix for p in files} >= {".html", ".md", ".json"}, name
        assert f"{REVEALED}/report.html" in files and f"{REVEALED}/data/site.json" in files
    assert scan(revealed, list(cleartext_evaluators().values())) == []  # never revealed
    assert {e for _, _, e in found} >= {n.split()[0].lower() for n in provider_names().values()}


def test_the_mkdocs_export_of_the_blind_inputs_holds_no_withheld_identity(exported: Path) -> None:
    pages = sorted(p.relative_to(exported).as_posix() for p in exported.rglob("*.md"))
    assert f"{BENCH}/index.md" in pages and any(p.startswith(f"{BENCH}/runs/") for p in pages)
    assert scan(exported, withheld()) == []


def runs_naming_a_provider(tmp_path: Path) -> Path:
    """A copy of the corpus's blind benchmark alone whose run ``run-p-a`` names its provider in a
    free-text field (the other benchmarks have no blind field to leak through)."""
    runs = corpus_of(tmp_path / "runs", BENCH)
    run = runs / BENCH / "run-p-a"
    meta = json.loads((run / "run.json").read_text(encoding="utf-8"))
    meta["producer"] = f"harness of {provider_names()['P-A']}"
    (run / "run.json").write_text(json.dumps(meta), encoding="utf-8")
    reseal(run)
    cite_blind_scores(runs)
    return runs


def test_a_provider_name_in_a_blind_field_makes_the_reveal_build_refuse(tmp_path: Path) -> None:
    """The build's own scan: a free-text field of the blind inputs naming a provider is refused."""
    runs = runs_naming_a_provider(tmp_path)
    out = tmp_path / "site"
    before = snapshot(runs)
    result = run_cli("build", "--runs", runs, "--out", out, "--site-version", REVEALED)
    assert result.exit_code == 4, result.output
    assert "the blind version would contain a revealed provider name (northwind builder)" in result.output
    assert not (out / BLIND).exists() and not (out / REVEALED).exists()
    assert snapshot(runs) == before


def cite_blind_scores(runs: Path) -> None:
    """Point the reveal at the blind scores of the edited inputs (they cite every run's digest)."""
    scored = score_inputs(runs, BLIND, with_reveals=False, options=rendering())
    scored.details.close()
    (section,) = [b.section for b in scored.report.benchmarks if b.id == BENCH]
    assert isinstance(section, TrialsSection)
    digest = section.scores_sha256
    reveal = json.loads(REVEAL.read_text(encoding="utf-8")) | {"scores_sha256": digest}
    (runs / BENCH / "reveal" / "reveal.json").write_text(json.dumps(reveal), encoding="utf-8")
    reseal(runs / BENCH / "reveal")


def run_with_producer(tmp_path: Path, producer: str) -> Path:
    """The blind benchmark alone, its first run's ``producer`` text set, resealed, and its reveal
    citing the blind scores: an inputs root whose reveal build scans that text. Text holding a
    character a reader does not see goes to the benchmark's free ``description`` instead: a run's
    producer (a package and its version) is refused for it before any scan (issue 44)."""
    runs = corpus_of(tmp_path / "runs", BENCH)
    if hidden_character(producer) is not None:
        bench = runs / BENCH
        decl = json.loads((bench / "benchmark.json").read_text(encoding="utf-8")) | {"description": producer}
        (bench / "benchmark.json").write_text(json.dumps(decl), encoding="utf-8")
        reseal(bench)
    else:
        run = runs / BENCH / "run-p-a"
        meta = json.loads((run / "run.json").read_text(encoding="utf-8")) | {"producer": producer}
        (run / "run.json").write_text(json.dumps(meta), encoding="utf-8")
        reseal(run)
    cite_blind_scores(runs)
    return runs


@pytest.mark.parametrize("producer", ["harness of Northwind", "usage/Northwind%20Builder/t01"])
def test_a_partial_or_encoded_provider_name_in_a_blind_field_is_refused_too(
    tmp_path: Path, producer: str
) -> None:
    runs = run_with_producer(tmp_path, producer)
    out = tmp_path / "site"
    result = run_cli("build", "--runs", runs, "--out", out, "--site-version", REVEALED)
    leaked = scan(out / BLIND, withheld()) if (out / BLIND).exists() else []
    assert (result.exit_code, leaked) == (4, []), result.output


@pytest.mark.parametrize("hits", [(), (7,), (3, 9), (0, 11)])
def test_the_scan_in_parts_answers_what_one_scan_in_order_answers(
    monkeypatch: pytest.MonkeyPatch, hits: tuple[int, ...]
) -> None:
    """The blind scan runs in contiguous parts on forked workers; it still names the first file, in
    the order given, that shows a name: a hit in a later part never wins over an earlier one."""
    from generator import build
    from generator.publish.blind_scan import find_revealed

    monkeypatch.setattr(build, "SCAN_PART_FILES", 2)
    names = {"Acme Labs"}

    def page(i: int) -> bytes:
        shown = "by Acme Labs" if i in hits else "by provider-a"
        return f"<p>file {i} {shown}</p>".encode()

    files = [(f"b/runs/r{i:02d}.html", lambda i=i: page(i)) for i in range(12)]
    one = find_revealed(files, names)
    assert build._find_revealed_in_workers(files, names, workers=2, locks=()) == one
    assert one == (None if not hits else (f"b/runs/r{min(hits):02d}.html", "acme labs"))


@pytest.mark.parametrize("count", [0, 1, 5, 31])
def test_the_scan_keys_hashes_in_parts_are_each_files_sha256_in_order(
    monkeypatch: pytest.MonkeyPatch, count: int
) -> None:
    """The scan's key hashes every file of the version on forked workers, in contiguous parts: the
    sha256 of each file comes back in the order given, whatever the parts."""
    import hashlib

    from generator import build
    from generator.score import pool

    monkeypatch.setattr(pool, "PART_ITEMS", 2)
    files = [(f"b/runs/r{i:02d}.html", lambda i=i: f"<p>file {i}</p>".encode() * i) for i in range(count)]
    expected = [hashlib.sha256(read()).hexdigest() for _, read in files]
    assert build._hashed_in_workers(files, workers=2, locks=()) == expected
    assert build._hashed_in_workers(files, workers=1, locks=()) == expected


def test_a_published_versions_files_are_listed_in_path_order_without_links(tmp_path: Path) -> None:
    """``folder_files`` lists what a scan reads: every regular file, in the order of sorted ``Path``s
    (part by part: ``a/b`` before ``a-c``, unlike a string sort), never through a link."""
    from generator.publish.blind_scan import folder_files

    version = tmp_path / "v1"
    for rel in ("a/b/deep.html", "a-c.html", "a/z.json", "index.html", "data/site.json"):
        (version / rel).parent.mkdir(parents=True, exist_ok=True)
        (version / rel).write_text(rel)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.html").write_text("secret")
    (version / "linked").symlink_to(outside, target_is_directory=True)
    (version / "link.html").symlink_to(outside / "secret.html")
    found = folder_files(version, "v1/")
    expected = sorted(p for p in version.rglob("*") if p.is_file() and not p.is_symlink())
    assert [rel for rel, _ in found] == ["v1/" + p.relative_to(version).as_posix() for p in expected]
    assert [rel for rel, _ in found] == [
        "v1/a/b/deep.html",
        "v1/a/z.json",
        "v1/a-c.html",
        "v1/data/site.json",
        "v1/index.html",
    ]
    assert [read() for _, read in found] == [rel.removeprefix("v1/").encode() for rel, _ in found]
