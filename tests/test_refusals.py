"""Refusals (exit 3) and invalid content (exit 4), one deliberately broken input at a time.

Each case copies ``runs/agent-dx`` (the benchmark every case breaks) into a temporary folder,
publishes a good site from it, breaks the copy in exactly one way, and builds again into the same
site folder. Every case is paired with its exact exit code and the key parts of its message, and
must: name the offending file by its path and give the reason, end with one summary line, show no
traceback, and leave the site that was already published byte-for-byte as it was
(SPEC §1, §5: a failed build writes nothing).

Content cases (exit 4) re-seal what they changed, so the seal holds and only the content is
wrong. ``verify`` is held to the same codes and messages, and must write nothing at all.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import shutil
import stat
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from generator.cli import main
from generator.inputs.seal import SEAL_NAME
from tests.conftest import corpus_counts, corpus_of, edit_json, json_bytes, reseal

AS_UTF8 = functools.partial(json_bytes, ascii=False)
"""How these tests write an edited JSON file: indented, non-ASCII characters as they are."""

CORPUS = Path(__file__).resolve().parent.parent / "runs"
BENCH = "agent-dx"
RUN = "run-subject-a3f1-1"
OTHER_RUN = "run-subject-d940-1"
THIRD_RUN = "run-subject-7c2e-1"
SUMMARY = re.compile(
    r"^(\d+) problem\(s\): (\d+) refused input\(s\), (\d+) invalid content; nothing was written; "
    r"(input refused \(exit 3\)|invalid content \(exit 4\))$"
)


# --- helpers ----------------------------------------------------------------------------------


def invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=True)


def tree(folder: Path) -> dict[str, bytes | str]:
    """Every entry below ``folder``: file bytes, or a marker for folders, links and special files."""
    out: dict[str, bytes | str] = {}
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=False):
        for name in sorted(dirnames + filenames):
            path = Path(dirpath) / name
            mode = path.lstat().st_mode
            rel = path.relative_to(folder).as_posix()
            if stat.S_ISLNK(mode):
                out[rel] = f"<symlink {path.readlink()}>"
            elif stat.S_ISDIR(mode):
                out[rel] = "<dir>"
            elif stat.S_ISREG(mode):
                out[rel] = path.read_bytes()
            else:
                out[rel] = f"<special {stat.S_IFMT(mode):o}>"
    return out


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def replace_bytes(path: Path, old: bytes, new: bytes) -> None:
    data = path.read_bytes()
    assert old in data, f"fixture drift: {old!r} not in {path}"
    path.write_bytes(data.replace(old, new, 1))


def edit_attempts(run: Path, change: Callable[[list[dict[str, Any]]], None]) -> None:
    path = run / "attempts.jsonl"
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    change(lines)
    path.write_text("".join(json.dumps(line, sort_keys=True) + "\n" for line in lines), encoding="utf-8")


def seal_lines(folder: Path) -> list[str]:
    return (folder / SEAL_NAME).read_text(encoding="utf-8").splitlines(keepends=True)


def write_seal_lines(folder: Path, lines: list[str]) -> None:
    (folder / SEAL_NAME).write_bytes("".join(lines).encode("utf-8"))


def line_of(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), start=1) if needle in line)


# --- the good site, and the broken inputs -------------------------------------------------------


@dataclass
class Inputs:
    """A private copy of the corpus with a good site already published from it."""

    root: Path
    site: Path
    published: dict[str, bytes | str]

    @property
    def bench(self) -> Path:
        return self.root / BENCH

    @property
    def run(self) -> Path:
        return self.bench / RUN

    @property
    def other(self) -> Path:
        return self.bench / OTHER_RUN

    @property
    def third(self) -> Path:
        return self.bench / THIRD_RUN

    def build(self) -> Result:
        return invoke("build", "--runs", self.root, "--out", self.site)

    def verify(self) -> Result:
        return invoke("verify", "--runs", self.root)


@pytest.fixture(scope="module")
def good_inputs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The corpus's ``agent-dx`` benchmark alone: every case breaks it, and a build of it alone costs
    a twentieth of the whole corpus's."""
    return corpus_of(tmp_path_factory.mktemp("good-inputs") / "runs", BENCH)


@pytest.fixture(scope="module")
def good_site(tmp_path_factory: pytest.TempPathFactory, good_inputs: Path) -> Path:
    """Built once: the output names no input path, so a copy serves every test's copy of the inputs."""
    site = tmp_path_factory.mktemp("good") / "site"
    result = invoke("build", "--runs", good_inputs, "--out", site)
    assert result.exit_code == 0, result.output
    return site


@pytest.fixture
def inputs(tmp_path: Path, good_inputs: Path, good_site: Path) -> Inputs:
    root = tmp_path / "runs"
    shutil.copytree(good_inputs, root, symlinks=True)
    site = tmp_path / "site"
    shutil.copytree(good_site, site, symlinks=True)
    published = tree(site)
    assert any(rel.endswith("data/build.json") for rel in published)
    return Inputs(root, site, published)


Parts = list[str | re.Pattern[str]]
Breaker = Callable[[Inputs], Parts]


def check_failure(inputs: Inputs, result: Result, code: int, parts: Parts) -> list[str]:
    """Exit code, every expected part, one summary line last, no traceback, the site untouched."""
    output = result.output
    assert result.exit_code == code, output
    assert isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in output
    for part in parts:
        if isinstance(part, re.Pattern):
            assert part.search(output), f"{part.pattern!r} not in:\n{output}"
        else:
            assert part in output, f"{part!r} not in:\n{output}"
    lines = [line for line in output.splitlines() if line.strip()]
    summaries = [line for line in lines if SUMMARY.match(line)]
    assert summaries == [lines[-1]], output
    verdict = SUMMARY.match(lines[-1])
    assert verdict is not None
    assert verdict.group(4).endswith(f"(exit {code})"), output
    assert int(verdict.group(1)) == len(lines) - 1, "one line per problem, then the summary"
    assert (int(verdict.group(2)) > 0) == (code == 3), output
    assert tree(inputs.site) == inputs.published, "a failed build changed the published site"
    return lines


# --- exit 3: refusals -------------------------------------------------------------------------


def run_without_seal(i: Inputs) -> Parts:
    # The run folder is no longer a sealed folder, so its files fall under the nearest seal
    # above them (the benchmark's), which does not list them.
    (i.run / SEAL_NAME).unlink()
    listed_in = f"is not listed in {i.bench / SEAL_NAME}"
    return [f"{i.run / 'attempts.jsonl'}: {listed_in}", f"{i.run / 'run.json'}: {listed_in}"]


def benchmark_without_seal(i: Inputs) -> Parts:
    (i.bench / SEAL_NAME).unlink()
    return [f"{i.bench}: no seal: the folder has no SHA256SUMS"]


def extra_file_in_run(i: Inputs) -> Parts:
    (i.run / "notes.txt").write_text("not sealed\n")
    return [f"{i.run / 'notes.txt'}: is not listed in {i.run / SEAL_NAME}"]


def extra_file_in_run_subfolder(i: Inputs) -> Parts:
    (i.run / "logs").mkdir()
    (i.run / "logs" / "agent.log").write_text("not sealed\n")
    return [f"{i.run / 'logs' / 'agent.log'}: is not listed in {i.run / SEAL_NAME}"]


def extra_file_in_benchmark(i: Inputs) -> Parts:
    (i.bench / "README.md").write_text("not sealed\n")
    return [f"{i.bench / 'README.md'}: is not listed in {i.bench / SEAL_NAME}"]


def listed_run_file_missing(i: Inputs) -> Parts:
    (i.run / "run.json").unlink()
    return [f"{i.run / SEAL_NAME}: run.json: listed file is missing"]


def listed_rubric_missing(i: Inputs) -> Parts:
    (i.bench / "rubric.json").unlink()
    return [f"{i.bench / SEAL_NAME}: rubric.json: listed file is missing"]


def hash_mismatch(i: Inputs) -> Parts:
    path = i.run / "attempts.jsonl"
    data = bytearray(path.read_bytes())
    sealed = sha(path)
    data[len(data) // 2] ^= 0x01  # one byte, one bit
    path.write_bytes(bytes(data))
    return [f"{path}: hash mismatch: sealed {sealed[:16]}…, found {sha(path)[:16]}…"]


def hash_mismatch_in_benchmark(i: Inputs) -> Parts:
    path = i.bench / "benchmark.json"
    sealed = sha(path)
    replace_bytes(path, b"Example corpus.", b"Example corpus!")
    return [f"{path}: hash mismatch: sealed {sealed[:16]}…"]


def listed_file_is_symlink(i: Inputs, tmp: Path) -> Parts:
    # Same bytes behind the link: the seal's hash would hold, the link itself is refused.
    target = tmp / "run.json.elsewhere"
    shutil.copyfile(i.run / "run.json", target)
    (i.run / "run.json").unlink()
    (i.run / "run.json").symlink_to(target)
    return [f"{i.run / 'run.json'}: is a symbolic link: sealed inputs must be regular files"]


def unlisted_symlink(i: Inputs) -> Parts:
    (i.run / "alias.json").symlink_to("run.json")
    return [f"{i.run / 'alias.json'}: is a symbolic link"]


def symlink_to_outside_folder(i: Inputs) -> Parts:
    (i.run / "escape").symlink_to(i.root.parent)
    return [f"{i.run / 'escape'}: is a symbolic link"]


def dangling_symlink(i: Inputs) -> Parts:
    (i.run / "dangling").symlink_to("nowhere")
    return [f"{i.run / 'dangling'}: is a symbolic link"]


def fifo_in_run(i: Inputs) -> Parts:
    os.mkfifo(i.run / "pipe")
    return [f"{i.run / 'pipe'}: is not a regular file (device, socket or pipe)"]


def listed_file_is_fifo(i: Inputs) -> Parts:
    (i.run / "run.json").unlink()
    os.mkfifo(i.run / "run.json")
    return [f"{i.run / 'run.json'}: is not a regular file (device, socket or pipe)"]


def seal_is_symlink(i: Inputs, tmp: Path) -> Parts:
    target = tmp / "SHA256SUMS.elsewhere"
    shutil.copyfile(i.run / SEAL_NAME, target)
    (i.run / SEAL_NAME).unlink()
    (i.run / SEAL_NAME).symlink_to(target)
    return [f"{i.run / SEAL_NAME}: is not a regular file"]


def seal_entry(line: int, rel: str) -> Breaker:
    """Insert ``<hash>  rel`` as line ``line`` of the run's seal (1-based), keeping the rest."""

    def breaker(i: Inputs) -> Parts:
        lines = seal_lines(i.run)
        lines.insert(line - 1, f"{sha(i.run / 'run.json')}  {rel}\n")
        write_seal_lines(i.run, lines)
        return [f"{i.run / SEAL_NAME}: line {line}: {rel!r}"]

    return breaker


def with_reason(breaker: Breaker, reason: str) -> Breaker:
    def wrapped(i: Inputs) -> Parts:
        return [*breaker(i), reason]

    return wrapped


def duplicate_seal_entry(i: Inputs) -> Parts:
    lines = seal_lines(i.run)
    write_seal_lines(i.run, [lines[0], *lines])
    return [f"{i.run / SEAL_NAME}: line 2: 'attempts.jsonl': duplicate entry"]


def unsorted_seal(i: Inputs) -> Parts:
    lines = seal_lines(i.run)
    assert [line.split()[1] for line in lines] == ["attempts.jsonl", "run.json"]
    write_seal_lines(i.run, lines[::-1])
    return [f"{i.run / SEAL_NAME}: line 2: 'attempts.jsonl': entries are not sorted by path"]


def malformed_seal_line(mangle: Callable[[str], str]) -> Breaker:
    def breaker(i: Inputs) -> Parts:
        lines = seal_lines(i.run)
        lines[1] = mangle(lines[1])
        write_seal_lines(i.run, lines)
        return [f"{i.run / SEAL_NAME}: line 2: not '<64 lowercase hex>  <path>' (coreutils format)"]

    return breaker


def seal_without_final_newline(i: Inputs) -> Parts:
    path = i.run / SEAL_NAME
    path.write_bytes(path.read_bytes().rstrip(b"\n"))
    return [f"{path}: last line: does not end with a newline"]


def empty_seal(i: Inputs) -> Parts:
    (i.run / SEAL_NAME).write_bytes(b"")
    return [f"{i.run / SEAL_NAME}: lists no files"]


def seal_not_utf8(i: Inputs) -> Parts:
    lines = seal_lines(i.run)
    (i.run / SEAL_NAME).write_bytes(lines[0].encode() + b"\xff\xfe\n" + lines[1].encode())
    return [f"{i.run / SEAL_NAME}: is not UTF-8 text"]


def benchmark_seal_lists_run_file(i: Inputs) -> Parts:
    rel = f"{RUN}/run.json"
    lines = seal_lines(i.bench)
    assert max(line.split()[1] for line in lines) < rel  # appended, the seal stays sorted
    write_seal_lines(i.bench, [*lines, f"{sha(i.run / 'run.json')}  {rel}\n"])
    return [f"{i.bench / SEAL_NAME}: {rel}: lists a file inside {RUN}/, which has its own seal"]


def rubric_does_not_match_pin(i: Inputs) -> Parts:
    path = i.bench / "rubric.json"
    pinned = json.loads((i.bench / "benchmark.json").read_bytes())["rubric"]["sha256"]
    assert sha(path) == pinned
    path.write_bytes(path.read_bytes() + b"\n")  # still valid JSON, different bytes
    reseal(i.bench)  # the seal holds; only the pin in benchmark.json is wrong
    return [
        f"{path}: rubric does not match its pin in benchmark.json: "
        f"pinned {pinned[:16]}…, found {sha(path)[:16]}…"
    ]


def stray_file_at_root(i: Inputs) -> Parts:
    (i.root / "notes.txt").write_text("stray\n")
    return [f"{i.root / 'notes.txt'}: is not a benchmark folder and no seal covers it"]


def stray_symlink_at_root(i: Inputs) -> Parts:
    (i.root / "alias").symlink_to(BENCH)
    return [f"{i.root / 'alias'}: is not a benchmark folder and no seal covers it"]


def stray_seal_at_root(i: Inputs) -> Parts:
    shutil.copyfile(i.bench / SEAL_NAME, i.root / SEAL_NAME)
    return [f"{i.root / SEAL_NAME}: is not a benchmark folder and no seal covers it"]


# --- exit 4: invalid content (re-sealed, so the seal holds) -------------------------------------


def bad_json_in_benchmark(i: Inputs) -> Parts:
    path = i.bench / "benchmark.json"
    text = path.read_text(encoding="utf-8")
    line = line_of(text, '"purpose"')
    column = text.splitlines()[line - 1].index('",') + 3  # the second comma
    replace_bytes(path, b'"historical",', b'"historical",,')
    reseal(i.bench)
    return [f"{path}: line {line} column {column}: not valid JSON: Expecting property name"]


def truncated_attempt_line(i: Inputs) -> Parts:
    path = i.run / "attempts.jsonl"
    lines = path.read_bytes().split(b"\n")
    lines[2] = lines[2][:40]
    path.write_bytes(b"\n".join(lines))
    reseal(i.run)
    return [re.compile(re.escape(f"{path}: line 3 column ") + r"\d+: not valid JSON")]


def unsafe_task_id(i: Inputs) -> Parts:
    edit_json(i.bench / "benchmark.json", lambda d: d["tasks"][0].update(id="bad id!"), dump=AS_UTF8)
    reseal(i.bench)
    return [f"{i.bench / 'benchmark.json'}: $.tasks[0].id: String should match pattern"]


def unknown_field_in_benchmark(i: Inputs) -> Parts:
    edit_json(i.bench / "benchmark.json", lambda d: d.update(colour="blue"), dump=AS_UTF8)
    reseal(i.bench)
    return [f"{i.bench / 'benchmark.json'}: $.colour: unknown field (not in the documented schema)"]


def missing_title(i: Inputs) -> Parts:
    edit_json(i.bench / "benchmark.json", lambda d: d.pop("title"), dump=AS_UTF8)
    reseal(i.bench)
    return [f"{i.bench / 'benchmark.json'}: $.title: required field is missing"]


def unknown_field_in_run(i: Inputs) -> Parts:
    edit_json(i.run / "run.json", lambda d: d.update(model="gpt"), dump=AS_UTF8)
    reseal(i.run)
    return [f"{i.run / 'run.json'}: $.model: unknown field (not in the documented schema)"]


def wrong_type_in_attempt(i: Inputs) -> Parts:
    edit_attempts(i.run, lambda lines: lines[1].update(tampering_detected="maybe"))
    reseal(i.run)
    return [f"{i.run / 'attempts.jsonl'}: line 2 $.tampering_detected: Input should be a valid boolean"]


def duplicate_key_in_benchmark(i: Inputs) -> Parts:
    path = i.bench / "benchmark.json"
    replace_bytes(path, b'  "title": ', b'  "title": "first",\n  "title": ')
    reseal(i.bench)
    return [f"{path}: $.title: duplicate key: every key may appear once"]


def duplicate_key_in_task(i: Inputs) -> Parts:
    path = i.bench / "benchmark.json"
    replace_bytes(path, b'"id": "T03-cli-flag",', b'"id": "T03-cli-flag", "id": "T03-cli-flag",')
    reseal(i.bench)
    return [f"{path}: $.tasks[2].id: duplicate key"]


def duplicate_key_in_attempt(i: Inputs) -> Parts:
    path = i.run / "attempts.jsonl"
    lines = path.read_bytes().split(b"\n")
    lines[1] = b'{"task": "T01-add-endpoint", ' + lines[1][1:]
    path.write_bytes(b"\n".join(lines))
    reseal(i.run)
    return [f"{path}: line 2 $.task: duplicate key"]


def attempt_value(literal: bytes, reason: str) -> Breaker:
    def breaker(i: Inputs) -> Parts:
        path = i.run / "attempts.jsonl"
        replace_bytes(path, b'"agent_started": true', b'"agent_started": ' + literal)
        reseal(i.run)
        return [located(f"{path}: line 1 column ", reason)]

    return breaker


def located(prefix: str, reason: str) -> re.Pattern[str]:
    """The hooks cannot say where a non-finite number is: benchsite finds its column itself."""
    return re.compile(re.escape(prefix) + r"\d+: " + re.escape(reason))


def overflow_in_benchmark(i: Inputs) -> Parts:
    path = i.bench / "benchmark.json"
    replace_bytes(path, b'"schema_version": 1', b'"schema_version": 1e400')
    reseal(i.bench)
    return [located(f"{path}: line 2 column ", "number 1e400 overflows to infinity")]


def duplicate_attempt_id(i: Inputs) -> Parts:
    edit_attempts(i.run, lambda lines: lines.append(dict(lines[0])))
    reseal(i.run)
    return [f"{i.run / 'attempts.jsonl'}: line 7 $.attempt_id: duplicate attempt id 'a3f1-01'"]


def duplicate_attempt_id_by_case(i: Inputs) -> Parts:
    edit_attempts(i.run, lambda lines: lines[5].update(attempt_id="A3F1-01"))
    reseal(i.run)
    return [f"{i.run / 'attempts.jsonl'}: line 6 $.attempt_id: duplicate attempt id 'A3F1-01'"]


def unknown_task(i: Inputs) -> Parts:
    edit_attempts(i.run, lambda lines: lines[0].update(task="T99-nope"))
    reseal(i.run)
    return [f"{i.run / 'attempts.jsonl'}: line 1 $.task: unknown task 'T99-nope'"]


def unknown_family(i: Inputs) -> Parts:
    edit_json(i.bench / "benchmark.json", lambda d: d.update(family="nope"), dump=AS_UTF8)
    reseal(i.bench)
    known = "components, definitions, points, trials"
    return [f"{i.bench / 'benchmark.json'}: $.family: unknown rubric family 'nope' (known: {known})"]


def duplicate_task_ids(i: Inputs) -> Parts:
    edit_json(
        i.bench / "benchmark.json", lambda d: d["tasks"][1].update(id=d["tasks"][0]["id"]), dump=AS_UTF8
    )
    reseal(i.bench)
    return [f"{i.bench / 'benchmark.json'}: $.tasks: duplicate task id 'T01-add-endpoint'"]


def missing_fact(key: str) -> Breaker:
    def breaker(i: Inputs) -> Parts:
        edit_attempts(i.run, lambda lines: lines[0].pop(key))
        reseal(i.run)
        return [
            f"{i.run / 'attempts.jsonl'}: line 1 $: a valid attempt states every fact "
            f"(null = not executed); missing [{key!r}]"
        ]

    return breaker


def bom(folder: str, name: str) -> Breaker:
    def breaker(i: Inputs) -> Parts:
        path = i.bench / folder / name if folder else i.bench / name
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
        reseal(path.parent)
        return [f"{path}: byte 0: starts with a UTF-8 byte-order mark"]

    return breaker


def not_utf8_in_benchmark(i: Inputs) -> Parts:
    path = i.bench / "benchmark.json"
    replace_bytes(path, b"(historical rubric)", b"(historical \xff rubric)")
    offset = path.read_bytes().index(b"\xff")
    reseal(i.bench)
    return [f"{path}: byte {offset}: is not valid UTF-8"]


def not_utf8_in_attempts(i: Inputs) -> Parts:
    path = i.run / "attempts.jsonl"
    replace_bytes(path, b'"a3f1-03"', b'"a3f1-\xc3("')
    offset = path.read_bytes().index(b"\xc3(")
    reseal(i.run)
    return [f"{path}: byte {offset}: is not valid UTF-8"]


def prospective_release(i: Inputs) -> Parts:
    status = json.loads((i.bench / "rubric.json").read_bytes())["status"]
    assert status.startswith("historical")
    edit_json(i.bench / "benchmark.json", lambda d: d.update(purpose="prospective-release"), dump=AS_UTF8)
    reseal(i.bench)
    return [
        f"{i.bench / 'benchmark.json'}: $.purpose: a prospective release is refused under this "
        f"contract: its status says {status!r}"
    ]


def plain(breaker: Breaker) -> Callable[[Inputs, Path], Parts]:
    """Most breakers need only the inputs; the symlink ones also get a folder outside them."""
    return lambda i, _elsewhere: breaker(i)


def with_newline(line: str) -> str:
    return line if line.endswith("\n") else line + "\n"


CASES: dict[str, tuple[int, Callable[[Inputs, Path], Parts]]] = {
    # exit 3 — refusals
    "run-without-seal": (3, plain(run_without_seal)),
    "benchmark-without-seal": (3, plain(benchmark_without_seal)),
    "unlisted-file-in-run": (3, plain(extra_file_in_run)),
    "unlisted-file-in-run-subfolder": (3, plain(extra_file_in_run_subfolder)),
    "unlisted-file-in-benchmark": (3, plain(extra_file_in_benchmark)),
    "listed-run-file-missing": (3, plain(listed_run_file_missing)),
    "listed-rubric-missing": (3, plain(listed_rubric_missing)),
    "hash-mismatch-one-byte": (3, plain(hash_mismatch)),
    "hash-mismatch-in-benchmark": (3, plain(hash_mismatch_in_benchmark)),
    "listed-file-is-symlink": (3, listed_file_is_symlink),
    "unlisted-symlink": (3, plain(unlisted_symlink)),
    "symlink-to-folder-outside": (3, plain(symlink_to_outside_folder)),
    "dangling-symlink": (3, plain(dangling_symlink)),
    "fifo-unlisted": (3, plain(fifo_in_run)),
    "fifo-listed": (3, plain(listed_file_is_fifo)),
    "seal-is-symlink": (3, seal_is_symlink),
    "seal-entry-dotdot": (3, plain(with_reason(seal_entry(1, "../x"), "escapes the folder"))),
    "seal-entry-inner-dotdot": (
        3,
        plain(with_reason(seal_entry(3, "sub/../run.json"), "escapes the folder")),
    ),
    "seal-entry-absolute": (3, plain(with_reason(seal_entry(1, "/etc/passwd"), "absolute path"))),
    "seal-lists-itself": (3, plain(with_reason(seal_entry(1, SEAL_NAME), "the seal lists itself"))),
    "seal-duplicate-entry": (3, plain(duplicate_seal_entry)),
    "seal-unsorted": (3, plain(unsorted_seal)),
    "seal-line-garbage": (3, plain(malformed_seal_line(lambda _: "run.json is fine, trust me\n"))),
    "seal-line-uppercase-hex": (3, plain(malformed_seal_line(lambda s: s[:64].upper() + s[64:]))),
    "seal-line-one-space": (3, plain(malformed_seal_line(lambda s: s[:64] + s[65:]))),
    "seal-line-tab": (3, plain(malformed_seal_line(lambda s: s[:64] + "\t" + s[66:]))),
    "seal-line-short-hash": (3, plain(malformed_seal_line(lambda s: s[1:]))),
    "seal-line-no-path": (3, plain(malformed_seal_line(lambda s: with_newline(s[:66])))),
    "seal-no-final-newline": (3, plain(seal_without_final_newline)),
    "seal-empty": (3, plain(empty_seal)),
    "seal-not-utf8": (3, plain(seal_not_utf8)),
    "benchmark-seal-lists-run-file": (3, plain(benchmark_seal_lists_run_file)),
    "rubric-does-not-match-pin": (3, plain(rubric_does_not_match_pin)),
    "stray-file-at-root": (3, plain(stray_file_at_root)),
    "stray-symlink-at-root": (3, plain(stray_symlink_at_root)),
    "stray-seal-at-root": (3, plain(stray_seal_at_root)),
    # exit 4 — invalid content
    "bad-json-benchmark": (4, plain(bad_json_in_benchmark)),
    "bad-json-attempt-line": (4, plain(truncated_attempt_line)),
    "schema-task-id": (4, plain(unsafe_task_id)),
    "schema-unknown-field-benchmark": (4, plain(unknown_field_in_benchmark)),
    "schema-missing-field": (4, plain(missing_title)),
    "schema-unknown-field-run": (4, plain(unknown_field_in_run)),
    "schema-wrong-type-attempt": (4, plain(wrong_type_in_attempt)),
    "duplicate-key-benchmark": (4, plain(duplicate_key_in_benchmark)),
    "duplicate-key-task": (4, plain(duplicate_key_in_task)),
    "duplicate-key-attempt": (4, plain(duplicate_key_in_attempt)),
    "nan": (4, plain(attempt_value(b"NaN", "NaN is not allowed: numbers must be finite"))),
    "infinity": (4, plain(attempt_value(b"Infinity", "Infinity is not allowed"))),
    "minus-infinity": (4, plain(attempt_value(b"-Infinity", "-Infinity is not allowed"))),
    "1e400": (4, plain(attempt_value(b"1e400", "number 1e400 overflows to infinity"))),
    "1e400-benchmark": (4, plain(overflow_in_benchmark)),
    "duplicate-attempt-id": (4, plain(duplicate_attempt_id)),
    "duplicate-attempt-id-by-case": (4, plain(duplicate_attempt_id_by_case)),
    "unknown-task": (4, plain(unknown_task)),
    "unknown-family": (4, plain(unknown_family)),
    "duplicate-task-ids": (4, plain(duplicate_task_ids)),
    "missing-fact-trajectory": (4, plain(missing_fact("trajectory"))),
    "missing-fact-tampering": (4, plain(missing_fact("tampering_detected"))),
    "missing-fact-changed-paths": (4, plain(missing_fact("changed_paths"))),
    "bom-benchmark": (4, plain(bom("", "benchmark.json"))),
    "bom-attempts": (4, plain(bom(RUN, "attempts.jsonl"))),
    "bom-run": (4, plain(bom(RUN, "run.json"))),
    "not-utf8-benchmark": (4, plain(not_utf8_in_benchmark)),
    "not-utf8-attempts": (4, plain(not_utf8_in_attempts)),
    "prospective-release-under-historical": (4, plain(prospective_release)),
}


@dataclass
class Broken:
    inputs: Inputs
    code: int
    parts: Parts


@pytest.fixture(params=sorted(CASES), ids=str)
def broken(request: pytest.FixtureRequest, inputs: Inputs, tmp_path: Path) -> Broken:
    """One deliberately broken input, paired with its exit code and the key parts of its message."""
    code, breaker = CASES[request.param]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    return Broken(inputs, code, breaker(inputs, elsewhere))


# --- the tests ----------------------------------------------------------------------------------


def test_build_refuses_broken_input_and_leaves_the_site_untouched(broken: Broken) -> None:
    result = broken.inputs.build()
    check_failure(broken.inputs, result, broken.code, broken.parts)


def test_verify_reports_the_same_and_writes_nothing(broken: Broken, monkeypatch: pytest.MonkeyPatch) -> None:
    top = broken.inputs.root.parent
    monkeypatch.chdir(top)
    before = tree(top)
    result = broken.inputs.verify()
    check_failure(broken.inputs, result, broken.code, broken.parts)
    assert tree(top) == before, "verify wrote something"


def test_the_same_broken_build_twice_gives_the_same_message(inputs: Inputs) -> None:
    parts = hash_mismatch(inputs)
    first, second = inputs.build(), inputs.build()
    check_failure(inputs, first, 3, parts)
    assert first.output == second.output


def test_hash_mismatch_agrees_with_the_stock_tool(inputs: Inputs) -> None:
    hash_mismatch(inputs)
    stock = subprocess.run(["sha256sum", "-c", SEAL_NAME], cwd=inputs.run, capture_output=True, text=True)
    assert stock.returncode == 1, stock.stdout
    assert "attempts.jsonl: FAILED" in stock.stdout


def test_every_problem_is_printed_then_one_summary_and_a_refusal_wins(inputs: Inputs) -> None:
    expected = [
        *stray_file_at_root(inputs),  # refused
        *attempt_value(b"NaN", "NaN is not allowed")(inputs),  # invalid, run a3f1-1
        *unknown_field_in_run(inputs),  # invalid, run a3f1-1 (same run, other file)
    ]
    (inputs.other / "extra.txt").write_text("x\n")  # refused, run d940-1
    expected.append(f"{inputs.other / 'extra.txt'}: is not listed in {inputs.other / SEAL_NAME}")
    edit_attempts(inputs.third, lambda lines: lines[0].update(task="T99-nope"))  # invalid, run 7c2e-1
    reseal(inputs.third)
    expected.append(f"{inputs.third / 'attempts.jsonl'}: line 1 $.task: unknown task 'T99-nope'")
    lines = check_failure(inputs, inputs.build(), 3, expected)
    assert lines[-1] == (
        "5 problem(s): 2 refused input(s), 3 invalid content; nothing was written; input refused (exit 3)"
    )
    for part in expected:  # each problem on its own line, exactly once
        found = (bool(part.search(line)) if isinstance(part, re.Pattern) else part in line for line in lines)
        assert sum(found) == 1, part


def test_several_invalid_files_are_all_printed_with_exit_4(inputs: Inputs) -> None:
    expected = duplicate_attempt_id(inputs)  # run a3f1-1
    path = inputs.other / "attempts.jsonl"  # run d940-1
    line = line_of(path.read_text(encoding="utf-8"), '"agent_started": true')
    replace_bytes(path, b'"agent_started": true', b'"agent_started": 1e400')
    reseal(inputs.other)
    expected.append(
        located(f"{path}: line {line} column ", "number 1e400 overflows to infinity: numbers must be finite")
    )
    edit_json(inputs.third / "run.json", lambda d: d.pop("subject"), dump=AS_UTF8)  # run 7c2e-1
    reseal(inputs.third)
    expected.append(f"{inputs.third / 'run.json'}: $.subject: required field is missing")
    lines = check_failure(inputs, inputs.build(), 4, expected)
    assert lines[-1] == (
        "3 problem(s): 0 refused input(s), 3 invalid content; nothing was written; invalid content (exit 4)"
    )


def test_benchmark_level_and_run_level_problems_are_reported_together(inputs: Inputs) -> None:
    expected = [*prospective_release(inputs), *extra_file_in_run(inputs)]
    check_failure(inputs, inputs.build(), 3, expected)


# --- seal and verify ----------------------------------------------------------------------------


@pytest.mark.parametrize("which", ["benchmark", "run"])
def test_seal_refuses_to_change_an_existing_seal(inputs: Inputs, which: str) -> None:
    folder = inputs.bench if which == "benchmark" else inputs.run
    (folder / "new.txt").write_text("would change the seal\n")
    seal = folder / SEAL_NAME
    before, mtime = seal.read_bytes(), seal.stat().st_mtime_ns
    listing = sorted(p.name for p in folder.iterdir())
    result = invoke("seal", folder)
    assert result.exit_code == 3, result.output
    assert isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    assert f"{seal}: a seal already exists; benchsite never changes an existing seal" in result.output
    assert seal.read_bytes() == before
    assert seal.stat().st_mtime_ns == mtime
    assert sorted(p.name for p in folder.iterdir()) == listing  # no temporary seal left behind


def test_seal_refuses_a_fifo_or_symlink_and_writes_no_seal(inputs: Inputs) -> None:
    (inputs.run / SEAL_NAME).unlink()
    os.mkfifo(inputs.run / "pipe")
    (inputs.run / "alias").symlink_to("run.json")
    result = invoke("seal", inputs.run)
    assert result.exit_code == 3, result.output
    assert isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    assert f"{inputs.run / 'pipe'}: cannot be sealed" in result.output
    assert f"{inputs.run / 'alias'}: cannot be sealed" in result.output
    assert not (inputs.run / SEAL_NAME).exists()
    assert not (inputs.run / f".{SEAL_NAME}.tmp").exists()


def test_resealing_a_run_reproduces_its_seal_and_the_stock_tool_accepts_it(inputs: Inputs) -> None:
    original = (inputs.run / SEAL_NAME).read_bytes()
    (inputs.run / SEAL_NAME).unlink()
    result = invoke("seal", inputs.run)
    assert result.exit_code == 0, result.output
    assert (inputs.run / SEAL_NAME).read_bytes() == original
    stock = subprocess.run(["sha256sum", "-c", SEAL_NAME], cwd=inputs.run, capture_output=True, text=True)
    assert stock.returncode == 0, stock.stdout + stock.stderr


def test_verify_of_good_inputs_writes_nothing(inputs: Inputs, monkeypatch: pytest.MonkeyPatch) -> None:
    top = inputs.root.parent
    monkeypatch.chdir(top)
    before = tree(top)
    result = inputs.verify()
    assert result.exit_code == 0, result.output
    folders, benchmarks = corpus_counts(inputs.root)
    assert result.output.startswith(
        f"verified: {folders} sealed folders, {benchmarks} benchmark{'' if benchmarks == 1 else 's'}; inputs "
    )
    assert tree(top) == before


@pytest.mark.parametrize("folder", [BENCH, f"{BENCH}/{RUN}", f"{BENCH}/{OTHER_RUN}"])
def test_corpus_seal_verifies_with_the_stock_tool(folder: str) -> None:
    assert shutil.which("sha256sum"), "GNU coreutils sha256sum is required"
    stock = subprocess.run(
        ["sha256sum", "--check", "--strict", SEAL_NAME], cwd=CORPUS / folder, capture_output=True, text=True
    )
    assert stock.returncode == 0, stock.stdout + stock.stderr
    assert stock.stdout.count(": OK\n") == len((CORPUS / folder / SEAL_NAME).read_bytes().splitlines())


# --- bugs found: these fail today; each is a user-causable traceback or an unverifiable seal ----


def test_an_integer_over_4300_digits_is_invalid_content_not_a_crash(inputs: Inputs) -> None:
    path = inputs.run / "attempts.jsonl"
    replace_bytes(path, b'"agent_started": true', b'"agent_started": ' + b"1" * 5000)
    reseal(inputs.run)
    check_failure(inputs, inputs.build(), 4, [f"{path}: line 1"])


def test_a_lone_surrogate_escape_is_invalid_content_not_a_crash(inputs: Inputs) -> None:
    path = inputs.bench / "benchmark.json"
    replace_bytes(path, b'"Add a paginated list endpoint"', b'"\\ud800"')
    reseal(inputs.bench)
    check_failure(inputs, inputs.build(), 4, [f"{path}: $.tasks[0].title"])


LAX = {
    "bool-as-string-no": (RUN, "attempts.jsonl", lambda lines: lines[0].update(tampering_detected="no")),
    "check-passed-as-string-yes": (
        RUN,
        "attempts.jsonl",
        lambda lines: lines[0]["functional"][0].update(passed="yes"),
    ),
    "bool-as-number": (RUN, "attempts.jsonl", lambda lines: lines[0].update(agent_started=1)),
    "schema-version-true": (RUN, "run.json", lambda d: d.update(schema_version=True)),
    "schema-version-float": ("", "benchmark.json", lambda d: d.update(schema_version=1.0)),
}


@pytest.mark.parametrize("case", sorted(LAX))
def test_a_wrong_json_type_is_a_schema_violation_not_coerced(inputs: Inputs, case: str) -> None:
    folder, name, change = LAX[case]
    path = inputs.bench / folder / name if folder else inputs.bench / name
    if name == "attempts.jsonl":
        edit_attempts(path.parent, change)
    else:
        edit_json(path, change, dump=AS_UTF8)
    reseal(path.parent)
    check_failure(inputs, inputs.build(), 4, [f"{path}: "])


def seal_then_verify(inputs: Inputs, name: str) -> None:
    """`benchsite seal` either refuses the name (exit 3, naming it) or writes a seal verify accepts."""
    (inputs.run / name).write_text("x\n")
    (inputs.run / SEAL_NAME).unlink()
    sealed = invoke("seal", inputs.run)
    assert "Traceback" not in sealed.output
    if sealed.exit_code == 3:
        assert repr(name)[1:-1] in sealed.output or name in sealed.output
        assert not (inputs.run / SEAL_NAME).exists()
        return
    assert sealed.exit_code == 0, sealed.output
    verified = inputs.verify()
    assert verified.exit_code == 0, verified.output


def test_seal_of_a_name_with_a_newline_is_refused_or_verifiable(inputs: Inputs) -> None:
    seal_then_verify(inputs, "a\nb")


def test_seal_of_a_name_with_a_unicode_line_separator_is_refused_or_verifiable(inputs: Inputs) -> None:
    seal_then_verify(inputs, "a\x85b")
