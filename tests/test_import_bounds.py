"""Every producer number bounded before it is used, and what imports, builds (issue 44, items 3, 4).

A reported figure written ``1e-999999999`` used to hang the import (lm-eval) or the build (inspect,
EEE, a hand-edited ``run.json``): its comparison raised ``Fraction(10)`` to the exponent. Each case
runs as a subprocess under a generous timeout that is only a failure guard: the test asserts the
outcome (an import and a build that finish, with the figure shown as disagreeing), never a duration.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from generator.families.trials import provenance
from generator.importers.lm_eval_results import _cross_check
from generator.importers.model import Observation, Reported
from generator.inputs import files, numbers
from tests.conftest import ROOT, reseal

DATA = ROOT / "tests" / "data"
INSPECT_LOG = next((DATA / "inspect").glob("*_Ex8pV7vgC9E4uTbkdUAyMy.json"))
LM_EVAL = DATA / "lm-eval" / "output"
EEE = DATA / "eee" / "two-models"
GUARD = 300
"""Seconds after which a command is taken to hang: a failure guard only, never the property."""
HUGE = "1e-999999999"
SENTINEL = "__figure__"


def cli(*args: str | Path, timeout: int = GUARD) -> subprocess.CompletedProcess[str]:
    """``benchsite`` run as a user runs it, in its own process, this tree's code first."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "generator", *map(str, args)]
    try:
        return subprocess.run(command, capture_output=True, text=True, env=env, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        pytest.fail(f"still running after {timeout} s: {' '.join(map(str, args))}")


def with_figure(doc: Any, path: Path, text: str) -> Path:
    """``doc`` written to ``path`` as JSON, its :data:`SENTINEL` string replaced by the number ``text``."""
    path.write_text(json.dumps(doc, indent=1).replace(f'"{SENTINEL}"', text), encoding="utf-8")
    return path


def inspect_source(folder: Path, text: str) -> list[str | Path]:
    log = json.loads(INSPECT_LOG.read_text())
    log["results"]["scores"][0]["metrics"]["accuracy"]["value"] = SENTINEL
    return ["inspect", with_figure(log, folder / INSPECT_LOG.name, text)]


def lm_eval_source(folder: Path, text: str) -> list[str | Path]:
    copy = folder / "output"
    shutil.copytree(LM_EVAL, copy)
    for results in sorted(copy.glob("*/results_*.json")):
        doc = json.loads(results.read_text())
        for task in doc["results"]:
            doc["results"][task]["acc,none"] = SENTINEL
        with_figure(doc, results, text)
    return ["lm-eval", copy]


def eee_source(folder: Path, text: str) -> list[str | Path]:
    record = json.loads((EEE / "model-a.json").read_text())
    record["evaluation_results"][0]["score_details"]["score"] = SENTINEL
    shutil.copy(EEE / "model-a_samples.jsonl", folder)
    return [
        "eee",
        with_figure(record, folder / "model-a.json", text),
        "--instances",
        folder / "model-a_samples.jsonl",
    ]


SOURCES = {"inspect": inspect_source, "lm-eval": lm_eval_source, "eee": eee_source}


def disagreements(out: Path) -> list[str]:
    site = json.loads((out / "v1" / "data" / "site.json").read_text())
    return [
        d["producer"].split(" ")[0] for b in site["benchmarks"] for d in b["disclosures"]["disagreements"]
    ]


@pytest.mark.slow  # an import and a build in a subprocess for each producer
@pytest.mark.parametrize("producer", sorted(SOURCES))
def test_a_figure_with_a_huge_exponent_imports_and_builds(tmp_path: Path, producer: str) -> None:
    args = SOURCES[producer](tmp_path, HUGE)
    runs = tmp_path / "runs"
    runs.mkdir()
    made = cli("import", *args, "--into", runs / "bench")
    assert made.returncode == 0, made.stderr
    built = cli("build", "--runs", runs, "--out", tmp_path / "site", "--site-version", "v1", "--quiet")
    assert built.returncode == 0, built.stderr
    assert HUGE in disagreements(tmp_path / "site")


def test_a_hand_edited_run_json_with_a_huge_exponent_builds(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    assert cli("import", "inspect", INSPECT_LOG, "--into", runs / "quiz").returncode == 0
    (run,) = (runs / "quiz").glob("run-*")
    meta = json.loads((run / "run.json").read_text())
    meta["reported"][0]["value"] = "1e-9999999999999999999999"
    (run / "run.json").write_text(json.dumps(meta, indent=2) + "\n")
    reseal(run)
    built = cli("build", "--runs", runs, "--out", tmp_path / "site", "--site-version", "v1", "--quiet")
    assert built.returncode == 0, built.stderr
    assert disagreements(tmp_path / "site") == ["1e-9999999999999999999999"]


def test_a_nan_accuracy_is_noted_by_the_import_and_refused_by_the_build(tmp_path: Path) -> None:
    """inspect_ai writes NaN where no sample was scored (issue 45): the import notes it and does not
    record it as a figure; a run.json holding it as a figure is refused by the build."""
    made = cli("import", *inspect_source(tmp_path, "NaN"), "--into", tmp_path / "quiz")
    reason = numbers.figure_problem("NaN")
    assert reason is not None
    assert made.returncode == 0, made.stderr
    (imported,) = (tmp_path / "quiz").glob("run-*")
    noted = json.loads((imported / "run.json").read_text())
    assert noted["reported"] == []
    assert "inspect_ai's accuracy of includes is NaN, not a number: not recorded" in noted["notes"]
    # the build, handed the same figure in a run.json, refuses it in the same words
    runs = tmp_path / "good"
    runs.mkdir()
    assert cli("import", "inspect", INSPECT_LOG, "--into", runs / "quiz").returncode == 0
    (run,) = (runs / "quiz").glob("run-*")
    meta = json.loads((run / "run.json").read_text())
    meta["reported"][0]["value"] = "NaN"
    (run / "run.json").write_text(json.dumps(meta, indent=2) + "\n")
    reseal(run)
    built = cli("build", "--runs", runs, "--out", tmp_path / "site", "--site-version", "v1", "--quiet")
    assert built.returncode == 4, built.stderr
    assert f"run.json: $.reported[0].value: {reason}" in built.stderr


def test_a_samples_file_over_the_build_cap_is_refused_by_the_import(tmp_path: Path) -> None:
    copy = tmp_path / "output"
    shutil.copytree(LM_EVAL, copy)
    samples = sorted(copy.glob("*/samples_*.jsonl"))[0]
    size = files.MAX_FILE_BYTES + 1
    with samples.open("r+b") as grown:
        grown.truncate(size)  # sparse: no disk used
    made = cli("import", "lm-eval", copy, "--into", tmp_path / "runs")
    assert made.returncode == 4, made.stderr
    assert f"{samples}: {files.too_large(size, files.MAX_FILE_BYTES)}" in made.stderr
    assert not (tmp_path / "runs").exists()


# ---- the comparison, decided without the power, equals the exact one ----------------------------


def exact_rule(text: str, rate: Fraction) -> bool:
    """The oracle: the comparison written out with the power built (fine for small exponents): the
    text's nearest double is the rate's (Decimal and Fraction convert correctly rounded; a text that
    is not 0 never states 0), or the rate is within half a unit of the text's last place from it."""
    written = Decimal(text)
    exponent = written.as_tuple().exponent
    assert isinstance(exponent, int)
    same_double = (written == 0) == (rate == 0) and float(written) == float(rate)
    return same_double or abs(Fraction(written) - rate) <= Fraction(10) ** exponent / 2


figures = st.builds(
    lambda sign, whole, fraction, exponent: f"{sign}{whole}{fraction}{exponent}",
    st.sampled_from(["", "-"]),
    st.from_regex(r"[0-9]{1,6}", fullmatch=True),
    st.sampled_from(["", ".5", ".25", ".0", ".333", ".1000"])
    | st.from_regex(r"\.[0-9]{1,8}", fullmatch=True),
    st.just("") | st.integers(-60, 60).map(lambda e: f"e{e}"),
)
rates = st.integers(1, 2000).flatmap(lambda d: st.tuples(st.integers(0, d), st.just(d)))


@given(figures, rates)
def test_the_bounded_comparison_equals_the_exact_one(text: str, rate: tuple[int, int]) -> None:
    exact = Fraction(*rate)
    assert numbers.agrees(text, exact) == exact_rule(text, exact)


@st.composite
def near(draw: st.DrawFn) -> tuple[str, Fraction]:
    """A rate and a figure written near it: rounded to some places, its last digit nudged, its
    exponent moved into an ``e`` part, so that both answers occur (random pairs mostly disagree)."""
    numerator, denominator = draw(rates)
    places = draw(st.integers(0, 30))
    scaled = Fraction(numerator, denominator) * 10**places
    digits = round(scaled) + draw(st.integers(-1, 1))
    shift = draw(st.integers(-5, 5))
    text = f"{max(digits, 0)}e{shift - places}" if draw(st.booleans()) else f"{max(digits, 0)}e-{places}"
    return text, Fraction(numerator, denominator)


@given(near())
def test_the_bounded_comparison_equals_the_exact_one_near_the_rate(case: tuple[str, Fraction]) -> None:
    text, exact = case
    assert numbers.agrees(text, exact) == exact_rule(text, exact)


small_rates = st.integers(1, 200).flatmap(lambda d: st.tuples(st.integers(0, d), st.just(d)))


@given(small_rates)
def test_python_s_own_text_of_a_rate_agrees_with_it(rate: tuple[int, int]) -> None:
    """``repr(n / d)`` is the shortest text of the double nearest n/d: it states n/d (issue 45: the
    half-a-unit rule flagged 6,180 of 20,300 such fractions, 2/3 written 0.6666666666666666 first)."""
    numerator, denominator = rate
    assert numbers.agrees(repr(numerator / denominator), Fraction(numerator, denominator))


@given(small_rates)
def test_a_rate_rounded_to_three_places_agrees_with_it(rate: tuple[int, int]) -> None:
    numerator, denominator = rate
    assert numbers.agrees(f"{numerator / denominator:.3f}", Fraction(numerator, denominator))


def test_no_fraction_of_two_hundred_or_fewer_trials_is_flagged_in_python_s_own_text() -> None:
    """Every n/d with d ≤ 200 (20,300 pairs), written as Python writes it: none is flagged."""
    flagged = [
        (n, d) for d in range(1, 201) for n in range(d + 1) if not numbers.agrees(repr(n / d), Fraction(n, d))
    ]
    assert flagged == []


@given(small_rates, small_rates)
def test_python_s_text_of_another_rate_does_not_agree(rate: tuple[int, int], other: tuple[int, int]) -> None:
    """A different rate, written to the places Python gives it (five or more: a shorter text such as
    ``1.0`` is also an honest rounding of 19/20, and agrees with it)."""
    exact, different = Fraction(*rate), Fraction(*other)
    text = repr(float(different))
    assume(exact != different and len(text.partition(".")[2]) >= 5)
    assert not numbers.agrees(text, exact)


@given(small_rates, st.integers(2, 1000).map(lambda n: Fraction(n, 1000)))
def test_a_rounded_figure_two_units_away_does_not_agree(rate: tuple[int, int], step: Fraction) -> None:
    """A three-place figure at least 1.5 units (0.0015) from the rate states another number."""
    exact = Fraction(*rate)
    other = exact + step if exact + step <= 1 else exact - step
    assume(abs(other - exact) >= Fraction(15, 10000) and 0 <= other <= 1)
    assert not numbers.agrees(f"{float(other):.3f}", exact)


@pytest.mark.parametrize(
    ("text", "rate", "agrees"),
    [
        ("0.6666666666666666", Fraction(2, 3), True),
        ("0.667", Fraction(2, 3), True),
        ("0.666", Fraction(2, 3), False),
        ("1.0", Fraction(10, 11), False),
        ("0.665", Fraction(2, 3), False),
        ("0.625", Fraction(9, 16), False),
        ("1e-999999999", Fraction(9, 16), False),
        ("0e-999999999", Fraction(0), True),
        ("1e-999999999", Fraction(0), False),
        ("1e-400", Fraction(0), False),
        ("1e999999999", Fraction(1, 2), False),
        ("1e999999999", Fraction(0), False),
        ("-1e99999999999999999999999", Fraction(1), False),
        ("0.5625e-99999999999999999999999", Fraction(9, 16), False),
        ("0" * 400 + "0.6666666666666666", Fraction(2, 3), True),
    ],
)
def test_far_exponents_are_decided_from_the_digits(text: str, rate: Fraction, agrees: bool) -> None:
    assert numbers.agrees(text, rate) is agrees


def test_a_figure_of_too_many_digits_or_not_a_number_is_refused() -> None:
    assert (
        numbers.figure_problem("0." + "3" * 5000) == "a figure of 5001 digits: a number may hold at most 4300"
    )
    for text in ("NaN", "Infinity", "-inf", "0x10", "1e", ""):
        assert numbers.figure_problem(text) is not None, text
    assert numbers.figure_problem("0.625") is None


# ---- times: whole milliseconds bounded before they are made --------------------------------------


@pytest.mark.parametrize("seconds", ["1e999999", "1e999999999"])
def test_an_inspect_sample_time_too_long_to_hold_is_refused(tmp_path: Path, seconds: str) -> None:
    log = json.loads(INSPECT_LOG.read_text())
    log["samples"][0]["total_time"] = SENTINEL
    made = cli(
        "import", "inspect", with_figure(log, tmp_path / INSPECT_LOG.name, seconds), "--into", tmp_path / "q"
    )
    assert made.returncode == 4, made.stderr
    assert "samples[0].total_time: " in made.stderr
    assert f"a time may hold at most {numbers.MAX_DIGITS} digits of milliseconds" in made.stderr
    assert not (tmp_path / "q").exists()


def test_an_eee_latency_too_long_to_hold_is_refused(tmp_path: Path) -> None:
    record = json.loads((EEE / "model-a.json").read_text())
    record["detailed_evaluation_results"].pop("checksum")  # the instance file is edited below
    (tmp_path / "model-a.json").write_text(json.dumps(record))
    lines = (EEE / "model-a_samples.jsonl").read_text().splitlines()
    row = json.loads(lines[0])
    row["performance"] = {"latency_ms": SENTINEL}
    lines[0] = json.dumps(row).replace(f'"{SENTINEL}"', "1e999999999")
    samples = tmp_path / "model-a_samples.jsonl"
    samples.write_text("\n".join(lines) + "\n")
    made = cli("import", "eee", tmp_path / "model-a.json", "--instances", samples, "--into", tmp_path / "a")
    assert made.returncode == 4, made.stderr
    assert f"{samples}: line 1 $.performance.latency_ms: 1e999999999 ms: a time may hold" in made.stderr
    assert not (tmp_path / "a").exists()


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("9" * 5000, "not valid JSON: Exceeds the limit (4300 digits)"),
        ("[" * 100_000 + "]" * 100_000, "not valid JSON: nested too deeply"),
    ],
    ids=["long-integer", "deep-nesting"],
)
def test_an_lm_eval_number_too_long_or_nesting_too_deep_is_refused(
    tmp_path: Path, value: str, says: str
) -> None:
    copy = tmp_path / "output"
    shutil.copytree(LM_EVAL, copy)
    results = sorted(copy.glob("*/results_*.json"))[0]
    results.write_text(results.read_text().replace('"date":', f'"extra": {value}, "date":', 1))
    made = cli("import", "lm-eval", copy, "--into", tmp_path / "mc")
    assert made.returncode == 4, made.stderr
    assert "Traceback" not in made.stderr
    assert f"{results}: {says}" in made.stderr


@given(near())
def test_lm_eval_s_own_cross_check_and_the_build_use_one_rule(case: tuple[str, Fraction]) -> None:
    """A run note of lm-eval's importer and the site's disclosure never contradict each other."""
    text, exact = case
    passes, size = exact.numerator, exact.denominator
    observations = tuple(
        Observation(str(i), 1, "completed", (("acc", "pass" if i < passes else "fail"),)) for i in range(size)
    )
    noted = _cross_check(Reported("acc", "acc", text, "mean"), observations, size)
    assert (noted == ()) == provenance.agrees(text, passes, size)
