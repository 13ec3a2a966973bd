"""The compiled fast path of a row (generator/inputs/fastrows.py, ``Attempt.fast_row``) against the
strict path it stands in for: rows generated near every boundary are read both ways, and the two must
accept the same rows with equal values and refuse the same rows with the same problems."""

from __future__ import annotations

import json
from typing import Any, cast

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.errors import Problems
from generator.families.components.models import Episode, episode_row
from generator.families.input_base import Strict
from generator.families.points.models import Attempt, _kept, attempt_row, relative_paths
from generator.families.trials.fastrow import UnavailableCostRow, result_row
from generator.families.trials.models import PlannedTrial, TrialResult
from generator.families.trials.scoring import score_trial
from generator.families.trials.spec import seed_rules
from generator.inputs import jsonio
from generator.inputs.fastrows import no_duplicate_keys


class _StrictOnly(Attempt):
    """The same model without a fast path: every row read as before the fast path existed."""

    fast_row = None


def _plain(value: Any) -> Any:
    """A decoded row as plain data (a Struct and a pydantic model alike), to compare values."""
    if isinstance(value, msgspec.Struct):
        plain = {name: _plain(getattr(value, name)) for name in value.__struct_fields__}
        config = value.__struct_config__
        if config.tag_field is not None:  # a tagged union's member: its tag is no field, but read
            plain[config.tag_field] = getattr(value, config.tag_field)
        return plain
    if isinstance(value, jsonio.BaseModel):
        return {name: _plain(getattr(value, name)) for name in type(value).model_fields}
    if isinstance(value, tuple):
        return [_plain(item) for item in value]
    return value


def _read(line: str, model: type[Strict]) -> tuple[list[Any], list[tuple[str, str, str]]]:
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


# --- trials: results.jsonl --------------------------------------------------------------------


class _StrictResult(TrialResult):
    """The trial result model without a fast path."""

    fast_row = None


def _mostly(valid: list[str], near: list[str]) -> st.SearchStrategy[str]:
    """One of ``valid`` nine draws in ten, else a value near them: a row has ten fields and a dozen
    objects, and a good share of the rows should be valid (``_value`` adds other JSON besides)."""
    return st.integers(0, 9).flatmap(lambda n: st.sampled_from(near if n == 7 else valid))


_HASH = "sha256:" + "a" * 64
_EVALUATORS = _mostly(
    [json.dumps(_HASH), json.dumps("sha256:" + "0123456789abcdef" * 4)],
    [
        json.dumps(_HASH + "\n"),  # the model's re.match lets a final newline pass its '$'
        json.dumps(_HASH + "\n\n"),
        json.dumps("sha256:" + "A" * 64),
        json.dumps("sha256:" + "a" * 63),
        json.dumps("sha256:" + "a" * 65),
        json.dumps("a" * 64),
        '"sha256\\u003a' + "a" * 64 + '"',
    ],
)
_COUNTS = _mostly(["0", "1", "-0", "250000"], ["-1", "9223372036854775808", "1" * 30, "true", "1.0", "1e3"])
_STATES = ['"measured"', '"unavailable"', '"Measured"']
_MEASURED = _object(
    {
        "state": _value(_mostly(['"measured"'], _STATES)),
        "usd_micros": _value(_COUNTS),
        "evidence": _value(
            _object(
                {
                    "kind": _value(
                        _mostly(['"provider_usage"', '"invoice"', '"versioned_allocation"'], ['"guess"'])
                    ),
                    "reference": _value(_TEXT),
                },
                {"kind", "reference"},
            )
        ),
    },
    {"state", "usd_micros", "evidence"},
)
_UNAVAILABLE = _object(
    {"state": _value(_mostly(['"unavailable"'], _STATES)), "reason": _value(_TEXT)}, {"state", "reason"}
)
_CHECK = _object(
    {
        "id": _value(_mostly(['"c1"', '"c2"', '"c3"', '"c4"', '"c:1"'], ['""', '"c1 "'])),
        "state": _value(_mostly(['"pass"', '"fail"', '"skipped"', '"not_evaluable"'], ['"x"'])),
    },
    {"id", "state"},
)
_INTERVENTION = _object(
    {"kind": _value(_mostly(['"setup"', '"publish"', '"a:b"'], ['""'])), "note": _value(_TEXT)}, {"kind"}
)
_OBSERVED = _mostly(['"pass"', '"fail"', '"not_observable"'], ['"skipped"', '"PASS"'])
_RESULT = {
    "trial_id": _value(_IDS | _TEXT),
    "terminal": _value(_mostly(['"completed"', '"error"', '"timeout"'], ['"Completed"', '"missing"'])),
    "build": _value(_OBSERVED),
    "boot": _value(_OBSERVED),
    "checks": _value(_list(_CHECK)),
    "interventions": _value(_list(_INTERVENTION)),
    "cost": _value(_MEASURED | _UNAVAILABLE),
    "elapsed_ms": _or_null(_COUNTS),
    "failure_code": _or_null(_TEXT),
    "evaluator": _value(_EVALUATORS),
}
RESULTS = _object(_RESULT, set(_RESULT))
_PLANNED = PlannedTrial(trial_id="t1", prompt_id="p1", prompt_corpus_version="v1", provider="P1")


def _scored(result: TrialResult) -> Any:
    """What scoring makes of a result: its row and figures under the seed's rules."""
    return score_trial(_PLANNED, result, "run-1", ("c1", "c2"), seed_rules())


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(RESULTS)
def test_the_fast_path_reads_every_trial_result_as_the_strict_path_does(line: str) -> None:
    assert _read(line, TrialResult) == _read(line, _StrictResult)
    fast = TrialResult.fast_row(line)
    if fast is not None:
        strict = TrialResult.model_validate_json(line)
        assert _plain(fast) == _plain(strict)
        assert _scored(cast(TrialResult, fast)) == _scored(strict)


RESULT = (
    '{"trial_id": "t1", "terminal": "completed", "build": "pass", "boot": "pass", "checks": [{"id": "c1", '
    '"state": "pass"}, {"id": "c2", "state": "fail"}], "interventions": [{"kind": "setup"}, {"kind": '
    '"publish", "note": "by hand"}], "cost": {"state": "measured", "usd_micros": 1250, "evidence": {"kind"'
    ': "invoice", "reference": "INV-7"}}, "elapsed_ms": 93000, "failure_code": null, "evaluator": "'
    + _HASH
    + '"}'
)
UNAVAILABLE = RESULT.replace(
    '"state": "measured", "usd_micros": 1250, "evidence": {"kind": "invoice", "reference": "INV-7"}',
    '"state": "unavailable", "reason": "no usage export"',
)


def _edit(old: str, new: str, row: str = RESULT) -> str:
    assert old in row
    return row.replace(old, new, 1)


_DEEP = "[" * 3000 + "]" * 3000
BOUNDARIES = {
    # accepted by both: the fast path must take them with the model's values
    "valid": (RESULT, True),
    "unavailable cost": (UNAVAILABLE, True),
    "tag last": (
        _edit('"state": "measured", "usd_micros": 1250', '"usd_micros": 1250, "state": "measured"'),
        True,
    ),
    "no checks, no interventions": (
        _edit(
            RESULT[RESULT.index('"checks"') : RESULT.index('"cost"')], '"checks": [], "interventions": [], '
        ),
        True,
    ),
    "zero cost and time": (_edit("1250", "0", _edit("93000", "-0")), True),
    "null time and a code": (
        _edit('"elapsed_ms": 93000, "failure_code": null', '"elapsed_ms": null, "failure_code": "E1"'),
        True,
    ),
    "evaluator with a final newline": (_edit(_HASH + '"', _HASH + '\\n"'), True),
    "escaped colon in the evaluator": (_edit('"sha256:', '"sha256\\u003a'), True),
    "a colon in a note": (_edit('"by hand"', '"by: hand"'), True),
    "a big integer": (_edit("1250", "1" * 40), True),
    # refused by the strict path: the fast path must leave them to it
    "unknown field": (_edit('"boot": "pass"', '"boot": "pass", "extra": 1'), False),
    "unknown field in a check": (_edit('"state": "pass"}', '"state": "pass", "why": ""}'), False),
    "unknown field in the cost": (_edit('"usd_micros": 1250', '"usd_micros": 1250, "reason": "x"'), False),
    "unknown field in the evidence": (_edit('"INV-7"', '"INV-7", "url": "x"'), False),
    "wrong type": (_edit('"trial_id": "t1"', '"trial_id": 1'), False),
    "bool for int": (_edit("93000", "true"), False),
    "float for int": (_edit("1250", "1250.0"), False),
    "negative time": (_edit("93000", "-1"), False),
    "negative cost": (_edit("1250", "-1"), False),
    "null terminal": (_edit('"terminal": "completed"', '"terminal": null'), False),
    "null cost": (_edit(RESULT[RESULT.index('{"state"') : RESULT.index('"elapsed_ms"') - 2], "null"), False),
    "null evaluator": (_edit('"' + _HASH + '"', "null"), False),
    "missing failure code": (_edit('"failure_code": null, ', ""), False),
    "missing note is fine, missing kind is not": (_edit('{"kind": "setup"}', '{"note": "x"}'), False),
    "duplicate key": (_edit('"build": "pass"', '"build": "pass", "build": "fail"'), False),
    "duplicate key in a check": (_edit('"id": "c1"', '"id": "c1", "id": "c3"'), False),
    "duplicate tag": (_edit('"state": "measured"', '"state": "measured", "state": "measured"'), False),
    "duplicate key, escaped colon": (
        _edit('"sha256:', '"sha256\\u003a', _edit('"boot": "pass"', '"boot": "pass", "boot": "pass"')),
        False,
    ),
    "duplicate check id": (_edit('"id": "c2"', '"id": "c1"'), False),
    "empty check id": (_edit('"id": "c2"', '"id": ""'), False),
    "empty intervention kind": (_edit('"kind": "setup"', '"kind": ""'), False),
    "empty reference": (_edit('"INV-7"', '""'), False),
    "empty reason": (_edit('"no usage export"', '""', UNAVAILABLE), False),
    "no tag": (_edit('"state": "measured", ', ""), False),
    "unknown tag": (_edit('"state": "measured"', '"state": "estimated"'), False),
    "the other member's fields": (_edit('"state": "measured"', '"state": "unavailable"'), False),
    "unknown evidence": (_edit('"invoice"', '"estimate"'), False),
    "unknown check state": (_edit('"state": "fail"', '"state": "passed"'), False),
    "upper-case hash": (_edit(_HASH, "sha256:" + "A" * 64), False),
    "short hash": (_edit(_HASH, _HASH[:-1]), False),
    "bare hex": (_edit(_HASH, "a" * 64), False),
    "hash then a space": (_edit(_HASH, _HASH + " "), False),
    "NaN": (_edit("93000", "NaN"), False),
    "Infinity": (_edit("1250", "Infinity"), False),
    "an integer past Python's digits": (_edit("1250", "9" * 5000), False),
    "deep nesting": (_edit('"failure_code": null', '"failure_code": ' + _DEEP), False),
    "deep nesting in a list": (_edit('"checks": [', '"checks": [' + _DEEP + ", "), False),
    "an array, not an object": ("[" + RESULT + "]", False),
    "null row": ("null", False),
}


@pytest.mark.parametrize("name", BOUNDARIES)
def test_a_trial_result_near_a_boundary_is_read_alike_both_ways(name: str) -> None:
    line, accepted = BOUNDARIES[name]
    fast, strict = _read(line, TrialResult), _read(line, _StrictResult)
    assert fast == strict
    assert bool(strict[0]) is accepted, strict[1]
    if accepted:
        decoded = TrialResult.fast_row(line)
        assert decoded is not None, "the fast path takes every valid row of this shape"
        assert _scored(cast(TrialResult, decoded)) == _scored(TrialResult.model_validate_json(line))


def test_a_valid_result_takes_the_fast_path_with_the_models_defaults_and_tags() -> None:
    fast = result_row(RESULT)
    assert fast is not None
    assert _plain(fast) == _plain(TrialResult.model_validate_json(RESULT))
    assert [i.note for i in fast.interventions] == ["", "by hand"]
    assert fast.cost.state == "measured"
    assert (fast.build, fast.boot, fast.elapsed_ms, fast.failure_code) == ("pass", "pass", 93000, None)
    unavailable = result_row(UNAVAILABLE)
    assert unavailable is not None
    assert isinstance(unavailable.cost, UnavailableCostRow)
    assert (unavailable.cost.state, unavailable.cost.reason) == ("unavailable", "no usage export")


def test_a_duplicate_key_in_a_result_keeps_the_strict_message() -> None:
    line = _edit('"build": "pass"', '"build": "pass", "build": "fail"')
    assert result_row(line) is None
    assert _read(line, TrialResult)[1] == [
        ("f", "line 1 $.build", "duplicate key: every key may appear once")
    ]
