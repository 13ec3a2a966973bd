"""The seed-000 contract is accepted byte-for-byte, and its provenance hash is re-verified when supplied."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from generator.inputs.seal import SEAL_NAME, write_seal
from tests.conftest import CORPUS, SEEDS, corpus_of, run_cli

SEED_000_SHA256 = "1d99c773dacd21ca465114c284c82fc92ec064bb5b995a1700afb22dac3b482a"


def test_corpus_rubric_is_the_seed_byte_for_byte() -> None:
    rubric = (CORPUS / "agent-dx" / "rubric.json").read_bytes()
    assert hashlib.sha256(rubric).hexdigest() == SEED_000_SHA256
    assert (SEEDS / "000_4822e52dd1681ead.txt").read_bytes() == rubric


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """A writable copy of the corpus's ``agent-dx`` benchmark alone: the seed contract every case
    here changes."""
    return corpus_of(tmp_path / "runs", "agent-dx")


def _with_boundary_source(corpus: Path, content: bytes, boundary_sha: str) -> None:
    """Give the benchmark a provenance source file and a contract whose boundarySha256 is known."""
    bench = corpus / "agent-dx"
    contract = json.loads((bench / "rubric.json").read_text())
    contract["provenance"]["boundarySha256"] = boundary_sha
    rubric = json.dumps(contract, indent=2).encode()
    (bench / "rubric.json").write_bytes(rubric)
    (bench / "boundary.tar").write_bytes(content)
    decl = json.loads((bench / "benchmark.json").read_text())
    decl["rubric"]["sha256"] = hashlib.sha256(rubric).hexdigest()
    decl["provenance_sources"] = {"boundarySha256": "boundary.tar"}
    (bench / "benchmark.json").write_text(json.dumps(decl))
    (bench / SEAL_NAME).unlink()
    write_seal(bench)


def test_provenance_hash_is_verified_when_its_source_is_present(corpus: Path, tmp_path: Path) -> None:
    content = b"frozen evaluator boundary"
    _with_boundary_source(corpus, content, hashlib.sha256(content).hexdigest())
    result = run_cli("build", "--runs", corpus, "--out", tmp_path / "site", "--site-version", "p1")
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "site" / "p1" / "data" / "site.json").read_text())
    (provenance,) = data["benchmarks"][0]["disclosures"]["provenance"]
    assert provenance["state"] == "verified"
    assert provenance["source"] == "boundary.tar"


def test_provenance_hash_mismatch_is_invalid_content(corpus: Path, tmp_path: Path) -> None:
    _with_boundary_source(corpus, b"something else", "0" * 64)
    result = run_cli("build", "--runs", corpus, "--out", tmp_path / "site")
    assert result.exit_code == 4
    assert "boundary.tar: does not match the contract's boundarySha256" in result.output


def test_corpus_shows_provenance_as_not_re_verified(example_site: Path) -> None:
    page = (example_site / "v1" / "b" / "agent-dx" / "methodology.html").read_text()
    assert "not re-verified (source not supplied)" in page
    assert "be1dfd3a887dab2c5884d2ff91dfadb0cee3b1a1b8aa348cd492af594a1159d1" in page


@pytest.mark.slow  # runs the corpus generator in a subprocess and compares every byte
def test_example_corpus_is_reproducible_from_its_generator(tmp_path: Path) -> None:
    """scripts/make_example_corpus.py rebuilds every sealed byte of runs/ from the seed contracts."""
    import subprocess
    import sys

    from tests.conftest import ROOT

    seeds = tmp_path / "seeds"
    seeds.mkdir()
    pairs = {
        "agent-dx": "000_4822e52dd1681ead.txt",
        "vibe-delivery": "001_a89dc2f910ac40b2.txt",
        "je-validation": "003_8d1dd585b5526139.txt",
    }
    for bench, seed in pairs.items():
        (seeds / seed).write_bytes((CORPUS / bench / "rubric.json").read_bytes())
    (seeds / "004_3e2f1068dfea7cba.txt").write_bytes(
        (CORPUS / "recsys-grounding" / "adr-032.txt").read_bytes()
    )
    out = tmp_path / "runs"
    out.mkdir()
    script = ROOT / "scripts" / "make_example_corpus.py"
    subprocess.run([sys.executable, script, "--seeds", seeds, "--out", out], check=True, capture_output=True)
    made = {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    kept = {p.relative_to(CORPUS).as_posix(): p.read_bytes() for p in CORPUS.rglob("*") if p.is_file()}
    assert made == kept


def test_a_contract_with_other_rules_is_refused(corpus: Path, tmp_path: Path) -> None:
    """Same shape, different predicate: benchsite would score rules the contract does not state."""
    bench = corpus / "agent-dx"
    contract = json.loads((bench / "rubric.json").read_text())
    contract["outcomes"]["ready"] = contract["outcomes"]["ready"].replace(
        "at least 80 of 90", "at least 88 of 90"
    )
    rubric = json.dumps(contract, indent=2).encode()
    (bench / "rubric.json").write_bytes(rubric)
    decl = json.loads((bench / "benchmark.json").read_text())
    decl["rubric"]["sha256"] = hashlib.sha256(rubric).hexdigest()
    (bench / "benchmark.json").write_text(json.dumps(decl))
    (bench / SEAL_NAME).unlink()
    write_seal(bench)
    out = tmp_path / "site"
    result = run_cli("build", "--runs", corpus, "--out", out)
    assert result.exit_code == 4, result.output
    assert "agent-dx/rubric.json: no scoring specification: this contract's rules are not" in result.output
    assert not out.exists() or not any(out.iterdir())
