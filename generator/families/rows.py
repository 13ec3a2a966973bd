"""A run page's table rows, written once in Python for both dialects.

A run page has one table row per attempt, episode, row or trial: up to a thousand a page, hundreds
of thousands in a build. As Jinja macros (a ``tr`` with its caller, a ``td`` or a ``badge`` per
cell) they were about a fifth of a cold build's CPU on the 100k corpus. Each family's rows are
therefore a function of :class:`Cells` (``generator/families/<family>/rows.py<family>.py``): the HTML dialect
(``HtmlCells``, here) and the Markdown one (``mkdocs_export.MarkdownCells``) spell the same
pieces as the block macros of ``_blocks.html`` and ``mkdocs/_blocks.md`` do, byte for byte. A
template writes the rows inside its table with ``{{ b.rows(<family>_rows, …) }}``.

Every piece returns :class:`~markupsafe.Markup`: text from the inputs is made safe by the piece
that takes it (``text``, ``cell``'s value and title), and pieces join with ``+`` or :meth:`join`,
never with plain strings that could carry input text.

For the HTML pages, a Markup a piece was itself most of the rows' cost (``Markup`` is built, added,
joined and formatted in Python, escaping its operands again each time). Each built-in family's row
writer therefore takes a direct path for ``HtmlCells`` itself (``type(out) is HtmlCells``: a
subclass keeps the pieces): one f-string a row of the ``html_*`` pieces below, plain str escaped by
markupsafe's compiled escape, the repeating pieces memoised, one Markup a row. The piecewise writer
stays the specification: tests/test_row_writers.py holds each direct writer to it byte for byte,
and scripts/html_rows.py measures both.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache, lru_cache, partial
from typing import Any, Protocol

import markupsafe
from jinja2 import pass_context
from jinja2.runtime import Context
from markupsafe import Markup, escape

from generator.figures.numbers import fmt_number


class Cells(Protocol):
    """The pieces of a table row in one dialect (see the module's docstring)."""

    def row(self, id: str | None, cells: Iterable[Markup]) -> Markup:
        """A row (``tr``) of ``cells``, with the anchor ``id``."""
        ...

    def cell(self, class_: str | None, label: str | None, value: object, title: object = None) -> Markup:
        """A cell (``td``) holding ``value`` (made safe unless it is Markup); ``label``: its column's
        name on a narrow screen; ``title``: the facts it follows from."""
        ...

    def text(self, value: object) -> Markup:
        """Text from the inputs, made safe."""
        ...

    def figure(self, value: str) -> Markup:
        """A figure benchsite formatted (``fmt_number``): digits and fixed words."""
        ...

    def badge(self, outcome: str) -> Markup: ...

    def muted(self, value: object) -> Markup: ...

    def strong(self, value: object) -> Markup: ...

    def span(self, value: object, class_: str) -> Markup: ...

    def hint(self, value: Markup, title: object) -> Markup:
        """``value`` with the facts behind it (``title``): a tooltip, or in parentheses."""
        ...

    def code_hint(self, value: object, title: object) -> Markup:
        """A shortened code value (``value``) whose whole text is ``title``."""
        ...


DOT = Markup(" · ")
"""What separates the parts of a cell that holds several figures or facts, in both dialects."""

RowWriter = Callable[..., Iterable[Markup]]
"""A family's rows: ``(cells, …the template's arguments)`` → each row, as ``cells.row`` wrote it."""


@cache
def _td_open(class_: str | None, label: str | None) -> str:
    """A cell's opening tag up to its title, as ``td`` of ``_blocks.html`` writes it (a table's
    classes and column labels are few: each pair is escaped once)."""
    class_attr = f' class="{escape(class_)}"' if class_ else ""
    label_attr = f' data-label="{escape(label)}"' if label else ""
    return f"<td{class_attr}{label_attr}"


def _escape_text(text: str, /) -> str:
    """What ``markupsafe.escape`` makes of a str, in Python: its five characters replaced."""
    return (
        text.replace("&", "&amp;")
        .replace(">", "&gt;")
        .replace("<", "&lt;")
        .replace("'", "&#39;")
        .replace('"', "&#34;")
    )


_escape_inner: Callable[[str], str] = getattr(markupsafe, "_escape_inner", _escape_text)
"""markupsafe's own escape of a str (compiled), where this markupsafe has it; else the same in Python."""


def _escaped(value: object) -> str:
    """``markupsafe.escape(value)`` as plain text: the same characters, without making a Markup of
    each piece (``Markup`` is built in Python, about half the time of a run page's rows)."""
    if type(value) is str:
        return _escape_inner(value)
    html = getattr(value, "__html__", None)
    return str(html()) if html is not None else _escape_inner(str(value))


_JOINT = re.compile(r"(\S)([_\-./])(?=([^\s_\-./]))")


def _joint(match: re.Match[str]) -> str:
    before, joint, after = match.groups()
    numeric = before.isdigit() and after.isdigit()
    return f"{before}{joint}" if numeric else f"{before}{joint}<wbr>"


def with_joints(html: str) -> str:
    """Escaped text with ``<wbr>`` after each ``_``, ``-``, ``.`` and ``/`` inside a token
    (``flag_everything_<wbr>baseline``, ``usage-<wbr>2026-10/<wbr>t03``): where a token longer
    than its column may break, and only there, since no cell or link breaks anywhere else
    (``overflow-wrap: anywhere`` is nowhere in the stylesheet). Not between two digits (``79.5``,
    ``8/11``, ``2026-10`` are figures, never broken) nor at a token's ends. A ``<wbr>`` is no
    character: copying and searching see the text as it is. Entities hold none of the four."""
    return _JOINT.sub(_joint, html)


def _breakable(value: object) -> str:
    """``_escaped(value)`` with its joints (:func:`with_joints`); Markup passes as it is, written
    where it was made (its tags hold ``/`` too)."""
    html = getattr(value, "__html__", None)
    return str(html()) if html is not None else with_joints(_escaped(value))


def breakable(value: object) -> Markup:
    """The HTML pages' ``breakable`` filter: an identifier, path or label escaped, with its joints
    (the Markdown outputs' ``breakable`` leaves the value as it is: text there has no ``<wbr>``)."""
    return _safe(_breakable(value))


_safe: Callable[[str], Markup] = partial(str.__new__, Markup)
"""Text that is already safe HTML as a Markup, made by ``str`` itself: what ``Markup(text)`` makes
of a plain string, without its Python constructor. Only the pieces below use it, on text they
escaped or wrote themselves."""


class Anchors(Protocol):
    """How a page writes a row's id: as written on its own page, namespaced in the single-file report
    (``render.single.Anchors`` is the renderer's; the rows need only this of it)."""

    def id(self, name: str) -> str: ...


@dataclass(frozen=True)
class HtmlCells:
    """The HTML dialect: the bytes of ``tr``, ``td``, ``badge``… of ``_blocks.html``."""

    anchors: Anchors

    def row(self, id: str | None, cells: Iterable[Markup]) -> Markup:
        open_ = f'<tr id="{_escaped(self.anchors.id(id))}">\n' if id else "<tr>\n"
        return _safe(open_ + "".join(cells) + "</tr>\n")

    def cell(self, class_: str | None, label: str | None, value: object, title: object = None) -> Markup:
        title_attr = f' title="{_escaped(title)}"' if title else ""
        return _safe(f"{_td_open(class_, label)}{title_attr}>{_breakable(value)}</td>\n")

    def text(self, value: object) -> Markup:
        return _safe(_breakable(value))

    def figure(self, value: str) -> Markup:
        return _safe(_escaped(value))

    def badge(self, outcome: str) -> Markup:
        shown = _escaped(outcome)
        return _safe(f'<span class="badge b-{shown}">{shown}</span>')

    def muted(self, value: object) -> Markup:
        return _safe(f'<span class="muted">{_breakable(value)}</span>')

    def strong(self, value: object) -> Markup:
        return _safe(f"<strong>{_breakable(value)}</strong>")

    def span(self, value: object, class_: str) -> Markup:
        return _safe(f'<span class="{_escaped(class_)}">{_breakable(value)}</span>')

    def hint(self, value: Markup, title: object) -> Markup:
        return _safe(f'<span title="{_escaped(title)}">{_escaped(value)}</span>')

    def code_hint(self, value: object, title: object) -> Markup:
        return _safe(f'<code title="{_escaped(title)}">{_escaped(value)}</code>')


# --- the direct writers' pieces: the bytes of HtmlCells' pieces as plain str ---------------------
#
# A family's HTML rows are written one str a row (``<family>/rows.py``: ``_html_rows``) from these:
# no Markup a piece, no ``Markup.__add__``/``join``/``format`` (each escapes its operands again),
# and the pieces that repeat from row to row memoised. Each is what the HtmlCells piece of the same
# name writes, as plain text; tests/test_row_writers.py holds every direct writer to its piecewise one.

ROW_MEMO = 8192
"""How many distinct values each memo of a row piece keeps: a page's tasks, labels, states, facts and
reasons repeat thousands of times, its ids never (an LRU keeps the repeating ones)."""


html_escaped: Callable[[object], str] = _escaped
"""What a piece writes of an attribute's value (a title): escaped, without joints, as plain text."""


def html_text(value: object) -> str:
    """What :meth:`HtmlCells.text` writes (escaped, with its joints), as plain text: for a value
    that differs from row to row (an id)."""
    return _breakable(value)


@lru_cache(maxsize=ROW_MEMO, typed=True)
def html_repeated(value: str | int) -> str:
    """:func:`html_text` of a str or int that repeats from row to row (a task, a state, a reason),
    memoised: the escape and the joints' regex run once a value. Typed, so ``1`` and ``True``,
    ``"a"`` and ``Markup("a")`` are kept apart."""
    return _breakable(value)


def html_figure(value: float | int | None, digits: int = 2) -> str:
    """What :meth:`HtmlCells.figure` writes of ``fmt_number(value, digits)``, as plain text."""
    return _escape_inner(fmt_number(value, digits))


def html_td(class_: str | None, label: str | None, title: object = None) -> str:
    """A cell's opening tag, as :meth:`HtmlCells.cell` writes it before its value."""
    return f'{_td_open(class_, label)} title="{_escaped(title)}">' if title else f"{_td_open(class_, label)}>"


def html_row_open(anchors: Anchors, id: str) -> str:
    """A row's opening tag with the anchor ``id`` (not empty), as :meth:`HtmlCells.row` writes it."""
    return f'<tr id="{_escaped(anchors.id(id))}">\n'


def html_muted(value: str) -> str:
    """What :meth:`HtmlCells.muted` writes of a str, as plain text (memoised: a few words a page)."""
    return f'<span class="muted">{html_repeated(value)}</span>'


def html_strong(value: str) -> str:
    """What :meth:`HtmlCells.strong` writes of a str, as plain text."""
    return f"<strong>{_breakable(value)}</strong>"


def html_row(text: str) -> Markup:
    """A row a direct writer wrote (every piece of it escaped or written by the pieces above) as the
    Markup a row writer yields: one Markup a row, not one a piece."""
    return _safe(text)


@pass_context
def html_rows(context: Context, write: RowWriter, *args: Any) -> Markup:
    """``b.rows`` of ``_blocks.html``: the rows ``write`` makes of ``args``, with the page's anchors."""
    return Markup("".join(write(HtmlCells(context["anchors"]), *args)))
