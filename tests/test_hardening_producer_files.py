"""Nothing a producer wrote is ever active on the site (issue 44): a producer's file, imported or
pinned by a hand-written ``run.json``, is published under a name and type the site chooses
(``files/<sha256>.json|.zip|.txt``), never under its own name (``evil.html``, ``x.svg``,
``page-2.html``, ``index.html``), so it neither runs in the site's origin nor claims a path the site
writes itself; the run page links it for download under its own name, the bytes unchanged."""

from __future__ import annotations

import contextlib
import hashlib
import json
import posixpath
import shutil
from pathlib import Path

import pytest

from generator.figures.model import producer_file_path
from generator.importers.model import Imported, ImportedRun, Observation, SourceFile
from generator.importers.write import Options, write
from tests.conftest import ROOT, reseal, run_cli
from tests.pages import parse

INSPECT_LOG = next((ROOT / "tests" / "data" / "inspect").glob("*_Ex8pV7vgC9E4uTbkdUAyMy.json"))
ROWS = 1001
"""Over the 1,000 rows of a run page: the run is paged, so the site writes ``runs/<run>/page-2.html``."""
IMPORTED = {
    "evil.html": b"<script>document.title='pwned by evil.html'</script>",
    "page-2.html": b"<script>document.title='pwned by page-2.html'</script>",
    "index.html": b"<html><script>alert('index.html')</script></html>",
    "x.svg": b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert("x.svg")</script></svg>',
    "log.eval": b"PK\x03\x04 not really a zip",
    "notes.json": b'{"note": "<script>alert(1)</script>"}',
}
HAND_PINNED = {"hand.xhtml": b'<html xmlns="http://www.w3.org/1999/xhtml"><script>alert(2)</script></html>'}
"""A file a hand-written ``run.json`` pins, beside the imported ones (and ``evil.html`` pinned twice)."""
PRODUCED = {**IMPORTED, **HAND_PINNED, "evil.html (inspect)": INSPECT_LOG.read_bytes()}
SITE_SUFFIXES = {".html", ".json", ".csv", ".md", ".svg", ".txt", ".zip"}
"""Every suffix a built version of these inputs holds: the site's own files and the inert ones."""
INERT = {".json", ".zip", ".txt"}


def _paged_run() -> Imported:
    planned = tuple((f"s{i}", 1) for i in range(ROWS))
    observations = tuple(
        Observation(s, e, "completed", (("match", "pass"),), None, 10, 1, 1) for s, e in planned
    )
    sources = tuple(SourceFile(name, data) for name, data in IMPORTED.items())
    run = ImportedRun("org/m", "t", planned, observations, sources, "demo 1", "success", ())
    return Imported("demo", ("match",), "match true is a pass", (run,))


def _pin_by_hand(run: Path) -> None:
    """Add ``HAND_PINNED`` and a second pin of ``evil.html`` to the run's ``run.json``, and reseal."""
    meta = json.loads((run / "run.json").read_text())
    for name, data in HAND_PINNED.items():
        (run / name).write_bytes(data)
        meta["sources"].append({"file": name, "sha256": hashlib.sha256(data).hexdigest()})
    meta["sources"].append({"file": "evil.html", "sha256": hashlib.sha256(IMPORTED["evil.html"]).hexdigest()})
    (run / "run.json").write_text(json.dumps(meta, indent=2))
    reseal(run)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An inputs root: ``evil`` (a paged run of imported and hand-pinned producer files with active
    names) and ``quiz`` (the red team's reproducer: an inspect JSON log named ``evil.html``)."""
    root = tmp_path_factory.mktemp("inert") / "runs"
    root.mkdir()
    write(_paged_run(), root / "evil", Options(title="Evil"), "demo")
    _pin_by_hand(root / "evil" / "run-org-m")
    log = root.parent / "evil.html"
    shutil.copyfile(INSPECT_LOG, log)
    imported = run_cli("import", "inspect", log, "--into", root / "quiz")
    assert imported.exit_code == 0, imported.output
    return root


@pytest.fixture(scope="module")
def version(inputs: Path) -> Path:
    out = inputs.parent / "site"
    built = run_cli("build", "--runs", inputs, "--out", out, "--site-version", "v1", "--no-cache", "--quiet")
    assert built.exit_code == 0, f"{built.output}{built.exception!r}"
    assert built.exception is None or isinstance(built.exception, SystemExit), repr(built.exception)
    return out / "v1"


def _files(folder: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_producer_file_is_published_only_under_an_inert_name_of_the_sites(version: Path) -> None:
    produced = set(PRODUCED.values())
    published = {data: path for path, data in _files(version).items() if data in produced}
    assert set(published) == produced  # each one published, so the check below reads every one
    for path in published.values():
        assert path.suffix in INERT and path.parent.name == "files", path
        assert path.stem == hashlib.sha256(path.read_bytes()).hexdigest(), path


def test_every_page_the_version_serves_is_one_the_site_rendered_under_its_csp(version: Path) -> None:
    files = _files(version)
    assert {path.suffix for path in files} <= SITE_SUFFIXES
    pages = [path for path in files if path.suffix == ".html"]
    assert version / "b/evil/runs/run-org-m/page-2.html" in pages  # the site's own second page of the run
    for page in pages:
        csp = parse(page).csp
        assert csp is not None and "default-src 'none'" in csp, page
    for svg in (path for path, data in files.items() if path.suffix == ".svg"):
        assert b"<script" not in files[svg], svg


def test_the_run_page_link_downloads_the_bytes_unchanged_under_the_producers_name(version: Path) -> None:
    page = version / "b/evil/runs/run-org-m.html"
    downloads = parse(page).downloads
    pinned = {**IMPORTED, **HAND_PINNED}
    assert sorted(name for name, _ in downloads) == sorted([*pinned, "evil.html"])
    for name, href in downloads:
        target = Path(posixpath.normpath(posixpath.join(page.parent.as_posix(), href)))
        assert hashlib.sha256(target.read_bytes()).digest() == hashlib.sha256(pinned[name]).digest(), name


def test_the_imported_log_named_evil_html_downloads_as_itself(version: Path) -> None:
    (page,) = (version / "b/quiz/runs").glob("*.html")
    ((name, href),) = parse(page).downloads
    assert name == "evil.html" and href.endswith(".txt")  # its own suffix, not its content, decides
    assert (page.parent / href).read_bytes() == INSPECT_LOG.read_bytes()


def test_the_mkdocs_export_publishes_producer_files_under_inert_names_too(inputs: Path) -> None:
    out = inputs.parent / "docs" / "benchmarks"
    exported = run_cli("build", "--runs", inputs, "--format", "mkdocs", "--out", out, "--quiet")
    assert exported.exit_code == 0, f"{exported.output}{exported.exception!r}"
    produced = set(PRODUCED.values())
    published = [path for path, data in _files(out).items() if data in produced]
    assert len({path.read_bytes() for path in published}) == len(produced)
    assert all(path.suffix in INERT and path.parent.name == "files" for path in published), published


@pytest.mark.parametrize(
    ("name", "suffix"),
    [
        ("evil.html", ".txt"),
        ("x.svg", ".txt"),
        ("page-2.html", ".txt"),
        ("a.json.html", ".txt"),
        ("README", ".txt"),
        ("results.jsonl", ".txt"),
        ("log.JSON", ".json"),
        ("2026_quiz.eval", ".zip"),
        ("bundle.zip", ".zip"),
    ],
)
def test_the_published_name_is_the_sites_whatever_the_producer_named_it(name: str, suffix: str) -> None:
    sha = hashlib.sha256(name.encode()).hexdigest()
    assert producer_file_path(name, sha) == f"files/{sha}{suffix}"


@pytest.mark.slow  # Chromium
def test_no_published_producer_file_runs_a_script_in_chromium(version: Path, tmp_path: Path) -> None:
    """Each producer file of the version and each run page, opened from ``file://`` in Chromium, runs
    nothing; the control: the same bytes under the producer's name do run."""
    from playwright.sync_api import Dialog, Error, sync_playwright

    from tests.test_browser import CHROMIUM, CHROMIUM_ARGS

    def ran(path: Path) -> list[str]:
        page = context.new_page()
        seen: list[str] = []

        def dialog(shown: Dialog) -> None:
            seen.append(shown.message)
            shown.dismiss()

        page.on("dialog", dialog)
        with contextlib.suppress(Error):  # a file Chromium downloads rather than shows is not a page
            page.goto(path.as_uri(), wait_until="load")
            seen += [page.title()] if "pwned" in page.title() else []
        page.close()
        return seen

    control = tmp_path / "evil.html"
    control.write_bytes(IMPORTED["evil.html"])
    opened = [*version.glob("b/*/runs/*/files/*"), *version.glob("b/*/runs/**/*.html")]
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        context = chromium.new_context()
        assert ran(control), "the control: the producer's bytes under its own name run"
        found = {str(path): ran(path) for path in opened}
        assert {path: seen for path, seen in found.items() if seen} == {}
        chromium.close()
