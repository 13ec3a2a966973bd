"""The blind scan's cheaper passes (issue 33) decide exactly as the ones they replace: msgspec's
decoder accepts only what ``json.loads`` accepts, one pattern finds the ``&`` no escape begins
where six counts did, and a page's non-ASCII runs are written as their letters by ``bytes.replace``
exactly as by a pass over every run. ``tests/test_blind_scan_exact.py`` compares the whole scan
with the plain one; these compare each replaced step with its former self on generated input."""

from __future__ import annotations

import json
import re

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from generator.publish import blind_scan

EXAMPLES = settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])

JSON_PIECES = st.sampled_from(
    [
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        '"',
        '"a"',
        '"k":',
        "1",
        "-",
        "0",
        "01",
        ".",
        "5",
        "e",
        "E",
        "+",
        "1e400",
        "-0.0",
        "NaN",
        "Infinity",
        "-Infinity",
        "true",
        "false",
        "null",
        "tru",
        " ",
        "\t",
        "\n",
        "\r",
        "\x0c",
        "\x00",
        "\x1f",
        "\x7f",
        "/",
        "x",
        "[1,2]",
        '{"a":[]}',
        "1.5E3",
    ]
)
ASCII_JSONISH = st.lists(JSON_PIECES, max_size=24).map("".join)
"""ASCII text without a backslash (as the row shortcut takes it), near JSON and often JSON."""
ASCII_OBJECTISH = ASCII_JSONISH.map(lambda inside: '{"k":' + inside + "}") | ASCII_JSONISH.map("{".__add__)
"""The same as an object's members, which msgspec skips rather than builds."""


def _json_loads_reads(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


@EXAMPLES
@given(
    ASCII_JSONISH
    | ASCII_OBJECTISH
    | st.text(alphabet=st.characters(max_codepoint=127, exclude_characters="\\"))
)
@example('{"a":1,"a":2}')
@example("[NaN, 1e400]")
@example(' \n{"a": [1, -0.0, 1.5E3]}\t')
@example('{"a":{"b":[NaN]},"c":1e400}')
@example('{"a":"\x01"}')
@example("{" * 2000 + "}" * 2000)
def test_the_row_files_json_check_is_json_loads(text: str) -> None:
    assert blind_scan._is_json(text.encode("ascii")) == _json_loads_reads(text)


@EXAMPLES
@given(
    st.lists(
        st.sampled_from(["&", "&lt;", "&gt;", "&amp;", "&quot;", "&#39;", "&#40;", "lt;", "a", ";", "&&"])
    )
)
def test_one_pattern_finds_the_ampersand_no_escape_begins(pieces: list[str]) -> None:
    page = "".join(pieces).encode("ascii")
    counted = page.count(b"&") != sum(page.count(escape) for escape in blind_scan._HTML_ESCAPES)
    assert bool(blind_scan._BARE_AMPERSAND.search(page)) == counted


RUN_CHARACTERS = st.sampled_from(["·", "—", "×", "α", "“", "”", "–", "ⁿ", "…"])
PAGE_PIECES = st.lists(
    st.lists(RUN_CHARACTERS, min_size=1, max_size=3).map("".join) | st.sampled_from(["a", " ", "<b>", "x1"]),
    max_size=20,
)


@EXAMPLES
@given(PAGE_PIECES)
@example(["×—", " ", "×"])  # a run that changes held by a longer run
@example(["—×", "a", "×", "b", "×—"])
def test_a_pages_runs_are_written_as_their_letters_as_a_pass_over_every_run_writes_them(
    pieces: list[str],
) -> None:
    data = "".join(pieces).encode("utf-8")
    runs = set(data.translate(blind_scan._ASCII_BLANK).split())
    folds = {run: blind_scan._as_letters(run.decode("utf-8")) for run in runs}
    changed = {run: fold.encode("utf-8") for run, fold in folds.items() if fold is not None}
    every_run = re.sub(rb"[\x80-\xff]+", lambda run: changed.get(run.group(), run.group()), data)
    moved = {run: fold for run, fold in changed.items() if fold != run}
    assert blind_scan._letters_written(data, runs, moved) == every_run
