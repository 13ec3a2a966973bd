"""Faults while building: kill -9, two builds at once, a full or read-only output. The site stays whole.

Small samples of ``scripts/reliability/faults.py``; the full run (30 kills, a kill after every
rename in the output, a disk-full threshold sweep): ``.venv/bin/python -m scripts.reliability.faults``.
"""

from __future__ import annotations

import errno
import random
import re
from pathlib import Path

import pytest

from generator.publish import write
from generator.publish.write import TEMP_PREFIX
from scripts.reliability import faults

pytestmark = pytest.mark.slow  # each case runs several builds under kill -9 and fault injection

KILLS = 5


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> faults.Lab:
    return faults.prepare(tmp_path_factory.mktemp("faults"))


def _tested(report: faults.FaultReport) -> None:
    """Skip only when mounting is truly not permitted here, saying why; any other reason fails."""
    for note in report.notes:
        if "cannot mount" in note and re.search(r"permission|not permitted|superuser|only root", note, re.I):
            pytest.skip(note)
        pytest.fail(note)


def test_kill_9_at_random_points_leaves_no_partial_site(lab: faults.Lab) -> None:
    report = faults.FaultReport()
    faults.random_kills(lab, KILLS, random.Random(20261129), report)
    tally = report.random
    assert tally.kills + tally.finished_first == KILLS
    assert tally.partial == 0, report.examples
    assert tally.recovered == KILLS, report.examples
    assert tally.mixed == 0 and report.examples == [], report.examples


@pytest.fixture(scope="module")
def first_rename(lab: faults.Lab) -> faults.FaultReport:
    """A build killed right after its first rename inside the output: a version moved into place."""
    report = faults.FaultReport()
    faults.step_kill(lab, 1, report)
    return report


def test_a_kill_right_after_a_version_is_renamed_into_place_leaves_it_complete(
    lab: faults.Lab, first_rename: faults.FaultReport
) -> None:
    report = first_rename
    assert report.steps.kills == 1
    assert report.steps.partial == report.steps.mixed == 0, report.examples
    assert report.steps.recovered == 1, report.examples
    (state,) = report.steps.states
    assert state.startswith(f"published {lab.steps[0]} (unlisted)")


def test_a_killed_build_leaves_no_run_details_behind(first_rename: faults.FaultReport) -> None:
    assert first_rename.steps.recovered == 1
    assert first_rename.steps.leaked == 0


def test_a_kill_between_index_html_and_versions_json_leaves_the_index_ahead_only_by_new_versions(
    lab: faults.Lab,
) -> None:
    """The documented window (generator/publish/write.py _switch_index): index.html may list the version
    just published (complete) before versions.json does; nothing else may differ."""
    report = faults.FaultReport()
    faults.step_kill(lab, lab.steps.index("index.html") + 1, report)
    assert report.steps.kills == 1
    assert report.steps.partial == 0
    assert report.steps.recovered == 1, report.examples
    assert report.steps.mixed == 0, report.examples


def test_two_concurrent_builds_never_write_at_once(lab: faults.Lab) -> None:
    report = faults.FaultReport()
    for i in range(2):
        faults.concurrent_pair(lab, i, 0.0, report)
    assert report.pairs == 2
    assert report.interleavings == 0
    assert report.pair_failures == 0, report.examples
    allowed = {
        "a published, b published",
        "a published, b locked out (exit 2)",
        "a locked out (exit 2), b published",
    }
    assert set(report.outcomes) <= allowed, report.outcomes


def test_a_full_disk_exits_2_naming_the_path_and_leaves_the_site_byte_identical(lab: faults.Lab) -> None:
    report = faults.FaultReport()
    faults.disk_full(lab, report, sweep=False)
    _tested(report)
    assert report.disk == {faults.REFUSED: 1}, report.examples


def test_a_read_only_output_exits_2_and_leaves_the_site_byte_identical(lab: faults.Lab) -> None:
    report = faults.FaultReport()
    faults.read_only_tmpfs(lab, report)
    _tested(report)
    assert report.disk == {faults.REFUSED: 1}, report.examples


def test_an_immutable_site_folder_exits_2_and_leaves_the_site_byte_identical(lab: faults.Lab) -> None:
    report = faults.FaultReport()
    faults.immutable_site(lab, report)
    if report.notes:
        pytest.skip(report.notes[0])  # chattr +i unsupported by this file system: said, not silent
    assert report.disk == {faults.REFUSED: 1}, report.examples


def test_a_full_disk_while_indexing_leaves_the_previous_site_untouched(
    lab: faults.Lab, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The disk fills up while index.html is written; the full run's tmpfs sweep finds the same."""
    site = lab.fresh_site("full-while-indexing")
    before = faults.snapshot(site)
    write_new = write._write_new

    def full_disk(path: Path, data: bytes) -> None:
        if path.name.startswith(TEMP_PREFIX) and path.name.endswith("-index.html"):
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        write_new(path, data)

    monkeypatch.setattr(write, "_write_new", full_disk)
    result = faults.cli(*lab.build_args(site))
    monkeypatch.undo()
    assert result.exit_code == 2, result.output
    assert "No space left on device" in result.output
    assert faults.snapshot(site) == before
