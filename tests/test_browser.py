"""The built site in a real browser: headless Chromium, driven through Playwright.

Every page of the example site is opened from ``file://`` and from an HTTP server under a
sub-path, checked for console errors, failed or foreign requests and broken links, checked by
axe-core for serious accessibility violations, and a hostile corpus is shown to run nothing and
break no layout. Needs Debian's Chromium and a pinned axe-core: run ``scripts/browser-deps``.
When either is missing these tests fail, never skip: a check that did not run is not a pass.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import shutil
import threading
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import quote, unquote, urlsplit

import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Dialog,
    Error,
    Page,
    Request,
    Response,
    ViewportSize,
    sync_playwright,
)

from tests.conftest import CORPUS, ROOT, build_example, edit_json, json_bytes, made_once, reseal, run_cli

pytestmark = pytest.mark.slow  # Chromium crawls of built sites
XDIST_SPLIT = {"file_crawl": "file", "http_crawl": "http", "hostile_crawl": "hostile"}
"""Each crawl on whichever worker is free (each worker builds the site and starts Chromium once):
the module is the suite's longest, and on one worker it set the whole suite's finish time."""

CHROMIUM = Path("/usr/bin/chromium")
AXE = ROOT / ".cache" / "axe-core" / "axe.min.js"
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"
# No network here: without the background-networking flags Chromium retries refused connections.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
VIEWPORT: ViewportSize = {"width": 1280, "height": 800}
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
ONE_LINE = functools.partial(json_bytes, indent=None, ascii=False)
"""How these tests write an edited JSON file: on one line, non-ASCII characters as they are."""

PAGE_FACTS_JS = """() => ({
  links: Array.from(document.querySelectorAll('a[href], img[src]'), e => e.tagName === 'IMG'
    ? [e.getAttribute('src'), e.src] : [e.getAttribute('href'), e.href]),
  ids: Array.from(document.querySelectorAll('[id]'), e => e.id),
})"""

# Started without waiting, so that two pages (two contexts, two renderers) are audited at once.
AXE_START_JS = "() => { window.__axe = axe.run(document, {resultTypes: ['violations']}); }"
AXE_RESULT_JS = """async () => (await window.__axe).violations
  .filter(v => v.impact === 'serious' || v.impact === 'critical')
  .map(v => ({id: v.id, impact: v.impact, help: v.help, count: v.nodes.length,
              targets: v.nodes.slice(0, 3).map(n => n.target.join(' '))}))"""
AXE_WORKERS = 2

# What injected markup would leave behind if any of it were parsed as HTML or run as script.
INERT_JS = """() => {
  const found = [];
  for (const e of document.querySelectorAll('*')) {
    for (const a of e.getAttributeNames()) {
      if (a.startsWith('on')) found.push(`<${e.localName} ${a}>`);
    }
  }
  for (const e of document.querySelectorAll('script, iframe, object, embed, frame')) {
    found.push(`<${e.localName}> element`);
  }
  for (const a of document.querySelectorAll('a[href]')) {
    const href = a.getAttribute('href');
    if (/^\\s*javascript:/i.test(href)) found.push(`javascript: link ${href.slice(0, 40)}`);
  }
  if (typeof window.__pwned !== 'undefined') found.push('window.__pwned was set');
  return found;
}"""

# The page must not scroll sideways; wide content may scroll inside its own box (a .table-wrap).
# Lists the first few texts and boxes that stick out of the viewport outside any such box.
LAYOUT_JS = """() => {
  const limit = window.innerWidth + 1;
  const scrolls = e => {
    for (; e && e !== document.body; e = e.parentElement) {
      if (getComputedStyle(e).overflowX !== 'visible') return true;
    }
    return false;
  };
  const name = e => e.localName + (e.id ? '#' + e.id : '') + (e.classList.length ? '.' + e.classList[0] : '');
  const wide = new Set();
  for (const e of document.body.querySelectorAll('*')) {
    if (e.getBoundingClientRect().right > limit && !scrolls(e.parentElement)) wide.add(name(e));
  }
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    range.selectNodeContents(n);
    const out = range.getBoundingClientRect().right > limit;
    if (out && !scrolls(n.parentElement)) wide.add('text in ' + name(n.parentElement));
  }
  const width = document.documentElement.scrollWidth;
  return {width, viewport: window.innerWidth, wide: [...wide].slice(0, 6)};
}"""

# What the reader checks find at one width (tests below: no table wider than its room, chart
# text >= 11 px, no overlapping labels, no word broken inside). Tables: each one wider than its scroll
# box or the viewport. Chart text: each visible text-holding element of a figure.chart-figure, at its
# drawn size (SVG: font-size times the screen scale). Overlaps: the boxes of one SVG chart's texts,
# pairwise, and of text-holding HTML siblings in a chart. Broken words: each run of non-space characters
# of a text node (outside SVG) whose characters sit on two lines with the break not right after
# _ - . / or an en dash (a break at a <wbr> falls between two text nodes); a run of 16+ hex digits (a
# digest has no joint) may break only where the word is wider than its block.
READING_JS = r"""() => {
  const viewport = window.innerWidth;
  const name = e => e.localName + (e.id ? '#' + e.id : '')
    + (e.classList.length ? '.' + [...e.classList].join('.') : '');
  const shown = e => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
  const px = n => Math.round(n * 10) / 10;
  // (a) Tables that need a sideways scroll: wider than the viewport or than their scroll box.
  const tables = [];
  for (const t of document.querySelectorAll('table')) {
    if (!shown(t)) continue;
    const r = t.getBoundingClientRect();
    const wrap = t.closest('.table-wrap');
    const room = wrap ? Math.min(wrap.clientWidth, viewport) : viewport - Math.max(r.left, 0);
    const width = Math.max(r.width, t.scrollWidth);
    if (width > room + 1 || r.right > viewport + 1) {
      const title = (t.caption || t.querySelector('th') || t).textContent.trim().slice(0, 40);
      tables.push({table: name(t), title, width: px(width), room: px(room),
                   cards: t.classList.contains('cards') && getComputedStyle(t).display === 'block'});
    }
  }
  // (b) Chart text: font-size as drawn (SVG: times the user-to-screen scale).
  const small = [];
  const charts = [...document.querySelectorAll('figure.chart-figure')];
  const own = e => [...e.childNodes].filter(n => n.nodeType === 3).map(n => n.textContent)
    .join('').trim().slice(0, 30);
  const texted = e => own(e) !== '';
  for (const [i, fig] of charts.entries()) {
    for (const e of fig.querySelectorAll('*')) {
      if (!texted(e) || !shown(e)) continue;
      const size = parseFloat(getComputedStyle(e).fontSize);
      const svg = e instanceof SVGElement;
      const scale = svg ? Math.abs(e.getScreenCTM().a) : 1;
      if (size * scale < 11 - 0.05) {
        small.push({chart: fig.id || `figure ${i + 1}`, element: name(e),
                    text: own(e), size: px(size * scale)});
      }
    }
  }
  // (c) Labels that overlap: the texts of one SVG chart pairwise, and text-holding siblings in chart HTML.
  const overlaps = [];
  const meet = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1
    && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1;
  const collide = (fig, group) => {
    const boxes = group.filter(shown).map(e => [e, [...e.getClientRects()]]);
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const [a, ra] = boxes[i], [b, rb] = boxes[j];
        if (a.contains(b) || b.contains(a)) continue;
        if (ra.some(x => rb.some(y => meet(x, y)))) {
          overlaps.push({chart: fig.id || name(fig), first: own(a), second: own(b)});
        }
      }
    }
  };
  for (const fig of charts) {
    for (const svg of fig.querySelectorAll('svg')) collide(fig, [...svg.querySelectorAll('text')]);
    const html = e => !(e instanceof SVGElement) && texted(e);
    const parents = new Set([...fig.querySelectorAll('*')].filter(html).map(e => e.parentElement));
    for (const p of parents) collide(fig, [...p.children].filter(html));
  }
  // (d) Words broken across lines anywhere but right after _ - . / (where a <wbr> allows it).
  const broken = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT, {
    acceptNode: n => n.parentElement.closest('svg, script, style, [hidden]')
      ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT,
  });
  const range = document.createRange();
  const line = (offset, node) => { range.setStart(node, offset); range.setEnd(node, offset + 1);
    const r = range.getClientRects(); return r.length ? r[0].top : null; };
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const text = n.textContent;
    for (const m of text.matchAll(/\S{2,}/g)) {
      range.setStart(n, m.index);
      range.setEnd(n, m.index + m[0].length);
      const rects = [...range.getClientRects()].filter(r => r.width > 0);
      if (rects.length < 2 || rects.every(r => Math.abs(r.top - rects[0].top) <= 1)) continue;
      let top = line(m.index, n);
      const bad = [];
      for (let k = 1; k < m[0].length; k++) {
        const t = line(m.index + k, n);
        if (t === null || top === null || Math.abs(t - top) <= 1) { if (t !== null) top = t; continue; }
        if (!'_-./\u2013'.includes(m[0][k - 1])) bad.push(k);
        top = t;
      }
      // A run of 16 or more hex digits (a digest) has no joint: it may break inside only where the
      // whole word is wider than the block it sits in (overflow-wrap's last resort).
      let block = n.parentElement;
      while (block.parentElement && getComputedStyle(block).display.startsWith('inline')) {
        block = block.parentElement;
      }
      const style = getComputedStyle(block);
      const room = block.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      const wide = rects.reduce((sum, r) => sum + r.width, 0) > room + 1;
      const hex = k => { let a = k, b = k; while (a > 0 && /[0-9a-f]/i.test(m[0][a - 1])) a--;
        while (b < m[0].length && /[0-9a-f]/i.test(m[0][b])) b++; return b - a >= 16 && a < k && k < b; };
      const forced = bad.filter(k => !(wide && hex(k)));
      bad.length = 0; bad.push(...forced);
      if (bad.length) {
        const word = m[0];
        let at = 0;
        const parts = bad.map(k => { const s = word.slice(at, k); at = k; return s; });
        broken.push({word: [...parts, word.slice(at)].join(' / ').slice(0, 80), in: name(n.parentElement),
                     width: px(rects.reduce((s, r) => s + r.width, 0)), room: px(room)});
      }
    }
  }
  return {tables, small, overlaps, broken};
}"""


# What a reader at one width sees: the layout above, each scroll box that scrolls (its first class and
# how much wider its content is), every link in the header or footer shorter than 24 px (WCAG 2.5.8),
# and the widths of the page's first table box (a leaderboard's main table, a run page's rows).
FIT_JS = (
    """() => {
  const layout = ("""
    + LAYOUT_JS
    + """)();
  const scrolling = Array.from(document.querySelectorAll('.table-wrap'))
    .filter(e => e.scrollWidth > e.clientWidth + 1)
    .map(e => `${e.firstElementChild.localName}: ${e.scrollWidth}px in ${e.clientWidth}px`);
  const small = Array.from(document.querySelectorAll('header a, footer a, details summary'))
    .filter(e => e.getBoundingClientRect().height > 0 && e.getBoundingClientRect().height < 24)
    .map(e => `${e.textContent.trim().slice(0, 30)} (${e.getBoundingClientRect().height.toFixed(1)}px)`);
  const box = document.querySelector('main .table-wrap');
  const first = box && {scroll: box.scrollWidth, client: box.clientWidth};
  const reading = ("""
    + READING_JS
    + """)();
  return {...layout, scrolling, small, first, reading};
}"""
)
WIDTHS = (1280, 390)
"""A laptop and a phone: every page is laid out at both (at the phone's, each distinct page)."""

MARKER = "<script>window.__pwned=1</script>"
HOSTILE = " ".join(
    (
        "<script>alert(1)</script>",
        MARKER,
        '"><img src=x onerror=alert(1)>',
        '"><img src=x onerror="window.__pwned=1">',
        "[x](javascript:alert(1))",
        "[y](javascript:window.__pwned=1)",
        "<svg onload=alert(1)>",
        "<iframe src=x></iframe>",
        "' onmouseover='alert(1)' x='",
        '" onmouseover="window.__pwned=1" x="',
        "\u202egnp.exe\u202c zero\u200bwidth\u200b",
        "W" * 2_000,  # one unbroken word some 30,000 px wide: far past any screen
    )
)


SHOWN_HOSTILE = "".join(c for c in HOSTILE if unicodedata.category(c) != "Cf")
"""HOSTILE for a benchmark's title, which may hold no character a reader cannot see (refused, exit 4:
tests/test_readable_names.py); the description and every other free text keep them."""


PROVIDER_HOSTILE = '"><marquee onstart="confirm(5)"><b>qzx</b> \u202eqxz\u202c'
"""Hostile markup for the revealed provider names. A word of a revealed name in the blind version is
a leak the blind scan refuses, so it shares no distinctive word with HOSTILE, which the blind
version's free text carries."""


def _missing_dependencies() -> str | None:
    missing = [str(p) for p in (CHROMIUM, AXE) if not p.is_file()]
    if not missing:
        return None
    return f"missing {', '.join(missing)}: run scripts/browser-deps (the browser tests cannot run without it)"


@dataclass
class Visit:
    """What one page reported while it loaded, and the links and ids it holds."""

    problems: list[str]
    links: list[tuple[str, str]]
    """(attribute value as written, absolute URL as the browser resolved it) of every a/img."""
    ids: frozenset[str]
    layout: dict[str, Any] | None = None
    """The page's layout (``FIT_JS``) in the tab's viewport, when the crawl asked for it."""


@dataclass
class Tab:
    """One browser page; its listeners record every problem since the last ``visit``."""

    page: Page
    problems: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda exc: self.problems.append(f"page error: {exc}"))
        self.page.on("requestfailed", self._failed)
        self.page.on("request", lambda request: self.requests.append(request.url))
        self.page.on("response", self._response)
        self.page.on("dialog", self._dialog)

    def _console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            self.problems.append(f"console error: {message.text}")

    def _failed(self, request: Request) -> None:
        self.problems.append(f"failed request: {request.url} ({request.failure})")

    def _response(self, response: Response) -> None:
        if response.status >= 400:
            self.problems.append(f"HTTP {response.status}: {response.url}")

    def _dialog(self, dialog: Dialog) -> None:
        self.problems.append(f"{dialog.type} dialog opened: {dialog.message!r}")
        dialog.dismiss()

    def open(self, url: str, within: str) -> list[str]:
        """Load ``url``; every problem it caused, including any request outside ``within``."""
        self.problems, self.requests = [], []
        self.page.goto(url, wait_until="load")
        foreign = [f"request outside {within}: {r}" for r in self.requests if not r.startswith(within)]
        return self.problems + foreign

    def visit(self, url: str, within: str, layout: bool = False) -> Visit:
        problems = self.open(url, within)
        facts: dict[str, Any] = self.page.evaluate(PAGE_FACTS_JS)
        links = [(str(raw), str(absolute)) for raw, absolute in facts["links"]]
        laid_out = self.page.evaluate(FIT_JS) if layout else None
        return Visit(problems, links, frozenset(facts["ids"]), laid_out)


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        """Keep the per-request log out of the test output."""


def _build(runs: Path, out: Path, *options: str) -> None:
    result = run_cli("build", "--runs", runs, "--out", out, *options)
    assert result.exit_code == 0, f"{result.output}{result.exception!r}"


def _html_pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


def _distinct_pages(site: Path) -> list[Path]:
    """Every page, less each one that repeats, byte for byte, the page at the same place in an earlier
    version (its version's name set aside): a run that did not change is the same page in every
    version. A page holds all it shows (styles inline, no script, nothing fetched), so the checks
    that read only the page (axe, what hostile text does, the HTTP crawl's errors) find
    the same in both; the file crawl still opens every page and follows every link."""
    seen: set[tuple[tuple[str, ...], bytes]] = set()
    distinct = []
    for page in _html_pages(site):
        version, *inside = page.relative_to(site).parts
        data = page.read_bytes()
        key = (tuple(inside), data.replace(version.encode(), b"\0")) if inside else ((version,), data)
        if key not in seen:
            seen.add(key)
            distinct.append(page)
    return distinct


def _newest_version(site: Path) -> Path:
    versions: list[str] = json.loads((site / "versions.json").read_text())["versions"]
    return site / versions[-1]


def _report(problems: dict[str, list[str]]) -> str:
    bad = {where: found for where, found in problems.items() if found}
    lines = [f"{where}: {p}" for where, found in bad.items() for p in found]
    return f"{len(lines)} problem(s) on {len(bad)} page(s):\n" + "\n".join(lines)


# --- fixtures: one browser, one built site, one crawl per way of serving it ---------------------


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    missing = _missing_dependencies()
    if missing:
        pytest.fail(missing, pytrace=False)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def context(browser: Browser) -> Iterator[BrowserContext]:
    """A context that honours each page's Content-Security-Policy, as a reader's browser does."""
    ctx = browser.new_context(viewport=VIEWPORT)
    yield ctx
    ctx.close()


@pytest.fixture(scope="module")
def tab(context: BrowserContext) -> Tab:
    return Tab(context.new_page())


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example corpus built once per test run (every group of this module reads the same site):
    the blind version, the revealed one, and the root index."""
    out = made_once(tmp_path_factory, "browser-site", build_example) / "site"
    assert len(json.loads((out / "versions.json").read_text())["versions"]) >= 2
    return out.resolve()


@pytest.fixture(scope="module")
def file_crawl(site: Path, tab: Tab) -> dict[Path, Visit]:
    """Every page as a reader's browser opens it from disk, in the laptop viewport, its layout measured
    in the same load (``layouts`` reads it: one load of every page fewer)."""
    within = site.as_uri() + "/"
    return {page: tab.visit(page.as_uri(), within, layout=True) for page in _html_pages(site)}


@pytest.fixture(scope="module")
def server_base(site: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``http://127.0.0.1:<port>/results/`` serving the site under a sub-path."""
    root = tmp_path_factory.mktemp("http-root")
    (root / "results").symlink_to(site, target_is_directory=True)
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/results/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.fixture(scope="module")
def http_crawl(site: Path, server_base: str, tab: Tab) -> dict[str, Visit]:
    """Each distinct page served under the sub-path (a page another version repeats byte for byte
    links as its twin does, one version further up; the file crawl follows every page's links)."""
    urls = [server_base + quote(p.relative_to(site).as_posix()) for p in _distinct_pages(site)]
    return {url: tab.visit(url, server_base) for url in urls}


# --- the tests ----------------------------------------------------------------------------------


def test_a_page_is_left_out_only_when_an_earlier_version_has_its_very_bytes(tmp_path: Path) -> None:
    pages = {
        "index.html": b"<p>v1 v2</p>",
        "v1/index.html": b"<p>v1</p>",
        "v2/index.html": b"<p>v2</p>",  # the same page but for its version's name: left out
        "v1/b/x/runs/r.html": b"<p>run</p>",
        "v2/b/x/runs/r.html": b"<p>run!</p>",  # one byte more: kept
        "v2/b/x/runs/s.html": b"<p>run</p>",  # the same bytes at another place: kept
    }
    for rel, data in pages.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(data)
    kept = {p.relative_to(tmp_path).as_posix() for p in _distinct_pages(tmp_path)}
    assert kept == set(pages) - {"v2/index.html"}


def test_browser_dependencies_are_installed() -> None:
    missing = _missing_dependencies()
    assert missing is None, missing


def test_every_page_is_crawled(site: Path, file_crawl: dict[Path, Visit]) -> None:
    pages = _html_pages(site)
    assert site / "index.html" in pages
    assert len(pages) >= 2 * 4 * 3 + 3, "expected two versions of four benchmarks' pages"
    assert set(file_crawl) == set(pages)


def test_file_pages_log_no_error_and_fetch_nothing_but_their_files(
    site: Path, file_crawl: dict[Path, Visit]
) -> None:
    problems = {str(p.relative_to(site)): visit.problems for p, visit in file_crawl.items()}
    assert not any(problems.values()), _report(problems)


def _file_link_problem(site: Path, page: Path, raw: str, crawl: dict[Path, Visit]) -> str | None:
    parts = urlsplit(raw)
    if parts.scheme or parts.netloc or raw.startswith("/"):
        return f"not a relative link: {raw}"
    target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
    if not target.is_relative_to(site):
        return f"leaves the site: {raw}"
    if not target.is_file():
        return f"broken: {raw}"
    anchor = unquote(parts.fragment)
    if anchor and target in crawl and anchor not in crawl[target].ids:
        return f"no element with id {anchor!r} in {target.relative_to(site)}: {raw}"
    return None


def test_file_links_and_images_are_relative_and_resolve(site: Path, file_crawl: dict[Path, Visit]) -> None:
    problems = {
        str(page.relative_to(site)): [
            problem
            for raw, _ in visit.links
            if (problem := _file_link_problem(site, page, raw, file_crawl)) is not None
        ]
        for page, visit in file_crawl.items()
    }
    assert sum(len(v.links) for v in file_crawl.values()) > len(file_crawl), "pages should link each other"
    assert not any(problems.values()), _report(problems)


def test_http_subpath_pages_log_no_error_and_stay_under_the_subpath(http_crawl: dict[str, Visit]) -> None:
    problems = {url: visit.problems for url, visit in http_crawl.items()}
    assert not any(problems.values()), _report(problems)


def test_http_subpath_links_resolve(server_base: str, http_crawl: dict[str, Visit], tab: Tab) -> None:
    status: dict[str, int] = {}

    def problem(absolute: str) -> str | None:
        if not absolute.startswith(server_base):
            return f"leaves {server_base}: {absolute}"
        target, _, anchor = absolute.partition("#")
        if target not in status:
            status[target] = tab.page.request.head(target).status
        if status[target] >= 400:
            return f"HTTP {status[target]}: {absolute}"
        if anchor and target in http_crawl and unquote(anchor) not in http_crawl[target].ids:
            return f"no element with id {anchor!r}: {absolute}"
        return None

    problems = {
        url: [p for _, absolute in visit.links if (p := problem(absolute)) is not None]
        for url, visit in http_crawl.items()
    }
    assert not any(problems.values()), _report(problems)


def test_screenshots_of_the_newest_version(site: Path, tab: Tab) -> None:
    newest = _newest_version(site)
    shots: dict[str, Path] = {"index": site / "index.html"}
    benchmarks = sorted(p for p in (newest / "b").iterdir() if p.is_dir())
    assert benchmarks
    for bench in benchmarks:
        shots[f"{bench.name}-leaderboard"] = bench / "index.html"
        shots[f"{bench.name}-run"] = sorted((bench / "runs").glob("*.html"))[0]
        shots[f"{bench.name}-disclosures"] = bench / "disclosures.html"
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for name, page in shots.items():
        target = SCREENSHOTS / f"{name}.png"
        tab.page.goto(page.as_uri(), wait_until="load")
        tab.page.screenshot(path=target, full_page=True)
        data = target.read_bytes()
        assert data.startswith(PNG_SIGNATURE) and len(data) > 1000, target


def _axe_problems(
    site: Path, browser: Browser, paths: list[Path], viewport: ViewportSize
) -> dict[str, list[str]]:
    """Per page, axe's serious and critical violations, two pages audited at once."""
    # The pages' CSP forbids every script, axe included: bypass it for these contexts only. axe is
    # injected into every page as it loads (an init script: sending 650 kB per page costs seconds).
    contexts = [browser.new_context(viewport=viewport, bypass_csp=True) for _ in range(AXE_WORKERS)]
    problems: dict[str, list[str]] = {}
    try:
        for ctx in contexts:
            ctx.add_init_script(path=AXE)
        pages = [ctx.new_page() for ctx in contexts]
        for start in range(0, len(paths), AXE_WORKERS):
            batch = list(zip(pages, paths[start : start + AXE_WORKERS], strict=False))
            for page, path in batch:
                page.goto(path.as_uri(), wait_until="load")
                page.evaluate(AXE_START_JS)
            for page, path in batch:
                violations: list[dict[str, Any]] = page.evaluate(AXE_RESULT_JS)
                problems[str(path.relative_to(site))] = [
                    f"{v['impact']} {v['id']} ({v['help']}) on {v['count']} node(s), e.g. {v['targets']}"
                    for v in violations
                ]
    finally:
        for ctx in contexts:
            ctx.close()
    assert len(problems) == len(paths)
    return problems


AXE_SHARES = 2
"""The axe audit of every page is cut in this many shares, each its own test and xdist group."""


def _axe_share(site: Path, share: int) -> list[Path]:
    """The pages of one share: the largest page first, each to the share with the fewest bytes so far
    (axe's time grows with a page's size), so the shares take about as long; together they hold every
    distinct page (``_distinct_pages``)."""
    shares: list[list[Path]] = [[] for _ in range(AXE_SHARES)]
    weights = [0] * AXE_SHARES
    for size, page in sorted(((p.stat().st_size, p) for p in _distinct_pages(site)), reverse=True):
        lightest = weights.index(min(weights))
        shares[lightest].append(page)
        weights[lightest] += size
    return sorted(shares[share])


@pytest.mark.parametrize(
    "share", [pytest.param(n, marks=pytest.mark.xdist_group(f"axe-{n}")) for n in range(AXE_SHARES)]
)
def test_axe_finds_no_serious_or_critical_violation(site: Path, browser: Browser, share: int) -> None:
    """Every distinct page of the site, in AXE_SHARES shares of about equal bytes (together, all)."""
    pages = _axe_share(site, share)
    assert pages
    problems = _axe_problems(site, browser, pages, VIEWPORT)
    assert not any(problems.values()), _report(problems)


def test_axe_finds_no_serious_violation_in_the_cards_of_a_phone(site: Path, browser: Browser) -> None:
    """At 390 px the main tables are cards (header row visually hidden): still no serious violation."""
    newest = _newest_version(site)
    paths = sorted(newest.glob("b/*/index.html")) + [
        min(b.glob("runs/*.html")) for b in sorted(newest.glob("b/*"))
    ]
    problems = _axe_problems(site, browser, paths, {"width": 390, "height": 800})
    assert not any(problems.values()), _report(problems)


def test_the_content_security_policy_blocks_injected_script(site: Path, browser: Browser) -> None:
    def injected(bypass_csp: bool) -> str:
        ctx = browser.new_context(bypass_csp=bypass_csp)
        try:
            page = ctx.new_page()
            page.goto((site / "index.html").as_uri(), wait_until="load")
            with contextlib.suppress(Error):  # Playwright reports the script the page refused
                page.add_script_tag(content="window.__x = 1")
            return str(page.evaluate("typeof window.__x"))
        finally:
            ctx.close()

    assert injected(bypass_csp=False) == "undefined"
    assert injected(bypass_csp=True) == "number", "the control: the same script runs without the CSP"


# --- a hostile corpus ---------------------------------------------------------------------------


def _poison(obj: dict[str, Any], *keys: str) -> None:
    for key in keys:
        obj[key] = f"{obj[key]} {HOSTILE}"


def _poison_shown(obj: dict[str, Any], *keys: str) -> None:
    for key in keys:
        obj[key] = f"{obj[key]} {SHOWN_HOSTILE}"


def _poison_declaration(bench: Path, change: Callable[[dict[str, Any]], None] | None = None) -> None:
    def both(decl: dict[str, Any]) -> None:
        _poison(decl, "description")
        decl["title"] = f"{decl['title']} {SHOWN_HOSTILE}"
        if change:
            change(decl)

    edit_json(bench / "benchmark.json", both, dump=ONE_LINE)


def _poison_runs(bench: Path) -> None:
    for run in sorted(p.parent for p in bench.glob("*/run.json")):
        # a run's producer (a package and its version) holds no character a reader cannot see
        edit_json(run / "run.json", lambda meta: _poison_shown(meta, "producer"), dump=ONE_LINE)
        reseal(run)


def _poison_points(bench: Path) -> None:
    def limitations(contract: dict[str, Any]) -> None:
        contract["limitations"] = [f"{x} {HOSTILE}" for x in contract["limitations"]]

    edit_json(bench / "rubric.json", limitations, dump=ONE_LINE)
    sha = hashlib.sha256((bench / "rubric.json").read_bytes()).hexdigest()

    def tasks(decl: dict[str, Any]) -> None:
        decl["rubric"]["sha256"] = sha
        for task in decl["tasks"]:
            task["title"] = f"{task['title']} {SHOWN_HOSTILE}"  # a title may hold no hidden character

    _poison_declaration(bench, tasks)
    _poison_runs(bench)


def _poison_components(bench: Path) -> None:
    def rules(decl: dict[str, Any]) -> None:
        for task in decl["tasks"]:
            for rule in task.get("hard_fail_rules", []):
                _poison(rule, "description")

    _poison_declaration(bench, rules)
    _poison_runs(bench)


def _poison_definitions(bench: Path) -> None:
    def titles(definition: dict[str, Any]) -> None:
        for item in definition["cases"] + definition["checks"]:
            item["title"] = f"{item['title']} {SHOWN_HOSTILE}"

    def corrections(ledger: dict[str, Any]) -> None:
        for c in ledger["corrections"]:
            _poison(c, "superseded", "corrected", "direction", "blast_radius", "prediction")

    _poison_declaration(bench)
    edit_json(bench / "definition.json", titles, dump=ONE_LINE)
    edit_json(bench / "corrections.json", corrections, dump=ONE_LINE)


def _poison_trials(bench: Path, scratch: Path) -> None:
    _poison_declaration(bench)
    _poison_runs(bench)
    reseal(bench)
    # Producers are part of the frozen blind scores, so the reveal must cite the scores they give.
    blind = scratch / "runs" / bench.name
    shutil.copytree(bench, blind, ignore=shutil.ignore_patterns("reveal"))
    _build(blind.parent, scratch / "site", "--site-version", "blind")
    frozen = scratch / "site" / "blind" / "data" / "scores" / f"{bench.name}.json"

    def reveal(record: dict[str, Any]) -> None:
        record["scores_sha256"] = hashlib.sha256(frozen.read_bytes()).hexdigest()
        for label in record["providers"]:  # hostile, with no word the blind fields' hostile text has
            record["providers"][label] += f" {PROVIDER_HOSTILE}"

    edit_json(bench / "reveal" / "reveal.json", reveal, dump=ONE_LINE)
    reseal(bench / "reveal")


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example corpus with hostile text in every free-text field of every benchmark.

    Ids stay as they are: they become file names, and the build rightly refuses unsafe ones.
    """
    root = tmp_path_factory.mktemp("hostile")
    corpus = root / "runs"
    shutil.copytree(CORPUS, corpus)
    for points in ("agent-dx", "agent-dx-successor", "docs-quality"):
        _poison_points(corpus / points)
    _poison_components(corpus / "je-validation")
    _poison_definitions(corpus / "recsys-grounding")
    _poison_trials(corpus / "vibe-delivery", root / "blind")
    _poison_declaration(corpus / "quiz-inspect")  # imported: its producers' files are sealed as they are
    _poison_runs(corpus / "quiz-inspect")
    for bench in (p for p in corpus.iterdir() if p.is_dir()):
        reseal(bench)
    out = root / "site"
    _build(corpus, out)
    return out.resolve()


@pytest.fixture(scope="module")
def hostile_crawl(hostile_site: Path, tab: Tab) -> dict[str, dict[str, Any]]:
    """Per page: the problems it caused, what injected markup left behind, and its layout."""
    within = hostile_site.as_uri() + "/"
    crawl: dict[str, dict[str, Any]] = {}
    for path in _distinct_pages(hostile_site):
        problems = tab.open(path.as_uri(), within)
        crawl[str(path.relative_to(hostile_site))] = {
            "problems": problems,
            "injected": tab.page.evaluate(INERT_JS),
            "layout": tab.page.evaluate(LAYOUT_JS),
            "shown": MARKER in tab.page.title() + tab.page.inner_text("body"),
        }
    return crawl


def test_hostile_text_is_displayed(hostile_crawl: dict[str, dict[str, Any]]) -> None:
    """Every benchmark page shows the hostile text (title or body), so the checks are not vacuous."""
    pages = [page for page in hostile_crawl if "/b/" in page]
    assert len(pages) >= 2 * 4 * 3
    missing = [page for page in pages if not hostile_crawl[page]["shown"]]
    assert not missing, f"the hostile text is not shown as text on {missing}"


def test_hostile_text_runs_nothing(hostile_crawl: dict[str, dict[str, Any]]) -> None:
    problems = {page: facts["problems"] + facts["injected"] for page, facts in hostile_crawl.items()}
    assert not any(problems.values()), _report(problems)


def test_hostile_text_does_not_widen_the_page(hostile_crawl: dict[str, dict[str, Any]]) -> None:
    problems = {
        page: [f"page is {lay['width']}px wide in a {lay['viewport']}px viewport; too wide: {lay['wide']}"]
        for page, facts in hostile_crawl.items()
        if (lay := facts["layout"])["width"] > lay["viewport"] + 1
    }
    assert not problems, _report(problems)


# --- layouts that fit a laptop and a phone ------------------------------------------------------


@pytest.fixture(scope="module")
def layouts(
    site: Path, browser: Browser, file_crawl: dict[Path, Visit]
) -> dict[int, dict[str, dict[str, Any]]]:
    """Per width, per page: its layout (``FIT_JS``). At the laptop width, the tab's, as the file crawl
    measured it; at the others, every page loaded again in a context of that width (every one, not
    only the distinct ones: a version's name in the crumbs alone can move a line break)."""
    assert (VIEWPORT["width"], VIEWPORT["height"]) == (WIDTHS[0], 800)
    laptop = {str(p.relative_to(site)): v.layout for p, v in file_crawl.items()}
    found = {WIDTHS[0]: {page: lay for page, lay in laptop.items() if lay is not None}}
    assert len(found[WIDTHS[0]]) == len(laptop), "the file crawl measured every page's layout"
    for width in WIDTHS[1:]:
        ctx = browser.new_context(viewport={"width": width, "height": 800})
        try:
            page = ctx.new_page()
            found[width] = {}
            for path in _html_pages(site):
                page.goto(path.as_uri(), wait_until="load")
                found[width][str(path.relative_to(site))] = page.evaluate(FIT_JS)
        finally:
            ctx.close()
    return found


@pytest.mark.parametrize("width", WIDTHS)
def test_no_page_scrolls_sideways(
    site: Path, layouts: dict[int, dict[str, dict[str, Any]]], width: int
) -> None:
    """Nothing sticks out of the viewport (page width, or any box or text outside a scroll box)."""
    assert len(layouts[width]) == len(_html_pages(site))
    problems = {
        page: [f"page is {lay['width']}px wide in {lay['viewport']}px; outside the viewport: {lay['wide']}"]
        for page, lay in layouts[width].items()
        if lay["width"] > lay["viewport"] or lay["wide"]
    }
    assert not problems, _report(problems)


def test_every_table_fits_a_laptop_screen(layouts: dict[int, dict[str, dict[str, Any]]]) -> None:
    """At 1280 px no table needs its scroll box: real fitting, not a sideways scroll."""
    problems = {page: lay["scrolling"] for page, lay in layouts[1280].items()}
    assert not any(problems.values()), _report(problems)


def test_main_tables_are_cards_on_a_phone(layouts: dict[int, dict[str, dict[str, Any]]]) -> None:
    """At 390 px a leaderboard's main table and a run page's table are read without a sideways scroll."""
    pages = {
        page: lay["first"]
        for page, lay in layouts[390].items()
        if PurePosixPath(page).match("*/b/*/index.html") or PurePosixPath(page).match("*/b/*/runs/*.html")
    }
    assert len(pages) > 10 and all(pages.values()), pages
    problems = {
        page: [f"main table is {box['scroll']}px wide in {box['client']}px"]
        for page, box in pages.items()
        if box["scroll"] > box["client"] + 1
    }
    assert not problems, _report(problems)


@pytest.mark.parametrize("width", WIDTHS)
def test_navigation_links_are_at_least_24_px_tall(
    layouts: dict[int, dict[str, dict[str, Any]]], width: int
) -> None:
    problems = {page: lay["small"] for page, lay in layouts[width].items()}
    assert not any(problems.values()), _report(problems)


def test_the_layout_check_sees_overflow(site: Path, browser: Browser, tmp_path: Path) -> None:
    """The control: a page with a 2000 px table outside any scroll box fails both checks."""
    page_html = (site / "index.html").read_text(encoding="utf-8")
    cell = '<table><tr><td style="min-width:2000px">{}</td></tr></table>'
    wide = cell.format("x") + '<div class="table-wrap">' + cell.format("y") + "</div>"
    (tmp_path / "wide.html").write_text(
        page_html.replace('<main id="main">', '<main id="main">' + wide), encoding="utf-8"
    )
    ctx = browser.new_context(viewport={"width": 1280, "height": 800}, bypass_csp=True)
    try:
        page = ctx.new_page()
        page.goto((tmp_path / "wide.html").as_uri(), wait_until="load")
        lay = page.evaluate(FIT_JS)
    finally:
        ctx.close()
    assert lay["width"] > 1280 and "td" in lay["wide"], lay
    assert [s for s in lay["scrolling"] if s.startswith("table: 20")], lay


# --- what the reader sees: tables, chart text, labels, words (issue 35) -------------------------


def _readings(
    site: Path, layouts: dict[int, dict[str, dict[str, Any]]], width: int, kind: str
) -> dict[str, list[dict[str, Any]]]:
    """Per page (the home page among them), what ``READING_JS`` found of one ``kind`` at ``width``."""
    pages = layouts[width]
    assert "index.html" in pages and len(pages) == len(_html_pages(site))
    return {page: lay["reading"][kind] for page, lay in pages.items()}


@pytest.mark.parametrize("width", WIDTHS)
def test_no_table_is_wider_than_the_screen(
    site: Path, layouts: dict[int, dict[str, dict[str, Any]]], width: int
) -> None:
    """No table needs a sideways scroll, in a scroll box or not: at a phone's width a table fits as
    cards (``table.cards``) or by itself."""
    found = _readings(site, layouts, width, "tables")
    problems = {
        f"{page} at {width}px": [
            f"{t['table']} ({t['title']!r}) is {t['width']}px wide in {t['room']}px"
            + (" although laid out as cards" if t["cards"] else " (not cards at this width)")
            for t in tables
        ]
        for page, tables in found.items()
    }
    assert not any(problems.values()), _report(problems)


@pytest.mark.parametrize("width", WIDTHS)
def test_chart_text_is_at_least_11_px(
    site: Path, layouts: dict[int, dict[str, dict[str, Any]]], width: int
) -> None:
    """Every visible text of a chart figure, as drawn (an SVG's text scaled with the SVG)."""
    found = _readings(site, layouts, width, "small")
    problems = {
        f"{page} at {width}px": [
            f"{x['chart']}: {x['element']} {x['text']!r} is {x['size']}px" for x in small
        ]
        for page, small in found.items()
    }
    assert not any(problems.values()), _report(problems)


@pytest.mark.parametrize("width", WIDTHS)
def test_chart_labels_do_not_overlap(
    site: Path, layouts: dict[int, dict[str, dict[str, Any]]], width: int
) -> None:
    found = _readings(site, layouts, width, "overlaps")
    problems = {
        f"{page} at {width}px": [f"{x['chart']}: {x['first']!r} overlaps {x['second']!r}" for x in overlaps]
        for page, overlaps in found.items()
    }
    assert not any(problems.values()), _report(problems)


@pytest.mark.parametrize("width", WIDTHS)
def test_no_word_is_broken_inside(
    site: Path, layouts: dict[int, dict[str, dict[str, Any]]], width: int
) -> None:
    """An identifier, verdict or number breaks only at its joints (_ - . / or a <wbr>), never mid-word;
    " / " marks where the offending word broke."""
    found = _readings(site, layouts, width, "broken")
    problems = {
        f"{page} at {width}px": [
            f"{x['word']!r} in {x['in']} ({x['width']}px of text in {x['room']}px)" for x in broken
        ]
        for page, broken in found.items()
    }
    assert not any(problems.values()), _report(problems)


CONTROL_PAGE = """<div class="table-wrap"><table><tr><td>{wide}</td></tr></table></div>
<p style="width:12ch;font-family:monospace">abcdefghij_<wbr>klmnop
<span style="display:inline-block;width:4ch;overflow-wrap:anywhere">PENDING</span></p>
<figure class="chart-figure" id="control"><div><svg class="chart" viewBox="0 0 100 20" width="50">
<text x="0" y="10">one</text><text x="2" y="10">two</text></svg></div></figure>"""
# (The control's chart sits in a div: a chart figure's own SVG gives way to its rows at 390 px.)


def test_the_reading_checks_see_what_they_look_for(site: Path, browser: Browser, tmp_path: Path) -> None:
    """The control: a wide table in a scroll box, a word broken mid-word and one at its joint, chart
    text drawn at half its size and two labels on top of each other are each found."""
    page_html = (site / "index.html").read_text(encoding="utf-8")
    control = CONTROL_PAGE.format(wide="x" * 300)
    (tmp_path / "control.html").write_text(
        page_html.replace('<main id="main">', '<main id="main">' + control), encoding="utf-8"
    )
    ctx = browser.new_context(viewport={"width": 390, "height": 800}, bypass_csp=True)
    try:
        page = ctx.new_page()
        page.goto((tmp_path / "control.html").as_uri(), wait_until="load")
        found = page.evaluate(FIT_JS)["reading"]
    finally:
        ctx.close()
    assert [t for t in found["tables"] if t["width"] > 390 and not t["cards"]], found["tables"]
    assert {x["text"] for x in found["small"] if x["chart"] == "control"} == {"one", "two"}, found["small"]
    assert [x for x in found["overlaps"] if {x["first"], x["second"]} == {"one", "two"}], found["overlaps"]
    words = [x["word"] for x in found["broken"]]
    assert any(w.startswith("PEND") and " / " in w for w in words), words
    assert not any(w.startswith("abcdef") for w in words), words
