"""The blind scan: no revealed provider name may be readable in a blind version.

A reveal names the providers behind a blind trial's labels; the blind version it applies to must
not. Before a reveal build publishes (or accepts) that version, every file of it is scanned for
every revealed name in two ways:

- **bytes** (:func:`spellings`): the name and its distinctive words as they may be written in a
  file, lower-cased: plain, JSON-, HTML- and URL-escaped;
- **what a reader sees** (:func:`reader_text`, :func:`skeleton`): an HTML page's text and attribute
  values (tags stripped, entities decoded; inline tags such as ``<strong>`` join their text, block
  and cell tags separate it), a Markdown file and every string of a JSON file rendered as the site
  renders Markdown, each line read in the order its characters are written and, when it holds a
  bidi control or mark or a right-to-left character, also in the order a browser draws it (the
  Unicode Bidirectional Algorithm, :func:`drawn_order`: ``\u202e`` + ``dniwhtroN`` is drawn
  "Northwind"). Each is reduced to a skeleton, one character at a time (:func:`_fold_char`):
  format characters and combining marks removed; NFKD (fullwidth, mathematical and circled
  letters, ligatures, accents apart); then, as UTS #39's skeleton does, Unicode's own confusables
  data (``confusables.txt`` as ``confusable-homoglyphs`` ships it: ``օ`` → ``o``, ``ø`` → ``o``,
  ``m`` → ``rn``); a Latin small capital, dotless letter or letter with a stroke or hook by its
  Unicode name (``ɴ`` → ``n``); casefolded; ``i`` and ``l`` one letter (the data draws ``I`` like
  ``l``, and case is ignored), ``w`` as ``vv``. The Markdown emphasis and code characters
  ``* _ ` ~`` are removed, white space collapsed, and last the digits of a word that also holds
  letters read as the letters they are drawn like (:data:`DIGITS`: ``N0rthw1nd``), unless the
  word is a hex id of eight or more hex digits; a number alone stays a number.

**Shortcuts, each exact** (:func:`find_revealed` finds the same file and name as building every
reader text and skeleton; ``tests/test_blind_scan_exact.py`` compares both on generated files). They
test the *loose* form (:func:`loose`: the skeleton with every digit read as a letter, one character
at a time, so it holds every needle the skeleton holds) and take the full path on any hit. They
apply when every skeleton needle is *plain*: ASCII letters and digits, words apart by one space;
no text that may be drawn in another order (:func:`reordered`) takes one.

- *Non-ASCII runs that separate or fold to letters.* A character whose fold, without markup
  residue, is not empty and holds no ASCII letter or digit and no white space (:func:`_separates`:
  "—", "·", "…") stands, in a skeleton, between two words: no plain needle can hold it, and white
  space collapses around it as around any other visible character. A character whose loose fold
  is ASCII letters (``×`` → ``x``, ``α`` → ``a``) is those letters. Written ``#`` or its letters
  (:func:`_as_letters`), the loose form holds the same plain needles; then the text is ASCII and
  its loose form is taken on bytes (:func:`_plain_loose`). A character that vanishes or folds to
  a space (a zero-width space) leaves the text to :func:`skeleton` itself.
- *Row files* (``data/runs/``). The reader text is the file name and ``json.dumps`` of the parsed
  rows. When the file is ASCII without a backslash and is a JSON object or array, every string of
  the dump is written exactly as in the file (no escape was needed to read it, none is written,
  and a control character would have refused the file), and every other token of the dump is
  punctuation, ``true``/``false``/``null``, or a number, which ``json.dumps`` may spell otherwise
  (``1e400`` as ``Infinity``, ``1.5E3`` as ``1500.0``). A loose needle that is not *number-like*
  (only letters a digit reads as and ``e``, or part of ``infinity`` or ``nan``) cannot cross the quotes and
  punctuation around a token nor lie in a number, so it lies in one string, which the file holds
  too: if the loose form of the file name and the file's own bytes shows none of the needles, and
  the file is JSON (else it is read as Markdown, in full), neither does its reader text.
- *HTML pages.* Take an ASCII plain word of every loose needle (its longest: a needle shows only
  where each of its words does). When every ``&`` of a page begins one of the five escapes
  (``&lt;``, ``&gt;``, ``&amp;``, ``&quot;``, ``&#39;``) and every non-ASCII character of it
  separates or is written as its letters (each character folds on its own), the reader text's
  letters are the page's own ASCII ones:
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
- *The quiet pass* (:class:`_Quiet`, issue 33). Most row files and pages show nothing, and the
  steps above look at each one several times: the byte needles in its lower-cased bytes, then the
  loose needles or words in its letters, then the tags. The least of all those needles, as their
  images in the file's letters (:func:`_ascii_letters` maps each byte alone), are looked for once
  in the letters of its distinct parts (a page's lines: its table repeats them; a row file's
  objects, cut at ``{``), and the tags of a page are read in its distinct lines too; a file in
  which none shows is passed, any other takes the steps.
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
from dataclasses import dataclass
from functools import cache, partial
from importlib import resources
from operator import itemgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, quote_plus

from generator.inputs.readable import is_hidden
from generator.render.pages import md_html

if TYPE_CHECKING:
    import msgspec

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
    model models more most much must name near need network never next nice none north open other over part
    partners people pilot place plan platform point power press product products project quick
    rapid real research right same says second service services several should show side simple
    since small smart software solution solutions some south space stack start still studio studios
    such suite system systems take team tech technology technologies than that their them then
    there these they thing things think this those three through time tool tools under until upon
    very ventures want well were west what when where which while will with within without word
    work works world would year years your
    base chat distill flash instruct latest medium meta mini nano omni plus preview reasoning thinking
    tiny turbo vision
"""
COMMON_WORDS = frozenset(_COMMON.split())
"""Words too common to identify a provider alone (English words of four or more letters that
product names are often made of, and the frequent function words): a name's other words are its
distinctive ones. A name is always scanned whole, whatever its words. The last line: the words real
model names are made of (``meta-llama/Llama-3.1-8B-Instruct``, ``gpt-4o-mini``, ``qwen-plus``) that
the site's own text holds (``<meta>``, "Benjamini", "base URL", the ``reasoning_validity`` criterion),
so that every such model's reveal can be built: measured over the example site (issue 44)."""

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


_LRM = "\u200e"  # the data wraps right-to-left characters in marks for display; not part of them


@cache
def _prototypes() -> dict[str, str]:
    """Unicode's confusables (UTS #39 ``confusables.txt``, as shipped by ``confusable-homoglyphs``):
    each character a reader takes for another string → that string, its *prototype*.

    The package stores every pair both ways (``char → [{"c": other}]``), but each line of the file
    maps one character to its prototype and a prototype is never itself mapped, so the pairs form
    stars: a prototype at the centre, every character drawn like it around. The centre is the one
    node with more than one neighbour; in a star of two it is the string of several characters
    (``m`` → ``rn``), else the ASCII one, else the lower code point (the two fold alike either way).
    """
    table = json.loads(resources.files("confusable_homoglyphs").joinpath("confusables.json").read_text())
    pairs = {(key.strip(_LRM), entry["c"].strip(_LRM)) for key, entries in table.items() for entry in entries}
    neighbours: dict[str, set[str]] = {}
    for a, b in pairs:
        neighbours.setdefault(a, set()).add(b)
        neighbours.setdefault(b, set()).add(a)
    prototypes = {}
    for a, b in pairs:
        if len(neighbours[a]) > 1 or len(neighbours[b]) > 1:
            centre = a if len(neighbours[a]) > 1 else b
        else:
            centre = min(a, b, key=lambda s: (len(s) == 1, not s.isascii(), s))
        source = b if centre == a else a
        if len(source) == 1:
            prototypes[source] = centre
    return prototypes


ASCII_RULES = {"i": "l", "w": "vv"}
"""Beyond Unicode's data, for ASCII: ``i`` is ``l`` (the data draws ``I`` like ``l``, and the scan
ignores case, so the three are one), ``w`` is ``vv`` (as the data has ``m`` for ``rn``)."""
DIGITS = str.maketrans("0123456789", "olzeasbtbg")
"""The letter each digit is drawn like, for a digit among letters (``N0rthw1nd``): 0 o, 1 l, 2 z,
3 e, 4 a, 5 s, 6 b, 7 t, 8 b, 9 g (the data has only 0 and 1, as ``O`` and ``l``)."""


@cache
def _ascii_fold() -> dict[int, str]:
    """Every ASCII character's fold: lower case, then the data's prototype of a letter or ``|``
    (``I`` → ``l``, ``m`` → ``rn``, ``|`` → ``l``), then ASCII_RULES; other punctuation kept (the
    data's ``"`` → ``''`` or ``%`` → ``º/₀`` make no letter of it)."""
    folds = {}
    for code in range(128):
        char = chr(code)
        if char.isalpha() or char == "|":
            char = _prototypes().get(char, char).lower()
            char = "".join(ASCII_RULES.get(c, c) for c in _prototypes().get(char, char))
        folds[code] = char
    return folds


_LETTER_NAMES = re.compile(
    r"LATIN (?:LETTER SMALL CAPITAL|SMALL CAPITAL LETTER|SMALL LETTER DOTLESS) ([A-Z])(?: WITH .+)?"
)


def _named_letter(char: str) -> str:
    """The letter a character's Unicode name says it is, when the data has no prototype for it: a
    Latin small capital or dotless letter (``ɴ`` LATIN LETTER SMALL CAPITAL N → ``n``), or a letter
    with a stroke, hook, bar… (``ø`` LATIN SMALL LETTER O WITH STROKE → ``o``, by the name before
    WITH); empty when none."""
    name = unicodedata.name(char, "")
    letter = _LETTER_NAMES.fullmatch(name)
    if letter:
        return letter[1].lower()
    base, with_, _ = name.partition(" WITH ")
    if with_ and " LETTER " in base:
        with contextlib.suppress(KeyError):
            return unicodedata.lookup(base)
    return ""


_INVISIBLE = frozenset(("Cf", "Mn", "Mc", "Me"))
"""Format characters (Cf) and combining marks (M*) of this Python's Unicode database."""


_DRAWN_ON_ANOTHER = frozenset(("Cf", "Mn", "Me"))
"""Format characters and the combining marks drawn on the character before them (a spacing mark,
Mc, takes a place of its own: ``ං`` is drawn like ``o``)."""


@cache
def _fold_char(char: str, depth: int = 0) -> str:
    """What a reader takes one character for: nothing for a format character or combining mark;
    else its NFKD; else, as UTS #39 does, the data's prototype of it; else the letter its name
    says (:func:`_named_letter`); else its casefold; each result folded again until it stands still
    (a prototype is never mapped again; ``depth`` stops a cycle of case)."""
    if char.isascii():
        return _ascii_fold()[ord(char)]
    if depth > 3:
        return char
    if unicodedata.category(char) in _DRAWN_ON_ANOTHER or is_hidden(char):
        return ""
    then = unicodedata.normalize("NFKD", char)  # first, as UTS #39 (the data's own ö is ة's)
    if then == char:
        then = _prototypes().get(char) or _named_letter(char) or char.casefold()
    return char if then == char else "".join(_fold_char(c, depth + 1) for c in then)


_NON_ASCII = re.compile(r"[^\x00-\x7f]+")


@cache  # pages repeat the same few non-ASCII runs ("·", "—", "…") many thousand times
def _fold(run: str) -> str:
    """A run of non-ASCII characters folded one character at a time (:func:`_fold_char`)."""
    return "".join(map(_fold_char, run))


_MIXED = re.compile(r"\b(?=[^\W0-9]*[0-9])(?=[0-9]*[^\W0-9])\w+")
"""A word of letters and ASCII digits holding both (``n0rthw1nd``, not ``2026`` nor ``north``)."""
_HEX_ID = re.compile(r"[0-9a-f]{8,}")


def _letters_for_digits(word: re.Match[str]) -> str:
    """A word of letters and digits with its digits read as letters (:data:`DIGITS`), unless it is
    a hex id (eight or more hex digits: a digest, not a word)."""
    text = word.group()
    return text if _HEX_ID.fullmatch(text) else text.translate(DIGITS)


def _folded(text: str) -> str:
    """``text`` with every character folded, the markup residue removed, white space collapsed."""
    if not text.isascii():
        text = _NON_ASCII.sub(lambda run: _fold(run.group()), text)
    text = text.translate(_ascii_fold())
    return " ".join(_MARKUP_RESIDUE.sub("", text).split())


def skeleton(text: str) -> str:
    """What a reader recognises in ``text``, in one comparable form (see the module docstring). Only
    the non-ASCII runs are folded one by one (each character's fold is its own): pages are mostly
    ASCII, whose fold is one ``str.translate``."""
    return _MIXED.sub(_letters_for_digits, _folded(text))


def loose(text: str) -> str:
    """The skeleton with every digit read as a letter: a needle shows in a text's skeleton only if
    its loose form shows in the text's loose form (mapping characters one by one keeps every
    substring), which the shortcuts test on bytes."""
    return _folded(text).translate(DIGITS)


def readable(text: str) -> str:
    """A name as the scan prints it: casefolded, accents and format characters removed, white space
    collapsed."""
    bare = "".join(
        c
        for c in unicodedata.normalize("NFKD", text)
        if unicodedata.category(c) not in _INVISIBLE and not is_hidden(c)
    )
    return " ".join(bare.casefold().split())


def distinctive_words(name: str) -> set[str]:
    """The words of a name (:func:`readable`) with four or more letters that are not in
    ``COMMON_WORDS``."""
    words = _WORD.findall(readable(name))
    return {w for w in words if sum(c.isalpha() for c in w) >= 4 and w not in COMMON_WORDS}


BIDI_CHARACTERS = re.compile("[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")
"""Embeddings, overrides, isolates and marks: what can draw a text's letters in another order than
they are written (``\u202e`` + ``dniwhtroN`` is drawn "Northwind")."""


@cache
def _right_to_left(run: str) -> bool:
    """Whether a run of non-ASCII characters holds a bidi control or mark, or a right-to-left
    character or Arabic digit (Hebrew, Arabic…: they reorder what stands beside them)."""
    return bool(BIDI_CHARACTERS.search(run)) or any(map(_drawn_right_to_left, run))


def _drawn_right_to_left(char: str) -> bool:
    return unicodedata.bidirectional(char) in ("R", "AL", "AN")


def reordered(text: str) -> bool:
    """Whether ``text`` may be drawn in another order than it is written: without a bidi control or
    mark or a right-to-left character, a left-to-right paragraph is drawn in its order."""
    return not text.isascii() and any(_right_to_left(run) for run in set(_NON_ASCII.findall(text)))


def drawn_order(text: str) -> str:
    """``text`` in the order a browser draws it: each line (a paragraph of the reader text) laid out
    left to right by the Unicode Bidirectional Algorithm (``python-bidi``, the Rust
    ``unicode-bidi`` crate), as the site's pages are; lines that are not :func:`reordered` as they
    are."""
    return "\n".join(map(_drawn_line, text.split("\n")))


def _drawn_line(line: str) -> str:
    if not reordered(line):
        return line
    from bidi import get_display  # type: ignore[import-untyped]  # (no type information shipped)

    return str(get_display(line, base_dir="L"))


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
_ASCII_SPACES = b"\x1c\x1d\x1e\x1f"  # what str.split() splits at, not bytes.split()


@cache
def _ascii_loose() -> bytes:
    """The byte table of :func:`loose` for ASCII, but for ``m`` and ``w`` (two letters each)."""
    folds = {code: fold for code, fold in _ascii_fold().items() if len(fold) == 1}
    table = bytearray(range(256))
    for code, fold in folds.items():
        table[code] = ord(fold.translate(DIGITS))
    for code in _ASCII_SPACES:
        table[code] = ord(" ")
    return bytes(table)


def _ascii_letters(text: bytes) -> bytes:
    """:func:`loose` of ASCII text on its bytes, without collapsing white space."""
    lower = text.translate(_ascii_loose(), b"*_`~")
    for letter in b"mwMW":
        lower = lower.replace(bytes([letter]), _ascii_fold()[letter].encode("ascii"))
    return lower


def _ascii_loose_of(text: bytes) -> bytes:
    """:func:`loose` of ASCII text, on its bytes."""
    return b" ".join(_ascii_letters(text).split())


@cache
def _separates(run: str) -> bool:
    """Whether a run of non-ASCII characters reads, in a skeleton, as some characters none of which
    is an ASCII letter or digit or white space (its fold without markup residue)."""
    folded = _MARKUP_RESIDUE.sub("", _fold(run))
    return bool(folded) and not any(c.isspace() or (c.isascii() and c.isalnum()) for c in folded)


def _plain_loose(text: str) -> bytes | None:
    """:func:`loose` of ``text`` as plain needles see it, on bytes: every non-ASCII character that
    separates written ``#``, each that folds to ASCII letters written so (:func:`_as_letters`); None
    when one does neither."""
    if not text.isascii():
        folds = {run: _as_letters(run) for run in set(_NON_ASCII.findall(text))}
        written = {run: re.sub(r"[^\x00-\x7f]", "#", fold) for run, fold in folds.items() if fold is not None}
        if len(written) < len(folds):
            return None
        text = _NON_ASCII.sub(lambda run: written[run.group()], text)
    return _ascii_loose_of(text.encode("ascii"))


def _rows_show_none(rel: str, data: bytes, needles: list[bytes]) -> bool:
    """True only if the reader text of a row file shows none of ``needles`` (loose, plain, not
    number-like): an ASCII JSON object or array without a backslash, whose own loose form holds
    none of them."""
    if not (rel.isascii() and rel.isprintable() and data.isascii()) or b"\\" in data:
        return False
    if data.lstrip(b" \t\n\r")[:1] not in (b"{", b"["):
        return False
    seen = _ascii_loose_of(rel.encode("ascii") + b"\n" + data)
    if any(needle in seen for needle in needles):
        return False
    return _is_json(data)


def _is_json(data: bytes) -> bool:
    """Whether ``json.loads`` reads ``data`` (ASCII without a backslash): msgspec reads it in C, an
    object without building it (a struct of no fields skips every member, checking its syntax, at
    thirty times the speed of ``json.loads``), and what it reads ``json.loads`` reads too
    (``tests/test_blind_scan_fast.py`` checks on generated text); what it refuses (``NaN``,
    ``1e400`` in an array…) is asked of ``json.loads``."""
    skipping, decoding = _json_checkers()
    try:
        (skipping if data.lstrip()[:1] == b"{" else decoding).decode(data)
    except (ValueError, RecursionError):
        try:
            json.loads(data.decode("ascii"))
        except ValueError:
            return False  # not JSON: read as Markdown
    return True


@cache
def _json_checkers() -> tuple[msgspec.json.Decoder[Any], msgspec.json.Decoder[Any]]:
    """msgspec's decoder of an object into a struct of no fields, and its untyped decoder, made once
    (imported when first needed)."""
    import msgspec

    class _Members(msgspec.Struct):
        """Any JSON object: every member is unknown, skipped."""

    return msgspec.json.Decoder(_Members), msgspec.json.Decoder()


_HTML_ESCAPES = (b"&lt;", b"&gt;", b"&amp;", b"&quot;", b"&#39;")
_ASCII_BLANK = bytes.maketrans(bytes(range(128)), b" " * 128)


@cache
def _as_letters(run: str) -> str | None:
    """A run of non-ASCII characters with each that folds to ASCII letters (its loose form: ``×``
    → ``x``, ``α`` → ``a``) written so, each that separates (:func:`_separates`) kept; None when a
    character does neither (it vanishes, or folds to a space or to something else) or the run may be
    drawn in another order (:func:`reordered`)."""
    if _right_to_left(run):
        return None  # drawn in another order, maybe
    kept = []
    for char in run:
        letters = _MARKUP_RESIDUE.sub("", _fold(char)).translate(DIGITS)
        if _separates(char):
            kept.append(char)
        elif letters.isascii() and letters.isalpha():
            kept.append(letters)
        else:
            return None
    return "".join(kept)


_NON_ASCII_BYTES = re.compile(rb"[\x80-\xff]+")
_BARE_AMPERSAND = re.compile(b"&(?!%s)" % b"|".join(re.escape(escape[1:]) for escape in _HTML_ESCAPES))
"""An ``&`` that does not begin one of the five escapes (:data:`_HTML_ESCAPES`): one pass over a page
where counting each escape took six."""


def _letters_written(data: bytes, runs: set[bytes], changed: dict[bytes, bytes]) -> bytes:
    """``data`` with each of its runs of non-ASCII bytes (``runs``: every one, whole) that ``changed``
    holds written as it says. A page's runs are mostly characters that separate and stay (``·``,
    ``—``): only the others are replaced, each by ``bytes.replace`` when no other run holds it (then
    every place it is written is a whole run, and what replaces it makes no other run), else by a
    pass over every run."""
    if any(run in other for run in changed for other in runs if other != run):
        return _NON_ASCII_BYTES.sub(lambda run: changed.get(run.group(), run.group()), data)
    for run, letters in changed.items():
        data = data.replace(run, letters)
    return data


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
    if _BARE_AMPERSAND.search(data):
        return False
    if not data.isascii():
        runs = set(data.translate(_ASCII_BLANK).split())  # UTF-8 sequences never hold an ASCII byte
        folds = {run: _as_letters(run.decode("utf-8", "replace")) for run in runs}
        changed = {run: fold.encode("utf-8") for run, fold in folds.items() if fold is not None}
        if len(changed) < len(folds):
            return False
        data = _letters_written(data, runs, {run: fold for run, fold in changed.items() if fold != run})
    flat = _ascii_letters(data)  # non-ASCII bytes left are characters that separate
    if any(word in flat for word in words):
        return False
    edges = _TagEdges(flat, max(map(len, words)))
    return not any(edges.spelled(word) for word in words)


def _least_of(needles: Iterable[bytes]) -> tuple[bytes, ...]:
    """The needles none of the others holds: a text holds one of ``needles`` only if it holds one
    of these."""
    distinct = set(needles)
    return tuple(sorted(n for n in distinct if not any(m in n for m in distinct if m != n)))


_WHITE = frozenset(b" \t\n\r\x0b\x0c")


@dataclass(frozen=True)
class _Quiet:
    """The usual answer for a row file or an HTML page, "nothing here", found in one pass of the
    fewest needles over the file's ASCII letters (:func:`_ascii_letters`), where the steps of
    :func:`find_revealed` that it stands for take several.

    Those steps are: the byte needles (``least``) in the lower-cased name and bytes; then, for a row
    file, the loose needles in the loose form of its name and bytes (:func:`_rows_show_none`); for a
    page, the words in its letters and across its tags (:func:`_page_shows_none`). Each test below
    answers True only where they all let the file pass; anywhere else the steps run as before, so
    the scan's answer is the same whatever this answers.

    - :func:`_ascii_letters` maps each byte to a fixed string, the lower- and upper-case letter
      alike (``tests/test_blind_scan_quiet.py``), so a byte needle in the lower-cased bytes puts its
      own image in the letters: an image that is absent rules the byte needle out.
    - A needle none of whose images holds white space lies in one run of the loose form between
      white space, which collapsing leaves as it is: absent from the letters, it is absent from the
      loose form too.
    - Of a set of needles only the least (:func:`_least_of`) need be looked for.
    - A page repeats its lines (a run's table, row after row, is a few distinct lines): a needle,
      word or tag edge without a line break lies within one line, so the distinct lines, once each,
      show the same ones as the page (a word is letters, and what stands right before a ``<`` or
      after a ``>`` matters to :class:`_TagEdges` only as far as it is letters).
    - The name and the first bytes (``head``) are looked at apart: a needle may begin in the name.
    """

    images: tuple[bytes, ...]
    """The letters of each byte needle (:func:`_ascii_letters`)."""
    rows: tuple[bytes, ...] | None
    """The least of ``images`` and the row needles; None when the row step does not apply or one
    of them holds white space (the loose form collapses it)."""
    pages: tuple[bytes, ...] | None
    """The least of ``images`` and the words of the page step; None when that step does not apply."""
    words: tuple[bytes, ...]
    reach: int
    """How far a needle can reach from the name into the file: the longest needle's length."""

    @classmethod
    def of(cls, least: Iterable[bytes], row_needles: list[bytes] | None, words: list[bytes]) -> _Quiet:
        images = tuple(sorted({_ascii_letters(n) for n in least}))
        rows = None
        if row_needles is not None:
            rows = _least_of((*images, *row_needles))
            if any(_WHITE.intersection(n) for n in rows):
                rows = None
        pages = _least_of((*images, *words)) if words else None
        reach = max(map(len, (*images, *(rows or ()), *(pages or ()))), default=0)
        return cls(images, rows, pages, tuple(words), reach)

    def _head(self, rel: str, data: bytes) -> bytes:
        """The letters of ``rel``, its line break and the file's first ``reach`` letters at least:
        where a needle that begins in the name ends (the letters drop the markup residue, so a few
        more bytes of the file may be needed)."""
        size = max(self.reach, 1)
        while len(first := _ascii_letters(data[:size])) < self.reach and size < len(data):
            size *= 2
        return _ascii_letters(f"{rel}\n".encode()) + first

    @staticmethod
    def _holds(needles: tuple[bytes, ...], head: bytes, data: bytes, cut: bytes, letters: bytes) -> bool:
        """Whether ``head`` holds one of ``needles``, or the letters of ``data`` do; ``letters`` are
        those of its distinct parts (:func:`_parts`) between one ``cut`` and the next, which hold
        every needle without ``cut`` that ``data``'s letters hold (:func:`_ascii_letters` keeps
        ``cut``: such a needle lies within one part). A needle with ``cut`` is looked for in all
        the letters."""
        return any(n in head or n in (_ascii_letters(data) if cut in n else letters) for n in needles)

    def rows_quiet(self, rel: str, data: bytes) -> bool:
        """True only if a row file passes the byte needles and :func:`_rows_show_none`. Its parts are
        read between ``{``: a run's attempts repeat their checks' objects."""
        if self.rows is None or not (rel.isascii() and rel.isprintable() and data.isascii()):
            return False
        if b"\\" in data or data.lstrip(b" \t\n\r")[:1] not in (b"{", b"["):
            return False
        letters = _ascii_letters(_parts(data, b"{"))
        return not self._holds(self.rows, self._head(rel, data), data, b"{", letters) and _is_json(data)

    def page_quiet(self, rel: str, data: bytes) -> bool:
        """True only if a page passes the byte needles and :func:`_page_shows_none` (whose page is
        here taken only when every non-ASCII run stays as it is written). All but the head is read
        in the page's distinct lines: an ``&`` and what follows it, a run of non-ASCII bytes, the
        letters of each byte (:func:`_ascii_letters`, which keeps a line break) are each within
        one line."""
        if self.pages is None:
            return False
        distinct = _parts(data, b"\n")
        if _BARE_AMPERSAND.search(distinct):
            return False
        if not distinct.isascii() and not all(map(_stays, set(distinct.translate(_ASCII_BLANK).split()))):
            return False
        letters = _ascii_letters(distinct)
        if self._holds(self.pages, self._head(rel, data), data, b"\n", letters):
            return False
        edges = _TagEdges(letters, max(map(len, self.words)))
        return not any(edges.spelled(word) for word in self.words)


def _parts(data: bytes, cut: bytes) -> bytes:
    """The distinct parts of ``data`` between one ``cut`` and the next, once each, ``cut`` between
    them (in no particular order)."""
    return cut.join(set(data.split(cut)))


@cache
def _stays(run: bytes) -> bool:
    """Whether a run of non-ASCII bytes is one :func:`_page_shows_none` keeps as it is written (every
    character of it separates)."""
    fold = _as_letters(run.decode("utf-8", "replace"))
    return fold is not None and fold.encode("utf-8") == run


def _named(named: str, needles: Iterable[str]) -> bool:
    """Whether a needle shows in a file's name, or may begin there and go on in its text (both
    loose)."""
    for needle in needles:
        words = needle.split(" ")
        if needle in named or any(named.endswith(" ".join(words[:k])) for k in range(1, len(words))):
            return True
    return False


@dataclass(frozen=True)
class _Needles:
    """What :func:`find_revealed` looks for, derived once from the names."""

    bytes_: frozenset[bytes]
    """Every :func:`spellings` form of every name."""
    skeletons: dict[str, str]
    """The skeleton of each name and distinctive word → how the scan prints it (:func:`readable`)."""

    @classmethod
    def of(cls, names: Iterable[str]) -> _Needles:
        shown = {readable(n): n for n in sorted(set(names))}
        shown |= {w: w for name in sorted(set(names)) for w in distinctive_words(name)}
        skeletons: dict[str, str] = {}
        for text in sorted(shown):
            skeletons.setdefault(skeleton(text), text)
        return cls(frozenset(form for name in set(names) for form in spellings(name)), skeletons)

    @property
    def least(self) -> list[bytes]:
        """The byte forms none of the others holds (each other one holds one of these)."""
        return [n for n in self.bytes_ if not any(m in n for m in self.bytes_ if m != n)]

    @property
    def loose(self) -> list[bytes] | None:
        """The loose form of every skeleton needle, when all of them are plain (ASCII letters and
        digits, words one space apart), for the shortcuts; else None."""
        if not all(_PLAIN.fullmatch(s) for s in self.skeletons):
            return None
        return sorted({s.translate(DIGITS).encode("ascii") for s in self.skeletons})


_NUMBER_LETTERS = frozenset("e" + "0123456789".translate(DIGITS))


def _number_like(needle: bytes) -> bool:
    """Whether a loose needle may lie in a number as ``json.dumps`` spells it (its digits read as
    letters, its ``e``, ``Infinity`` or ``NaN``): then a row file's bytes may not show it where its
    reader text does."""
    text = needle.decode("ascii")
    return set(text) <= _NUMBER_LETTERS or text in loose("infinity") or text in loose("nan")


def find_revealed(
    files: Iterable[tuple[str, Callable[[], bytes]]], names: Iterable[str]
) -> tuple[str, str] | None:
    """(file, what was found) for the first file, in the order given, that shows a revealed name
    by bytes or to a reader; None when none does."""
    needles = _Needles.of(names)
    least, plain = needles.least, needles.loose
    row_needles = plain if plain is not None and not any(map(_number_like, plain)) else None
    words = sorted({max(b.split(), key=len) for b in plain or []})  # a word of every plain needle
    quiet = _Quiet.of(least, row_needles, words)
    for rel, read in files:
        data = read()
        rows = row_needles is not None and rel.endswith(".json") and ROWS_FOLDER in rel
        page = bool(words) and rel.endswith(".html") and not _named(loose(rel), map(bytes.decode, words))
        if (rows and quiet.rows_quiet(rel, data)) or (page and quiet.page_quiet(rel, data)):
            continue  # what the steps below would decide, in one pass of fewer needles
        haystack = (rel + "\n").encode("utf-8").lower() + data.lower()
        if any(n in haystack for n in least):
            found = [n.decode("utf-8", "replace") for n in needles.bytes_ if n in haystack]
            return rel, max(sorted(found), key=len)
        if rows and row_needles is not None and _rows_show_none(rel, data, row_needles):
            continue
        if page and _page_shows_none(data, words):
            continue
        shown = _shown(reader_text(rel, data), needles)
        if shown is not None:
            return rel, shown
    return None


def _shown(text: str, needles: _Needles) -> str | None:
    """The longest needle (as printed) that ``text`` shows to a reader, in the order its characters
    are written or in the order they are drawn."""
    plain = needles.loose
    drawn = reordered(text)
    if plain is not None and not drawn:
        seen_loose = _plain_loose(text)
        if seen_loose is not None and not any(b in seen_loose for b in plain):
            return None  # the loose form holds every needle the skeleton holds
    seen = skeleton(text) + ("\n" + skeleton(drawn_order(text)) if drawn else "")
    found = [shown for s, shown in needles.skeletons.items() if s in seen]
    return max(sorted(found), key=len) if found else None


def text_shows(text: str, names: Iterable[str]) -> str | None:
    """What :func:`find_revealed` reports of a text a page shows as it is (the site's name, its
    description): the revealed name it shows to a reader; None when none."""
    return _shown(text, _Needles.of(names))


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
