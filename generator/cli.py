"""The command line. Thin: parse options, build a config, call one pipeline function."""

from __future__ import annotations

import json
from pathlib import Path

import click

from generator import __version__
from generator.build import BuildConfig, build, verify
from generator.compare import compare, read_store_run, run_compare, summary_text
from generator.errors import Incomparable
from generator.jsonio import canonical_json
from generator.schemas import SCHEMAS, schema_json
from generator.seal import write_seal

EXIT_CODES = """\b
Exit codes:
  0  success
  2  usage error, unusable output folder
  3  input refused: a seal is missing or does not hold
  4  invalid content: bad JSON, schema violation, duplicate ids
  5  version conflict: a published version would change
 13  incomparable (compare): two runs cannot be paired row by row
"""

runs_option = click.option(
    "--runs",
    "runs",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=Path("runs"),
    show_default=True,
    help="Inputs root: one sealed folder per benchmark.",
)


@click.group(epilog=EXIT_CODES)
@click.version_option(__version__, prog_name="benchsite")
def main() -> None:
    """Sealed benchmark runs and their rubric contracts → a versioned static site."""


@main.command(epilog=EXIT_CODES)
@runs_option
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("site"),
    show_default=True,
    help="Site folder; each version is a subfolder.",
)
@click.option(
    "--site-version", default=None, help="Version folder name. Default: 'sha-' + 12 hex of the inputs digest."
)
def build_cmd(runs: Path, out: Path, site_version: str | None) -> None:
    """Verify the inputs, compute every figure, and publish one immutable site version."""
    result = build(BuildConfig(runs=runs, out=out, site_version=site_version))
    report = result.scored.report
    if result.blind is not None:
        click.echo(f"published the blind version a reveal applies to: {result.blind.path}")
    state = "published" if result.published.created else "unchanged (identical rebuild)"
    click.echo(f"{state}: {result.published.path} — {len(report.benchmarks)} benchmark(s), "
               f"{result.scored.folders} sealed folder(s), {result.files} file(s); "
               f"inputs {report.inputs_digest[:12]}")  # fmt: skip


main.add_command(build_cmd, name="build")


@main.command("verify", epilog=EXIT_CODES)
@runs_option
def verify_cmd(runs: Path) -> None:
    """Check every seal and every file's content. Writes nothing."""
    scored = verify(runs)
    report = scored.report
    click.echo(
        f"verified: {scored.folders} sealed folder(s), {len(report.benchmarks)} benchmark(s); "
        f"inputs {report.inputs_digest}"
    )


@main.command("seal", epilog=EXIT_CODES)
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
def seal_cmd(folder: Path) -> None:
    """Write FOLDER/SHA256SUMS for a producer that has none. Never changes an existing seal.

    Seal run folders first, then the benchmark folder: a subfolder with its own seal is skipped.
    """
    seal = write_seal(folder)
    click.echo(f"sealed: {seal}")


@main.command("compare", epilog=EXIT_CODES)
@click.argument("baseline", type=click.Path(path_type=Path))
@click.argument("candidate", type=click.Path(path_type=Path))
@click.option("--strict", is_flag=True, help="An axis recorded on neither side also blocks.")
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON.")
def compare_cmd(baseline: Path, candidate: Path, strict: bool, as_json: bool) -> None:
    """Pair two AgentEval store-v1 runs by row id; exit 13 when they are incomparable."""
    try:
        result = run_compare(baseline, candidate, strict)
    except Incomparable as exc:
        if as_json:
            result = compare(read_store_run(baseline), read_store_run(candidate), strict)
            click.echo(canonical_json(result.model_dump(mode="json")), nl=False)
            raise SystemExit(exc.exit_code) from None
        raise
    if as_json:
        click.echo(canonical_json(result.model_dump(mode="json")), nl=False)
    else:
        click.echo(summary_text(result))


@main.command("schema")
@click.argument("name", required=False, type=click.Choice(sorted(SCHEMAS)))
def schema_cmd(name: str | None) -> None:
    """Print the JSON Schema of an input or output format (list the names without NAME)."""
    if name is None:
        click.echo(json.dumps(sorted(SCHEMAS)))
        return
    click.echo(schema_json(name), nl=False)
