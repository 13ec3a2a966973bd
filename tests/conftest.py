"""Shared fixtures: a private copy of the example corpus and a CLI runner."""

from __future__ import annotations

import compileall
import importlib.metadata
import json
import os
import shutil
import stat
import tempfile
from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from filelock import FileLock

from generator.cli import main
from generator.inputs.seal import SEAL_NAME, write_seal

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "runs"
SEEDS = ROOT / "tests" / "seeds"
"""The seed contracts the example corpus was made from, byte for byte (``scripts/make_example_corpus.py``)."""


def pytest_configure(config: pytest.Config) -> None:
    """Fixtures wider than a test build with a run cache and a cache key of this session, never the
    user's own. Refuses a pytest under which pytest-xdist's groups silently fall apart."""
    _check_groups_hold(config)
    if not hasattr(config, "workerinput"):  # once, in the process that starts the workers
        _compile_the_checkout()
    os.environ["BENCHSITE_CACHE"] = tempfile.mkdtemp(prefix="benchsite-test-cache-")
    os.environ["BENCHSITE_CACHE_KEY"] = str(Path(tempfile.mkdtemp(prefix="benchsite-test-key-")) / "key")
    import scipy.stats  # noqa: F401  (once a test process: its builds compute their statistics in it,
    # rather than each forking a process that imports scipy again: tests/test_statproc.py forks one)


def _compile_the_checkout() -> None:
    """Byte-compile ``generator/`` and ``scripts/`` (about 0.3 s). pip compiles what it installs, but
    not the checkout of an editable install, and where ``PYTHONDONTWRITEBYTECODE`` is set no process
    writes what it compiled: every worker and every ``benchsite`` a test starts would compile the
    package again. Python reads these files whatever that variable says; ``__pycache__`` is ignored
    by git, by the generator's digest and by the wheel."""
    for folder in ("generator", "scripts"):
        compileall.compile_dir(ROOT / folder, quiet=1)


def _check_groups_hold(config: pytest.Config) -> None:
    """``--dist loadgroup`` groups tests by a suffix pytest-xdist (3.8 and before) puts in each
    item's node id; pytest 9.2 no longer reads that id, so every test is scheduled alone and each
    worker makes every shared fixture again (a whole built site, a browser crawl): the suite still
    passes, twice as slowly. pyproject.toml's test extra keeps pytest below 9.2."""
    if config.getoption("dist", "no") != "loadgroup":
        return
    xdist = tuple(int(part) for part in importlib.metadata.version("pytest-xdist").split(".")[:2])
    core = tuple(int(part) for part in pytest.__version__.split(".")[:2])
    if core >= (9, 2) and xdist <= (3, 8):
        raise pytest.UsageError(
            f"pytest {pytest.__version__} ignores the groups of pytest-xdist "
            f"{importlib.metadata.version('pytest-xdist')} (--dist loadgroup): install the versions "
            "pyproject.toml's test extra allows (pip install -e '.[test]')"
        )


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under pytest-xdist (``--dist loadgroup``): the tests of a module that share a module-scoped
    fixture (a built site, a browser, a crawl) run on one worker, so that fixture is made once; every
    other test goes to whichever worker is free.

    A module whose shared fixtures are long and independent (the browser crawls) may split its
    group with ``XDIST_SPLIT``, a mapping of fixture name to group: a test that asks for one of those
    fixtures (the first in the mapping's order) goes to that group, which another worker may take;
    the cheap fixtures they share (a built site, a browser) are then made once per worker. A test
    marked ``xdist_group`` itself keeps its own group."""
    for item in items:
        definitions = getattr(item, "_fixtureinfo", None)
        if definitions is None or item.module is None or item.get_closest_marker("xdist_group"):
            continue
        scopes = {d.scope for defs in definitions.name2fixturedefs.values() for d in defs}
        if scopes & {"module", "class", "package"}:
            split: dict[str, str] = getattr(item.module, "XDIST_SPLIT", {})
            part = next((group for name, group in split.items() if name in definitions.names_closure), "")
            item.add_marker(pytest.mark.xdist_group(":".join(filter(None, (item.module.__name__, part)))))


@pytest.hookimpl(trylast=True, specname="pytest_collection_modifyitems")
def pytest_collection_modifyitems_slow_first(items: list[pytest.Item]) -> None:
    """The modules with slow tests first, each module's tests kept together and in order: pytest-xdist
    hands out groups in collection order, so the longest start first and no long group is left to
    run alone at the end (the full suite's finish time; ``-m "not slow"`` is unchanged)."""
    slow = {item.module.__name__ for item in items if item.module and item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.module is None or item.module.__name__ not in slow)


def pytest_unconfigure(config: pytest.Config) -> None:
    shutil.rmtree(os.environ.pop("BENCHSITE_CACHE", ""), ignore_errors=True)
    shutil.rmtree(Path(os.environ.pop("BENCHSITE_CACHE_KEY", "/nonexistent/key")).parent, ignore_errors=True)


@pytest.fixture(autouse=True)
def private_run_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test its own run cache and cache key (the variables reach subprocesses too): no test sees
    another's, and none touches the user's home."""
    folder = tmp_path_factory.mktemp("run-cache")
    monkeypatch.setenv("BENCHSITE_CACHE", str(folder))
    monkeypatch.setenv("BENCHSITE_CACHE_KEY", str(tmp_path_factory.mktemp("cache-key") / "key"))
    return folder


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """A writable copy of ``runs/``."""
    target = tmp_path / "runs"
    shutil.copytree(CORPUS, target)
    return target


def corpus_of(target: Path, *benchmarks: str) -> Path:
    """A writable inputs root at ``target`` holding only the named benchmarks of ``runs/``, each
    with its seals, byte for byte.

    For a test whose point is one benchmark: the whole corpus builds two versions (its reveal) and
    costs about twenty times a build of ``agent-dx`` alone.
    """
    target.mkdir(parents=True)
    for name in benchmarks:
        shutil.copytree(CORPUS / name, target / name, symlinks=True)
    return target


@pytest.fixture(scope="session")
def one_benchmark(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``runs/agent-dx`` alone as an inputs root, to be read like ``runs/`` itself and never changed:
    for a test whose point is not the corpus's content (the site lock, the output folder, a flag)."""
    return corpus_of(tmp_path_factory.mktemp("one-benchmark") / "runs", "agent-dx")


def made_once(tmp_path_factory: pytest.TempPathFactory, name: str, make: Callable[[Path], None]) -> Path:
    """A folder ``make`` fills once per test run, shared by every pytest-xdist worker of that run, to
    be read and never changed. The workers' base folders sit in one folder of this run (never of an
    earlier one): the first worker to take the lock makes it, the others wait and read it. A worker
    that failed half-way leaves no completion mark, so the next one makes it again (and fails alike).
    Without pytest-xdist, the folder is this process's own."""
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        folder = tmp_path_factory.mktemp(name)
        make(folder)
        return folder
    run = tmp_path_factory.getbasetemp().parent
    folder, done = run / f"made-once-{name}", run / f"made-once-{name}.done"
    with FileLock(run / f"made-once-{name}.lock"):
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            make(folder)
            done.touch()
    return folder


def build_example(folder: Path, *options: str) -> Path:
    """``runs/`` built into ``folder/site`` (every version its reveal asks for): the site folder."""
    out = folder / "site"
    result = run_cli("build", "--runs", CORPUS, "--out", out, "--quiet", *options)
    assert result.exit_code == 0, f"{result.output}{result.exception!r}"
    return out


@pytest.fixture(scope="session")
def example_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``runs/`` built once per test run as version ``v1`` (its blind version first, as a fresh
    clone's build publishes it), to be read and never changed: copy it to change it."""
    folder = made_once(
        tmp_path_factory, "example-v1", lambda into: build_example(into, "--site-version", "v1")
    )
    return folder / "site"


def run_cli(*args: str | Path) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=True)


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file below ``folder`` by relative path, for byte-for-byte comparisons."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def corpus_counts(root: Path = CORPUS) -> tuple[int, int]:
    """(sealed folders, benchmarks) of an inputs root, as ``verify`` reports them."""
    return len(list(root.rglob("SHA256SUMS"))), sum(1 for p in root.iterdir() if p.is_dir())


def reseal(folder: Path) -> None:
    """Replace a folder's seal with a fresh one, so that the seal holds over changed content."""
    (folder / SEAL_NAME).unlink()
    write_seal(folder)


def rendering(**fields: Any) -> Any:
    """Score options that render run pages as a build does (``ScoreOptions.pages``: the build hands
    the render stage's ``render_run`` to the score stage), with ``fields`` set."""
    from generator.render.pages import render_run
    from generator.score.run import ScoreOptions

    return ScoreOptions(pages=render_run, **fields)


def writable(path: Path) -> Path:
    """``path`` made writable by its owner, as a person or tool that rewrites a published file must
    first (benchsite publishes every file read-only; root writes past the mode anyway): ``path``."""
    path.chmod(path.stat().st_mode | stat.S_IWUSR)
    return path


def json_bytes(value: Any, indent: int | None = 2, ascii: bool = True) -> bytes:
    """JSON as UTF-8: by default as the example corpus writes it (indented by two, ASCII, a final
    newline); ``indent=None``: on one line, with no newline."""
    text = json.dumps(value, indent=indent, ensure_ascii=ascii)
    return (text if indent is None else text + "\n").encode("utf-8")


def edit_json(path: Path, change: Callable[[Any], object], dump: Callable[[Any], bytes] = json_bytes) -> None:
    """Read ``path`` as JSON, let ``change`` edit the value in place, and write it back with ``dump``
    (the seal is left as it is: ``reseal`` the folder when it must hold)."""
    value = json.loads(path.read_bytes().decode("utf-8"))
    change(value)
    path.write_bytes(dump(value))


def reader_digits(d: int) -> int:
    """The decimals a share of d things shows: none up to d = 100, one more per tenfold d (an oracle
    apart from generator.figures.units, counted on the digits of d - 1)."""
    return max(len(str(d - 1)) - 2, 0)


def reader_percent(n: int, d: int) -> str:
    """n/d as a reader sees it on every surface, half up in ``reader_digits(d)`` decimals, in
    integer arithmetic ('73%' for 8/11)."""
    digits = reader_digits(d)
    units = (2 * 100 * 10**digits * n // d + 1) // 2
    whole, rest = divmod(units, 10**digits)
    return f"{whole}.{rest:0{digits}d}%" if digits else f"{whole}%"


def reader_range(low: float, high: float, d: int) -> str:
    """A rate's interval as the site prints it: both bounds half up in the rate's own precision,
    one '%' after them ('39–94%')."""
    step = Decimal(1).scaleb(-reader_digits(d))
    bounds = (str((Decimal(repr(v)) * 100).quantize(step, ROUND_HALF_UP)) for v in (low, high))
    return "–".join(bounds) + "%"
