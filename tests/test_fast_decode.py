"""The compiled fast path of a row (generator/inputs/fastrows.py, ``Attempt.fast_row``) against the
strict path it stands in for: rows generated near every boundary are read both ways, and the two must
accept the same rows with equal values and refuse the same rows with the same problems."""

from __future__ import annotations

import json
from typing import Any

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.errors import Problems
from generator.families.components.models import Episode, episode_row
from generator.families.points.models import Attempt, _kept, attempt_row, relative_paths
from generator.inputs import jsonio
from generator.inputs.fastrows import no_duplicate_keys


class _StrictOnly(Attempt):
    """The same model without a fast path: every row read as before the fast path existed."""

    fast_row = None


def _plain(value: Any) -> Any:
    """A decoded row as plain data (a Struct and a pydantic model alike), to compare values."""
    if isinstance(value, msgspec.Struct):
        return {name: _plain(getattr(value, name)) for name in value.__struct_fields__}
    if isinstance(value, jsonio.BaseModel):
        return {name: _plain(getattr(value, name)) for name in type(value).model_fields}
    if isinstance(value, tuple):
        return [_plain(item) for item in value]
    return value


def _read(line: str, model: type[Attempt]) -> tuple[list[Any], list[tuple[str, str, str]]]:
    problems = Problems()
    rows = [(number, _plain(row)) for number, row in jsonio.iter_models(line.encode(), "f", model, problems)]
    return rows, [(p.file, p.where, p.message) for p in problems.as_list()]


def _obj(members: list[tuple[str, str]]) -> str:
    return "{" + ", ".join(f"{key}: {value}" for key, value in members) + "}"


_ODD = [
    "1",
    "0",
    "-0",
    "1.0",
    "2e3",
    "true",
    "false",
    "null",
    '"true"',
    '"1"',
    "[]",
    "{}",
    "NaN",
    "-Infinity",
    "1e400",
    "9" * 5000,
    '"x"',
    '""',
    "[null]",
    '{"id": "z", "passed": true}',
]
_IDS = st.sampled_from(['"a1"', '"a-1.x"', '"A_0"', '"T01-add"'])
_TEXT = st.sampled_from(
    [
        '"a1"',
        '"a-1.x"',
        '""',
        '"-a"',
        '"a\\n"',
        '"\\u00e9"',
        '"' + "a" * 128 + '"',
        '"' + "a" * 129 + '"',
        '"a b"',
        '"a:b"',
        '"a\\u003ab"',
        '"\\ud800"',
        '"\\udc00x"',
        '"\\ud83d\\ude00"',
        '"T01"',
        '"f1"',
        '"x\\"y"',
        '"x\\\\"',
        '"\\t"',
    ]
)
_PATH = (
    st.sampled_from(["a", "a/b.py", "src/c.py", "./a", "a//b", "a/./b", "a/", "src/x:y.py"])
    | st.sampled_from(["/a", "../a", "a/../b", ".", "", "...", "./", "a/.."])
).map(json.dumps)


def _rarely(draw: st.DrawFn) -> bool:
    """True one draw in forty: a row holds a dozen objects or more, and most rows should be valid."""
    return draw(st.integers(0, 39)) == 23  # not 0: hypothesis favours the ends of a range


@st.composite
def _value(draw: st.DrawFn, inner: st.SearchStrategy[str]) -> str:
    """Mostly the right kind of value, sometimes any other JSON near it."""
    if _rarely(draw):
        return draw(st.sampled_from(_ODD) | _TEXT)
    return draw(inner)


def _bools() -> st.SearchStrategy[str]:
    return _value(st.sampled_from(["true", "false"]))


@st.composite
def _object(draw: st.DrawFn, fields: dict[str, st.SearchStrategy[str]], required: set[str]) -> str:
    """An object of ``fields``, each present or not (a required one usually), sometimes with a key
    given twice or one no model knows."""
    members = [
        (json.dumps(name), draw(strategy))
        for name, strategy in fields.items()
        if ((not _rarely(draw)) if name in required else draw(st.booleans()))
    ]
    if members and _rarely(draw):
        key, _ = draw(st.sampled_from(members))
        members.insert(draw(st.integers(0, len(members))), (key, draw(st.sampled_from(_ODD))))
    if _rarely(draw):
        members.append((draw(st.sampled_from(['"extra"', '"Id"', '"i\\u0064"', '""'])), "1"))
    return _obj(draw(st.permutations(members)))


def _check(extra: dict[str, st.SearchStrategy[str]]) -> st.SearchStrategy[str]:
    ids = st.sampled_from([f'"{letter}{n}"' for letter in "frs" for n in range(9)] + ['"f1 "', '"f:1"'])
    return _object({"id": _value(ids), "passed": _bools(), **extra}, {"id", "passed", *extra})


def _list(item: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.lists(item, max_size=4).map(lambda items: "[" + ", ".join(items) + "]")


def _or_null(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return _value(st.one_of(inner, inner, inner, st.just("null")))


_SURFACES = st.sampled_from(['"contract"', '"client"', '"cli"', '"documentation"', '"CLI"'])
_REASONS = st.sampled_from(
    ['"pre_agent_evaluator_failure"', '"host_infrastructure_failure"', '"storage_exhaustion"', '"other"']
)
_SIGNALS = ("relevant_tests_changed", "passed_before", "passed_after")
_STEPS = ("explored", "recovered_or_no_error", "evidence_backed_termination")
_ATTEMPT = {
    "attempt_id": _value(_IDS),
    "task": _value(_IDS),
    "agent_started": _bools(),
    "invalid": _or_null(_object({"reason": _value(_REASONS), "detail": _value(_TEXT)}, {"reason"})),
    "functional": _or_null(_list(_check({}))),
    "regression": _or_null(_list(_check({"critical": _bools()}))),
    "cross_surface": _or_null(_list(_check({"surface": _value(_SURFACES)}))),
    "changed_paths": _or_null(_list(_value(_PATH))),
    "tests": _or_null(_object(dict.fromkeys(_SIGNALS, _bools()), set(_SIGNALS))),
    "trajectory": _or_null(_object(dict.fromkeys(_STEPS, _bools()), set(_STEPS))),
    "tampering_detected": _or_null(_bools()),
    "prohibited_change_detected": _or_null(_bools()),
    "producer_outcome": _or_null(
        st.sampled_from(['"Ready"', '"NeedsReview"', '"NotReady"', '"Invalid"', '"Inconclusive"', '"ready"'])
    ),
}
ROWS = _object(_ATTEMPT, set(_ATTEMPT))


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ROWS)
def test_the_fast_path_reads_every_row_as_the_strict_path_does(line: str) -> None:
    assert _read(line, Attempt) == _read(line, _StrictOnly)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ROWS)
def test_a_row_the_fast_decoder_accepts_the_model_accepts_with_equal_values(line: str) -> None:
    fast = Attempt.fast_row(line)
    if fast is not None:
        assert _plain(fast) == _plain(Attempt.model_validate_json(line))


VALID = (
    '{"attempt_id": "a-1", "task": "T01", "agent_started": true, "functional": [{"id": "f1", "passed": '
    'true}], "regression": [{"id": "r1", "passed": false, "critical": true}, {"id": "r2", "passed": true}]'
    ', "cross_surface": [], "changed_paths": ["./src//a.py", "b"], "tests": null, "trajectory": {"explo'
    'red": true, "recovered_or_no_error": false, "evidence_backed_termination": true}, "tampering_detecte'
    'd": false, "prohibited_change_detected": null}'
)


def test_a_valid_row_takes_the_fast_path_with_the_models_defaults_and_normal_paths() -> None:
    fast = attempt_row(VALID)
    assert fast is not None
    assert _plain(fast) == _plain(Attempt.model_validate_json(VALID))
    assert fast.changed_paths == ("src/a.py", "b")
    assert fast.producer_outcome is None
    assert isinstance(fast.regression, tuple)
    assert [check.critical for check in fast.regression] == [True, False]


def test_the_fast_path_leaves_a_duplicate_key_to_the_strict_path() -> None:
    line = VALID.replace('"task": "T01"', '"task": "T01", "task": "T02"')
    assert Attempt.fast_row(line) is None
    assert _read(line, Attempt)[1] == [("f", "line 1 $.task", "duplicate key: every key may appear once")]


def test_a_colon_in_a_string_costs_the_strict_duplicate_check_not_the_row() -> None:
    assert not no_duplicate_keys('{"a": "x:y", "a": 1}', 1)
    assert no_duplicate_keys('{"a": "x:y", "b": 1}', 2)
    assert Attempt.fast_row(VALID.replace('"b"]', '"b:c"]')) is not None


@given(st.text(alphabet="./ab\n", max_size=8))
def test_a_path_the_fast_path_keeps_is_one_the_model_keeps_unchanged(path: str) -> None:
    if _kept(path):
        assert relative_paths((path,)) == (path,)


# --- components: episodes.jsonl ---------------------------------------------------------------


class _StrictEpisode(Episode):
    """The episode model without a fast path."""

    fast_row = None


_HASHES = st.sampled_from(["sha256:" + "a" * 64, "sha256:" + "b" * 64, "sha256:" + "A" * 64, "sha256:ab"])
_CRITERIA = st.sampled_from(
    ["identification", "evidence_grounding", "reasoning_validity", "disposition", "task_focus", "focus"]
)
_SCORES = st.sampled_from(["0", "1", "2", "3", "4", "-1", "true", "2.0", "1e0"])
_NAMES = st.sampled_from(["open_document", "open_ledger", "x:y", ""]).map(json.dumps)
_JUDGMENT = _object(
    {
        "call_id": _value(st.sampled_from(['"c1"', '"c2"', '"c3"', '"c4"', '""'])),
        "judge": _value(_HASHES.map(json.dumps) | st.just('"sha256\\u003a' + "a" * 64 + '"')),
        "criterion": _value(_CRITERIA.map(json.dumps)),
        "score": _value(_SCORES),
    },
    {"call_id", "judge", "criterion", "score"},
)
_EPISODE = {
    "episode_id": _value(_IDS),
    "task": _value(_IDS),
    "seed": _value(st.sampled_from(["0", "1", "-3", "9223372036854775808", "1" * 30, "true", "1.0"])),
    "findings": _value(
        _list(
            _object(
                {
                    "location": _value(_NAMES),
                    "issue_type": _value(_NAMES),
                    "figure": _or_null(_TEXT),
                    "evidence_ids": _value(_list(_TEXT)),
                },
                {"location", "issue_type", "evidence_ids"},
            )
        )
    ),
    "opened_documents": _value(_list(_TEXT)),
    "calls": _value(_list(_object({"name": _value(_NAMES), "arguments": _value(_TEXT)}, {"name"}))),
    "judgments": _value(_list(_JUDGMENT)),
    "hard_fails": _value(_list(_TEXT)),
    "human_grades": _value(
        _list(
            _object(
                {"criterion": _value(_CRITERIA.map(json.dumps)), "score": _SCORES}, {"criterion", "score"}
            )
        )
    ),
}
EPISODES = _object(_EPISODE, set(_EPISODE) - {"human_grades"})


def _read_episodes(line: str, model: type[Episode]) -> tuple[list[Any], list[tuple[str, str, str]]]:
    problems = Problems()
    rows = [(number, _plain(row)) for number, row in jsonio.iter_models(line.encode(), "f", model, problems)]
    return rows, [(p.file, p.where, p.message) for p in problems.as_list()]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(EPISODES)
def test_the_fast_path_reads_every_episode_as_the_strict_path_does(line: str) -> None:
    assert _read_episodes(line, Episode) == _read_episodes(line, _StrictEpisode)
    fast = Episode.fast_row(line)
    if fast is not None:
        assert _plain(fast) == _plain(Episode.model_validate_json(line))


EPISODE = (
    '{"episode_id": "e1", "task": "JE-01", "seed": 1, "findings": [{"location": "row 10", "issue_type": '
    '"cutoff", "evidence_ids": ["d1"]}], "opened_documents": ["d1"], "calls": [{"name": "open_document"}]'
    ', "judgments": [{"call_id": "c1", "judge": "sha256:' + "a" * 64 + '", "criterion": "disposition", '
    '"score": 2}], "hard_fails": []}'
)


def test_a_valid_episode_takes_the_fast_path_with_the_models_defaults() -> None:
    fast = episode_row(EPISODE)
    assert fast is not None
    assert _plain(fast) == _plain(Episode.model_validate_json(EPISODE))
    assert (fast.human_grades, fast.calls[0].arguments, fast.findings[0].figure) == ((), "", None)


def test_an_escaped_colon_in_a_judge_leaves_the_duplicate_check_to_the_strict_parser() -> None:
    escaped = EPISODE.replace('"sha256:', '"sha256\\u003a').replace('"seed": 1', '"seed": 1, "seed": 2')
    assert episode_row(escaped) is None
    assert _read_episodes(escaped, Episode)[1] == [
        ("f", "line 1 $.seed", "duplicate key: every key may appear once")
    ]
