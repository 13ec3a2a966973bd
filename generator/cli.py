"""The command line. Thin: parse options, build a config, call one pipeline function.

Only click and this package's light modules are imported at start-up: each command imports the
stages it runs (pydantic, Jinja2, scipy, Markdown) when it runs, so ``--version`` and ``--help``
start as fast as click itself (measured by ``scripts/benchmark.py``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from generator import __version__
from generator.errors import (
    EXIT_INCOMPARABLE,
    EXIT_INVALID,
    EXIT_OK,
    EXIT_REFUSED,
    EXIT_USAGE,
    EXIT_VERSION_CONFLICT,
    BenchsiteError,
    Incomparable,
    printable,
)
from generator.progress import Progress

if TYPE_CHECKING:
    from decimal import Decimal

    from generator.build import BuildResult
    from generator.families.rubric import Explained
    from generator.importers.model import Imported
    from generator.score.run import ScoreOptions

HELP = {"help_option_names": ["-h", "--help"]}
"""``-h`` as well as ``--help``, on every command."""


def exit_codes(*codes: tuple[int, str]) -> str:
    """A command's help epilog: the exit codes it can end with, and what each means there."""
    lines = "".join(f"{code:>3}  {meaning}\n" for code, meaning in codes)
    return f"\b\nExit codes:\n{lines}"


SUCCESS = (EXIT_OK, "success")
USAGE = (EXIT_USAGE, "usage error")
UNUSABLE_OUTPUT = (EXIT_USAGE, "usage error, unusable output folder, bad site configuration")
REFUSED = (EXIT_REFUSED, "input refused: a seal is missing or does not hold")
INVALID = (EXIT_INVALID, "invalid content: bad JSON, schema violation, duplicate ids")
CONFLICT = (EXIT_VERSION_CONFLICT, "version conflict: a published version would change")
INCOMPARABLE = (EXIT_INCOMPARABLE, "incomparable: two runs cannot be paired row by row")

runs_option = click.option(
    "--runs",
    "runs",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=Path("runs"),
    show_default=True,
    help="Inputs root: one sealed folder per benchmark.",
)


def site_options(command: Callable[..., None]) -> Callable[..., None]:
    """The site's own look: benchsite.toml's [site] table, each key overridden by its flag."""
    flags = (
        ("--accent", "Accent colour of links and charts, #rgb or #rrggbb (at least 4.5:1 on white)."),
        ("--logo", "SVG or PNG logo (at most 16 KiB), embedded in every page."),
        (
            "--description",
            "The pages' meta description and the feed's subtitle (one line, ≤ 300 characters).",
        ),
        (
            "--base-url",
            "Absolute http(s) URL the site folder is served at: canonical links, sitemap.xml, feed.xml.",
        ),
        ("--site-name", "Name shown in every page's header and title [default: benchsite]."),
    )
    for flag, text in flags:
        command = click.option(flag, default=None, metavar="TEXT", help=text)(command)
    return click.option(
        "--config",
        "config_file",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        help="Site configuration, a [site] table (name, base_url, description, logo, accent) "
        "[default: ./benchsite.toml when it exists].",
    )(command)


def checked_scheduler(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """--scheduler's form checked before anything is read (``cluster.scheduler_address``)."""
    if value is None:
        return None
    from generator.score.cluster import scheduler_address  # the standard library's imports only

    return scheduler_address(value)


def scoring_options(command: Callable[..., None]) -> Callable[..., None]:
    """--jobs, --cache, --no-cache, --executor, --scheduler and --scheduler-timeout: how runs are
    scored, never what a figure is."""
    command = click.option(
        "--scheduler-timeout",
        type=click.FloatRange(min=0, min_open=True, max=3600),
        default=10.0,  # cluster.SCHEDULER_TIMEOUT (not imported: --help loads click alone)
        show_default=True,
        metavar="SECONDS",
        help="With --executor dask: how long to wait for the scheduler to answer, for a first worker "
        "to join, and for a worker while none is left, before the build stops (exit 2).",
    )(command)
    command = click.option(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        callback=checked_scheduler,
        help="With --executor dask: the dask.distributed scheduler, tcp://HOST:PORT (e.g. "
        "tcp://10.0.0.5:8786, tcp://[::1]:8786).",
    )(command)
    command = click.option(
        "--executor",
        type=click.Choice(["local", "dask"]),
        default="local",
        show_default=True,
        help="local: a process pool on this machine (--jobs). dask: the workers of a dask.distributed "
        "cluster (--scheduler; every worker must reach the inputs at the same path).",
    )(command)
    command = click.option(
        "--no-cache", is_flag=True, help="Neither read nor keep the run cache (score every run)."
    )(command)
    command = click.option(
        "--cache",
        "cache_dir",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        envvar="BENCHSITE_CACHE",
        help="Run cache folder: a run whose seal, benchmark and generator are unchanged is not parsed "
        "again [default: your cache folder: ~/.cache/benchsite on Linux ($XDG_CACHE_HOME), "
        "~/Library/Caches/benchsite on macOS; env BENCHSITE_CACHE]. "
        "Entries carry an HMAC under your key ($BENCHSITE_CACHE_KEY, else cache-key in your "
        "configuration folder, ~/.config/benchsite on Linux; made 0600 on first use); a folder "
        "others can write to is not used (a warning says why).",
    )(command)
    return click.option(
        "--jobs",
        "-j",
        type=click.IntRange(min=1, max=256),
        default=None,
        help="Processes scoring runs [default: the cores this process may use].",
    )(command)


def score_options(
    jobs: int | None,
    cache_dir: Path | None,
    no_cache: bool,
    executor: str,
    scheduler: str | None,
    scheduler_timeout: float,
) -> ScoreOptions:
    """A cache that others could write to (or a key they could read) is not used: said, not fatal."""
    if (executor == "dask") != (scheduler is not None):
        raise click.UsageError("--executor dask and --scheduler ADDRESS go together")
    from generator.score.cache import open_cache
    from generator.score.run import ScoreOptions
    from generator.score.userkey import default_folder
    from generator.score.workers import default_jobs

    cache, warning = open_cache(None if no_cache else cache_dir or default_folder())
    if warning:
        click.echo(f"warning: {printable(warning)}", err=True)
    return ScoreOptions(
        cache=cache,
        jobs=jobs or default_jobs(),
        scheduler=scheduler,
        scheduler_timeout=scheduler_timeout,
    )


class Commands(click.Group):
    """The command group: an error a user caused (``errors.BenchsiteError``) is shown as click shows
    its own (``Error: <message>``) and exits with the error's documented code."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except BenchsiteError as exc:
            click.echo(f"Error: {exc.message}", err=True)
            ctx.exit(exc.exit_code)


@click.group(
    cls=Commands,
    context_settings=HELP,
    epilog=exit_codes(
        SUCCESS,
        UNUSABLE_OUTPUT,
        REFUSED,
        INVALID,
        CONFLICT,
        (EXIT_INCOMPARABLE, "incomparable (compare): two runs cannot be paired row by row"),
    ),
)
@click.version_option(__version__, prog_name="benchsite")
def main() -> None:
    """Sealed benchmark runs and their rubric contracts → a versioned static site."""


@main.command("build", epilog=exit_codes(SUCCESS, UNUSABLE_OUTPUT, REFUSED, INVALID, CONFLICT))
@runs_option
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Site folder, each version a subfolder [default: site]. With --format mkdocs: the export "
    "folder inside your mkdocs docs_dir (required; replaced whole on each export).",
)
@click.option(
    "--site-version", default=None, help="Version folder name. Default: 'sha-' + 12 hex of the inputs digest."
)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["site", "mkdocs"]),
    default="site",
    show_default=True,
    help="site: the versioned static site. mkdocs: Markdown pages and nav.yml for an existing mkdocs site.",
)
@click.option(
    "--nav-prefix",
    default=None,
    help="With --format mkdocs: the export folder's path inside docs_dir [default: the --out folder's name].",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress display and no summary; errors still print.")
@site_options
@scoring_options
def build_cmd(
    runs: Path,
    out: Path | None,
    site_version: str | None,
    output_format: str,
    nav_prefix: str | None,
    quiet: bool,
    config_file: Path | None,
    site_name: str | None,
    base_url: str | None,
    description: str | None,
    logo: str | None,
    accent: str | None,
    jobs: int | None,
    cache_dir: Path | None,
    no_cache: bool,
    executor: str,
    scheduler: str | None,
    scheduler_timeout: float,
) -> None:
    """Verify the inputs, compute every figure, and publish one immutable site version.

    Rebuilding a version that exists from the same inputs is a no-op that checks every published
    file of it against the sha256 its data/build.json lists: a changed, added or removed file is
    refused (exit 5) and left as it is; restore the folder, or delete it and build again.
    """
    if (executor == "dask") != (scheduler is not None):
        raise click.UsageError("--executor dask and --scheduler ADDRESS go together")
    from generator.inputs.discover import FolderReads
    from generator.inputs.siteconfig import load_site

    flags = {
        "name": site_name,
        "base_url": base_url,
        "description": description,
        "logo": logo,
        "accent": accent,
    }
    look = load_site(config_file, flags)
    reads = FolderReads()  # one read of each input per build, the no-op check included
    if output_format == "site" and nav_prefix is None:
        from generator.build import index_record, unchanged
        from generator.score.userkey import default_folder

        folder = None if no_cache else cache_dir or default_folder()
        same = unchanged(runs, out or Path("site"), site_version, index_record(folder), reads, look)
        if same is not None:  # verified with the standard library (filelock and platformdirs aside)
            if not quiet:
                click.echo(summary(same))
            return
    from generator.figures import statproc

    click.get_current_context().call_on_close(
        statproc.start()
    )  # scipy imported beside the build's own imports
    import dataclasses

    from generator.build import BuildConfig, build, export_mkdocs
    from generator.score.pool import collect_seldom

    click.get_current_context().call_on_close(collect_seldom())
    progress = Progress.for_terminal(quiet)
    scoring = score_options(jobs, cache_dir, no_cache, executor, scheduler, scheduler_timeout)
    options = dataclasses.replace(scoring, reads=reads, site=look)
    if output_format == "mkdocs":
        if out is None:
            raise click.UsageError("--format mkdocs needs --out: a folder inside your mkdocs docs_dir")
        exported = export_mkdocs(
            BuildConfig(runs=runs, out=out, site_version=site_version, options=options), nav_prefix, progress
        )
        if not quiet:
            pages = sum(1 for f in exported.files if f.endswith(".md"))
            pages_words = f"{pages} Markdown page{'' if pages == 1 else 's'}"
            done = f"{pages_words} and nav.yml (paste its entries under nav: of your mkdocs.yml)"
            click.echo(f"exported for mkdocs: {out} — {done}; {exported.seconds:.1f} s")
        return
    if nav_prefix is not None:
        raise click.UsageError("--nav-prefix applies only with --format mkdocs")
    config = BuildConfig(runs=runs, out=out or Path("site"), site_version=site_version, options=options)
    result = build(config, progress, checked=True)
    if not quiet:
        click.echo(summary(result, options.cache.folder))


def summary(result: BuildResult, cache: Path | None = None) -> str:
    """One screen: what was published, from how much, how many files of each kind, how long."""
    kinds = ", ".join(
        f"{n} {kind.lstrip('.').upper() or 'other'}" for kind, n in sorted(result.files.items())
    )
    files = f"  files {sum(result.files.values())} ({kinds}) · {result.size / 1e6:.1f} MB"
    if result.scored is None:
        return "\n".join(
            [
                f"unchanged: {result.published.path} (same sealed inputs and generator: nothing re-rendered)",
                files,
                f"  time {sum(result.seconds.values()):.1f} s (every input file hashed against its seal, "
                "every published file against the sha256 its build record lists)",
            ]
        )
    report = result.scored.report
    state = (
        "published" if result.published.created else "unchanged (identical rebuild, verified byte for byte)"
    )
    runs = sum(b.run_count for b in report.benchmarks)
    scored = result.scored
    runs_line = (
        f"runs {runs} (scored {scored.scored}, reused from the run cache {scored.reused}; "
        f"pages rendered for {scored.rendered})"
    )
    times = ", ".join(f"{stage} {s:.1f} s" for stage, s in result.seconds.items())
    lines = [
        f"{state}: {result.published.path}",
        f"  benchmarks {len(report.benchmarks)} · {runs_line} · sealed folders {result.scored.folders} · "
        f"refusals 0 · inputs {report.inputs_digest[:12]}",
        files,
        f"  time {sum(result.seconds.values()):.1f} s ({times})",
    ]
    if result.blind is not None:
        lines.insert(1, f"  also published the blind version a reveal applies to: {result.blind.path}")
    if scored.reused and cache is not None:
        lines.append(
            f"  run cache: {cache} (yours, shared by every checkout and site you build; "
            "--no-cache re-derives every run)"
        )
    return "\n".join(lines)


AUDIT_DIFFERS = (
    EXIT_VERSION_CONFLICT,
    "with --site: the version differs from its re-derivation, or was built from other inputs",
)


@main.command("verify", epilog=exit_codes(SUCCESS, USAGE, REFUSED, INVALID, AUDIT_DIFFERS))
@runs_option
@click.option(
    "--site",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=None,
    help="A published site: re-derive one of its versions from --runs with no run cache, in a "
    "temporary folder, and compare every file of it byte for byte (the auditor's check).",
)
@click.option(
    "--version",
    "site_version",
    default=None,
    metavar="V",
    help="With --site: the version to re-derive [default: the latest the site published].",
)
@site_options
@scoring_options
def verify_cmd(
    runs: Path,
    site: Path | None,
    site_version: str | None,
    config_file: Path | None,
    site_name: str | None,
    base_url: str | None,
    description: str | None,
    logo: str | None,
    accent: str | None,
    jobs: int | None,
    cache_dir: Path | None,
    no_cache: bool,
    executor: str,
    scheduler: str | None,
    scheduler_timeout: float,
) -> None:
    """Check every seal and every file's content. Writes nothing.

    A run found in the run cache (same seal, benchmark and generator) was checked by this same
    generator before: its files are hashed against the seal, not parsed again. --no-cache parses all.

    With --site, a published version is re-derived from --runs as an auditor would: every run scored
    on this machine with no run cache, the version built again in a temporary folder on a copy of the
    versions published before it, with the site look given (--config, the site flags); each file that
    differs from the published one is named (exit 5). The site is not written to.
    """
    if site is not None:
        if executor == "dask":
            raise click.UsageError(
                "--site re-derives every run on this machine: --executor dask does not apply"
            )
        look = (site_name, base_url, description, logo, accent)
        audit_site(runs, site, site_version, config_file, look, jobs)
        return
    if any(
        value is not None
        for value in (site_version, config_file, site_name, base_url, description, logo, accent)
    ):
        raise click.UsageError("--version and the site look options apply only with --site")
    from generator.build import verify
    from generator.score.pool import collect_seldom

    click.get_current_context().call_on_close(collect_seldom())
    options = score_options(jobs, cache_dir, no_cache, executor, scheduler, scheduler_timeout)
    scored = verify(runs, options)
    report = scored.report
    click.echo(
        f"verified: {scored.folders} sealed folder{'' if scored.folders == 1 else 's'}, "
        f"{len(report.benchmarks)} benchmark{'' if len(report.benchmarks) == 1 else 's'}; "
        f"inputs {report.inputs_digest}"
    )


def audit_site(
    runs: Path,
    site: Path,
    version: str | None,
    config_file: Path | None,
    look: tuple[str | None, ...],
    jobs: int | None,
) -> None:
    """``verify --site``: the auditor's re-derivation of one published version (``generator.audit``)."""
    from generator.build import rederive
    from generator.inputs.siteconfig import load_site
    from generator.score.run import ScoreOptions
    from generator.score.workers import default_jobs

    flags = dict(zip(("name", "base_url", "description", "logo", "accent"), look, strict=True))
    options = ScoreOptions(jobs=jobs or default_jobs(), site=load_site(config_file, flags))
    audited = rederive(runs, site, version, options)
    click.echo(
        f"re-derived: {audited.version}: each of its {audited.files} files equals its re-derivation from "
        f"{runs} (every run scored again, no run cache)"
    )


@main.command("seal", epilog=exit_codes(SUCCESS, USAGE, REFUSED))
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
def seal_cmd(folder: Path) -> None:
    """Write FOLDER/SHA256SUMS for a producer that has none. Never changes an existing seal.

    Seal run folders first, then the benchmark folder: a subfolder with its own seal is skipped.
    """
    from generator.inputs.seal import write_seal

    seal = write_seal(folder)
    click.echo(f"sealed: {seal}")


@main.command(
    "compare",
    epilog=exit_codes(
        SUCCESS, (EXIT_USAGE, "usage error, not a store-v1 run folder"), REFUSED, INVALID, INCOMPARABLE
    ),
)
@click.argument("baseline", type=click.Path(path_type=Path))
@click.argument("candidate", type=click.Path(path_type=Path))
@click.option("--strict", is_flag=True, help="An axis recorded on neither side also blocks.")
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON.")
@click.option(
    "--scoring",
    type=click.Path(path_type=Path),
    default=None,
    help="A definitions scoring.json whose compare rules apply (default: the built-in ADR-032 rules).",
)
def compare_cmd(baseline: Path, candidate: Path, strict: bool, as_json: bool, scoring: Path | None) -> None:
    """Pair two AgentEval store-v1 runs by row id; exit 13 when they are incomparable."""
    from generator.canon import canonical_json
    from generator.families.definitions.compare import load_rules, run_compare, summary_text

    rules = load_rules(scoring)
    result = run_compare(baseline, candidate, strict, rules)
    if as_json:
        click.echo(canonical_json(result.model_dump(mode="json")), nl=False)
        if not result.comparable:
            raise SystemExit(Incomparable.exit_code)
        return
    if not result.comparable:
        raise Incomparable(summary_text(result, rules))
    click.echo(summary_text(result, rules))


@main.command("schema", epilog=exit_codes(SUCCESS, USAGE))
@click.argument("name", required=False)
def schema_cmd(name: str | None) -> None:
    """Print the JSON Schema of an input or output format (list the names, one per line, without NAME).

    The names are each family's formats (<family>-<format>, e.g. points-scoring) and the outputs'
    (report, build-record, versions)."""
    from generator.schemas import SCHEMAS, schema_json

    if name is None:
        click.echo("\n".join(sorted(SCHEMAS)))
        return
    if name not in SCHEMAS:
        raise click.BadParameter(f"{name!r} is not one of: {', '.join(sorted(SCHEMAS))}", param_hint="NAME")
    click.echo(schema_json(name), nl=False)


def _read_rubric(path: Path) -> Explained:
    """A contract or scoring specification read and explained, or every problem raised (exit 3/4)."""
    from generator.errors import ProblemReport
    from generator.families.rubric import read

    explained = read(path)
    if explained.value is None:
        raise ProblemReport(explained.problems)
    return explained.value


@main.group("rubric")
def rubric_group() -> None:
    """Read a rubric contract or a scoring specification (scoring.json) on its own."""


RUBRIC_REFUSED = (EXIT_REFUSED, "input refused: not a regular file (a link, a device, a folder)")


@rubric_group.command("explain", epilog=exit_codes(SUCCESS, USAGE, RUBRIC_REFUSED, INVALID))
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
def rubric_explain_cmd(path: Path) -> None:
    """Print PATH's rules in plain words, where they come from, and its sha256."""
    explained = _read_rubric(path)
    click.echo(f"{printable(explained.file)}: {explained.family} rubric, sha256 {explained.sha256}")
    click.echo(f"Rules from {printable(explained.source)}:")
    for line in explained.rules:
        click.echo(f"- {printable(line)}")


@rubric_group.command("check", epilog=exit_codes(SUCCESS, USAGE, RUBRIC_REFUSED, INVALID))
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
def rubric_check_cmd(path: Path) -> None:
    """Validate PATH and list every problem (exit 4), or say it is valid (exit 0)."""
    explained = _read_rubric(path)
    click.echo(f"{printable(explained.file)}: valid {explained.family} rubric (sha256 {explained.sha256})")


# --- benchsite import -------------------------------------------------------------------------------

IMPORT_CODES = exit_codes(
    SUCCESS,
    (EXIT_USAGE, "usage error, or the folder to import into already exists"),
    (EXIT_INVALID, "invalid content: a corrupt, truncated, unfinished or unknown-version producer file"),
)


def import_options(command: Callable[..., None]) -> Callable[..., None]:
    """--into, --title, --blind and --key: where and how an import is written, never a figure."""
    command = click.option(
        "--key",
        "key_file",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        help="With --blind: a new file (outside the inputs root) to write each label's model name to, "
        "for the reveal once the blind scores are published.",
    )(command)
    command = click.option(
        "--blind",
        is_flag=True,
        help="Publish the models under opaque labels (m-1, m-2…); their names go to --key only.",
    )(command)
    command = click.option("--title", default=None, help="The benchmark's title [default: its tasks].")(
        command
    )
    command = click.option(
        "--family",
        type=click.Choice(["trials"]),
        default="trials",
        show_default=True,
        help="The rubric family the samples are scored in (docs/importers.md).",
    )(command)
    return click.option(
        "--into",
        type=click.Path(file_okay=False, path_type=Path),
        required=True,
        help="The new benchmark folder, e.g. runs/my-eval: it must not exist.",
    )(command)


@main.group("import")
def import_group() -> None:
    """Write a new sealed benchmark folder from another tool's result files (docs/importers.md)."""


def _import(
    read: Callable[[], Imported], into: Path, title: str | None, blind: bool, key_file: Path | None
) -> None:
    """Check the options, read the producer's files, write the folder, say what was written."""
    from generator.errors import OutputError
    from generator.importers.write import Options, write

    if blind and key_file is None:
        raise click.UsageError("--blind needs --key FILE: the label → model names, kept for the reveal")
    if key_file is not None and not blind:
        raise click.UsageError("--key applies only with --blind")
    if key_file is not None and key_file.exists():
        raise click.UsageError(f"{key_file}: already exists; --key writes a new file")
    from generator.publish.blind_scan import find_revealed

    imported = read()
    written = write(imported, into, Options(title=title, blind=blind, blind_scan=find_revealed), str(into))
    if key_file is not None:
        from generator.importers.write import pretty

        key = pretty({"schema_version": 1, "providers": dict(sorted(written.labels.items()))})
        try:  # a new file only its owner reads: it names every blind model
            with os.fdopen(os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as out:
                out.write(key)
        except OSError as exc:
            message = f"{key_file}: cannot write the labels: {exc.strerror}; {into} was written, blind"
            raise OutputError(message) from None
    runs, models = len(written.runs), len(written.labels)
    what = f"{runs} run{'' if runs == 1 else 's'} of {models} model{'' if models == 1 else 's'}"
    click.echo(
        f"imported: {printable(str(written.folder))} — {what}, {written.planned} planned trials, sealed; "
        "publish with: benchsite build"
    )
    for left_out in imported.left_out:
        click.echo(f"left out: {printable(left_out)}")
    if key_file is not None:
        click.echo(
            f"labels → models: {printable(str(key_file))} (keep it out of the inputs until the reveal)"
        )


@import_group.command("inspect", epilog=IMPORT_CODES)
@click.argument("logs", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@import_options
@click.option(
    "--scorer",
    default=None,
    help="The scorer whose value decides success, or NAME:KEY for one key of a scorer whose value is"
    " a dict [default: every scorer, each key of a dict one].",
)
@click.option(
    "--threshold",
    default=None,
    metavar="NUMBER",
    help="A numeric score at or above this is a pass (needed when a scorer gives numbers).",
)
@click.option(
    "--allow-unfinished", is_flag=True, help="Import a log still 'started' or 'cancelled', disclosed."
)
def import_inspect_cmd(
    logs: tuple[Path, ...],
    into: Path,
    family: str,
    title: str | None,
    blind: bool,
    key_file: Path | None,
    scorer: str | None,
    threshold: str | None,
    allow_unfinished: bool,
) -> None:
    """inspect_ai logs (.eval or .json files, or folders of them): one run per log."""
    from generator.importers import inspect_log

    limit = _threshold(threshold)

    def read() -> Imported:
        return inspect_log.read(logs, scorer=scorer, threshold=limit, allow_unfinished=allow_unfinished)

    _import(read, into, title, blind, key_file)


@import_group.command("lm-eval", epilog=IMPORT_CODES)
@click.argument("results_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@import_options
@click.option(
    "--metric",
    "metrics",
    multiple=True,
    metavar="[TASK=]METRIC",
    help="The metric that decides success, for every task or for TASK (repeatable) "
    "[default: each task's first per-sample metric].",
)
@click.option(
    "--threshold", default=None, metavar="NUMBER", help="A metric value at or above this is a pass."
)
def import_lm_eval_cmd(
    results_dir: Path,
    into: Path,
    family: str,
    title: str | None,
    blind: bool,
    key_file: Path | None,
    metrics: tuple[str, ...],
    threshold: str | None,
) -> None:
    """lm-evaluation-harness output written with --output_path … --log_samples."""
    from generator.importers import lm_eval_results

    limit = _threshold(threshold)
    every = [metric for metric in metrics if "=" not in metric]
    if len(every) > 1:
        raise click.UsageError(f"--metric {every[1]}: one metric for every task at most (or TASK=METRIC)")
    by_task = dict(metric.partition("=")[::2] for metric in metrics if "=" in metric)

    def read() -> Imported:
        return lm_eval_results.read(
            results_dir, metric=every[0] if every else None, task_metrics=by_task, threshold=limit
        )

    _import(read, into, title, blind, key_file)


@import_group.command("eee", epilog=IMPORT_CODES)
@click.argument(
    "aggregates", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path)
)
@click.option(
    "--instances",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Each aggregate's instance-level records (JSON Lines), in the aggregates' order, one file each; "
    "without them nothing can be derived.",
)
@import_options
def import_eee_cmd(
    aggregates: tuple[Path, ...],
    instances: tuple[Path, ...],
    into: Path,
    family: str,
    title: str | None,
    blind: bool,
    key_file: Path | None,
) -> None:
    """Every Eval Ever aggregate records, each with its instance-level records (one model each)."""
    from generator.importers import eee

    if instances and len(instances) != len(aggregates):
        raise click.UsageError(
            f"{len(aggregates)} aggregate(s) and {len(instances)} --instances file(s): give one --instances "
            "per aggregate, in the same order"
        )
    pairs = [(aggregate, instances[i : i + 1]) for i, aggregate in enumerate(aggregates)]

    def read() -> Imported:
        return eee.read_many(pairs)

    _import(read, into, title, blind, key_file)


def _threshold(text: str | None) -> Decimal | None:
    """--threshold as an exact decimal (never a float)."""
    from decimal import Decimal, InvalidOperation

    if text is None:
        return None
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise click.BadParameter(f"{text!r} is not a number", param_hint="--threshold") from None
    if not value.is_finite():
        raise click.BadParameter(f"{text!r} is not a finite number", param_hint="--threshold")
    return value
