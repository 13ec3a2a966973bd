"""The one HTML parser of the tests: every table of a page (each row with its id and its cells, each
cell with its tag and its text, entities decoded) and the page's text, read by parsing the HTML.

Tests read tables through the views here: ``Table.head`` / ``Table.rows`` (header cells, then body
rows by id), :func:`rows_of` (every row's cell texts) and :func:`tables_of` (rows per table); the
single-file report's parts through :func:`report_parts` and :func:`namespace_problems`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path


def squash(text: str) -> str:
    """Whitespace runs as one space, none at either end."""
    return " ".join(text.split())


@dataclass
class Cell:
    tag: str
    """``th`` or ``td``."""
    text: str = ""
    """Every text inside the cell, as written (entities decoded)."""
    label: str | None = None
    """Its ``data-label``: the column heading a phone shows before it when the table is cards."""


@dataclass
class Row:
    id: str | None
    cells: list[Cell] = field(default_factory=list)


@dataclass
class Table:
    cards: bool = False
    """Classed ``cards``: each row a block, each cell headed by its ``data-label``, on a phone."""
    all_rows: list[Row] = field(default_factory=list)

    @property
    def head(self) -> list[str]:
        """The header cells' texts, whitespace squashed."""
        return [squash(c.text) for row in self.all_rows for c in row.cells if c.tag == "th"]

    @property
    def rows(self) -> list[tuple[str | None, list[str]]]:
        """Each row with data cells: its id and its data cells' texts, whitespace squashed."""
        body = [(row.id, [squash(c.text) for c in row.cells if c.tag == "td"]) for row in self.all_rows]
        return [(row_id, cells) for row_id, cells in body if cells]

    def column(self, name: str) -> list[str]:
        i = self.head.index(name)
        return [cells[i] for _, cells in self.rows]

    def row(self, row_id: str) -> dict[str, str]:
        return next(dict(zip(self.head, cells, strict=True)) for rid, cells in self.rows if rid == row_id)


class Page(HTMLParser):
    """Every table of one page, and all of its text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[Table] = []
        self.text: list[str] = []
        self.csp: str | None = None
        """The Content-Security-Policy its ``<meta http-equiv>`` states, None without one."""
        self.downloads: list[tuple[str, str]] = []
        """(the name a browser saves it under, href) of every link with a ``download`` attribute."""
        self._cell: Cell | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "meta" and a.get("http-equiv") == "Content-Security-Policy":
            self.csp = a.get("content") or ""
        if tag == "a" and a.get("download") is not None:
            self.downloads.append((a["download"] or "", a.get("href") or ""))
        if tag == "table":
            self.tables.append(Table("cards" in (dict(attrs).get("class") or "").split()))
        elif tag == "tr":
            if not self.tables:
                self.tables.append(Table())
            self.tables[-1].all_rows.append(Row(dict(attrs).get("id")))
        elif tag in ("th", "td") and self.tables and self.tables[-1].all_rows:
            self._cell = Cell(tag, label=dict(attrs).get("data-label"))
            self.tables[-1].all_rows[-1].cells.append(self._cell)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("th", "td"):
            self._cell = None

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._cell is not None:
            self._cell.text += data


def parse(path: Path) -> Page:
    page = Page()
    page.feed(path.read_text(encoding="utf-8"))
    page.close()
    return page


def tables_of(path: Path, squashed: bool = False) -> list[list[list[str]]]:
    """Each table of the page as rows of cell texts, stripped (``squashed``: whitespace squashed)."""
    clean = squash if squashed else str.strip
    return [[[clean(c.text) for c in row.cells] for row in table.all_rows] for table in parse(path).tables]


def rows_of(path: Path) -> list[list[str]]:
    """Every row of every table of the page, as its cells' texts, whitespace squashed."""
    return [row for table in tables_of(path, squashed=True) for row in table]


@dataclass
class Part:
    """One ``report-part`` section of the single-file report: what it holds of ids, ARIA references
    and links."""

    id: str
    ids: list[str] = field(default_factory=list)
    """Every ``id`` inside it."""
    labelled: list[str] = field(default_factory=list)
    """Every id an ``aria-labelledby`` inside it names."""
    hrefs: list[str] = field(default_factory=list)
    """Every link's ``href`` inside it."""
    refs: list[str] = field(default_factory=list)
    """The text of every ``<span class="ref">``: a link to another file, named in plain text."""


class Parts(HTMLParser):
    """The ``report-part`` sections of ``report.html``, in order."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[Part] = []
        self._depth = 0
        self._ref: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "section" and self._depth:
            self._depth += 1
        elif tag == "section" and "report-part" in a.get("class", "").split():
            self.parts.append(Part(a.get("id", "")))
            self._depth = 1
            return
        if not self._depth:
            return
        part = self.parts[-1]
        part.ids += [a["id"]] if "id" in a else []
        part.labelled += a.get("aria-labelledby", "").split()
        part.hrefs += [a["href"]] if tag == "a" and "href" in a else []
        if tag == "span" and a.get("class") == "ref":
            self._ref = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "section" and self._depth:
            self._depth -= 1
        elif tag == "span" and self._ref is not None:
            self.parts[-1].refs.append("".join(self._ref))
            self._ref = None

    def handle_data(self, data: str) -> None:
        if self._ref is not None:
            self._ref.append(data)


def report_parts(path: Path) -> list[Part]:
    """The parts of a single-file report, each benchmark's leaderboard then its disclosures."""
    parser = Parts()
    parser.feed(path.read_text(encoding="utf-8"))
    parser.close()
    return parser.parts


def namespace_problems(part: Part) -> list[str]:
    """What in one part of a single-file report is not its own: an id, an ARIA reference or an in-page
    link outside its benchmark's namespace (``<bench>-`` for a leaderboard, ``<bench>-d-`` for the
    disclosures, from the part's own id ``<namespace>section``)."""
    prefix = part.id.removesuffix("section")
    named = [("id", i) for i in part.ids] + [("aria-labelledby", i) for i in part.labelled]
    named += [("link", h) for h in part.hrefs if h.startswith("#")]
    return [f"{part.id}: {kind} {value}" for kind, value in named if not value.lstrip("#").startswith(prefix)]


def source(path: Path) -> str:
    """The page's HTML as written, less its ``<wbr>``: where an identifier may break (after its
    ``_ - . /``) is no character of it, so a test that looks for markup around a text reads it whole."""
    return path.read_text(encoding="utf-8").replace("<wbr>", "")
