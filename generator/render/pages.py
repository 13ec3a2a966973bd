"""Render: the report model → page bytes, in memory. Templates display; they never compute.

One Jinja environment for HTML (autoescape, StrictUndefined) and one for Markdown (no
autoescape, an explicit table-cell escape). Markdown prose is turned into HTML in one place,
with raw HTML off. Every link goes through ``url()`` so pages work from ``file://`` and under
any sub-path.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import importlib
import io
import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, Protocol

from jinja2 import BytecodeCache, Environment, FileSystemLoader, StrictUndefined, pass_context
from jinja2.bccache import Bucket
from jinja2.runtime import Context
from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.renderer import RendererHTML, RendererProtocol
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from markupsafe import Markup, escape
from pydantic import BaseModel

from generator import __version__
from generator.canon import canonical_json
from generator.families.base import RunView
from generator.families.registry import FAMILIES
from generator.families.rows import RowWriter, breakable, html_rows
from generator.figures.model import producer_file_path
from generator.figures.numbers import fmt_band, fmt_bp, fmt_number, fmt_p
from generator.figures.ranking import Comparison, Ranking
from generator.figures.units import (
    basis_points,
    difference,
    duration_ms,
    mean_score,
    percent,
    percent_of,
    percent_range,
    plain_method,
    points,
    usd_micros,
)
from generator.inputs.files import SealedFile, Stored
from generator.inputs.identity import generator_digest, templates_dir
from generator.inputs.siteconfig import DEFAULT_ACCENT, SiteLook
from generator.progress import SILENT, Progress
from generator.render.charts import forest, forest_rows, grid, grid_rows, trend
from generator.render.home import version_row
from generator.render.single import ON_PAGE, Anchors, standalone
from generator.render.syndication import FeedEntry
from generator.report.history import NO_HISTORY, History
from generator.report.model import BenchmarkReport, BuildRecord, BuiltBenchmark, SiteReport
from generator.score.cache import Pages as RunPages
from generator.score.cache import RunCache

if TYPE_CHECKING:
    from pathlib import Path

    from generator.score.details import RunFiles

_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|~])")
_BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
WORD_JOINER = "\u2060"
_GITHUB_LIVE = re.compile(
    r"(?<=:)(?=//)"  # a URL scheme's "://"
    r"|(?<=:)(?=[\w+-]+:)"  # an emoji shortcode, :rocket:
    r"|(?<=@)(?=\w)"  # a mention, @user or @org/team, and an e-mail address
    r"|(?<=#)(?=\d)"  # an issue or pull-request reference, #1 or owner/repo#1
    r"|(?i:(?<=\bgh-)(?=\d))"  # the other spelling of a reference, GH-1
    r"|(?i:(?<=www)(?=\.))"  # a www. autolink
)


def md_cell(value: object) -> str:
    """Escape text for a GitHub-flavoured Markdown table cell: inert, one line.

    Markdown syntax is backslash-escaped and ``&`` written as an entity. What GitHub makes live
    beyond Markdown is broken by an invisible word joiner (U+2060) at the place its pattern needs
    two characters side by side: after the ``:`` of ``://`` and of an ``:emoji:``, after ``@``
    (mentions, e-mail autolinks), after ``#`` or ``GH-`` before a digit (references), between
    ``www`` and ``.``. ``$`` (maths) becomes the entity ``&#36;``, which is never a delimiter.
    Bidirectional controls are removed. The reader sees the same text."""
    text = _BIDI.sub("", " ".join(str(value).split()))
    text = _MD_SPECIAL.sub(r"\\\1", _GITHUB_LIVE.sub(WORD_JOINER, text))
    return text.replace("&", "&amp;").replace("$", "&#36;")


LINE = 80
"""Columns of a Markdown line: markdownlint's default (MD013), so release notes lint clean as written."""
_OPENS_BLOCK = re.compile(r"^(?:[-+*>#=]|\d+[.)])")


def md_wrap(text: str, indent: str = "", first: int = 0) -> str:
    """Markdown prose (already escaped) broken into lines of at most ``LINE`` columns at spaces, each
    continuation indented by ``indent`` (a list item's). ``first`` columns are taken on the first
    line already (a list marker, a label). A word that would open a block at a line start (a list
    marker, a quote, a heading) takes the word before it along to the next line, so wrapping never
    changes the structure; a word longer than a line is kept whole."""
    lines: list[list[str]] = [[]]
    room = LINE - first
    for word in text.split():
        line = lines[-1]
        if line and len(" ".join([*line, word])) > room:
            carried = [line.pop()] if _OPENS_BLOCK.match(word) and len(line) > 1 else []
            lines.append([*carried, word])
            room = LINE - len(indent)
        else:
            line.append(word)
    return f"\n{indent}".join(" ".join(line) for line in lines)


def md_item(text: str) -> str:
    """A Markdown list item of escaped text, wrapped like :func:`md_wrap`."""
    return "- " + md_wrap(text, "  ", 2)


def _image_as_text(
    renderer: RendererProtocol, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    """An image in input text is shown as its alt text, escaped: no page ever fetches or embeds a
    picture named by an input (an external URL would be a request, ``data:`` an embedded image)."""
    assert isinstance(renderer, RendererHTML)  # the only renderer md_html uses
    return escapeHtml(renderer.renderInlineAsText(tokens[idx].children, options, env))


def _link_open(
    renderer: RendererProtocol, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    """A link in input text, led where the partial's anchors lead it (``env["link"]``, from
    :func:`md_html`; none: as written), or its text alone where it leads nowhere."""
    assert isinstance(renderer, RendererHTML)  # the only renderer md_html uses
    link = env.get("link")
    if link is None:
        return renderer.renderToken(tokens, idx, options, env)
    token = tokens[idx]
    target = link(str(token.attrGet("href")))
    env["closing"].append("</span>" if target is None else "</a>")
    if target is None:
        return '<span class="ref">'
    token.attrSet("href", target)
    return renderer.renderToken(tokens, idx, options, env)


def _link_close(
    renderer: RendererProtocol, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    """The end of what :func:`_link_open` opened."""
    assert isinstance(renderer, RendererHTML)  # the only renderer md_html uses
    if env.get("link") is None:
        return renderer.renderToken(tokens, idx, options, env)
    closing: str = env["closing"].pop()
    return closing


@cache
def _markdown() -> MarkdownIt:
    markdown = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    markdown.add_render_rule("image", _image_as_text)
    markdown.add_render_rule("link_open", _link_open)
    markdown.add_render_rule("link_close", _link_close)
    return markdown


def md_html(text: str, anchors: Anchors = ON_PAGE, page: str = "") -> Markup:
    """The only place text becomes safe HTML: markdown-it-py, raw HTML disabled. Its links lead
    where ``anchors`` lead a link written on ``page``."""
    if anchors == ON_PAGE:
        return Markup(_markdown().render(text))
    env = {"link": lambda href: anchors.link(page, href), "closing": []}
    return Markup(_markdown().render(text, env))


@pass_context
def _md(context: Context, text: str) -> Markup:
    """The ``md`` filter: input Markdown on the page being rendered, its links led by its ``anchors``."""
    return md_html(text, context["anchors"], context["page_path"])


@pass_context
def _url(context: Context, target: str) -> str:
    folder, _, name = target.rpartition("/")
    there = _relative_folder(folder, posixpath.dirname(context["page_path"]))
    return name if there == "." else f"{there}/{name}"


@cache
def _relative_folder(folder: str, here: str) -> str:
    """``posixpath.relpath`` of a folder from another, once per pair: a leaderboard page links
    thousands of run pages, all in one folder."""
    return posixpath.relpath(folder or ".", here or ".")


def _gap(comparison: Comparison, ranking: Ranking, value: float | None) -> str:
    """``value`` (a comparison's difference or smallest detectable difference) in the precision of the
    two figures it compares: that of the larger n of the two rows."""
    pair = {comparison.higher, comparison.lower}
    count = max((row.denominator for row in ranking.rows if row.subject in pair), default=0)
    return difference(value, ranking.kind, count)


@pass_context
def _anchor(context: Context, name: str) -> str:
    """The id a partial writes for ``name``, as its ``anchors`` have it (``single.Anchors.id``)."""
    anchors: Anchors = context["anchors"]
    return anchors.id(name)


@pass_context
def _href(context: Context, target: str, fragment: str | None = None, local: bool = False) -> str | None:
    """Where the ``a`` macro of ``_blocks.html`` links ``target`` (a path in the version) at
    ``fragment``, or this page's ``fragment`` (``local``); None: nowhere, the text is shown plain."""
    href = "" if local else _url(context, target)
    if fragment:
        href += "#" + fragment
    anchors: Anchors = context["anchors"]
    return anchors.link(context["page_path"], href)


def _linked(to: str | None, text: Markup, download: str | None = None) -> Markup:
    """The ``a`` and ``download`` macros of ``_blocks.html``: ``text`` linked to ``to``, or plain when
    ``to`` is None; ``download``: the name a browser saves the file under."""
    if to is None:
        return Markup(f'<span class="ref">{text}</span>')
    saved = "" if download is None else f' download="{escape(download)}"'
    return Markup(f'<a href="{escape(to)}"{saved}>{text}</a>')


@pass_context
def _link(context: Context, target: str, text: object) -> Markup:
    """``{% call b.a(target) %}{{ text }}{% endcall %}`` without a call block, for the tables
    that link every run (a call block per link costs a macro, a caller and a join)."""
    return _linked(_href(context, target), escape(text))


CHANGES_PARTIALS = tuple(f"{name}/_changes" for name, family in FAMILIES.items() if family.changes_model)
"""The partials (``.html`` for the versions page, ``.md`` for release notes) that show what moved in
a family's own section between versions: one per family with a ``changes_model``."""


def _row_writers() -> dict[str, RowWriter]:
    """Each family's run rows written in Python (``Family.row_writer``), as ``<family>_rows``."""
    writers = {}
    for name, family in FAMILIES.items():
        if family.row_writer:
            module, _, function = family.row_writer.partition(":")
            writers[f"{name}_rows"] = getattr(importlib.import_module(module), function)
    return writers


def _environment(autoescape: bool) -> Environment:
    env = Environment(
        loader=FileSystemLoader(templates_dir()),
        autoescape=autoescape,
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(num=fmt_number, bp=fmt_bp, p=fmt_p, md_cell=md_cell, md=_md, wrap=md_wrap)
    env.filters.update(
        share=percent, pts=points, bp_floor=basis_points, dur=duration_ms, usd=usd_micros, method=plain_method
    )
    env.filters["pct"] = lambda r, digits=None: percent_of(r.numerator, r.denominator, digits)
    env.filters["bounds"] = lambda r: percent_range(r.interval.low, r.interval.high, r.denominator)
    env.filters["range_of"] = lambda interval, n: percent_range(interval.low, interval.high, n)
    env.filters["band"] = lambda s: fmt_band(s.rank_best, s.rank_worst)
    env.filters["gap"] = _gap
    env.globals.update(
        url=_url,
        forest=forest,
        forest_rows=forest_rows,
        grid=grid,
        grid_rows=grid_rows,
        trend=trend,
        para=md_wrap,
        item=md_item,
    )
    env.globals.update(anchors=ON_PAGE, anchor=_anchor, href=_href, standalone=standalone)
    env.filters["mean"] = mean_score
    env.globals["changes_partials"] = CHANGES_PARTIALS
    env.globals.update(_row_writers())
    return env


class SignedBytecode(BytecodeCache):
    """Jinja2's compiled templates kept in the run cache (``cache.RunCache.store_blob``), so a new
    process loads rather than compiles them: about a second of a small build. Bytecode is code, so an
    entry is loaded only when its MAC under the user's key holds (an entry that fails is deleted and
    the template compiled again). Keyed by the dialect (its environment's options shape the code),
    the template's name and source, and the generator's digest; Jinja2 itself checks that the
    bytecode is of this Jinja2 and this Python."""

    def __init__(self, cache: RunCache, dialect: str) -> None:
        self.cache = cache
        self.dialect = dialect

    def _key(self, bucket: Bucket) -> str:
        text = f"{self.dialect}\n{bucket.key}\n{bucket.checksum}\n{generator_digest()}\n"
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def load_bytecode(self, bucket: Bucket) -> None:
        data = self.cache.load_blob("templates", self._key(bucket))
        if data is not None:
            bucket.bytecode_from_string(data)

    def dump_bytecode(self, bucket: Bucket) -> None:
        self.cache.store_blob("templates", self._key(bucket), bucket.bytecode_to_string())


def keep_compiled_templates(cache: RunCache) -> None:
    """Compile templates through ``cache`` (none: compile them here, keep nothing). The environments
    are made once per process; a build names the cache it uses before it renders (a forked worker
    inherits it), so a ``--no-cache`` build reads and keeps no template either."""
    kept = cache.folder is not None
    html_env().bytecode_cache = SignedBytecode(cache, "html") if kept else None
    markdown_env().bytecode_cache = SignedBytecode(cache, "markdown") if kept else None


BLOCKS = "_blocks.html"
"""The HTML dialect of the block vocabulary that every page written once (``*.jinja``) imports."""


@cache
def html_env() -> Environment:
    env = _environment(autoescape=True)
    env.filters["breakable"] = breakable
    env.globals.update(blocks=BLOCKS, page_suffix=".html", html_rows=html_rows, link=_link, linked=_linked)
    return env


@cache
def markdown_env() -> Environment:
    env = _environment(autoescape=False)
    env.filters["breakable"] = _as_written
    return env


def _as_written(value: object) -> object:
    """The Markdown outputs' ``breakable``: the value as it is (``<wbr>`` is HTML; a Markdown line
    breaks where its reader's renderer breaks it)."""
    return value


DEFAULT_LOOK = SiteLook()


@cache
def _css(accent: str = DEFAULT_ACCENT) -> tuple[Markup, str]:
    """The stylesheet, inlined, and its CSP hash. It is our own file, never input text; the accent
    is a colour ``siteconfig`` checked (#rgb or #rrggbb)."""
    css = (templates_dir() / "_site.css").read_text(encoding="utf-8")
    if accent != DEFAULT_ACCENT:
        css = f":root {{ --accent: {accent}; }}\n{css}"
    digest = base64.b64encode(hashlib.sha256(css.encode("utf-8")).digest()).decode("ascii")
    return Markup(css), f"'sha256-{digest}'"  # a packaged asset, never input text


def svg_file(svg: Markup) -> bytes:
    """An inline chart as a file of its own (the mkdocs export's charts, the badges): the site
    stylesheet's chart rules and colours go inside it, since no page's stylesheet reaches it."""
    css = str(_css()[0])
    rules = [line for line in css.splitlines() if line.startswith((":root", "svg.chart"))]
    style = "<style>" + " ".join(rules).replace("svg.chart", "svg") + "</style>"
    head, sep, rest = str(svg).partition(">")
    return ('<?xml version="1.0" encoding="UTF-8"?>\n' + head + sep + style + rest + "\n").encode("utf-8")


def bench_dir(bench: BenchmarkReport) -> str:
    return f"b/{bench.id}"


class Sink(Protocol):
    """Where rendered files go: the writer's staging folder (or a dict in tests)."""

    def add(self, path: str, data: bytes) -> None: ...

    def add_stored(self, path: str, stored: Stored) -> None:
        """A file whose bytes are known by their sha256 (``write.Staging`` may link an equal file)."""
        ...


class DetailSource(Protocol):
    """Per-run detail JSON spooled by the score stage, read back one run at a time."""

    def get(self, bench: str, run: str) -> bytes: ...


class RunSource(DetailSource, Protocol):
    """Also each run's files: its rows and the pages rendered while it was scored, and where each row
    of a paged run is."""

    def run_files(self, bench: str, run: str) -> RunFiles:
        """A run's rows and pages as the version gets them: bytes, or a file the run cache keeps."""
        ...


class Pages:
    """Renders pages into a sink, one at a time, so no site is ever held whole in memory."""

    def __init__(self, sink: Sink) -> None:
        self.sink = sink
        self.digests: dict[str, str] = {}
        """The sha256 of every file added so far, by path: the build record lists them."""

    def add(self, path: str, data: bytes) -> None:
        self.sink.add(path, data)
        self.digests[path] = hashlib.sha256(data).hexdigest()

    def add_file(self, path: str, file: bytes | Stored) -> None:
        """Bytes, or a stored file whose sha256 the sink checks when it takes it (not hashed again)."""
        if isinstance(file, bytes):
            self.add(path, file)
        else:
            self.sink.add_stored(path, file)
            self.digests[path] = file.sha256

    def html(self, path: str, template: str, **context: Any) -> str:
        page = render_html(path, template, **context)
        self.add(path, page.encode("utf-8"))
        return page


def render_html(path: str, template: str, look: SiteLook = DEFAULT_LOOK, **context: Any) -> str:
    """One HTML page as text, addressed as ``path`` (its links are relative to it)."""
    css, css_hash = _css(look.accent)
    env = html_env()
    return env.get_template(template).render(page_path=path, css=css, css_hash=css_hash, look=look, **context)


REPORT_RUNS = 200
"""Runs listed per benchmark in the single-file report; the rest are counted, and listed on the
benchmark's leaderboard page. Leaderboard figures are never cut. The report renders each
benchmark's leaderboard and disclosures from the model, with the partials their pages render
(``<family>/_leaderboard.html``, ``_disclosures.jinja``), under the anchors of
:func:`single.standalone`."""


def render_site(
    report: SiteReport,
    details: RunSource,
    sink: Sink,
    progress: Progress = SILENT,
    look: SiteLook = DEFAULT_LOOK,
    history: History = NO_HISTORY,
    inputs: Path | None = None,
) -> None:
    """Every file of ``site/<version>/``, into the sink; ``history`` is what the site published before;
    ``inputs``: the inputs root, where the producers' own files a section publishes are (none without it)."""
    pages = Pages(sink)
    site: dict[str, Any] = {"report": report, "look": look, "history": history, "changes": history.changes}
    online = None if look.base_url is None else f"{look.base_url}{report.site_version}/"
    pages.html("index.html", "index.html", **site)
    progress.start("rendering run pages", sum(len(b.section.runs) for b in report.benchmarks))
    parts: list[tuple[BenchmarkReport, dict[tuple[str, str], str]]] = []
    for bench in report.benchmarks:
        base = bench_dir(bench)
        family = bench.family
        ctx: dict[str, Any] = {**site, "bench": bench, "base": base}
        pages.html(f"{base}/index.html", f"{family}/leaderboard.html", run_limit=None, **ctx)
        pages.html(f"{base}/methodology.html", f"{family}/methodology.html", **ctx)
        located: dict[tuple[str, str], str] = {}
        for summary in bench.section.runs:
            files = details.run_files(bench.id, summary.id)
            pages.add_file(f"data/runs/{bench.id}/{summary.id}.json", files.rows)
            for path, data in files.pages:
                pages.add_file(path, data)
            located.update(((summary.id, row_id), path) for row_id, path in files.located.items())
            progress.advance()
        for path, stored in () if inputs is None else attachments(bench, inputs):
            pages.add_file(f"{base}/{path}", stored)
        pages.html(f"{base}/disclosures.html", "disclosures.html", located=located, **ctx)
        parts.append((bench, located))
        dumped = bench.model_dump(mode="json", by_alias=True)
        pages.add(f"data/benchmarks/{bench.id}.json", canonical_json(dumped).encode("utf-8"))
        for ranking in bench.rankings:
            pages.add(f"data/csv/{bench.id}/{ranking.id}.csv", ranking_csv(bench, ranking))
        scores = bench.section.frozen_scores()
        if scores is not None:
            pages.add(f"data/scores/{bench.id}.json", scores)
    report_page = {"parts": parts, "online": online, "run_limit": REPORT_RUNS}
    pages.html("report.html", "report.html", **report_page, **site)
    notes = markdown_env().get_template("release-notes.md").render(page_path="release-notes.md", **site)
    pages.add("release-notes.md", notes.encode("utf-8"))
    pages.add("data/site.json", canonical_json(report.model_dump(mode="json", by_alias=True)).encode("utf-8"))
    pages.add("data/build.json", build_record(report, pages.digests))  # last: it lists every other file
    progress.finish()


def attachments(bench: BenchmarkReport, inputs: Path) -> list[tuple[str, SealedFile]]:
    """The producers' own files a section publishes beside its runs: (path under the benchmark's
    folder, an inert name the site chooses: :func:`producer_file_path`; the file in its sealed run
    folder, found by seal digest, checked against its sha256 when it is written)."""
    folders = {sealed.digest: sealed.path for sealed in bench.inputs}
    runs = {run.id: run.digest for run in bench.section.runs}
    published: dict[str, SealedFile] = {}
    for run_id, name, sha256, size in bench.section.attachments():
        path = f"runs/{run_id}/{producer_file_path(name, sha256)}"
        # the same bytes pinned twice in a run are published once
        published[path] = SealedFile(str(inputs / folders[runs[run_id]] / name), sha256, size)
    return list(published.items())


def render_run(family: str, view: RunView, run_id: str, run: BaseModel) -> RunPages:
    """A run's pages from the run and what its benchmark's sealed folder decides (``view``), never
    from the report: the pages are the same in every version where the run, the benchmark and the
    generator are unchanged (they name the run's seal, not the version)."""
    look = view.site
    css, css_hash = _css(look.accent)
    base = f"b/{view.id}"
    template = html_env().get_template(f"{family}/run.html")
    generator = f"benchsite {__version__}"
    rendered = []
    located: dict[str, str] = {}
    for path, part, pager in run_pages(base, run_id, run):
        page = template.render(
            page_path=path,
            css=css,
            css_hash=css_hash,
            run=part,
            pager=pager,
            bench=view,
            base=base,
            generator=generator,
            look=look,
        )
        rendered.append((path, page.encode("utf-8")))
        if pager is not None:
            located.update(dict.fromkeys(pager.row_ids, path))
    return RunPages(rendered, located)


PAGE_ROWS = 1000
"""Rows per run page: a run with more is split into pages, so no page grows without bound."""


@dataclass(frozen=True)
class Pager:
    """Where one page of a long run sits among its pages."""

    page: int
    paths: tuple[str, ...]
    first: int
    last: int
    total: int
    row_ids: tuple[str, ...]


def run_pages(base: str, run_id: str, run: BaseModel) -> list[tuple[str, BaseModel, Pager | None]]:
    """One run's pages: the whole run on one page, or ``PAGE_ROWS`` rows a page (page 1 keeps the
    run's address; page n is ``runs/<run>/page-n.html``)."""
    field = getattr(type(run), "rows_field", None)  # each family's run detail model names it
    if not isinstance(field, str):
        raise TypeError(f"{type(run).__name__} does not name its rows field (rows_field)")
    rows = getattr(run, field)
    first = f"{base}/runs/{run_id}.html"
    if len(rows) <= PAGE_ROWS:
        return [(first, run, None)]
    count = -(-len(rows) // PAGE_ROWS)
    paths = (first, *(f"{base}/runs/{run_id}/page-{n}.html" for n in range(2, count + 1)))
    result: list[tuple[str, BaseModel, Pager | None]] = []
    for n, path in enumerate(paths, start=1):
        chunk = rows[(n - 1) * PAGE_ROWS : n * PAGE_ROWS]
        key = next(iter(type(chunk[0]).model_fields))  # every row model names its id first
        ids = tuple(str(getattr(row, key)) for row in chunk)
        pager = Pager(n, paths, (n - 1) * PAGE_ROWS + 1, (n - 1) * PAGE_ROWS + len(chunk), len(rows), ids)
        result.append((path, run.model_copy(update={field: chunk}), pager))
    return result


CSV_COLUMNS = (
    "benchmark",
    "ranking",
    "rank_best",
    "rank_worst",
    "subject",
    "estimate",
    "numerator",
    "denominator",
    "sd",
    "ci_low",
    "ci_high",
    "ci_method",
)


def _csv_text(value: str) -> str:
    """Text cells that a spreadsheet would run as a formula get a leading apostrophe (OWASP)."""
    return "'" + value if value[:1] in ("=", "+", "-", "@", "\t", "\r") else value


def _csv_number(value: float | int | None) -> str:
    """The JSON spelling of a number (shortest round trip), empty when missing."""
    return "" if value is None else repr(value)


def ranking_csv(bench: BenchmarkReport, ranking: Ranking) -> bytes:
    """One leaderboard as CSV (RFC 4180, UTF-8, LF): every value equals its JSON counterpart."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for s in ranking.rows:
        ci = s.interval
        writer.writerow(
            [
                bench.id,
                ranking.id,
                _csv_number(s.rank_best),
                _csv_number(s.rank_worst),
                _csv_text(s.subject),
                _csv_number(s.estimate),
                _csv_number(s.numerator),
                s.denominator,
                _csv_number(s.sd),
                _csv_number(ci.low if ci else None),
                _csv_number(ci.high if ci else None),
                ci.method if ci else "",
            ]
        )
    return buffer.getvalue().encode("utf-8")


def build_record(report: SiteReport, files: dict[str, str]) -> bytes:
    """What identifies a version: generator, inputs digest, the sealed folders it read, and the sha256
    of every other file of the version (a no-op rebuild checks the published bytes against them)."""
    record = BuildRecord(
        site_version=report.site_version,
        generator=report.generator,
        generator_digest=generator_digest(),
        inputs_digest=report.inputs_digest,
        benchmarks=tuple(
            BuiltBenchmark(
                id=b.id,
                title=b.title,
                family=b.family,
                status=b.disclosures.status,
                headline=b.headline.sentence,
            )
            for b in report.benchmarks
        ),
        files=dict(sorted(files.items())),
    )
    return canonical_json(record.model_dump(mode="json")).encode("utf-8")


def render_not_found(look: SiteLook = DEFAULT_LOOK) -> bytes:
    """``site/404.html``: for static hosts that serve it on a missing page. With a base URL its
    links are absolute: a host serves it at whatever address was missing."""
    return render_html("404.html", "404.html", look=look).encode("utf-8")


def render_index(versions: list[dict[str, Any]], latest: str | None, look: SiteLook) -> dict[str, bytes]:
    """The site-level pages: ``404.html`` and ``index.html`` (``write.IndexPages``)."""
    return {"404.html": render_not_found(look), "index.html": render_versions(versions, latest, look)}


def render_versions(
    versions: list[dict[str, Any]], latest: str | None, look: SiteLook = DEFAULT_LOOK
) -> bytes:
    """``site/index.html``: who leads in the latest version and what changed in it, then one row per
    published version, newest build first as given (``home.version_row``)."""
    rows = [version_row(entry) for entry in versions]
    page = render_html("index.html", "versions.html", look=look, rows=rows, latest=latest)
    return page.encode("utf-8")


def render_sitemap(look: SiteLook, urls: list[str]) -> bytes:
    """``site/sitemap.xml`` (with a base URL): every page of every published version."""
    return html_env().get_template("sitemap.xml").render(urls=urls).encode("utf-8")


def render_feed(look: SiteLook, entries: list[FeedEntry]) -> bytes:
    """``site/feed.xml`` (with a base URL): an Atom entry per published version, newest first."""
    updated = max((e.updated for e in entries), default="1970-01-01T00:00:00Z")
    page = html_env().get_template("feed.xml").render(look=look, entries=entries, updated=updated)
    return page.encode("utf-8")
