"""The blind scan: no revealed provider name may be readable in a blind version.

A reveal names the providers behind a blind trial's labels; the blind version it applies to must
not. Before a reveal build publishes (or accepts) that version, every file of it is scanned for
every revealed name in two ways:

- **bytes** (:func:`spellings`): the name and its distinctive words as they may be written in a
  file, lower-cased: plain, JSON-, HTML- and URL-escaped;
- **what a reader sees** (:func:`reader_text`, :func:`skeleton`): an HTML page's text and attribute
  values (tags stripped, entities decoded; inline tags such as ``<strong>`` join their text, block
  and cell tags separate it), a Markdown file and every string of a JSON file rendered as the site
  renders Markdown, then reduced to a skeleton: Unicode format characters (category Cf: zero-width
  space and joiners, soft hyphen, word joiner, bidi controls…) removed, NFKD with combining marks
  removed (which also folds fullwidth and other compatibility forms), Latin look-alikes from
  Cyrillic and Greek replaced by their Latin letter (:data:`CONFUSABLES`), casefolded, the
  Markdown emphasis and code characters ``* _ ` ~`` removed and whitespace collapsed.

The needles are each name's skeleton and its *distinctive words* (:func:`distinctive_words`):
the words (runs of letters and digits) of its skeleton with at least four letters that are not a
common English word (:data:`COMMON_WORDS`): "AppGen" and "Contoso" of "Contoso AppGen", but not
"Builder" of "Northwind Builder". File names are scanned as text too.
"""

from __future__ import annotations

import contextlib
import html
import json
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

from generator.render import md_html

CONFUSABLES = str.maketrans(
    {
        # Cyrillic capitals and small letters drawn like Latin ones
        "А": "A",
        "В": "B",
        "Е": "E",
        "К": "K",
        "М": "M",
        "Н": "H",
        "О": "O",
        "Р": "P",
        "С": "C",
        "Т": "T",
        "У": "Y",
        "Х": "X",
        "Ѕ": "S",
        "І": "I",
        "Ј": "J",
        "Ү": "Y",
        "Ԛ": "Q",
        "Ԝ": "W",
        "Ӏ": "l",
        "а": "a",
        "е": "e",
        "о": "o",
        "р": "p",
        "с": "c",
        "у": "y",
        "х": "x",
        "ѕ": "s",
        "і": "i",
        "ј": "j",
        "һ": "h",
        "ԁ": "d",
        "ԛ": "q",
        "ԝ": "w",
        "ӏ": "l",
        "ү": "y",
        "к": "k",
        # Greek capitals and small letters drawn like Latin ones
        "Α": "A",
        "Β": "B",
        "Ε": "E",
        "Ζ": "Z",
        "Η": "H",
        "Ι": "I",
        "Κ": "K",
        "Μ": "M",
        "Ν": "N",
        "Ο": "O",
        "Ρ": "P",
        "Τ": "T",
        "Υ": "Y",
        "Χ": "X",
        "Ϲ": "C",
        "α": "a",
        "ι": "i",
        "κ": "k",
        "ν": "v",
        "ο": "o",
        "ρ": "p",
        "υ": "u",
        "χ": "x",
        "ϲ": "c",
        "ϳ": "j",
        # Latin letters without a dot or with an open form
        "ı": "i",
        "ȷ": "j",
        "ɑ": "a",
        "ɡ": "g",
        "ꞵ": "b",
    }
)
"""Cyrillic and Greek letters a reader takes for a Latin one (and a few Latin variants), mapped to
that letter: a small table after Unicode's confusables list, limited to these three scripts."""

_COMMON = """
    able about above across after again against agent agents almost along also always among another
    assistant east intelligence intelligent
    apps application applications around automation back based be been before behind being below
    best better between beyond both bright build builder builders building built business call came
    cannot care cloud code coder coders coding come company computer computing consulting corp
    corporation could craft crafts create creative creator data days design designer designs
    develop developer developers development digital does doing done down during each early easy
    either engine engineering engines enough enterprise even ever every fast first five flow forge
    foundry four free from full future general generator give global good great group have having
    here high home however hub idea ideas inc industries information into just keep kind labs large
    last later least less like line little live local long look made make maker makers making many
    more most much must name near need network never next nice none north open other over part
    partners people pilot place plan platform point power press product products project quick
    rapid real research right same says second service services several should show side simple
    since small smart software solution solutions some south space stack start still studio studios
    such suite system systems take team tech technology technologies than that their them then
    there these they thing things think this those three through time tool tools under until upon
    very ventures want well were west what when where which while will with within without word
    work works world would year years your
"""
COMMON_WORDS = frozenset(_COMMON.split())
"""Words too common to identify a provider alone (English words of four or more letters that
product names are often made of, and the frequent function words): a name's other words are its
distinctive ones. A name is always scanned whole, whatever its words."""

_MARKUP_RESIDUE = re.compile(r"[*_`~]")
ROWS_FOLDER = "data/runs/"
_MARKDOWN_TURNS = re.compile(r"[\[&<\\]")
_WORD = re.compile(r"[^\W_]+")
_BLOCK_TAGS = """
    address article aside blockquote br caption dd details div dl dt figcaption figure footer h1 h2 h3
    h4 h5 h6 header hr li main nav ol option p pre section summary table tbody td tfoot th thead title
    tr ul
"""
_SEPARATING_TAGS = frozenset(_BLOCK_TAGS.split())


_INVISIBLE = frozenset(("Cf", "Mn", "Mc", "Me"))
"""Format characters (Cf) and combining marks (M*) of this Python's Unicode database."""


def _visible(text: str) -> str:
    """``text`` without its format characters and combining marks (asked per character of a short
    non-ASCII run: no pattern over the whole Unicode database is built first)."""
    return "".join(c for c in text if unicodedata.category(c) not in _INVISIBLE)


_NON_ASCII = re.compile(r"[^\x00-\x7f]+")


@cache  # pages repeat the same few non-ASCII runs ("·", "—", "…") many thousand times
def _fold(run: str) -> str:
    """A run of non-ASCII characters as a reader recognises it: format characters removed, then NFKD
    (fullwidth → ASCII, accents apart), combining marks removed, look-alikes mapped."""
    visible = _visible(run)  # format characters, before NFKD composes around them
    bare = _visible(unicodedata.normalize("NFKD", visible))  # then combining marks
    return bare.translate(CONFUSABLES)


def skeleton(text: str) -> str:
    """What a reader recognises in ``text``, in one comparable form (see the module docstring). Only
    the non-ASCII runs are folded (each on its own, which gives the same text as folding the whole,
    since every step maps characters or removes them): pages are mostly ASCII."""
    if not text.isascii():
        text = _NON_ASCII.sub(lambda run: _fold(run.group()), text)
    return " ".join(_MARKUP_RESIDUE.sub("", text.casefold()).split())


def distinctive_words(name: str) -> set[str]:
    """The words of a name's skeleton with four or more letters that are not in ``COMMON_WORDS``."""
    words = _WORD.findall(skeleton(name))
    return {w for w in words if sum(c.isalpha() for c in w) >= 4 and w not in COMMON_WORDS}


def spellings(name: str) -> set[bytes]:
    """A name and its distinctive words as they may appear in bytes (all lower case): plain, JSON-,
    HTML- and URL-escaped."""
    forms = {
        form
        for n in {name} | distinctive_words(name)
        for form in (n, json.dumps(n, ensure_ascii=True)[1:-1], html.escape(n), quote(n), quote_plus(n))
    }
    return {form.lower().encode("utf-8") for form in forms if form}


_QUOTED = r"""(?:[^>"']|"[^"]*"|'[^']*')*"""
_ANY_TAG = re.compile(rf"<(?:[A-Za-z/][A-Za-z0-9-]*{_QUOTED}|!--.*?--|![^>]*)>", re.S)
_VALUE = re.compile(r"""=\s*(?:"([^"]*)"|'([^']*)')""")


@cache
def _separating_tag() -> re.Pattern[str]:
    names = "|".join(sorted(_SEPARATING_TAGS))
    return re.compile(rf"</?(?:{names})(?![A-Za-z0-9-]){_QUOTED}>", re.I)


def html_text(page: str) -> str:
    """An HTML document's text, then its attribute values, entities decoded; block tags separate
    lines. Regular expressions, not a parser and no Python call per tag: the pages are benchsite's
    own (quoted, escaped attributes), and a parser was most of a reveal build's time."""
    values = " ".join(a or b for a, b in _VALUE.findall(page))
    text = _ANY_TAG.sub("", _separating_tag().sub("\n", page))
    return html.unescape(f"{text}\n{values}")


def _strings(value: Any) -> Iterator[str]:
    """Every string of a JSON document, keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def reader_text(rel: str, data: bytes) -> str:
    """The text a reader sees in one file of the site: its name, and its content as rendered."""
    text = data.decode("utf-8", "replace")
    if rel.endswith(".html"):
        return rel + "\n" + html_text(text)
    strings = [text]
    if rel.endswith(".json") and ROWS_FOLDER in rel:
        # a run's rows as a JSON reader sees them (escapes resolved); what the site renders of them
        # as Markdown is on the run's HTML pages, which are scanned as HTML
        with contextlib.suppress(ValueError):
            return "\n".join([rel, json.dumps(json.loads(text), ensure_ascii=False)])
    elif rel.endswith(".json"):
        with contextlib.suppress(ValueError):
            strings = list(_strings(json.loads(text)))
    # Markdown that reads otherwise than it is written (links, images, entities, escapes, autolinks)
    # needs one of these; emphasis and code are undone by the skeleton
    markdown = "\n\n".join(s for s in strings if _MARKDOWN_TURNS.search(s))
    return "\n".join([rel, *strings, html_text(md_html(markdown)) if markdown else ""])


def find_revealed(
    files: Iterable[tuple[str, Callable[[], bytes]]], names: Iterable[str]
) -> tuple[str, str] | None:
    """(file, what was found) for the first file, in the order given, that shows a revealed name
    by bytes or to a reader; None when none does."""
    names = sorted(set(names))
    needles = {form for name in names for form in spellings(name)}
    skeletons = {skeleton(name) for name in names} | {w for name in names for w in distinctive_words(name)}
    for rel, read in files:
        data = read()
        haystack = (rel + "\n").encode("utf-8").lower() + data.lower()
        found = [n.decode("utf-8", "replace") for n in needles if n in haystack]
        if not found:
            seen = skeleton(reader_text(rel, data))
            found = [s for s in skeletons if s in seen]
        if found:
            return rel, max(sorted(found), key=len)
    return None


def folder_files(folder: Path, prefix: str = "") -> list[tuple[str, Callable[[], bytes]]]:
    """Every regular file below ``folder``, named ``prefix`` + its relative path, sorted."""
    paths = sorted(p for p in folder.rglob("*") if p.is_file() and not p.is_symlink())
    return [(prefix + p.relative_to(folder).as_posix(), p.read_bytes) for p in paths]
