"""The charts as a reader sees them, in headless Chromium at a laptop's and a phone's width.

Every chart text (an SVG chart's ``<text>``, the words of a chart's HTML rows) on every distinct page
of the example site is measured where it is drawn: its font size in CSS pixels after any scaling of
its SVG, whether its box overlaps another text of the same chart, and whether it sticks out of its
chart (an SVG's viewBox clips what lies outside it). A chart a phone shrinks to 4 px text, or labels
that run into each other, fail here, never only in a screenshot.

Run as a script it prints the measurements of a built site, per page and width (the before → after
of a change to the charts)::

    .venv/bin/python -m tests.test_browser_charts SITE
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, sync_playwright

from tests.conftest import build_example, made_once
from tests.test_browser import CHROMIUM, CHROMIUM_ARGS, WIDTHS, _distinct_pages, _missing_dependencies

pytestmark = pytest.mark.slow  # Chromium loads every distinct page at two widths

SMALLEST_TEXT = 11.0
"""The smallest chart text a reader is asked to read, in CSS pixels."""

# Every chart text that is drawn (display: none leaves no box), with its size and box. An SVG text's
# size is its font size times its SVG's scale (the CTM); an HTML text's is its font size, and each of
# its lines is its own box (a wrapped label's lines are not one rectangle). Two texts overlap when
# their boxes share more than a pixel each way; a text is clipped when it sticks out of its chart by
# more than half a pixel (an SVG's viewBox cuts it there; rows past the viewport are off-screen).
CHART_TEXT_JS = """() => {
  const drawn = e => e.getClientRects().length > 0;
  const charts = Array.from(document.querySelectorAll('svg.chart, .chart-rows')).filter(drawn);
  const where = e => {
    const c = e.closest('[id]');
    return (c ? '#' + c.id : e.localName);
  };
  const found = {charts: charts.length, texts: 0, smallest: null, smallestAt: '', overlaps: [], clipped: []};
  const range = document.createRange();
  for (const chart of charts) {
    const svg = chart.localName === 'svg';
    const frame = chart.getBoundingClientRect();
    const right = svg ? frame.right : Math.min(frame.right, document.documentElement.clientWidth);
    const texts = [];
    if (svg) {
      for (const t of chart.querySelectorAll('text')) {
        if (!drawn(t)) continue;
        const size = parseFloat(getComputedStyle(t).fontSize) * Math.abs(t.getScreenCTM().a);
        const words = Array.from(t.childNodes, c => c.localName === 'title' ? '' : c.textContent).join('');
        texts.push({text: words.trim(), size, boxes: [t.getBoundingClientRect()]});
      }
    } else {
      const walker = document.createTreeWalker(chart, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        if (!n.textContent.trim() || !drawn(n.parentElement)) continue;
        if (n.parentElement.closest('title, desc')) continue;
        range.selectNodeContents(n);
        const boxes = Array.from(range.getClientRects()).filter(r => r.width > 0 && r.height > 0);
        if (!boxes.length) continue;
        const size = parseFloat(getComputedStyle(n.parentElement).fontSize);
        texts.push({text: n.textContent.trim(), size, boxes});
      }
    }
    for (const t of texts) {
      found.texts += 1;
      if (found.smallest === null || t.size < found.smallest) {
        found.smallest = t.size;
        found.smallestAt = `${where(chart)}: ${t.text.slice(0, 40)}`;
      }
      for (const b of t.boxes) {
        const out = b.left < frame.left - 0.5 || b.right > right + 0.5;
        if (out || b.top < frame.top - 0.5 || b.bottom > frame.bottom + 0.5) {
          const span = `${b.left.toFixed(0)}–${b.right.toFixed(0)} px in `
            + `${frame.left.toFixed(0)}–${right.toFixed(0)} px`;
          found.clipped.push(`${where(chart)}: "${t.text.slice(0, 40)}" at ${span}`);
          break;
        }
      }
    }
    for (let i = 0; i < texts.length; i++) {
      for (let j = i + 1; j < texts.length; j++) {
        const hit = texts[i].boxes.some(a => texts[j].boxes.some(b =>
          Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1 &&
          Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1));
        const pair = `"${texts[i].text.slice(0, 30)}" × "${texts[j].text.slice(0, 30)}"`;
        if (hit) found.overlaps.push(`${where(chart)}: ${pair}`);
      }
    }
  }
  return found;
}"""


def measure(browser: Browser, pages: list[Path], width: int) -> dict[Path, dict[str, Any]]:
    """Per page, what ``CHART_TEXT_JS`` finds in a viewport ``width`` px wide."""
    context = browser.new_context(viewport={"width": width, "height": 800})
    try:
        tab = context.new_page()
        found = {}
        for path in pages:
            tab.goto(path.as_uri(), wait_until="load")
            found[path] = tab.evaluate(CHART_TEXT_JS)
        return found
    finally:
        context.close()


def problems(found: dict[str, Any]) -> list[str]:
    """What is wrong with one page's charts: text under SMALLEST_TEXT, overlaps, clipped text."""
    small = found["smallest"] is not None and found["smallest"] < SMALLEST_TEXT
    return (
        ([f"text of {found['smallest']:.1f} px ({found['smallestAt']})"] if small else [])
        + [f"overlap: {o}" for o in found["overlaps"]]
        + [f"clipped: {c}" for c in found["clipped"]]
    )


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
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example site tests/test_browser.py crawls: the same folder, made once per test run."""

    def make(folder: Path) -> None:
        build_example(folder)

    return (made_once(tmp_path_factory, "browser-site", make) / "site").resolve()


@pytest.mark.parametrize("width", WIDTHS)
def test_chart_text_is_readable_and_never_overlaps_or_clips(site: Path, browser: Browser, width: int) -> None:
    pages = _distinct_pages(site)
    found = measure(browser, pages, width)
    leaderboards = [p for p in pages if p.name == "index.html" and p.parent.parent.name == "b"]
    assert leaderboards and all(found[p]["texts"] > 0 for p in leaderboards), "every leaderboard has a chart"
    bad = {str(p.relative_to(site)): problems(f) for p, f in found.items() if problems(f)}
    report = "\n".join(f"{page}: {p}" for page, found_there in bad.items() for p in found_there)
    assert not bad, f"{len(bad)} page(s) with unreadable chart text at {width} px:\n{report}"


CONTROL = """<!doctype html><html><head><style>
svg.chart {{ font: 12px sans-serif; max-width: 100%; height: auto; }}
</style></head><body><main>
<svg class="chart" id="shrunk" viewBox="0 0 1200 40" width="1200" height="40">
<text x="10" y="20">small</text></svg>
<svg class="chart" id="crowded" viewBox="0 0 200 40" width="200" height="40">
<text x="10" y="20">functional correctness</text><text x="60" y="20">regression avoidance</text></svg>
<svg class="chart" id="cut" viewBox="0 0 100 40" width="100" height="40">
<text x="60" y="20">Autonomous success</text></svg>
<ul class="chart-rows" id="rows"><li><span>{label}</span></li></ul>
</main></body></html>"""


def test_the_chart_check_sees_small_overlapping_and_clipped_text(browser: Browser, tmp_path: Path) -> None:
    """The control: an SVG scaled to a third, two labels drawn over each other, a label past its
    viewBox, and an HTML row too small to read are each reported."""
    page = tmp_path / "control.html"
    page.write_text(CONTROL.format(label='<small style="font-size:8px">tiny</small>'), encoding="utf-8")
    found = measure(browser, [page], 390)[page]
    assert found["charts"] == 4 and found["texts"] == 5, found
    assert found["smallest"] == pytest.approx(12 * 358 / 1200, abs=0.5), found  # 1200 px into 358
    assert [o.split(":")[0] for o in found["overlaps"]] == ["#crowded"], found
    assert [c.split(":")[0] for c in found["clipped"]] == ["#cut"], found
    page.write_text(CONTROL.format(label="x").replace("1200", "300"), encoding="utf-8")
    assert measure(browser, [page], 390)[page]["smallest"] == pytest.approx(12), "unscaled text is 12 px"


def main(site: Path) -> None:
    """Print, per distinct page with a chart and per width, the smallest chart text, overlaps, clips."""
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        pages = _distinct_pages(site.resolve())
        for width in WIDTHS:
            found = measure(chromium, pages, width)
            texts = sum(f["texts"] for f in found.values())
            sizes = [f["smallest"] for f in found.values() if f["smallest"] is not None]
            overlaps = sum(len(f["overlaps"]) for f in found.values())
            clipped = sum(len(f["clipped"]) for f in found.values())
            smallest = f"{min(sizes):.1f} px" if sizes else "—"
            print(
                f"{width} px: {texts} chart texts on {len(sizes)} of {len(pages)} pages; "
                f"smallest {smallest}; {overlaps} overlapping pairs; {clipped} clipped"
            )
            for path, f in found.items():
                for problem in problems(f):
                    print(f"  {path.relative_to(site.resolve())}: {problem}")
        chromium.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]))
