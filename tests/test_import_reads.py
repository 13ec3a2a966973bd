"""Every read of a producer's files bounded (issue 44, item 4): zip members streamed within the
build's document cap and a compression-ratio cap, and duplicate keys refused in every importer's JSON.

A bomb is made here, small: an ``.eval`` log whose member is hundreds of MiB of zeros, deflated or
zstd-compressed. The import runs in its own process, which reports its own peak memory: the test
asserts the refusal and a generous bound on that peak, never a time.
"""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from generator.importers import reading
from tests.conftest import ROOT

DATA = ROOT / "tests" / "data"
INSPECT_LOG = next((DATA / "inspect").glob("*_Ex8pV7vgC9E4uTbkdUAyMy.json"))
LM_EVAL = DATA / "lm-eval" / "output"
EEE = DATA / "eee" / "two-models"
GUARD = 300
"""Seconds after which an import is taken to hang: a failure guard only."""
PEAK_MIB = 400
"""A generous bound on the import's peak memory: reading a bomb whole takes over 512 MiB."""
ZIP_DEFLATED, ZIP_ZSTD = 8, 93
MiB = 1 << 20

MEASURED = """
import resource, runpy, sys
try:
    runpy.run_module("generator", run_name="__main__")
    code = 0
except SystemExit as exit:
    code = exit.code
# VmHWM: this process image's own peak (ru_maxrss would also count the pytest worker it was forked
# from, whose pages it held until exec: 447 MiB on a busy worker for a 47 MiB import)
try:
    with open("/proc/self/status") as status:
        peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
except (OSError, StopIteration):
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print("peak-kib", peak, file=sys.stderr)
sys.exit(code)
"""


def measured_import(*args: str | Path) -> tuple[int, str, int]:
    """(exit code, stderr, peak memory in MiB) of ``benchsite import`` run in its own process."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-c", MEASURED, "import", *map(str, args)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=GUARD, check=False)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the import still ran after {GUARD} s")
    lines = done.stderr.splitlines()
    peak = int(lines[-1].split()[1]) // 1024
    return done.returncode, "\n".join(lines[:-1]), peak


def zeros(total: int) -> Iterator[bytes]:
    block = bytes(MiB)
    for _ in range(total // MiB):
        yield block


def compressed(method: int, total: int) -> bytes:
    """``total`` zero bytes, compressed as a zip member of ``method`` (raw deflate or zstd)."""
    if method == ZIP_DEFLATED:
        deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
        return b"".join(deflate.compress(block) for block in zeros(total)) + deflate.flush()
    import zstandard

    zstd = zstandard.ZstdCompressor().compressobj()
    return b"".join(zstd.compress(block) for block in zeros(total)) + zstd.flush()


def zip_bytes(members: list[tuple[str, int, bytes, int, int]]) -> bytes:
    """A zip of (name, method, compressed bytes, CRC-32, size) members, written by hand: ``zipfile``
    writes no zstd member before Python 3.14."""
    body, central = bytearray(), bytearray()
    for name, method, data, crc, size in members:
        offset, encoded = len(body), name.encode()
        body += struct.pack(
            "<IHHHHHIIIHH", 0x04034B50, 63, 0, method, 0, 0, crc, len(data), size, len(encoded), 0
        )
        body += encoded + data
        central += struct.pack(
            "<IHHHHHHIIIHHHHHII",
            0x02014B50,
            63,
            63,
            0,
            method,
            0,
            0,
            crc,
            len(data),
            size,
            len(encoded),
            0,
            0,
            0,
            0,
            0,
            offset,
        )
        central += encoded
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(members), len(members), len(central), len(body), 0)
    return bytes(body + central + end)


def zero_crc(total: int) -> int:
    crc = 0
    for block in zeros(total):
        crc = zlib.crc32(block, crc)
    return crc


@pytest.mark.slow
@pytest.mark.parametrize("method", [ZIP_DEFLATED, ZIP_ZSTD], ids=["deflate", "zstd"])
def test_a_member_that_decompresses_past_the_document_cap_is_refused_streamed(
    tmp_path: Path, method: int
) -> None:
    size = 512 * MiB
    bomb = tmp_path / "bomb.eval"
    bomb.write_bytes(zip_bytes([("header.json", method, compressed(method, size), zero_crc(size), size)]))
    assert bomb.stat().st_size < 2 * MiB
    code, stderr, peak = measured_import("inspect", bomb, "--into", tmp_path / "quiz")
    assert peak < PEAK_MIB, f"peak memory {peak} MiB"
    assert code == 4, stderr
    cap = reading.MAX_DOCUMENT_BYTES
    assert f"{bomb}: header.json: cannot be read: decompresses to over {cap} bytes" in stderr
    assert not (tmp_path / "quiz").exists()


@pytest.mark.slow
def test_a_bomb_lying_about_its_size_is_still_refused(tmp_path: Path) -> None:
    size = 512 * MiB
    bomb = tmp_path / "bomb.eval"
    bomb.write_bytes(zip_bytes([("header.json", ZIP_ZSTD, compressed(ZIP_ZSTD, size), 0, 1000)]))
    code, stderr, peak = measured_import("inspect", bomb, "--into", tmp_path / "quiz")
    assert code == 4, stderr
    assert f"{bomb}: header.json: cannot be read: " in stderr
    assert peak < PEAK_MIB, f"peak memory {peak} MiB"


def test_members_that_decompress_past_the_ratio_cap_are_refused(tmp_path: Path) -> None:
    size = 15 * MiB
    member = compressed(ZIP_DEFLATED, size)
    crc = zero_crc(size)
    header = b'{"version": 2, "status": "success"}'
    samples = [(f"samples/s{n}_epoch_1.json", ZIP_DEFLATED, member, crc, size) for n in range(1, 4)]
    deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
    head = deflate.compress(header) + deflate.flush()
    bomb = tmp_path / "bomb.eval"
    bomb.write_bytes(
        zip_bytes([("header.json", ZIP_DEFLATED, head, zlib.crc32(header), len(header)), *samples])
    )
    assert reading.MAX_RATIO * bomb.stat().st_size < 2 * size
    code, stderr, _ = measured_import("inspect", bomb, "--into", tmp_path / "quiz")
    assert code == 4, stderr
    assert f"times its {bomb.stat().st_size} bytes: refused as a decompression bomb" in stderr


# ---- duplicate keys, in each importer's JSON ------------------------------------------------------


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "generator", "import", *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=GUARD, check=False)


def test_a_score_written_twice_in_an_inspect_log_is_refused(tmp_path: Path) -> None:
    text = INSPECT_LOG.read_text()
    first = text.index('"value": "I"')
    assert first > 0
    twice = text[:first] + '"value": "I", "value": "C"' + text[first + len('"value": "I"') :]
    log = tmp_path / INSPECT_LOG.name
    log.write_text(twice)
    done = run("inspect", log, "--into", tmp_path / "quiz")
    assert done.returncode == 4, done.stderr
    assert f"{log}: not valid JSON: the key 'value' twice in one object" in done.stderr
    assert not (tmp_path / "quiz").exists()


def test_a_key_written_twice_in_lm_eval_results_is_refused(tmp_path: Path) -> None:
    copy = tmp_path / "output"
    shutil.copytree(LM_EVAL, copy)
    results = sorted(copy.glob("*/results_*.json"))[0]
    results.write_text(results.read_text().replace('"acc,none": ', '"acc,none": 1.0, "acc,none": ', 1))
    done = run("lm-eval", copy, "--into", tmp_path / "mc")
    assert done.returncode == 4, done.stderr
    assert "the key 'acc,none' twice in one object" in done.stderr


def test_a_key_written_twice_in_an_eee_instance_record_is_refused(tmp_path: Path) -> None:
    shutil.copy(EEE / "model-a.json", tmp_path)
    samples = tmp_path / "model-a_samples.jsonl"
    lines = (EEE / "model-a_samples.jsonl").read_text().splitlines()
    row = json.loads(lines[0])
    assert row["evaluation"]["is_correct"] in (True, False)
    lines[0] = lines[0].replace('"is_correct": ', '"is_correct": false, "is_correct": ', 1)
    samples.write_text("\n".join(lines) + "\n")
    done = run("eee", tmp_path / "model-a.json", "--instances", samples, "--into", tmp_path / "arith")
    assert done.returncode == 4, done.stderr
    assert "duplicate key 'is_correct'" in done.stderr
