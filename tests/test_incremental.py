"""The run cache and process-parallel scoring change how fast a site is built, never a byte of it."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from jinja2 import DictLoader, Environment

from generator.families.points.family import PointsPart
from generator.families.points.report import PointsRunSummary
from generator.publish import past
from generator.render.pages import SignedBytecode
from generator.score.cache import FORMAT, Pages, RunCache, RunHit
from generator.score.details import Details
from generator.score.workers import PARALLEL_MIN_RUNS
from scripts import benchmark, make_corpus
from tests.conftest import run_cli, snapshot

RUNS, ROWS = 40, 30
"""32 points runs and 8 components runs (both scored by the worker pool), beside the example
corpus's 13 trials and definitions runs: 53 runs."""
XDIST_SPLIT = {"cached": "damaged"}
"""The damaged-cache cases (one small build, then one build per case) may run beside the rest."""


@pytest.fixture(scope="module")
def scaled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("scaled") / "runs"
    make_corpus.make(root, RUNS, ROWS, seed=11)
    assert RUNS // 5 >= PARALLEL_MIN_RUNS  # the smallest scaled benchmark still goes to the pool
    return root


def build(runs: Path, out: Path, *options: str) -> str:
    result = run_cli("build", "--runs", runs, "--out", out, *options)
    assert result.exit_code == 0, result.output
    return result.output


def entries(cache: Path, kind: str = "runs") -> list[Path]:
    """The run (or pages) entries of a cache: ``<key>.json``, not the files beside them."""
    return sorted(p for p in (cache / f"{kind}-v1").rglob("*.json") if len(p.name) == 64 + len(".json"))


@pytest.mark.slow
def test_worker_count_and_cache_never_change_a_byte(scaled: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    build(scaled, tmp_path / "one", "--jobs", "1", "--no-cache")
    cold = build(scaled, tmp_path / "two", "--jobs", "2", "--cache", cache)
    warm = build(scaled, tmp_path / "warm", "--jobs", "2", "--cache", cache)
    assert "runs 53 (scored 53, reused from the run cache 0; pages rendered for 53)" in cold, cold
    assert "runs 53 (scored 0, reused from the run cache 53; pages rendered for 0)" in warm, warm
    assert f"run cache: {cache} (yours, shared by every checkout" in warm  # said where reuse came from
    assert "run cache:" not in cold, cold  # nothing reused: nothing to explain
    expected = snapshot(tmp_path / "one")
    assert snapshot(tmp_path / "two") == expected
    assert snapshot(tmp_path / "warm") == expected
    assert len(entries(cache)) >= 53  # and the blind version's trials runs, scored without the reveal
    assert len(entries(cache, "pages")) >= 53


@pytest.mark.slow
def test_one_changed_run_is_the_only_one_scored_again(scaled: Path, tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    make_corpus.make(runs, RUNS, ROWS, seed=11)
    cache = tmp_path / "cache"
    build(runs, tmp_path / "site", "--cache", cache)
    benchmark.change_one_run(runs, 0)
    output = build(runs, tmp_path / "site", "--cache", cache)
    assert "(scored 1, reused from the run cache 52; pages rendered for 1)" in output, output
    version = output.split("\n", 1)[0].rsplit("/", 1)[1]
    fresh = same_site_without(tmp_path / "site", version, tmp_path / "fresh")
    build(runs, fresh, "--no-cache")
    assert snapshot(tmp_path / "site" / version) == snapshot(fresh / version)


@pytest.mark.slow
def test_a_new_version_reads_back_one_earlier_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What a build derives from the versions published before it (history points, what changed,
    badges) is kept by their site.json's sha256: a new version reads back only the report of the
    version before it (for what changed since), however many versions the site holds, and its
    site-level files are a fresh build's."""
    runs = tmp_path / "runs"
    make_corpus.make(runs, RUNS, ROWS, seed=11)
    cache, site = tmp_path / "cache", tmp_path / "site"
    build(runs, site, "--cache", cache)  # the blind version, then the revealed one
    reads: list[str] = []
    read_report = past.read_report
    monkeypatch.setattr(past, "read_report", lambda folder: reads.append(folder.name) or read_report(folder))
    versions = []
    for round_ in range(3):
        benchmark.change_one_run(runs, round_)
        reads.clear()
        output = build(runs, site, "--cache", cache)
        versions.append(output.split("\n", 1)[0].rsplit("/", 1)[1])
        previous = json.loads((site / "versions.json").read_bytes())["versions"][-2]
        assert reads == [previous], (round_, reads)
    monkeypatch.undo()
    fresh = same_site_without(site, versions[-1], tmp_path / "fresh")
    build(runs, fresh, "--no-cache")
    top = ("index.html", "404.html", "versions.json")
    assert {name: (site / name).read_bytes() for name in top} == {
        name: (fresh / name).read_bytes() for name in top
    }
    assert snapshot(site / "badges") == snapshot(fresh / "badges")
    assert snapshot(site / versions[-1]) == snapshot(fresh / versions[-1])


def same_site_without(site: Path, version: str, copy: Path) -> Path:
    """A copy of ``site`` without ``version``: where a fresh build of it has the same past (its pages
    show what the site published before it)."""
    shutil.copytree(site, copy)
    shutil.rmtree(copy / version)
    return copy


@pytest.mark.slow
def test_a_new_version_links_the_unchanged_files_of_the_last_one(tmp_path: Path) -> None:
    """Ten versions of one corpus do not cost ten times the disk: unchanged run pages and row files
    are hard links to the previous version's, and the new version's bytes are a fresh build's."""
    runs = tmp_path / "runs"
    make_corpus.make(runs, RUNS, ROWS, seed=11)
    site = tmp_path / "site"
    first = build(runs, site, "--no-cache").split("\n", 1)[0].rsplit("/", 1)[1]
    benchmark.change_one_run(runs, 0)
    second = build(runs, site, "--no-cache").split("\n", 1)[0].rsplit("/", 1)[1]
    old, new = site / first, site / second
    linked, written = [], []
    for path in sorted(p for p in new.rglob("*") if p.is_file()):
        twin = old / path.relative_to(new)
        (linked if twin.is_file() and twin.samefile(path) else written).append(path)
    assert all(path.read_bytes() == (old / path.relative_to(new)).read_bytes() for path in linked)
    run_files = [p for p in linked if "/runs/" in p.as_posix()]
    assert len(run_files) >= 2 * (RUNS - 1), len(run_files)  # a page and a row file per unchanged run
    assert any("/runs/" in p.as_posix() for p in written)  # the changed run's files are new
    assert (new / "data" / "site.json") in written
    fresh = same_site_without(site, second, tmp_path / "fresh")
    build(runs, fresh, "--no-cache")
    assert snapshot(new) == snapshot(fresh / second)


SMALL_RUNS = 10
"""The damaged-cache cases' corpus: 8 points runs and 2 components runs beside the example runs of
those two benchmarks (12 runs), and no benchmark with a reveal (so one version, no blind scan):
each case builds it again, and what it damages is one points run's cache entry."""
SMALL_TOTAL = 12


@dataclass(frozen=True)
class Cached:
    """One build of a small corpus with a run cache, shared by the damaged-cache cases: each
    damages its own copy of the cache and builds again under the same key."""

    runs: Path
    cache: Path
    key: Path
    site: dict[str, bytes]


@pytest.fixture(scope="module")
def cached(tmp_path_factory: pytest.TempPathFactory) -> Cached:
    folder = tmp_path_factory.mktemp("cached")
    runs = folder / "runs"
    make_corpus.make(runs, SMALL_RUNS, ROWS, seed=11)
    for copied in ("vibe-delivery", "recsys-grounding"):
        shutil.rmtree(runs / copied)
    key = tmp_path_factory.mktemp("cached-key") / "key"
    with pytest.MonkeyPatch.context() as env:
        env.setenv("BENCHSITE_CACHE_KEY", str(key))
        output = build(runs, folder / "first", "--cache", folder / "cache")
    assert f"runs {SMALL_TOTAL} (scored {SMALL_TOTAL}," in output, output
    return Cached(runs, folder / "cache", key, snapshot(folder / "first"))


def damaged_copy(cached: Cached, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private copy of the shared cache, used under the key it was written with."""
    monkeypatch.setenv("BENCHSITE_CACHE_KEY", str(cached.key))
    return Path(shutil.copytree(cached.cache, tmp_path / "cache"))


def _corrupt(entry: Path, how: str) -> None:
    data = json.loads(entry.read_bytes())
    if how == "garbage":
        entry.write_bytes(b"\x00not json")
    elif how == "truncated":
        entry.write_bytes(entry.read_bytes()[:40])
    elif how == "figure changed":
        data["summary"]["counts"]["total"] += 1
        entry.write_text(json.dumps(data))
    elif how == "wrong key":
        data["key"] = "0" * 64
        entry.write_text(json.dumps(data))
    elif how == "detail changed":
        detail = entry.with_name(entry.name.replace(".json", ".detail.json"))
        data = detail.read_bytes()
        detail.write_bytes(data[:-2] + (b"0" if data[-2:-1] != b"0" else b"1") + data[-1:])
    elif how == "detail missing":
        entry.with_name(entry.name.replace(".json", ".detail.json")).unlink()
    elif how == "page changed":
        page = entry.with_name(entry.name.replace(".json", ".page-1.html"))
        page.write_bytes(page.read_bytes().replace(b"<h1>", b"<h1>forged ", 1))
    elif how == "page missing":
        entry.with_name(entry.name.replace(".json", ".page-1.html")).unlink()
    elif how == "located changed":
        data["located"]["forged"] = "b/x/runs/y.html"
        entry.write_text(json.dumps(data))
    elif how == "extra":
        data["extra"] = 1
        entry.write_text(json.dumps(data))
    else:
        raise AssertionError(how)


@pytest.mark.slow
@pytest.mark.parametrize(
    "how",
    ["garbage", "truncated", "figure changed", "wrong key", "detail changed", "detail missing", "extra"],
)
def test_a_damaged_run_entry_is_discarded_and_the_run_scored_again(
    cached: Cached, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    cache = damaged_copy(cached, tmp_path, monkeypatch)
    points = [e for e in entries(cache) if json.loads(e.read_bytes())["family"] == "points"]
    _corrupt(points[0], how)
    output = build(cached.runs, tmp_path / "second", "--cache", cache)
    reused = SMALL_TOTAL - 1
    assert f"(scored 1, reused from the run cache {reused}; pages rendered for 0)" in output, output
    assert snapshot(tmp_path / "second") == cached.site
    assert json.loads(points[0].read_bytes())["format"] == FORMAT  # stored again, whole


@pytest.mark.slow
@pytest.mark.parametrize(
    "how", ["garbage", "truncated", "wrong key", "page changed", "page missing", "located changed", "extra"]
)
def test_damaged_pages_are_discarded_and_rendered_again(
    cached: Cached, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    cache = damaged_copy(cached, tmp_path, monkeypatch)
    points = [
        e
        for e in entries(cache, "pages")
        if json.loads(e.read_bytes())["pages"][0]["path"].startswith("b/agent-dx/")
    ]
    _corrupt(points[0], how)
    output = build(cached.runs, tmp_path / "second", "--cache", cache)
    assert f"(scored 0, reused from the run cache {SMALL_TOTAL}; pages rendered for 1)" in output, output
    assert snapshot(tmp_path / "second") == cached.site


@pytest.mark.slow
def test_a_reused_run_costs_the_spool_nothing(
    cached: Cached, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rows and pages taken from the run cache are read from there when the version is written: the
    spool holds none of them (copying them there and removing them again was a cost per run)."""
    cache = damaged_copy(cached, tmp_path, monkeypatch)
    spooled: list[str] = []
    close = Details.close

    def noting_close(details: Details) -> None:
        spooled.extend(p.name for p in details.folder.rglob("*") if p.is_file())
        close(details)

    monkeypatch.setattr(Details, "close", noting_close)
    output = build(cached.runs, tmp_path / "second", "--cache", cache)
    assert f"(scored 0, reused from the run cache {SMALL_TOTAL}; pages rendered for 0)" in output, output
    assert spooled == []
    assert snapshot(tmp_path / "second") == cached.site


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["rows", "page"])
def test_a_cache_file_changed_during_the_build_is_refused_by_name(
    cached: Cached, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    """A reused run's cache file that no longer holds the bytes it was loaded with when the version is
    written (another process changed it): the build stops with exit 2 naming it, and publishes nothing."""
    cache = damaged_copy(cached, tmp_path, monkeypatch)
    changed: list[Path] = []
    load, load_pages = RunCache.load, RunCache.load_pages

    def change(file: Path) -> None:
        if not changed:
            file.write_bytes(file.read_bytes() + b" ")
            changed.append(file)

    def load_then_change(self: RunCache, *args: Any, **kwargs: Any) -> RunHit | None:
        hit = load(self, *args, **kwargs)
        if hit is not None and hit.kept is not None and kind == "rows":
            change(hit.kept.file)
        return hit

    def load_pages_then_change(self: RunCache, key: str) -> Pages | None:
        pages = load_pages(self, key)
        if pages is not None and kind == "page":
            change(pages.kept[0].file)
        return pages

    monkeypatch.setattr(RunCache, "load", load_then_change)
    monkeypatch.setattr(RunCache, "load_pages", load_pages_then_change)
    out = tmp_path / "second"
    result = run_cli("build", "--runs", cached.runs, "--out", out, "--cache", cache, "--jobs", "1")
    assert result.exit_code == 2, result.output
    assert f"{changed[0]}: no longer holds the bytes it was loaded with" in result.output, result.output
    assert "the run cache changed during the build" in result.output
    assert "Traceback" not in result.output
    assert not out.exists() or not [p for p in out.iterdir() if p.is_dir()]


@pytest.mark.slow
def test_an_unwritable_cache_costs_the_cache_not_the_build(scaled: Path, tmp_path: Path) -> None:
    if os.geteuid() == 0:
        blocker = tmp_path / "cache"
        blocker.write_text("a file where the cache folder should be")
    else:
        blocker = tmp_path / "cache"
        blocker.mkdir()
        blocker.chmod(0o500)
    output = build(scaled, tmp_path / "site", "--cache", blocker / "inner")
    assert "(scored 53, reused from the run cache 0; pages rendered for 53)" in output


def test_the_cache_api_round_trips_and_refuses_another_family(tmp_path: Path) -> None:
    cache = RunCache(tmp_path, b"a test key of 32 bytes, no more.")
    summary = PointsRunSummary.model_validate(
        {
            "id": "r",
            "subject": "s",
            "digest": "d" * 64,
            "producer": "p",
            "disagreements": 0,
            "counts": {"total": 1, "ready": 1},
        }
    )
    part = PointsPart(
        subject="s",
        counts={"Ready": 1},
        sums={"x": "1/3"},
        ns={"x": 1},
        disagreements=(),
        blockers={},
        blocked=0,
    )
    key = cache.key("bench", "r", "d" * 64)
    cache.store(key, "points", summary, part, b"{}")
    hit = cache.load(key, "points", PointsRunSummary, PointsPart)
    assert hit is not None and (hit.summary, hit.part, hit.detail) == (summary, part, b"{}")
    pages = Pages([("b/x/runs/r.html", b"<p>page</p>")], {})
    pages_key = cache.pages_key(key, "view digest")
    cache.store_pages(pages_key, pages)
    loaded = cache.load_pages(pages_key)
    assert loaded == pages and [kept.read() for kept in loaded.kept] == [b"<p>page</p>"]
    assert hit.kept is not None and hit.kept.read() == b"{}"
    (tmp_path / "pages-v1" / pages_key[:2] / f"{pages_key}.page-1.html").write_bytes(b"<p>PAGE</p>")
    assert cache.load_pages(pages_key) is None  # a changed page: discarded
    assert list((tmp_path / "pages-v1" / pages_key[:2]).iterdir()) == []
    assert cache.load(key, "trials", PointsRunSummary, PointsPart) is None  # discarded, not trusted
    assert cache.load(key, "points", PointsRunSummary, PointsPart) is None
    assert RunCache(None).load(key, "points", PointsRunSummary, PointsPart) is None


def test_compiled_templates_are_loaded_only_when_signed_with_the_users_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new process loads the templates a build compiled (``render.SignedBytecode``); bytecode is
    code, so a blob changed, or an entry signed with another key, is deleted and compiled again."""
    compiled: list[str] = []
    compile_ = Environment.compile

    def counting(env: Environment, source: str, name: str | None = None, *args: Any) -> Any:
        compiled.append(str(name))
        return compile_(env, source, name, *args)

    monkeypatch.setattr(Environment, "compile", counting)

    def load(cache: RunCache, dialect: str = "html") -> str:
        env = Environment(
            loader=DictLoader({"t": "{{ 1 + x }}"}), bytecode_cache=SignedBytecode(cache, dialect)
        )
        return env.get_template("t").render(x=1)

    cache = RunCache(tmp_path, b"k" * 32)
    assert load(cache) == "2" and compiled == ["t"]
    (blob,) = (tmp_path / "templates-v1").rglob("*.blob")
    assert load(cache) == "2" and compiled == ["t"]  # loaded, not compiled
    assert load(cache, "markdown") == "2" and compiled == ["t", "t"]  # another dialect, another entry
    data = blob.read_bytes()
    blob.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))
    assert load(cache) == "2" and compiled == ["t", "t", "t"]  # a changed blob: compiled again
    assert load(RunCache(tmp_path, b"o" * 32)) == "2" and len(compiled) == 4  # another key's entry
    assert load(cache) == "2" and len(compiled) == 5  # ... was replaced under that key


@pytest.mark.slow
def test_verify_reuses_the_cache_a_build_left_and_writes_nothing(scaled: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cold = run_cli("verify", "--runs", scaled, "--cache", cache)
    assert not cache.exists()  # verify keeps nothing: it renders no page to keep
    build(scaled, tmp_path / "site", "--cache", cache)
    kept = snapshot(cache)
    warm = run_cli("verify", "--runs", scaled, "--cache", cache)
    bare = run_cli("verify", "--runs", scaled, "--no-cache")
    assert cold.exit_code == warm.exit_code == bare.exit_code == 0
    assert cold.output == warm.output == bare.output
    assert snapshot(cache) == kept


@pytest.mark.slow
def test_a_killed_parallel_build_leaves_no_worker_and_no_lock(scaled: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    command = [
        str(Path(sys.executable).with_name("benchsite")),
        "build",
        "--quiet",
        "--runs",
        str(scaled),
        "--out",
        str(site),
        "--jobs",
        "2",
        "--no-cache",
    ]
    process = subprocess.Popen(command, start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(_children(process.pid)) < 2:
        time.sleep(0.02)
    workers = _children(process.pid)
    assert len(workers) >= 2, "the build never started its workers"
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_alive(w) for w in workers):
        time.sleep(0.05)
    assert not [w for w in workers if _alive(w)], "workers outlived their build"
    build(scaled, site, "--jobs", "2")  # the lock is free and the site is whole
    versions = {p.name[:4] for p in site.iterdir() if p.is_dir() and p.name != "badges"}
    assert versions == {"2026", "sha-"}  # no staging left


def _children(pid: int) -> list[int]:
    found = []
    for status in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = status.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(status.parent.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"
