"""The blind scan's shortcuts find exactly what the plain scan finds (issue 17, a cold build).

``generator.publish.blind_scan`` skips the reader text of a row file that cannot show a name, writes the
non-ASCII runs that separate as ``#`` and those that fold to letters as their letters, tests a
loose form of ASCII text on bytes before the skeleton, and matches separating tags with a factored,
possessive pattern. The oracle below is the plain scan: the reader text as it was before the
shortcuts (its functions copied unchanged), every character folded one by one with the module's
own table of characters (Unicode's data, issue 31), the digits among letters read as letters word
by word; generated files built to defeat each shortcut — a name split by
inline tags, entities (named, numeric, without a semicolon, producing nothing), format characters,
fullwidth and Cyrillic letters, JSON ``\\u`` escapes and number spellings (``1e400``, ``NaN``),
Markdown emphasis, links and escapes — must give the same (file, name) or None, for names that take
the shortcuts and names that do not.
"""

from __future__ import annotations

import contextlib
import html
import json
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from typing import Any
from urllib.parse import quote, quote_plus

import pytest
from bidi import get_display  # type: ignore[import-untyped]
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.publish import blind_scan
from generator.publish.blind_scan import COMMON_WORDS, DIGITS
from generator.render.pages import md_html

# ---- the oracle: the scan before the shortcuts, copied unchanged -------------------------------

_MARKUP_RESIDUE = re.compile(r"[*_`~]")
_ROWS_FOLDER = "data/runs/"
_MARKDOWN_TURNS = re.compile(r"[\[&<\\]")
_WORD = re.compile(r"[^\W_]+")
_INVISIBLE = frozenset(("Cf", "Mn", "Mc", "Me"))
_QUOTED = r"""(?:[^>"']|"[^"]*"|'[^']*')*"""
_ANY_TAG = re.compile(rf"<(?:[A-Za-z/][A-Za-z0-9-]*{_QUOTED}|!--.*?--|![^>]*)>", re.S)
_VALUE = re.compile(r"""=\s*(?:"([^"]*)"|'([^']*)')""")
_SEPARATING = "|".join(sorted(blind_scan._SEPARATING_TAGS))
_SEPARATING_TAG = re.compile(rf"</?(?:{_SEPARATING})(?![A-Za-z0-9-]){_QUOTED}>", re.I)


def _fold_one(char: str) -> str:
    if char.isascii():
        return blind_scan._ascii_fold()[ord(char)]
    return blind_scan._fold_char(char)


def _digits_among_letters(word: str) -> str:
    digits = any(c in "0123456789" for c in word)
    letters = any(c not in "0123456789" for c in word)
    hex_id = len(word) >= 8 and all(c in "0123456789abcdef" for c in word)
    return word.translate(DIGITS) if digits and letters and not hex_id else word


def old_skeleton(text: str) -> str:
    folded = "".join(_fold_one(c) for c in text)
    collapsed = " ".join(_MARKUP_RESIDUE.sub("", folded).split())
    return re.sub(r"\w+", lambda word: _digits_among_letters(word.group()), collapsed)


def readable(text: str) -> str:
    bare = "".join(
        c for c in unicodedata.normalize("NFKD", text) if unicodedata.category(c) not in _INVISIBLE
    )
    return " ".join(bare.casefold().split())


def old_distinctive_words(name: str) -> set[str]:
    words = _WORD.findall(readable(name))
    return {w for w in words if sum(c.isalpha() for c in w) >= 4 and w not in COMMON_WORDS}


def old_spellings(name: str) -> set[bytes]:
    forms = {
        form
        for n in {name} | old_distinctive_words(name)
        for form in (n, json.dumps(n, ensure_ascii=True)[1:-1], html.escape(n), quote(n), quote_plus(n))
    }
    return {form.lower().encode("utf-8") for form in forms if form}


def old_html_text(page: str) -> str:
    values = " ".join(a or b for a, b in _VALUE.findall(page))
    text = _ANY_TAG.sub("", _SEPARATING_TAG.sub("\n", page))
    return html.unescape(f"{text}\n{values}")


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def old_reader_text(rel: str, data: bytes) -> str:
    text = data.decode("utf-8", "replace")
    if rel.endswith(".html"):
        return rel + "\n" + old_html_text(text)
    strings = [text]
    if rel.endswith(".json") and _ROWS_FOLDER in rel:
        with contextlib.suppress(ValueError):
            return "\n".join([rel, json.dumps(json.loads(text), ensure_ascii=False)])
    elif rel.endswith(".json"):
        with contextlib.suppress(ValueError):
            strings = list(_strings(json.loads(text)))
    markdown = "\n\n".join(s for s in strings if _MARKDOWN_TURNS.search(s))
    return "\n".join([rel, *strings, old_html_text(md_html(markdown)) if markdown else ""])


def old_find_revealed(
    files: Iterable[tuple[str, Callable[[], bytes]]], names: Iterable[str]
) -> tuple[str, str] | None:
    names = sorted(set(names))
    needles = {form for name in names for form in old_spellings(name)}
    shown = sorted({readable(name) for name in names} | {w for n in names for w in old_distinctive_words(n)})
    skeletons: dict[str, str] = {}
    for text in shown:
        skeletons.setdefault(old_skeleton(text), text)
    for rel, read in files:
        data = read()
        haystack = (rel + "\n").encode("utf-8").lower() + data.lower()
        found = [n.decode("utf-8", "replace") for n in needles if n in haystack]
        if found:
            return rel, max(sorted(found), key=len)
        text = old_reader_text(rel, data)
        drawn = "\n".join(get_display(line, base_dir="L") for line in text.split("\n"))
        seen = old_skeleton(text) + "\n" + old_skeleton(drawn)
        found = [s for k, s in skeletons.items() if k in seen]
        if found:
            return rel, max(sorted(found), key=len)
    return None


# ---- generated adversarial files ---------------------------------------------------------------

NAME_SETS = [
    ["Northwind Builder", "Contoso AppGen", "Fabrikam Studio", "Tailspin Forge"],
    ["Infinity Labs", "North Wind"],  # a needle a JSON number can spell: no row shortcut
    ["E1", "Northwind"],  # a number-like needle
    ["Zürich Agents"],  # plain once folded
    ["Acme-Labs", "Contoso"],  # not plain: the plain skeleton is not taken
    ["The Best Code Studio"],  # no distinctive word: the whole name, with spaces
    ["Nan Tail"],
    ["1234", "Infinity"],
    ["TML Ab"],  # may begin in a file name ("index.html") and go on in its text
]
PIECES = [
    # parts of the names, in several cases
    "north",
    "wind",
    "North",
    "WIND",
    "n",
    "orth",
    "northwind",
    "contoso",
    "Cont",
    "oso",
    "app",
    "gen",
    "tailspin",
    "tail",
    "spin",
    "fabrikam",
    "builder",
    "studio",
    "the best",
    "code",
    "zurich",
    "zür",
    "infinity",
    "Infinity",
    "nan",
    "NaN",
    "e1",
    "E",
    "1",
    "acme",
    "labs",
    "-",
    "agents",
    # white space, ASCII and not
    " ",
    "  ",
    "\n",
    "\t",
    "\x1c",
    "\x1f",
    "\x0b",
    "\xa0",
    "\u3000",
    "\u2028",
    # tags, inline and separating, quotes holding ">" and "<", comments, stray brackets
    "<b>",
    "</b>",
    "<strong>",
    "</td>",
    "<td>",
    "<TD class='x>y'>",
    '<p title="a>b">',
    "<!-- x -->",
    "<!--",
    "-->",
    "<br/>",
    '<span data-x="north">',
    '<a href="#wind">',
    "<ſummary>",
    "<\u212aBD>",
    "<",
    ">",
    '"',
    "'",
    "=",
    "</",
    "<DIV ",
    "<li",
    "<tbody>",
    # entities: named, numeric, without a semicolon, producing nothing or a format character
    "&#110;",
    "&#x6E;",
    "&#X57;",
    "&lt;",
    "&amp;",
    "&amp",
    "&shy;",
    "&#1",
    "&#8203;",
    "&nbsp;",
    "&fjlig;",
    "&",
    ";",
    "&#",
    "&#0;",
    # format characters, combining marks, fullwidth and look-alike letters, folding to several
    "\u200b",
    "\u00ad",
    "\u2060",
    "\u202e",
    "ｎ",
    "ｏ",
    "Ｗ",
    "о",
    "К",
    "ß",
    "\u212a",
    "ſ",
    "e\u0301",
    "\u0301",
    "—",
    "·",
    "…",
    "＿",
    "＊",
    "\ufffd",
    "㎉",
    "ﬁ",
    "Ⅳ",
    "中",
    # Markdown
    "*",
    "**",
    "_",
    "`",
    "~~",
    "[",
    "](#x)",
    "]",
    "(",
    ")",
    "\\",
    "\\*",
    "# ",
    "\n===\n",
    "> ",
    "<http://north.example/wind>",
    "[x]: /wind\n",
    "![",
    "|",
    # JSON
    "{",
    "}",
    ":",
    ",",
    "\\u006e",
    "\\u004E",
    "\\n",
    "\\\\",
    '\\"',
    "1e400",
    "-Infinity",
    "1.50",
    "1E5",
    "true",
    "null",
    "[]",
    "{}",
]
# markup alone, for the tag patterns: every separating tag name in several cases, other tags, quotes
MARKUP = [*(t for t in PIECES if t[:1] in "<>\"'=&/"), "wind", " ", "x=", "-", "!", "--"] + [
    f"<{slash}{name}{end}"
    for name in [*sorted(blind_scan._SEPARATING_TAGS), "TD", "Tr", "thx", "t", "h7", "pr"]
    for slash in ("", "/")
    for end in (">", " ", "-x>", "'>'>")
]
soup = st.lists(st.sampled_from(MARKUP), min_size=2, max_size=30).map("".join)
# pages the page shortcut reads: the five escapes only, non-ASCII characters that separate, names
# split by tags, residue and case
ESCAPED = [
    *(p for p in MARKUP if "&" not in p and p.isascii()),
    *("&lt;", "&gt;", "&amp;", "&quot;", "&#39;", "—", "·", "…", "\ufffd", "中", "→"),
    *("north", "wind", "Nor", "thw", "ind", "Tail", "spin", "tai", "lsp", "in", "t", "n", "d", "ab"),
    *("*", "_", "`", "~", " ", "\n", "x", "-", ".", "contoso", "CON", "toso", "appgen", "gen"),
]
GAPS = [
    "",
    "<b>",
    "</i>",
    "<td>",
    "</p><p>",
    "<!-- x -->",
    "*",
    "_",
    "&lt;",
    "—",
    "&#119;",
    " ",
    "ｗ",
    "\u200b",
]


@st.composite
def split_name(draw: st.DrawFn) -> str:
    """A name's word cut anywhere, the cuts filled with tags, residue, escapes or separators (which
    a reader reads through or not), in an escaped page."""
    word = draw(st.sampled_from(["Northwind", "contoso", "AppGen", "tailspin", "Ab", "wind"]))
    if draw(st.booleans()):  # one letter written otherwise: an entity, fullwidth
        at = draw(st.integers(0, len(word) - 1))
        letter = draw(st.sampled_from([f"&#{ord(word[at])};", chr(ord(word[at].lower()) + 0xFEE0)]))
        word = word[:at] + letter + word[at + 1 :]
    cuts = sorted(draw(st.sets(st.integers(1, len(word) - 1), max_size=3)))
    parts = [word[i:j] for i, j in zip([0, *cuts], [*cuts, len(word)], strict=True)]
    gaps = [draw(st.sampled_from(GAPS)) for _ in parts]
    spelled = "".join(part + gap for part, gap in zip(parts, gaps, strict=True))
    return draw(st.sampled_from(["", "<p>", "x "])) + spelled + draw(st.sampled_from(["", "</p>", " y"]))


escaped = st.lists(st.sampled_from(ESCAPED) | split_name(), min_size=1, max_size=12).map("".join)
piece_lists = st.lists(st.sampled_from(PIECES) | st.text(max_size=3), max_size=24)
texts = piece_lists.map("".join)
# ASCII strings a JSON row file can hold without a backslash (quotes and control characters are
# escaped): the row shortcut's case
ascii_pieces = [p for p in PIECES if p.isascii()]
json_safe = st.lists(st.sampled_from(ascii_pieces) | st.text("abeinfty1 _*", max_size=3), max_size=8).map(
    lambda parts: "".join(c for c in "".join(parts) if c not in '"\\' and " " <= c < "\x7f")
)
NUMBERS = ["1e400", "-1e400", "NaN", "Infinity", "1.50", "1E5", "0", "-0.0", "12345678901234567890"]


@st.composite
def row_file(draw: st.DrawFn) -> bytes:
    """A row file: JSON as benchsite writes it, with raw number spellings, or anything at all."""
    kind = draw(st.sampled_from(["dumps", "ascii", "numbers", "raw"]))
    if kind == "raw":
        return draw(texts).encode("utf-8")
    strings = draw(st.lists(json_safe if kind == "numbers" else texts, min_size=1, max_size=5))
    if kind == "numbers":
        numbers = draw(st.lists(st.sampled_from(NUMBERS), min_size=1, max_size=3))
        items = [f'"{s}": {n}' for s, n in zip(strings, numbers, strict=False)] + [
            f'"k": "{s}"' for s in strings
        ]
        space = draw(st.sampled_from(["", " ", "\n  "]))
        return (space + "{" + ",".join(items) + "}" + space).encode("utf-8")
    value = {"attempts": [{"id": s, "detail": s, "n": i} for i, s in enumerate(strings)]}
    return json.dumps(value, ensure_ascii=kind == "ascii", separators=(",", ":")).encode("utf-8")


@st.composite
def site_file(draw: st.DrawFn) -> tuple[str, bytes]:
    kind = draw(st.sampled_from(["html", "md", "json", "rows", "csv"]))
    if kind == "rows":
        folder = draw(st.sampled_from(["b", "north_wind", "tail\u200bspin", "x\x1c"]))
        return f"data/runs/{folder}/run-1.json", draw(row_file())
    if kind == "json":
        return "data/site.json", json.dumps({"d": draw(texts), draw(texts): [draw(texts)]}).encode("utf-8")
    text = draw(texts)
    if kind == "html" and draw(st.booleans()):
        rel = draw(st.sampled_from(["b/x/index.html", "b/north/run-1.html", "b/x/ml.html"]))
        return rel, draw(escaped).encode("utf-8")
    if kind == "html":
        return (
            "b/x/index.html",
            f"<html><body><p>{text}</p><td title='{draw(texts)}'>{draw(texts)}</td>".encode(),
        )
    return f"release-notes.{kind}", text.encode("utf-8")


def _reads(files: list[tuple[str, bytes]]) -> list[tuple[str, Callable[[], bytes]]]:
    return [(rel, lambda data=data: data) for rel, data in files]


@settings(max_examples=150, deadline=None)
@given(files=st.lists(site_file(), min_size=1, max_size=3), names=st.sampled_from(NAME_SETS))
def test_the_scan_finds_what_the_plain_scan_found(files: list[tuple[str, bytes]], names: list[str]) -> None:
    assert blind_scan.find_revealed(_reads(files), names) == old_find_revealed(_reads(files), names)


@settings(max_examples=120, deadline=None)
@given(rows=row_file(), names=st.sampled_from(NAME_SETS), folder=st.sampled_from(["b", "north_wind", "é"]))
def test_row_files_show_what_they_showed(rows: bytes, names: list[str], folder: str) -> None:
    files = [(f"data/runs/{folder}/run-1.json", rows)]
    assert blind_scan.find_revealed(_reads(files), names) == old_find_revealed(_reads(files), names)


@pytest.mark.slow  # about 8 s: enough examples to split a name across tags in three places
@settings(max_examples=500, deadline=None)
@given(page=escaped, names=st.sampled_from([NAME_SETS[0], NAME_SETS[1], NAME_SETS[-1]]))
def test_pages_show_what_they_showed(page: str, names: list[str]) -> None:
    files = [("b/x/index.html", page.encode("utf-8"))]
    assert blind_scan.find_revealed(_reads(files), names) == old_find_revealed(_reads(files), names)


@settings(max_examples=120, deadline=None)
@given(page=texts | soup)
def test_html_text_is_unchanged(page: str) -> None:
    """The factored, possessive tag patterns and the values' join give the same text."""
    assert blind_scan.html_text(page) == old_html_text(page)
    assert blind_scan.skeleton(page) == old_skeleton(page)


@settings(max_examples=120, deadline=None)
@given(text=texts)
def test_the_plain_loose_form_holds_the_same_plain_needles(text: str) -> None:
    plain = blind_scan._plain_loose(text)
    seen = old_skeleton(text).translate(DIGITS)
    if plain is None:
        return  # a character that neither separates nor folds to letters: the skeleton itself
    for needle in ("north", "wind", "north wind", "northvvlnd", "el", "nan", "tall spln", "l", "n", "x"):
        assert (needle in seen) == (needle.encode() in plain), needle


@settings(max_examples=120, deadline=None)
@given(text=texts)
def test_a_needle_in_the_skeleton_is_in_the_loose_form(text: str) -> None:
    """The shortcuts test the loose form: it must hold every needle the skeleton holds."""
    seen = old_skeleton(text)
    for needle in ("northvvlnd", "el", "nan", "tall spln", "l", "tol", "1234"):
        if needle in seen:
            assert needle.translate(DIGITS) in blind_scan.loose(text)


def test_the_shortcuts_are_taken() -> None:
    """The generated files above do reach the shortcuts (else the comparisons prove nothing)."""
    assert blind_scan._plain_loose("a — b · c") == b"a # b # c"
    assert blind_scan._plain_loose("a × α") == b"a x a"  # letters by Unicode's data
    assert blind_scan._plain_loose("no\u200brth") is None  # a format character joins: not a separator
    rows = json.dumps({"attempts": [{"detail": "Builder of north_wind"}]}, separators=(",", ":")).encode()
    assert blind_scan._rows_show_none("data/runs/b/r.json", rows, [b"northvvlnd"]) is False
    assert blind_scan._rows_show_none("data/runs/b/r.json", rows, [b"contoso"]) is True
    assert blind_scan._rows_show_none("data/runs/b/r.json", b'{"a":1e400}', [b"contoso"]) is True
    assert blind_scan._rows_show_none("data/runs/b/r.json", b'{"a":"[x](y)"', [b"contoso"]) is False
    spelled = [("data/runs/b/r.json", b'{"a":1e400}'), ("data/runs/b/s.json", b' [1.234e3, "x"]')]
    assert blind_scan.find_revealed(_reads(spelled), ["Infinity Labs"]) == ("data/runs/b/r.json", "infinity")
    assert blind_scan.find_revealed(_reads(spelled), ["1234"]) == ("data/runs/b/s.json", "1234")
    names = NAME_SETS[0]
    words = [b"northvvlnd", b"contoso"]
    assert blind_scan._page_shows_none(b"<p>North &lt; &#39;wind</p>\xe2\x80\x94", words) is True
    assert blind_scan._page_shows_none(b"<p>North<b>win</b>d</p>", words) is False
    assert blind_scan._page_shows_none(b"<p>North&#119;ind</p>", words) is False  # another entity
    assert blind_scan._page_shows_none("<p>Northｗind</p>".encode(), words) is False  # fullwidth
    assert blind_scan._page_shows_none("<p>3 × 4 α</p>".encode(), words) is True  # letters, no name
    assert blind_scan._page_shows_none("<p>Nαrth×</p>".encode(), [b"narthx"]) is False
    page = [("b/x/index.html", b"<p>Nor<i>th</i><b>w</b>ind</p>")]
    assert blind_scan.find_revealed(_reads(page), names) == ("b/x/index.html", "northwind")
    spanning = [("b/x/y.html", b"Ab<p>")]
    assert blind_scan.find_revealed(_reads(spanning), ["TML Ab"]) == ("b/x/y.html", "tml ab")
    split = [("data/runs/b/r.json", b'{"a":"[North](#x)wind"')]  # not JSON: read as Markdown
    assert blind_scan.find_revealed(_reads(split), names) == ("data/runs/b/r.json", "northwind")
