"""The pipeline: load → verify → score → render → write. The CLI calls these and nothing else."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from generator.errors import OutputError
from generator.inputs import SAFE_ID
from generator.render import render_site
from generator.score import Scored, score_inputs
from generator.write import Published, check_output, publish


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


def check_version(version: str | None) -> None:
    if version is not None and not SAFE_ID.match(version):
        raise OutputError(
            f"--site-version {version!r}: use letters, digits, '.', '_', '-' (it names a folder)"
        )


def verify(runs: Path) -> Scored:
    """Check every seal and every file's content; write nothing."""
    return score_inputs(runs, None)


def build(config: BuildConfig) -> BuildResult:
    """Read and verify everything, compute one report, render it, publish one version."""
    check_version(config.site_version)
    check_output(config.out, config.runs)
    scored = score_inputs(config.runs, config.site_version)
    files = render_site(scored.report)
    published = publish(config.out, scored.report.site_version, files)
    return BuildResult(scored=scored, published=published, files=len(files))
