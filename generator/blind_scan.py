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

**Shortcuts, each exact** (:func:`find_revealed` finds the same file and name as building every
reader text and skeleton; ``tests/test_blind_scan_exact.py`` compares both on generated files). They
apply when every skeleton needle is *plain*: ASCII letters and digits, words apart by one space.

- *Non-ASCII runs that separate.* A run of non-ASCII characters whose fold, casefolded and without
  markup residue, is not empty and holds no ASCII letter or digit and no white space
  (:func:`_separates`: "—", "·", "…") stands, in a skeleton, between two words: no plain needle
  can hold any of its characters, and white space collapses around it as around any other visible
  character. Written ``#`` instead, the skeleton holds the same plain needles; then the text is
  ASCII and its skeleton is lower case, residue deleted, white space collapsed, on bytes
  (:func:`_plain_skeleton`). A run that vanishes or folds to letters or spaces (a zero-width space,
  a fullwidth letter) leaves the text to :func:`skeleton` itself.
- *Row files* (``data/runs/``). The reader text is the file name and ``json.dumps`` of the parsed
  rows. When the file is ASCII without a backslash and is a JSON object or array, every string of
  the dump is written exactly as in the file (no escape was needed to read it, none is written,
  and a control character would have refused the file), and every other token of the dump is
  punctuation, ``true``/``false``/``null``, or a number, which ``json.dumps`` may spell otherwise
  (``1e400`` as ``Infinity``, ``1.5E3`` as ``1500.0``). A plain needle that is not *number-like*
  (only digits and ``e``, or part of ``infinity`` or ``nan``) cannot cross the quotes and
  punctuation around a token nor lie in a number, so it lies in one string, which the file holds
  too: if the skeleton of the file name and the file's own bytes shows none of the needles, and
  the file is JSON (else it is read as Markdown, in full), neither does its reader text.
- *HTML pages.* Take an ASCII plain word of every needle (its longest: a needle shows only where
  each of its words does). When every ``&`` of a page begins one of the five escapes (``&lt;``,
  ``&gt;``, ``&amp;``, ``&quot;``, ``&#39;``) and every non-ASCII character of it separates on its
  own (then so does any run of them: NFKD only decomposes and reorders, and each step after it maps
  one character at a time), the reader text's letters and digits are the page's own ASCII ones:
  an escape decodes to punctuation, and no tag can cut an escape nor make a new one (``&`` is
  always followed by its escape). Two of those characters are neighbours in a word of the
  skeleton only if nothing stands between them in the page or only what vanishes: markup residue
  and tags, each of which begins with ``<`` and ends with ``>`` (block tags become a line break,
  which a word cannot cross; an attribute value is one stretch of the page). So with residue
  deleted and the page lower-cased, a word that shows is written whole, or it is a prefix just
  before a ``<``, whole pieces each between ``>`` and ``<``, and a rest just after a ``>``
  (:class:`_TagEdges`, by bisection in the sorted text around the tags). A needle can also begin
  in the file name and go on in the page (``index.html`` + ``ab`` reads "html ab"): a page whose
  name ends with a needle's first words takes the full text.
- Pattern rewrites that match the same text: the separating tags' names as a trie (the lookahead
  after the name lets at most one name match), and the quoted inside of a tag possessive (the
  only run followed by ``>`` is the longest).

Needles that are not plain, number-like needles for row files, and everything else take the full
reader text, as before.
"""

from __future__ import annotations

import contextlib
import html
import json
import os
import re
import unicodedata
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator
from functools import cache, partial
from operator import itemgetter
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


_QUOTED = r"""(?:[^>"']++|"[^"]*+"|'[^']*+')*+"""
"""A tag's inside: quoted values may hold ">". Possessive: the only way to continue with the tag's
">" is the longest run (every shorter one is followed by a character or a quote that is not ">"),
so giving nothing back finds the same tags without backtracking over long attributes."""
_ANY_TAG = re.compile(rf"<(?:[A-Za-z/][A-Za-z0-9-]*{_QUOTED}|!--.*?--|![^>]*)>", re.S)
_VALUE = re.compile(r"""=\s*(?:"([^"]*)"|'([^']*)')""")


def _trie(words: Iterable[str]) -> str:
    """An alternation matching exactly ``words`` (letters and digits), factored by first character so
    that a failing alternative is left at its first character."""
    heads: dict[str, list[str]] = {}
    for word in sorted(words):
        heads.setdefault(word[0], []).append(word[1:])
    parts = []
    for head, tails in heads.items():
        rest = [tail for tail in tails if tail]
        if not rest:
            parts.append(head)
        else:
            parts.append(f"{head}(?:{_trie(rest)})" + ("?" if len(rest) < len(tails) else ""))
    return "|".join(parts)


@cache
def _separating_tag() -> re.Pattern[str]:
    # the names as a trie: the lookahead lets at most one name end a match, so any alternation of the
    # same names finds the same tags
    return re.compile(rf"</?(?:{_trie(_SEPARATING_TAGS)})(?![A-Za-z0-9-]){_QUOTED}>", re.I)


def html_text(page: str) -> str:
    """An HTML document's text, then its attribute values, entities decoded; block tags separate
    lines. Regular expressions, not a parser and no Python call per tag: the pages are benchsite's
    own (quoted, escaped attributes), and a parser was most of a reveal build's time."""
    values = " ".join(map("".join, _VALUE.findall(page)))  # of the two groups, one is always empty
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


_PLAIN = re.compile(r"[a-z0-9]+(?: [a-z0-9]+)*")
_NUMBER_LIKE = re.compile(r"[0-9e]+")
_ASCII_SPACES = bytes.maketrans(b"\x1c\x1d\x1e\x1f", b"    ")  # what str.split() splits at, not bytes


def _ascii_skeleton(text: bytes) -> bytes:
    """:func:`skeleton` of ASCII text, on its bytes (casefold is lower case in ASCII)."""
    return b" ".join(text.lower().translate(_ASCII_SPACES, b"*_`~").split())


@cache
def _separates(run: str) -> bool:
    """Whether a run of non-ASCII characters reads, in a skeleton, as some characters none of which
    is an ASCII letter or digit or white space (its casefold without markup residue)."""
    folded = _MARKUP_RESIDUE.sub("", _fold(run).casefold())
    return bool(folded) and not any(c.isspace() or (c.isascii() and c.isalnum()) for c in folded)


def _plain_skeleton(text: str) -> bytes | None:
    """:func:`skeleton` of ``text`` as plain needles see it, on bytes: every non-ASCII run written
    ``#`` when each of them separates (:func:`_separates`); None when one does not."""
    if not text.isascii():
        if not all(_separates(run) for run in set(_NON_ASCII.findall(text))):
            return None
        text = _NON_ASCII.sub("#", text)
    return _ascii_skeleton(text.encode("ascii"))


def _rows_show_none(rel: str, data: bytes, needles: list[bytes]) -> bool:
    """True only if the reader text of a row file shows none of ``needles`` (plain, not number-like):
    an ASCII JSON object or array without a backslash, whose own skeleton holds none of them."""
    if not (rel.isascii() and rel.isprintable() and data.isascii()) or b"\\" in data:
        return False
    if data.lstrip(b" \t\n\r")[:1] not in (b"{", b"["):
        return False
    seen = _ascii_skeleton(rel.encode("ascii") + b"\n" + data)
    if any(needle in seen for needle in needles):
        return False
    try:
        json.loads(data.decode("ascii"))
    except ValueError:
        return False  # not JSON: read as Markdown
    return True


_HTML_ESCAPES = (b"&lt;", b"&gt;", b"&amp;", b"&quot;", b"&#39;")
_ASCII_BLANK = bytes.maketrans(bytes(range(128)), b" " * 128)


@cache
def _separates_each(run: str) -> bool:
    """Whether every character of ``run`` separates on its own (:func:`_separates`)."""
    return all(_separates(c) for c in run)


class _TagEdges:
    """What stands right after each ``>`` and right before each ``<`` of a page, as far as ``reach``
    bytes: sorted (the text before a ``<`` reversed), so that a prefix is found by bisection."""

    def __init__(self, flat: bytes, reach: int) -> None:
        self.after = sorted(set(map(itemgetter(slice(reach + 1)), flat.split(b">")[1:])))
        backwards = flat[::-1].split(b"<")[1:]  # what precedes each "<", read backwards
        self.before = sorted(set(map(itemgetter(slice(reach)), backwards)))

    @staticmethod
    def _starts(items: list[bytes], prefix: bytes) -> bool:
        at = bisect_left(items, prefix)
        return at < len(items) and items[at].startswith(prefix)

    def spelled(self, word: bytes) -> bool:
        """Whether ``word`` (of at most ``reach`` bytes, not written whole) can be read with tags
        taken out: a prefix before a ``<``, whole pieces between ``>`` and ``<``, the rest after a
        ``>``."""
        ends = {i for i in range(1, len(word)) if self._starts(self.before, word[:i][::-1])}
        todo = sorted(ends)
        while todo:
            i = todo.pop()
            if self._starts(self.after, word[i:]):
                return True
            for j in range(i + 1, len(word)):
                if j not in ends and self._starts(self.after, word[i:j] + b"<"):
                    ends.add(j)
                    todo.append(j)
        return False


def _page_shows_none(data: bytes, words: list[bytes]) -> bool:
    """True only if an HTML page's reader text (without its file name) shows no plain word of
    ``words``: every ``&`` starts one of the five escapes, every non-ASCII character separates,
    and no word can be spelled across tags (:meth:`_TagEdges.spelled`)."""
    if data.count(b"&") != sum(data.count(escape) for escape in _HTML_ESCAPES):
        return False
    if not data.isascii():
        runs = set(data.translate(_ASCII_BLANK).split())  # UTF-8 sequences never hold an ASCII byte
        if not all(_separates_each(run.decode("utf-8", "replace")) for run in runs):
            return False
    flat = data.lower().translate(None, b"*_`~")
    if any(word in flat for word in words):
        return False
    edges = _TagEdges(flat, max(map(len, words)))
    return not any(edges.spelled(word) for word in words)


def _named(named: str, skeletons: Iterable[str]) -> bool:
    """Whether a needle shows in a file's skeleton name, or may begin there and go on in its text."""
    for needle in skeletons:
        words = needle.split(" ")
        if needle in named or any(named.endswith(" ".join(words[:k])) for k in range(1, len(words))):
            return True
    return False


def find_revealed(
    files: Iterable[tuple[str, Callable[[], bytes]]], names: Iterable[str]
) -> tuple[str, str] | None:
    """(file, what was found) for the first file, in the order given, that shows a revealed name
    by bytes or to a reader; None when none does."""
    names = sorted(set(names))
    needles = {form for name in names for form in spellings(name)}
    least = [n for n in needles if not any(m in n for m in needles if m != n)]  # the others hold one
    skeletons = {skeleton(name) for name in names} | {w for name in names for w in distinctive_words(name)}
    plain = all(_PLAIN.fullmatch(s) for s in skeletons)
    encoded = sorted((s.encode("ascii"), s) for s in skeletons) if plain else []
    not_numbers = not any(_NUMBER_LIKE.fullmatch(s) or s in "infinity" or s in "nan" for s in skeletons)
    row_needles = [b for b, _ in encoded] if plain and not_numbers else None
    words = sorted({max(b.split(), key=len) for b, _ in encoded})  # a word of every plain needle
    for rel, read in files:
        data = read()
        haystack = (rel + "\n").encode("utf-8").lower() + data.lower()
        if any(n in haystack for n in least):
            found = [n.decode("utf-8", "replace") for n in needles if n in haystack]
            return rel, max(sorted(found), key=len)
        rows = row_needles is not None and rel.endswith(".json") and ROWS_FOLDER in rel
        if rows and row_needles is not None and _rows_show_none(rel, data, row_needles):
            continue
        page = bool(words) and rel.endswith(".html") and not _named(skeleton(rel), skeletons)
        if page and _page_shows_none(data, words):
            continue
        text = reader_text(rel, data)
        plain_seen = _plain_skeleton(text) if plain else None
        if plain_seen is not None:
            found = [s for b, s in encoded if b in plain_seen]
        else:
            seen = skeleton(text)
            found = [s for s in skeletons if s in seen]
        if found:
            return rel, max(sorted(found), key=len)
    return None


def folder_files(folder: Path, prefix: str = "") -> list[tuple[str, Callable[[], bytes]]]:
    """Every regular file below ``folder`` (no link followed), named ``prefix`` + its relative path, in
    the order of their paths' parts (as sorted ``Path``s), each with a reader of its bytes. Listed
    with ``os.scandir``, whose entries know their type: a published version of 10,000 runs has
    20,000 files, and a ``Path`` and a ``stat`` per file cost a second."""
    found = sorted(_regular_files(folder, ()))
    return [(prefix + "/".join(parts), partial(_read, path)) for parts, path in found]


def _regular_files(folder: Path, parts: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], str]]:
    """(path parts below ``folder``, path) of each regular file, recursively; links are not followed."""
    with os.scandir(folder.joinpath(*parts)) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                yield from _regular_files(folder, (*parts, entry.name))
            elif entry.is_file(follow_symlinks=False):
                yield (*parts, entry.name), entry.path


def _read(path: str) -> bytes:
    return Path(path).read_bytes()
