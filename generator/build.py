"""The pipeline: load → verify → score → render → write. The CLI calls these and nothing else."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from generator.errors import InvalidContent, OutputError
from generator.inputs import SAFE_ID
from generator.render import render_site
from generator.report import SiteReport
from generator.score import Scored, score_inputs
from generator.write import Published, check_output, precheck, publish


@dataclass(frozen=True)
class BuildConfig:
    runs: Path
    out: Path
    site_version: str | None = None


@dataclass(frozen=True)
class BuildResult:
    scored: Scored
    published: Published
    files: int
    blind: Published | None = None
    """The earlier blind version a reveal applies to, when this build had to publish it."""


RESERVED_SUFFIXES = (".html", ".json", ".md", ".css", ".js", ".lock", ".txt", ".xml")


def check_version(version: str | None) -> None:
    """A version names a folder beside site-level files: it may not look like one of them."""
    if version is None:
        return
    if not SAFE_ID.match(version):
        allowed = "letters, digits, '.', '_', '-' (it names a folder)"
        raise OutputError(f"--site-version {version!r}: use {allowed}")
    if version.lower().endswith(RESERVED_SUFFIXES) or version.lower() in ("data", "assets", "index"):
        raise OutputError(f"--site-version {version!r}: reserved for site-level files; choose another name")


def verify(runs: Path) -> Scored:
    """Check every seal and every file's content; write nothing."""
    return score_inputs(runs, None)


def _citations(report: SiteReport) -> dict[str, tuple[str, str]]:
    """Benchmark id → (earlier version, frozen scores sha256) for every reveal in the report."""
    found = {b.id: b.section.reveal_citation() for b in report.benchmarks}
    return {bench: citation for bench, citation in found.items() if citation is not None}


def _frozen_version(config: BuildConfig, report: SiteReport) -> tuple[str, dict[str, bytes]] | None:
    """The blind version the reveals apply to: checked if published, else rebuilt blind.

    The blind version is the same inputs without any reveal folder, so it can always be
    reproduced; a reveal is accepted only when that version's frozen scores file has the
    digest the reveal cites.
    """
    citations = _citations(report)
    versions = {version for version, _ in citations.values()}
    if not versions:
        return None
    if len(versions) > 1 or report.site_version in versions:
        raise InvalidContent(
            f"reveals must all apply to one earlier version, not {sorted(versions)} "
            f"(this version is {report.site_version!r})"
        )
    (version,) = versions
    existing = config.out / version
    if existing.exists():
        files = {
            f"data/scores/{bench}.json": (existing / "data" / "scores" / f"{bench}.json").read_bytes()
            for bench in citations
            if (existing / "data" / "scores" / f"{bench}.json").is_file()
        }
        blind = None
    else:
        files = render_site(score_inputs(config.runs, version, with_reveals=False).report)
        blind = (version, files)
    for bench, (_, digest) in sorted(citations.items()):
        frozen = files.get(f"data/scores/{bench}.json")
        found = "no scores file" if frozen is None else hashlib.sha256(frozen).hexdigest()[:16] + "…"
        if frozen is None or hashlib.sha256(frozen).hexdigest() != digest:
            raise InvalidContent(
                f"{config.runs / bench}/reveal: cites frozen scores {digest[:16]}… of version "
                f"{version!r}, but that version has {found}: a reveal applies only to frozen scores"
            )
    return blind


def build(config: BuildConfig) -> BuildResult:
    """Read and verify everything, compute one report, render it, publish one version.

    When a reveal applies to an earlier blind version that this site does not hold yet, that
    version is rebuilt from the same inputs without the reveal and published first.
    """
    check_version(config.site_version)
    check_output(config.out, config.runs)
    scored = score_inputs(config.runs, config.site_version)
    files = render_site(scored.report)
    blind = _frozen_version(config, scored.report)
    precheck(config.out, scored.report.site_version, files)
    blind_published = publish(config.out, blind[0], blind[1]) if blind else None
    published = publish(config.out, scored.report.site_version, files)
    return BuildResult(scored=scored, published=published, files=len(files), blind=blind_published)
