"""A run page's table rows, written once in Python for both dialects.

A run page has one table row per attempt, episode, row or trial: up to a thousand a page, hundreds
of thousands in a build. As Jinja macros (a ``tr`` with its caller, a ``td`` or a ``badge`` per
cell) they were about a fifth of a cold build's CPU on the 100k corpus. Each family's rows are
therefore a function of :class:`Cells` (``generator/rows/<family>.py``): the HTML dialect
(``HtmlCells``, here) and the Markdown one (``mkdocs_export.MarkdownCells``) spell the same
pieces as the block macros of ``_blocks.html`` and ``mkdocs/_blocks.md`` do, byte for byte. A
template writes the rows inside its table with ``{{ b.rows(<family>_rows, …) }}``.

Every piece returns :class:`~markupsafe.Markup`: text from the inputs is made safe by the piece
that takes it (``text``, ``cell``'s value and title), and pieces join with ``+`` or :meth:`join`,
never with plain strings that could carry input text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from typing import Any, Protocol

from jinja2 import pass_context
from jinja2.runtime import Context
from markupsafe import Markup, escape

from generator.single import Anchors


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


@dataclass(frozen=True)
class HtmlCells:
    """The HTML dialect: the bytes of ``tr``, ``td``, ``badge``… of ``_blocks.html``."""

    anchors: Anchors

    def row(self, id: str | None, cells: Iterable[Markup]) -> Markup:
        open_ = f'<tr id="{escape(self.anchors.id(id))}">\n' if id else "<tr>\n"
        return Markup(open_ + "".join(cells) + "</tr>\n")

    def cell(self, class_: str | None, label: str | None, value: object, title: object = None) -> Markup:
        title_attr = f' title="{escape(title)}"' if title else ""
        return Markup(f"{_td_open(class_, label)}{title_attr}>{escape(value)}</td>\n")

    def text(self, value: object) -> Markup:
        return escape(value)

    def figure(self, value: str) -> Markup:
        return escape(value)

    def badge(self, outcome: str) -> Markup:
        return Markup(f'<span class="badge b-{escape(outcome)}">{escape(outcome)}</span>')

    def muted(self, value: object) -> Markup:
        return Markup(f'<span class="muted">{escape(value)}</span>')

    def strong(self, value: object) -> Markup:
        return Markup(f"<strong>{escape(value)}</strong>")

    def span(self, value: object, class_: str) -> Markup:
        return Markup(f'<span class="{escape(class_)}">{escape(value)}</span>')

    def hint(self, value: Markup, title: object) -> Markup:
        return Markup(f'<span title="{escape(title)}">{escape(value)}</span>')

    def code_hint(self, value: object, title: object) -> Markup:
        return Markup(f'<code title="{escape(title)}">{escape(value)}</code>')


@pass_context
def html_rows(context: Context, write: RowWriter, *args: Any) -> Markup:
    """``b.rows`` of ``_blocks.html``: the rows ``write`` makes of ``args``, with the page's anchors."""
    return Markup("".join(write(HtmlCells(context["anchors"]), *args)))
