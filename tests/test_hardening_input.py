"""Issue 18, the input-reading items: hostile or changing inputs are refused with a clear, located
message and the documented exit code, never a traceback, a hang or unbounded memory."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from generator.errors import Problem
from generator.inputs import discover as inputs_module
from generator.inputs.seal import SEAL_NAME, SealedFolder
from tests.conftest import CORPUS, ROOT, run_cli
from tests.test_refusals import reseal

BENCH = "agent-dx"
RUN = "run-subject-15bb-1"
STORE = Path("recsys-grounding/.agenteval/subjects/agents")
AGENTEVAL_RUN = STORE / "recsys-agent" / "runs" / "2026-10-01_10-00-01_fadc2bac"


@pytest.fixture(autouse=True)
def private_tmpdir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Spools in a folder of this test's own: a build elsewhere on the machine never sweeps them."""
    folder = str(tmp_path_factory.mktemp("spool"))
    monkeypatch.setenv("TMPDIR", folder)
    monkeypatch.setattr(tempfile, "tempdir", folder)


@pytest.fixture
def small(tmp_path: Path) -> Path:
    """A copy of one benchmark of the corpus (fast to verify and build)."""
    root = tmp_path / "runs"
    shutil.copytree(CORPUS / BENCH, root / BENCH)
    return root


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """A copy of the AgentEval-layout benchmark of the corpus."""
    root = tmp_path / "runs"
    shutil.copytree(CORPUS / "recsys-grounding", root / "recsys-grounding")
    return root


def cli(
    *args: str | Path, timeout: float = 120, env: dict[str, str] | None = None, unprivileged: bool = False
) -> subprocess.CompletedProcess[str]:
    """The CLI in its own process: a hang fails the test at the timeout instead of stalling the suite."""
    command = [sys.executable, "-m", "generator", *map(str, args)]
    if unprivileged and os.geteuid() == 0:
        drop = "-dac_override,-dac_read_search"
        command = ["setpriv", f"--inh-caps={drop}", f"--bounding-set={drop}", *command]
    return subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=timeout, env={**os.environ, **(env or {})}
    )


def refused(result: Result | subprocess.CompletedProcess[str], code: int, *needles: str) -> str:
    """Assert the exit code, that no traceback was shown, and that every needle is in the output."""
    output = result.output if isinstance(result, Result) else result.stdout + result.stderr
    exit_code = result.exit_code if isinstance(result, Result) else result.returncode
    assert "Traceback" not in output, output
    assert exit_code == code, output
    for needle in needles:
        assert needle in output, output
    return output


# --- 3: linear error locator, size caps ----------------------------------------------------------


def test_locating_a_nan_after_a_long_number_is_linear() -> None:
    """A 300 KB row with a long float then NaN: quadratic locating took hours, linear takes < 1 s."""
    code = (
        "from generator.inputs.jsonio import parse_json\n"
        "row = '{\"a\": 1.' + '0' * 300_000 + ', \"b\": NaN}'\n"
        "parsed = parse_json(row, 'f.jsonl', where='line 7')\n"
        "print(parsed.value, [p.render() for p in parsed.problems])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert "f.jsonl: line 7 column 300016: NaN is not allowed" in done.stdout, done.stdout


def test_a_long_overflowing_decimal_is_located() -> None:
    from generator.inputs.jsonio import parse_json

    parsed = parse_json('{"a": [1, ' + "9" * 400 + ".5]}", "f.json")
    assert [p.where for p in parsed.problems] == ["line 1 column 11"]


def test_a_whole_file_document_over_the_cap_is_invalid_content(small: Path, tmp_path: Path) -> None:
    from generator.inputs.jsonio import MAX_DOCUMENT_BYTES

    declaration = small / BENCH / "benchmark.json"
    data = declaration.read_bytes()
    declaration.write_bytes(data.rstrip() + b" " * (MAX_DOCUMENT_BYTES + 1 - len(data.rstrip())) + b"\n")
    reseal(small / BENCH)
    output = refused(
        run_cli("build", "--runs", small, "--out", tmp_path / "site"),
        4,
        "benchmark.json",
        f"at most {MAX_DOCUMENT_BYTES}",
    )
    assert "invalid content (exit 4)" in output
    assert not (tmp_path / "site").exists() or not any((tmp_path / "site").glob("sha-*"))


def test_an_input_file_over_the_cap_is_refused_unread(small: Path, tmp_path: Path) -> None:
    from generator.inputs.files import MAX_FILE_BYTES

    big = small / BENCH / RUN / "notes.txt"
    with big.open("wb") as handle:  # sparse: costs no disk
        handle.truncate(MAX_FILE_BYTES + 1)
    reseal(small / BENCH / RUN)
    for args in (("verify", "--runs", small), ("build", "--runs", small, "--out", tmp_path / "site")):
        refused(run_cli(*args), 4, f"{big}: ", f"at most {MAX_FILE_BYTES} bytes")


# --- 5: compare reads only regular files, size-capped -------------------------------------------


def unsealed_copy(tmp_path: Path, name: str) -> Path:
    target = tmp_path / name
    shutil.copytree(CORPUS / AGENTEVAL_RUN, target)
    (target / SEAL_NAME).unlink()
    return target


@pytest.mark.parametrize("kind", ["fifo", "dev-zero-link", "directory", "dangling-link"])
def test_compare_on_unsealed_runs_reads_regular_files_only(tmp_path: Path, kind: str) -> None:
    baseline = unsealed_copy(tmp_path, "a")
    candidate = unsealed_copy(tmp_path, "b")
    bad = candidate / "scenarios" / "zz-bad.json"
    if kind == "fifo":
        os.mkfifo(bad)
    elif kind == "dev-zero-link":
        bad.symlink_to("/dev/zero")
    elif kind == "directory":
        bad.mkdir()
    else:
        bad.symlink_to(tmp_path / "nowhere.json")
    done = cli("compare", baseline, candidate, timeout=60)
    if kind == "directory":  # a folder is walked as a folder (it holds no file), not read as one
        refused(done, 0, "comparable: 80 row(s) paired")
    else:
        refused(done, 3, str(bad))


# --- 6: deep nesting, PATH_MAX, non-UTF-8 names ------------------------------------------------


@pytest.mark.parametrize("depth", [500, 999])
def test_json_nested_deep_in_a_whole_file_document_is_invalid_content(
    small: Path, tmp_path: Path, depth: int
) -> None:
    run_json = small / BENCH / RUN / "run.json"
    run_json.write_text('{"deep": ' + "[" * depth + "]" * depth + "}\n", encoding="utf-8")
    reseal(small / BENCH / RUN)
    refused(run_cli("verify", "--runs", small), 4, str(run_json), "nest")


def deep_path(folder: Path) -> Path:
    """Folders below ``folder`` until the path is past PATH_MAX (made relative to each folder's fd)."""
    fd = os.open(folder, os.O_RDONLY)
    parts = [folder]
    try:
        while len(str(Path(*parts))) < 4200:
            os.mkdir("d" * 200, dir_fd=fd)
            inner = os.open("d" * 200, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
            parts.append(Path("d" * 200))
        os.close(os.open("f.json", os.O_WRONLY | os.O_CREAT, dir_fd=fd))
    finally:
        os.close(fd)
    return Path(*parts)


@pytest.fixture
def too_long(small: Path) -> Iterator[Path]:
    run = small / BENCH / RUN
    deep_path(run)
    yield run
    shutil.rmtree(run)  # works below PATH_MAX: it removes by descriptor, not by path


def test_a_path_past_path_max_in_a_run_is_refused(too_long: Path, tmp_path: Path) -> None:
    small = too_long.parent.parent
    refused(run_cli("verify", "--runs", small), 3, str(too_long), "too long")
    refused(run_cli("build", "--runs", small, "--out", tmp_path / "site"), 3, "too long")


def test_sealing_a_folder_with_a_path_past_path_max_is_refused(too_long: Path) -> None:
    (too_long / SEAL_NAME).unlink()
    refused(run_cli("seal", too_long), 3, "too long")
    assert not (too_long / SEAL_NAME).exists()


def test_a_non_utf8_subject_folder_in_the_agenteval_layout_is_refused(store: Path) -> None:
    agents = store / STORE
    bad = os.fsencode(agents) + b"/agent-\xff"
    os.mkdir(bad)  # noqa: PTH102 (a bytes name: pathlib has none)
    shutil.copytree(CORPUS / AGENTEVAL_RUN.parent, os.fsdecode(bad) + "/runs")
    refused(cli("verify", "--runs", store), 3, "agent-", "not valid UTF-8")


# --- 9, 10: permissions -----------------------------------------------------------------------


def needs_permissions() -> None:
    if os.geteuid() == 0 and not shutil.which("setpriv"):
        pytest.skip("running as root without setpriv: permissions cannot be withheld")


@pytest.mark.parametrize("target", ["run-seal", "bench-seal", "run-folder-search", "bench-folder"])
def test_permission_errors_are_refusals(small: Path, tmp_path: Path, target: str) -> None:
    needs_permissions()
    path, mode = {
        "run-seal": (small / BENCH / RUN / SEAL_NAME, 0o000),
        "bench-seal": (small / BENCH / SEAL_NAME, 0o000),
        "run-folder-search": (small / BENCH / RUN, 0o600),
        "bench-folder": (small / BENCH, 0o000),
    }[target]
    path.chmod(mode)
    try:
        for args in (("verify", "--runs", small), ("build", "--runs", small, "--out", tmp_path / "o")):
            refused(cli(*args, unprivileged=True), 3, str(path), "ermission denied")
    finally:
        path.chmod(0o755)


def test_sealing_an_unreadable_folder_is_refused(small: Path) -> None:
    needs_permissions()
    run = small / BENCH / RUN
    (run / SEAL_NAME).unlink()
    (run / "run.json").chmod(0o000)
    refused(cli("seal", run, unprivileged=True), 3, str(run / "run.json"), "ermission denied")
    assert not (run / SEAL_NAME).exists()


def test_an_unreadable_subfolder_of_a_run_is_refused_not_skipped(small: Path) -> None:
    needs_permissions()
    sub = small / BENCH / RUN / "private"
    sub.mkdir()
    (sub / "unlisted.txt").write_text("not in the seal\n", encoding="utf-8")
    sub.chmod(0o000)
    try:
        refused(cli("verify", "--runs", small, unprivileged=True), 3, str(sub), "cannot be listed")
    finally:
        sub.chmod(0o755)


# --- 12: inputs changing during a build ----------------------------------------------------------


def test_a_file_vanishing_between_walk_and_lstat_is_a_refusal(
    small: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import generator.inputs.seal as seal

    victim = small / BENCH / RUN / "attempts.jsonl"
    real_walk, real_walk_files = os.walk, seal.walk_files
    covering = [False]

    def covered(*args: Any, **kwargs: Any) -> Iterator[Any]:
        """The coverage check's walk (``walk_files``), during which the file vanishes."""
        covering[0] = True
        try:
            yield from real_walk_files(*args, **kwargs)
        finally:
            covering[0] = False

    def walk_then_vanish(top: str, *args: Any, **kwargs: Any) -> Iterator[Any]:
        """The coverage check's walk of the run folder lists the file; then it is gone."""
        for entry in real_walk(top, *args, **kwargs):
            if covering[0] and Path(top) == victim.parent:
                victim.unlink(missing_ok=True)
            yield entry

    monkeypatch.setattr(seal, "walk_files", covered)
    monkeypatch.setattr(seal.os, "walk", walk_then_vanish)
    refused(run_cli("verify", "--runs", small), 3, f"{victim}: vanished")


def test_a_file_swapped_for_a_fifo_after_the_walk_is_refused_not_read(
    small: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    victim = small / BENCH / RUN / "attempts.jsonl"
    real = inputs_module.check_coverage

    def check_then_swap(folder: SealedFolder, nested: set[str]) -> list[Problem]:
        problems = real(folder, nested)
        if folder.path == victim.parent:
            victim.unlink()
            os.mkfifo(victim)
        return problems

    monkeypatch.setattr(inputs_module, "check_coverage", check_then_swap)
    refused(run_cli("verify", "--runs", small), 3, f"{victim}: is not a regular file")


# --- 13: names decode the same way in every locale ---------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("command", ["verify", "build"])
def test_the_corpus_verifies_and_builds_in_the_c_locale(tmp_path: Path, command: str) -> None:
    root = tmp_path / "runs"
    shutil.copytree(CORPUS, root)
    args = ("--out", tmp_path / "site") if command == "build" else ()
    done = cli(command, "--runs", root, *args, env={"PYTHONUTF8": "0", "LC_ALL": "C", "LANG": "C"})
    assert done.returncode == 0, done.stdout + done.stderr


def test_sealing_in_the_c_locale_writes_the_same_seal(tmp_path: Path) -> None:
    """Seal entries are UTF-8 whatever the locale: names with U+00B7 seal as they do under UTF-8."""
    run = tmp_path / "run"
    shutil.copytree(CORPUS / AGENTEVAL_RUN, run)
    original = (run / SEAL_NAME).read_bytes()
    (run / SEAL_NAME).unlink()
    done = cli("seal", run, env={"PYTHONUTF8": "0", "LC_ALL": "C", "LANG": "C"})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "\u00b7".encode() in original
    assert (run / SEAL_NAME).read_bytes() == original


# --- Also: each input read once per build ------------------------------------------------------


def test_a_reveal_build_reads_each_input_once(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    shutil.copytree(CORPUS / "vibe-delivery", root / "vibe-delivery")
    opened: list[str] = []
    prefix = str(root)

    def hook(event: str, args: tuple[object, ...]) -> None:
        if event == "open" and isinstance(args[0], str | bytes):
            name = os.fsdecode(args[0])
            if name.startswith(prefix):
                opened.append(name)

    sys.addaudithook(hook)
    try:
        result = run_cli("build", "--runs", root, "--out", tmp_path / "site", "--jobs", "1")
    finally:
        prefix = "\0"  # an audit hook cannot be removed: make it match nothing
    assert result.exit_code == 0, result.output
    counts = {name: opened.count(name) for name in opened}
    assert counts and max(counts.values()) == 1, sorted(n for n, c in counts.items() if c > 1)[:5]
