"""The blind scan's quiet pass (issue 33) lets a file pass only where the steps it stands for would.

``blind_scan._Quiet`` looks for the fewest needles once in a file's ASCII letters (and a page's
distinct lines) before the scan's own steps, and skips them when it finds none. Its argument rests
on :func:`blind_scan._ascii_letters` mapping each byte alone, upper and lower case alike; these test
that, then each of its two answers against the steps it replaces (the byte needles, then the row or
page step), then the whole scan with and without it, on generated pages and row files made to defeat
it: words across lines and tags, line breaks in a name, names that reach from the file name into the
file, characters that fold to letters, residue, ``m`` and ``w``.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from generator.publish import blind_scan
from tests.test_blind_scan_exact import NAME_SETS, escaped, row_file, site_file, split_name

EXAMPLES = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])

QUIET_NAMES = [
    *NAME_SETS,
    ["Open\nLabs Cloud"],  # a byte needle with a line break (spellings keep the raw name)
    ["Mistral Wave"],  # m and w, two letters each in the letters
    ["Contoso", "Fabrikam Tools"],
    ["Runs Data"],  # both common: the whole name, with its space
    ["Con{toso} Labs", "Tailspin"],  # a byte needle holding where a row file is cut
]
LINES = [
    "\n",
    "\r\n",
    "<td>",
    "</td>\n",
    "<tr>",
    "</tr>\n<tr>",
    "<b>",
    "</b>",
    ">",
    "<",
    "North",
    "wind",
    "NORTH\nWIND",
    "n0rthw1nd",
    "Nor",
    "thw",
    "ind",
    "contoso",
    "Cont",
    "oso",
    "App",
    "Gen",
    "open\nlabs",
    "Open",
    "Labs",
    "mistral",
    "rnistral",
    "vvave",
    "Wave",
    "Fabrikam",
    "fabrlkarn",
    "Tail",
    "spin",
    "&amp;",
    "&lt;",
    "&",
    "—",
    "·",
    "×",
    "α",
    "*",
    "_",
    "`",
    " ",
    "x",
    "1",
    '<span class="n">',
    "<!-- n -->",
    "\x1c",
]
multiline = st.lists(st.sampled_from(LINES) | split_name(), max_size=40).map("".join)
pages = st.tuples(
    st.sampled_from(
        ["b/x/index.html", "b/north/run-1.html", "b/x/ml.html", "b/open/labs.html", "b/tail.html"]
    ),
    (multiline | escaped).map(lambda text: text.encode("utf-8")),
)
rows = st.tuples(
    st.sampled_from(["data/runs/b/run-1.json", "data/runs/north/run-1.json", "data/runs/open/rnistral.json"]),
    row_file() | multiline.map(lambda text: json.dumps({"a": [text, 1.5, None]}).encode("ascii")),
)


def _scan_parts(names: list[str]) -> tuple[blind_scan._Quiet, list[bytes], list[bytes] | None, list[bytes]]:
    """What :func:`blind_scan.find_revealed` derives from the names: the quiet pass, the least byte
    needles, the row needles and the page words."""
    needles = blind_scan._Needles.of(names)
    plain = needles.loose
    row_needles = plain if plain is not None and not any(map(blind_scan._number_like, plain)) else None
    words = sorted({max(b.split(), key=len) for b in plain or []})
    return blind_scan._Quiet.of(needles.least, row_needles, words), needles.least, row_needles, words


def _bytes_pass(rel: str, data: bytes, least: list[bytes]) -> bool:
    haystack = (rel + "\n").encode("utf-8").lower() + data.lower()
    return not any(n in haystack for n in least)


def test_the_letters_map_each_byte_alone_and_either_case_alike() -> None:
    every = bytes(range(256))
    assert blind_scan._ascii_letters(every) == b"".join(blind_scan._ascii_letters(bytes([b])) for b in every)
    assert blind_scan._ascii_letters(every.lower()) == blind_scan._ascii_letters(every)
    for cut in (b"\n", b"{"):  # where the quiet pass cuts a file into its distinct parts
        assert blind_scan._ascii_letters(cut) == cut


@EXAMPLES
@given(page=pages, names=st.sampled_from(QUIET_NAMES))
@example(page=("b/x/index.html", b"<td>North</td>\n<td>wind</td>"), names=QUIET_NAMES[0])
@example(page=("b/x/index.html", b"open\nlabs"), names=["Open\nLabs Cloud"])
@example(page=("b/x/index.html", b"<p>Open\nLabs Cloud</p>\n<p>Open</p>"), names=["Open\nLabs Cloud"])
@example(page=("b/x/ml.html", b"<p>ab"), names=["TML Ab"])
@example(page=("b/x/index.html", "<p>Nor×thwind</p>".encode()), names=QUIET_NAMES[0])
def test_a_quiet_page_passes_the_steps_it_stands_for(page: tuple[str, bytes], names: list[str]) -> None:
    rel, data = page
    quiet, least, _, words = _scan_parts(names)
    if quiet.pages is not None and quiet.page_quiet(rel, data):
        assert _bytes_pass(rel, data, least)
        assert blind_scan._page_shows_none(data, words)


@EXAMPLES
@given(rows=rows, names=st.sampled_from(QUIET_NAMES))
@example(rows=("data/runs/b/run-1.json", b'{"a":"rnistral"}'), names=["Mistral Wave"])
@example(rows=("data/runs/b/run-1.json", b'{"a":"contoso\\n"}'), names=["Contoso"])
@example(rows=("data/runs/b/run-1.json", b'[{"a":"Tail"},{"a":"spin"},{"b":"Tail"}]'), names=["Tailspin"])
def test_a_quiet_row_file_passes_the_steps_it_stands_for(rows: tuple[str, bytes], names: list[str]) -> None:
    rel, data = rows
    quiet, least, row_needles, _ = _scan_parts(names)
    if quiet.rows is not None and quiet.rows_quiet(rel, data):
        assert row_needles is not None
        assert _bytes_pass(rel, data, least)
        assert blind_scan._rows_show_none(rel, data, row_needles)


def _never(*_: object) -> bool:
    return False


def _reads(files: list[tuple[str, bytes]]) -> list[tuple[str, Callable[[], bytes]]]:
    return [(rel, lambda data=data: data) for rel, data in files]


@EXAMPLES
@given(files=st.lists(pages | rows | site_file(), min_size=1, max_size=4), names=st.sampled_from(QUIET_NAMES))
def test_the_scan_answers_as_without_the_quiet_pass(files: list[tuple[str, bytes]], names: list[str]) -> None:
    quick = blind_scan.find_revealed(_reads(files), names)
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(blind_scan._Quiet, "rows_quiet", _never)
        patched.setattr(blind_scan._Quiet, "page_quiet", _never)
        assert blind_scan.find_revealed(_reads(files), names) == quick


def test_the_quiet_pass_takes_the_usual_files() -> None:
    """A page of a run's table and a row file, both without a name, are passed by it alone."""
    quiet, *_ = _scan_parts(NAME_SETS[0])
    row = "<tr><td>P-A</td><td>0.82</td><td>passed — 6/6</td></tr>\n"
    page = ("<html><body><table>" + row * 50 + "</table></body></html>").encode()
    assert quiet.page_quiet("b/agent-dx/runs/run-1.html", page)
    rows_data = json.dumps({"attempts": [{"detail": "6/6 passed", "points": 45.0}] * 20}).encode()
    assert quiet.rows_quiet("data/runs/agent-dx/run-1.json", rows_data)
    assert not quiet.rows_quiet("data/runs/agent-dx/run-1.json", rows_data.replace(b"passed", b"C0nt0so"))
