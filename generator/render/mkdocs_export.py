"""mkdocs export: the report model → Markdown pages and a ``nav:`` snippet for an existing mkdocs site.

The pages go into one folder of the user's ``docs_dir`` (``prefix``, e.g. ``results``); every link
between them is a relative ``.md`` link that mkdocs resolves and checks. mkdocs stays optional:
this module only writes text and never imports it.

mkdocs renders with Python-Markdown, which passes raw HTML through and does not read ``\\<`` as an
escape, so ``md_cell`` of the Markdown environment is not enough here. A private overlay of that
environment applies :func:`inert` to every ``{{ … }}`` whose value is not already :class:`Inert`
(Jinja's ``finalize``), so no template can forget to escape, and the release notes' partials (the
rankings of ``_notes_board.md``, each family's ``<family>/_notes.md``) are reused unchanged: one
source for both. Their paragraphs and list items (``para``, ``item``) are Markdown the template
spells around values each made inert by ``md_cell``. A span the input marks as code (between
backticks) stays a code span when it holds only characters both dialects show literally in one.

Layout of the export (``nav.yml`` lists every page under ``prefix``)::

    index.md                      every benchmark: title, id, family, status, runs
    <bench>/index.md              description, headline, charts, leaderboard tables, neighbour tests, runs
    <bench>/chart-<ranking>.svg   each ranking's forest plot, as on the HTML leaderboard
    <bench>/methodology.md
    <bench>/disclosures.md
    <bench>/runs/<run>.md         one run's rows, with the figures of its HTML page
    nav.yml
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import quote

import yaml  # type: ignore[import-untyped]
from jinja2 import Environment, pass_context
from jinja2.runtime import Context
from markupsafe import Markup

from generator.errors import OutputError
from generator.families.base import RunStatus, RunView
from generator.families.registry import FAMILIES
from generator.families.rows import RowWriter
from generator.render.charts import forest
from generator.render.pages import DetailSource, Sink, attachments, markdown_env, md_item, md_wrap, svg_file
from generator.report.model import BenchmarkReport, SiteReport

NAV_FILE = "nav.yml"
NAV_TITLE = "Benchmark results"
_TOP_LEVEL = ("index.md", NAV_FILE)
_BENCH_PAGES = (
    ("Leaderboard", "index.md"),
    ("Methodology", "methodology.md"),
    ("Disclosures", "disclosures.md"),
)
_FIGURE_FILTERS = ("num", "bp", "p")
_BLANK_LINES = re.compile(r"\n{3,}")
BLOCKS = "mkdocs/_blocks.md"
"""The Markdown dialect of the block vocabulary that every page written once (``*.jinja``) imports."""


class Inert(str):
    """Text safe to place in Markdown as it is: escaped input, or a figure benchsite formatted."""


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
_MARKUP = re.compile(r"[<>&|\[\]()*_\\`~#!{}$^=+]")
_BLOCK_START = re.compile(r"^(?:-|:|\d+\.(?=\s|$))")
_HTML_SPECIAL = re.compile(r"[&<>\"'=`]")


def _ref(char: str) -> str:
    return f"&#{ord(char)};"


def _one_line(value: object) -> str:
    """Control characters, line breaks and runs of spaces become one space; surrogates go too."""
    return " ".join(_CONTROL.sub(" ", str(value)).split())


def inert(value: object) -> Inert:
    """Text from the inputs, inert in Python-Markdown and in GitHub-flavoured Markdown, on one line.

    Every character either dialect (or a common mkdocs extension) could read as markup becomes an
    HTML numeric entity: ``< > &`` (raw HTML, entities), ``| [ ] ( ) !`` (tables, links, images),
    ``* _ ~ ^ = + $ `` and the backtick (emphasis, marks, maths, code), ``\\ # { }`` (escapes,
    headings, attribute lists); a leading ``-``, ``:`` or ``1.`` (list or definition) too. Both
    dialects display the entities as the characters; inside a code span they would show as
    written, so templates never put input text in one.
    """
    text = _MARKUP.sub(lambda m: _ref(m[0]), _one_line(value))
    return Inert(_BLOCK_START.sub(lambda m: m[0][:-1] + _ref(m[0][-1]), text))


_CODE_SAFE = re.compile(r"[A-Za-z0-9 _.,:;/()\[\]\-<>'\"@#!?*&]+")
"""What a code span may carry as written: characters both dialects show literally inside one; not
``{ } %`` (a macros plugin would run them), ``|`` (a table cell's end), a backtick, nor the
delimiters of common inline extensions (``$ ^ ~ = +``: maths, marks)."""


def inert_code(value: object) -> Inert:
    """Like :func:`inert`, but a span the text marks as code (between two backticks) stays a code
    span, so it shows as code rather than as literal backticks: only when every such span holds
    nothing but :data:`_CODE_SAFE` characters and is not blank at an end; otherwise all inert."""
    parts = _one_line(value).split("`")
    code = parts[1::2]
    balanced = len(parts) % 2 == 1 and code
    if not balanced or not all(_CODE_SAFE.fullmatch(c) and c.strip() == c for c in code):
        return inert(value)
    text = "".join(
        f"`{part}`" if i % 2 else _MARKUP.sub(lambda m: _ref(m[0]), part) for i, part in enumerate(parts)
    )
    return Inert(_BLOCK_START.sub(lambda m: m[0][:-1] + _ref(m[0][-1]), text))


def inert_paragraphs(value: str) -> Inert:
    """Prose that is Markdown by design (a benchmark description), shown as plain text: each
    paragraph inert, the blank lines between paragraphs kept."""
    paragraphs = (inert_code(p) for p in re.split(r"\n\s*\n", value))
    return Inert("\n\n".join(p for p in paragraphs if p))


NAV_TITLE_MAX = 200
"""Characters of a nav title (one line, before entities) beyond which it is cut and ends in "…"."""


def nav_title(value: str) -> str:
    """A title for ``nav:``: one line of at most ``NAV_TITLE_MAX`` characters. mkdocs themes print
    nav titles into the HTML unescaped, so HTML's special characters (and ``=``, so no attribute can
    be spelt) become numeric entities."""
    line = _one_line(value)
    if len(line) > NAV_TITLE_MAX:
        line = line[: NAV_TITLE_MAX - 1] + "…"
    return _HTML_SPECIAL.sub(lambda m: _ref(m[0]), line)


def _finalize(value: object) -> Markup:
    """Every ``{{ … }}``: a macro's output (:class:`Markup`: the blocks of ``mkdocs/_blocks.md``,
    Markdown the template spelt around values each already made inert) and :class:`Inert` text
    pass as they are; anything else is made inert. The environment autoescapes only so that macros
    return :class:`Markup`: what this returns is never escaped again."""
    if isinstance(value, Markup):
        return value
    return Markup(value if isinstance(value, Inert) else inert(value))


class MarkdownCells:
    """The Markdown dialect of a table row's pieces (``generator.families.rows.Cells``): the bytes of ``tr``,
    ``td``, ``badge``… of ``mkdocs/_blocks.md``, each value made inert as every ``{{ … }}`` is."""

    def row(self, id: str | None, cells: Iterable[Markup]) -> Markup:
        return Markup("|" + "".join(cells) + "\n")

    def cell(self, class_: str | None, label: str | None, value: object, title: object = None) -> Markup:
        shown = f"{_finalize(value)} ({_finalize(title)})" if title else _finalize(value)
        return Markup(f" {shown} |")

    def text(self, value: object) -> Markup:
        return _finalize(value)

    def figure(self, value: str) -> Markup:
        return Markup(value)

    def badge(self, outcome: str) -> Markup:
        return _finalize(outcome)

    def muted(self, value: object) -> Markup:
        return _finalize(value)

    def strong(self, value: object) -> Markup:
        return Markup(f"**{_finalize(value)}**")

    def span(self, value: object, class_: str) -> Markup:
        return _finalize(value)

    def hint(self, value: Markup, title: object) -> Markup:
        return Markup(f"{_finalize(value)} ({_finalize(title)})")

    def code_hint(self, value: object, title: object) -> Markup:
        return _finalize(code_span(title))


MARKDOWN_CELLS = MarkdownCells()


def markdown_rows(write: RowWriter, *args: Any) -> Markup:
    """``b.rows`` of ``mkdocs/_blocks.md``: the rows ``write`` makes of ``args``."""
    return Markup("".join(write(MARKDOWN_CELLS, *args)))


def code_span(value: object) -> Inert:
    """A value the HTML pages show as code (``<code>``): a Markdown code span when it holds only
    :data:`_CODE_SAFE` characters and is not blank at an end, otherwise inert text."""
    text = _one_line(value)
    if text and _CODE_SAFE.fullmatch(text) and text.strip() == text:
        return Inert(f"`{text}`")
    return inert(text)


def _figures(format_: Callable[..., str]) -> Callable[..., Inert]:
    """A number format of the Markdown environment: digits and fixed words, never input text."""
    return lambda *args: Inert(format_(*args))


def _blocks(format_: Callable[[str], str]) -> Callable[[str], Inert]:
    """A paragraph or list item of the shared notes templates: Markdown the template spells around
    values each already made inert by a filter (``md_cell``) or formatted by benchsite."""
    return lambda text: Inert(format_(text))


@pass_context
def _link(context: Context, target: str) -> Inert:
    """A relative link from this page to ``target`` (a path in the export), as mkdocs resolves it."""
    here = posixpath.dirname(context["page_path"])
    return Inert(quote(posixpath.relpath(target, here or ".")))


@cache
def mkdocs_env() -> Environment:
    """The Markdown environment's loader and options, with its own cache and filters: every output
    made inert unless one of the filters below already produced :class:`Inert` text. The HTML-only
    ``md`` filter and the ``.html`` ``url`` helper are left out, so a template using them fails."""
    # bytecode_cache=None: its options (finalize, autoescape) compile other code than the Markdown
    # environment's, whose kept templates (``render.SignedBytecode``) an overlay would share
    env = markdown_env().overlay(finalize=_finalize, cache_size=400, autoescape=True, bytecode_cache=None)
    filters = {name: f for name, f in env.filters.items() if name != "md"}
    figures = {name: _figures(filters[name]) for name in _FIGURE_FILTERS}
    env.filters = {**filters, **figures, "md_cell": inert_code, "text": inert_paragraphs, "code": code_span}
    env.globals = {
        **{k: v for k, v in env.globals.items() if k != "url"},
        "link": _link,
        "blocks": BLOCKS,
        "page_suffix": ".md",
        "markdown_rows": markdown_rows,
    }
    env.globals.update(para=_blocks(md_wrap), item=_blocks(md_item))
    return env


def run_view(bench: BenchmarkReport) -> RunView:
    """What a run page shows of its benchmark, as the site's run pages are given it (without the
    site's look: the export has none)."""
    section = FAMILIES[bench.family].run_section(bench.section)
    status = RunStatus(status=bench.disclosures.status)
    return RunView(id=bench.id, title=bench.title, disclosures=status, section=section)


def _folder(prefix: str) -> str:
    """The export folder as it sits in the user's ``docs_dir``: a relative path, no ``.`` or ``..``."""
    folder = prefix.strip("/")
    parts = folder.split("/")
    if "\\" in folder or any(part in ("", ".", "..") for part in parts) or _one_line(folder) != folder:
        raise OutputError(f"mkdocs prefix {prefix!r}: give the export folder's path inside docs_dir")
    return folder


def render_mkdocs(
    report: SiteReport, details: DetailSource, sink: Sink, prefix: str, inputs: Path | None = None
) -> None:
    """Every page of the mkdocs export, and ``nav.yml`` with paths under ``prefix``, into the sink;
    with ``inputs`` (the inputs root), the producers' own files a section publishes beside its runs."""
    folder = _folder(prefix)
    clash = sorted(b.id for b in report.benchmarks if b.id in _TOP_LEVEL)
    if clash:
        raise OutputError(f"benchmark id {clash[0]!r} would replace the export's own {clash[0]}")
    env = mkdocs_env()

    def page(path: str, template: str, **context: Any) -> None:
        text = env.get_template(template).render(page_path=path, report=report, **context)
        sink.add(path, _BLANK_LINES.sub("\n\n", text).strip("\n").encode("utf-8") + b"\n")

    page("index.md", "mkdocs/index.md")
    for bench in report.benchmarks:
        ctx: dict[str, Any] = {"bench": bench, "base": bench.id}
        page(f"{bench.id}/index.md", "mkdocs/leaderboard.md", **ctx)
        for ranking in bench.rankings:
            if ranking.rows:
                sink.add(
                    f"{bench.id}/chart-{ranking.id}.svg", svg_file(forest(ranking, f"forest-{ranking.id}"))
                )
        page(f"{bench.id}/methodology.md", f"{bench.family}/_methodology.jinja", **ctx)
        page(f"{bench.id}/disclosures.md", "_disclosures.jinja", located={}, **ctx)
        view = run_view(bench)
        for summary in bench.section.runs:
            run = bench.section.detail_model().model_validate_json(details.get(bench.id, summary.id))
            path = f"{bench.id}/runs/{summary.id}.md"
            page(path, f"{bench.family}/_run.jinja", run=run, bench=view, base=bench.id)
        for attached, stored in () if inputs is None else attachments(bench, inputs):
            sink.add_stored(f"{bench.id}/{attached}", stored)
    sink.add(NAV_FILE, nav_yaml(report, folder).encode("utf-8"))


NavEntry = dict[str, "str | list[NavEntry]"]


def nav_yaml(report: SiteReport, folder: str) -> str:
    """``nav.yml``: one section listing every page, to paste under ``nav:`` of a mkdocs.yml, written
    by PyYAML's emitter (a long title becomes an explicit ``? key``, any character is quoted)."""

    def page(title: str, path: str) -> NavEntry:
        return {nav_title(title): f"{folder}/{path}"}

    def section(title: str, entries: list[NavEntry]) -> NavEntry:
        return {nav_title(title): entries}

    benchmarks: list[NavEntry] = [page(f"All benchmarks · {report.site_version}", "index.md")]
    for bench in report.benchmarks:
        entries = [page(name, f"{bench.id}/{file}") for name, file in _BENCH_PAGES]
        runs = [page(r.id, f"{bench.id}/runs/{r.id}.md") for r in bench.section.runs]
        benchmarks.append(section(bench.title, entries + ([section("Runs", runs)] if runs else [])))
    nav = [section(NAV_TITLE, benchmarks)]
    text: str = yaml.safe_dump(nav, allow_unicode=True, sort_keys=False, width=1 << 30)
    return text
