"""A site that is its owner's: benchsite.toml and the build's flags (name, base URL, description, logo,
accent colour), what a base URL adds (canonical links, an absolute 404 page, sitemap.xml, an Atom
feed), and no build artefact in the folder a user deploys."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from generator.errors import EXIT_USAGE
from generator.inputs.siteconfig import SiteConfigError, SiteLook, contrast_on_white, load_site
from generator.publish.write import lock_path, temp_prefix
from tests.conftest import CORPUS, run_cli
from tests.pages import namespace_problems, report_parts

ATOM = "{http://www.w3.org/2005/Atom}"
SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
SVG = b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="10" height="10"/></svg>'
BASE = "https://evals.example.org/results/"


def _config(folder: Path, body: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "benchsite.toml"
    path.write_text(body, encoding="utf-8")
    return path


def _problems(config: Path | None, **flags: str) -> list[str]:
    with pytest.raises(SiteConfigError) as caught:
        load_site(config, dict(flags), cwd=config.parent if config else Path("/nonexistent"))
    assert caught.value.exit_code == EXIT_USAGE
    return caught.value.message.splitlines()


# --- the configuration, read and checked --------------------------------------------------------


def test_a_config_file_and_flags_make_the_look(tmp_path: Path) -> None:
    (tmp_path / "logo.svg").write_bytes(SVG)
    config = _config(
        tmp_path,
        '[site]\nname = "Acme Evals"\nbase_url = "https://evals.example.org/results"\n'
        'description = "Acme\'s agent benchmarks."\nlogo = "logo.svg"\naccent = "#7A1F5C"\n',
    )
    look = load_site(config, {"name": "Acme Evaluations", "accent": None}, cwd=Path("/"))
    assert look.name == "Acme Evaluations"  # the flag wins over the file
    assert look.base_url == BASE  # one trailing slash added
    assert look.accent == "#7a1f5c" and look.description == "Acme's agent benchmarks."
    assert look.logo is not None and look.logo.startswith(
        "data:image/svg+xml;base64,"
    )  # relative to the file


def test_without_a_config_the_defaults_hold_and_benchsite_toml_is_found_in_the_working_folder(
    tmp_path: Path,
) -> None:
    assert load_site(None, {}, cwd=tmp_path) == SiteLook()
    _config(tmp_path, '[site]\nname = "From the working folder"\n')
    assert load_site(None, {}, cwd=tmp_path).name == "From the working folder"


def test_every_bad_value_is_named_with_its_file_and_key(tmp_path: Path) -> None:
    (tmp_path / "big.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"0" * 20_000)
    (tmp_path / "fake.png").write_bytes(b"GIF89a")
    config = _config(
        tmp_path,
        '[site]\nname = ""\nbase_url = "ftp://example.org/"\naccent = "red"\nlogo = "big.png"\n'
        'colour = "#000"\ndescription = 3\n\n[theme]\nx = 1\n',
    )
    lines = _problems(config)
    where = str(config)
    expected = [
        f"{where}: site.accent: 'red' is not a colour",
        f"{where}: site.base_url: 'ftp://example.org/' is not an absolute http(s) URL",
        f"{where}: site.colour: unknown key",
        f"{where}: site.description: must be a string, not int",
        f"{where}: site.logo: {tmp_path / 'big.png'}: is 20008 bytes",
        f"{where}: site.name: must not be empty",
        f"{where}: theme: unknown table or key",
    ]
    for start in expected:
        assert any(line.startswith(start) for line in lines), (start, lines)
    assert lines[-1] == "7 problem(s) in the site's configuration; nothing was written (exit 2)"
    assert _problems(None, logo=str(tmp_path / "fake.png"))[0].endswith("fake.png: is not a PNG image")


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        ({"accent": "#ffcc00"}, "--accent: #ffcc00 has a contrast of 1.51:1"),
        ({"accent": "#12345"}, "--accent: '#12345' is not a colour"),
        ({"base_url": "https://x.org/a?b=1"}, "--base-url: 'https://x.org/a?b=1': a base URL has no query"),
        ({"base_url": "example.org"}, "--base-url: 'example.org' is not an absolute http(s) URL"),
        ({"name": "two\nlines"}, "--site-name: must be one line"),
        ({"description": "x" * 301}, "--description: is 301 characters long; at most 300"),
        ({"logo": "logo.gif"}, "--logo: /nonexistent/logo.gif: a logo is an .svg or .png file"),
    ],
)
def test_a_bad_flag_is_named(flags: dict[str, str], message: str) -> None:
    assert _problems(None, **flags)[0].startswith(message)


def test_a_config_that_is_not_toml_is_refused_with_its_place(tmp_path: Path) -> None:
    config = _config(tmp_path, "[site\nname = 1\n")
    assert _problems(config)[0].startswith(f"{config}: not valid TOML: ")
    assert (
        _problems(tmp_path / "missing.toml")[0]
        == f"{tmp_path / 'missing.toml'}: cannot be read: No such file or directory"
    )


def test_contrast_is_measured_as_wcag_defines_it() -> None:
    assert contrast_on_white("#000") == pytest.approx(21.0)
    assert contrast_on_white("#ffffff") == pytest.approx(1.0)
    assert contrast_on_white("#0b5cad") == pytest.approx(6.67, abs=0.01)  # the default accent


def test_a_bad_config_writes_nothing_and_shows_no_traceback(tmp_path: Path) -> None:
    out = tmp_path / "site"
    result = run_cli("build", "--runs", CORPUS, "--out", out, "--accent", "#fff", "--base-url", "nope")
    assert result.exit_code == EXIT_USAGE, result.output
    assert "--accent: #fff has a contrast of 1.00:1" in result.output
    assert "--base-url: 'nope' is not an absolute http(s) URL" in result.output
    assert "Traceback" not in result.output and not isinstance(result.exception, AssertionError)
    assert not out.exists()
    assert not lock_path(out).exists()


# --- what the look and a base URL change in the built site --------------------------------------


@pytest.fixture(scope="module")
def online(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example corpus built with a name, logo, accent and base URL."""
    root = tmp_path_factory.mktemp("online")
    (root / "logo.svg").write_bytes(SVG)
    config = _config(root, f'[site]\nname = "Acme Evals"\nbase_url = "{BASE}"\nlogo = "logo.svg"\n')
    out = root / "site"
    result = run_cli("build", "--runs", CORPUS, "--out", out, "--config", config, "--accent", "#7a1f5c")
    assert result.exit_code == 0, result.output
    return out


def _versions(out: Path) -> list[str]:
    return list(json.loads((out / "versions.json").read_text())["versions"])


def test_every_page_carries_the_name_logo_accent_and_a_description(online: Path) -> None:
    pages = sorted(online.rglob("*.html"))
    assert len(pages) > 30
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert re.search(r"<title>[^<]* · Acme Evals</title>", text), page
        assert re.search(r'<meta name="description" content="[^"]+">', text), page
        assert 'src="data:image/svg+xml;base64,' in text, page
        assert "--accent: #7a1f5c;" in text, page


def test_version_pages_have_canonical_links_under_the_base_url(online: Path) -> None:
    version = _versions(online)[-1]
    expected = {
        f"{version}/b/agent-dx/index.html": f"{BASE}{version}/b/agent-dx/",
        f"{version}/b/agent-dx/methodology.html": f"{BASE}{version}/b/agent-dx/methodology.html",
        f"{version}/index.html": f"{BASE}{version}/",
        f"{version}/report.html": f"{BASE}{version}/report.html",
        "index.html": BASE,
    }
    for page, url in expected.items():
        assert f'<link rel="canonical" href="{url}">' in (online / page).read_text(encoding="utf-8"), page


def test_the_404_page_links_absolutely(online: Path) -> None:
    links = re.findall(r'<a [^>]*href="([^"]*)"', (online / "404.html").read_text(encoding="utf-8"))
    assert links and set(links) == {BASE}


def test_the_report_links_to_its_version_online(online: Path) -> None:
    version = _versions(online)[-1]
    text = (online / version / "report.html").read_text(encoding="utf-8")
    links = set(re.findall(r'<a [^>]*href="([^"#][^"]*)"', text))
    assert any(link.startswith(f"{BASE}{version}/b/agent-dx/runs/") for link in links), links
    assert all(link.startswith(BASE) and "/../" not in link for link in links), links
    parts = report_parts(online / version / "report.html")
    assert [problem for part in parts for problem in namespace_problems(part)] == []
    assert [ref for part in parts for ref in part.refs] == []  # online, every other file is linked


def test_the_sitemap_lists_every_page_of_every_version(online: Path) -> None:
    root = ET.parse(online / "sitemap.xml").getroot()
    listed = {loc.text for loc in root.iter(f"{SITEMAP}loc")}
    pages = {BASE} | {
        BASE + p.relative_to(online).as_posix().removesuffix("index.html")
        for p in online.glob("*/**/*.html")
        if p.parent != online
    }
    assert listed == pages


def test_the_feed_has_an_entry_per_version_with_what_it_holds_and_what_changed(online: Path) -> None:
    root = ET.parse(online / "feed.xml").getroot()
    assert root.tag == f"{ATOM}feed" and root.findtext(f"{ATOM}id") == BASE
    entries = root.findall(f"{ATOM}entry")
    versions = _versions(online)
    assert [e.findtext(f"{ATOM}title") for e in entries] == [f"Version {v}" for v in reversed(versions)]
    for entry, version in zip(entries, reversed(versions), strict=True):
        assert entry.findtext(f"{ATOM}id") == f"{BASE}{version}/"
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", entry.findtext(f"{ATOM}updated") or "")
        assert re.search(r"\d+ benchmarks?: ", entry.findtext(f"{ATOM}summary") or "")
    newest = entries[0].findtext(f"{ATOM}content") or ""
    assert f"Since {versions[-2]}" in newest and "identities revealed" in newest
    assert "The first published version." in (entries[-1].findtext(f"{ATOM}content") or "")


def test_no_build_artefact_is_left_in_the_site_folder(online: Path) -> None:
    names = {p.name for p in online.iterdir()}
    versions = set(_versions(online))
    assert names == versions | {
        "index.html",
        "404.html",
        "versions.json",
        "sitemap.xml",
        "feed.xml",
        "badges",
    }
    parent, prefix = temp_prefix(online)
    assert lock_path(online).parent == parent == online.parent
    assert not lock_path(online).exists() and not list(parent.glob(f"{prefix}*"))


def test_a_changed_look_reaches_the_run_pages_and_dropping_the_base_url_drops_the_feed(
    tmp_path: Path,
) -> None:
    """The run cache keeps run pages per look: a new name is not served from pages cached under the old."""
    out = tmp_path / "site"
    first = run_cli("build", "--runs", CORPUS, "--out", out, "--site-version", "v1", "--base-url", BASE)
    assert first.exit_code == 0, first.output
    assert (out / "feed.xml").is_file() and (out / "sitemap.xml").is_file()
    second = run_cli(
        "build", "--runs", CORPUS, "--out", out, "--site-version", "v2", "--site-name", "Renamed"
    )
    assert second.exit_code == 0, second.output
    run_page = next((out / "v2" / "b" / "agent-dx" / "runs").glob("*.html"))
    assert "· Renamed</title>" in run_page.read_text(encoding="utf-8")
    assert "· Renamed</title>" in (out / "index.html").read_text(encoding="utf-8")
    assert not (out / "feed.xml").exists() and not (out / "sitemap.xml").exists()
    # v1 stays as it was published: a version's pages never change
    assert "· benchsite</title>" in next((out / "v1" / "b" / "agent-dx" / "runs").glob("*.html")).read_text()


# --- navigation: every page finds the versions list and its version's report ---------------------


def _links(page: Path) -> set[Path]:
    hrefs = re.findall(r'<a [^>]*href="([^"#:]+)[^"]*"', page.read_text(encoding="utf-8"))
    return {(page.parent / href).resolve() for href in hrefs}


def test_every_version_page_links_the_versions_list_and_its_report(online: Path) -> None:
    root = online.resolve()
    pages = [
        p for v in _versions(online) for p in sorted((online / v).rglob("*.html")) if p.name != "report.html"
    ]
    assert len(pages) > 30
    for page in pages:
        version = root / page.resolve().relative_to(root).parts[0]
        links = _links(page)
        assert root / "index.html" in links, page
        assert version / "report.html" in links, page
        text = page.read_text(encoding="utf-8")
        assert '<nav class="crumbs" aria-label="Breadcrumb">' in text and 'aria-current="page"' in text, page


def test_the_versions_list_links_every_versions_report_the_blind_one_included(online: Path) -> None:
    links = _links(online / "index.html")
    for version in _versions(online):
        assert (online / version / "report.html").resolve() in links, version


def test_the_report_says_it_stands_alone_without_a_base_url(example_site: Path) -> None:
    text = (example_site / "v1" / "report.html").read_text(encoding="utf-8")
    assert "<strong>A standalone file.</strong>" in text and "Only links within this file work" in text
    assert not re.findall(r'<a [^>]*href="[^"#]', text)


def test_table_digests_are_shortened_with_the_whole_value_kept(online: Path) -> None:
    """Shortened by the stylesheet alone: the page's text keeps the whole value, selectable and copied
    whole, and its tooltip names it too."""
    version = _versions(online)[-1]
    text = (online / version / "b" / "agent-dx" / "disclosures.html").read_text(encoding="utf-8")
    found = re.findall(r'<code class="digest" title="([0-9a-f]{64})">([0-9a-f]{64})</code>', text)
    assert len(found) >= 5 and all(title == shown for title, shown in found)
    assert re.search(r"code\.digest \{[^}]*max-width: 13ch;[^}]*text-overflow: ellipsis;", text)


def test_the_accented_stylesheet_is_the_one_its_content_security_policy_allows(online: Path) -> None:
    """A browser applies the inline stylesheet only if its sha256 is the CSP's style-src hash."""
    for page in [online / "index.html", online / "404.html", *sorted(online.glob("*/b/*/runs/*.html"))[:2]]:
        text = page.read_text(encoding="utf-8")
        style = re.search(r"<style>(.*?)</style>", text, re.S)
        allowed = re.search(r"style-src (?:'|&#39;)(sha256-[^'&]+)", text)  # the attribute escapes quotes
        assert style and allowed, page
        digest = base64.b64encode(hashlib.sha256(style.group(1).encode("utf-8")).digest()).decode("ascii")
        assert allowed.group(1) == f"sha256-{digest}", page


def test_the_site_name_and_description_are_text_never_markup(tmp_path: Path) -> None:
    from generator.render.pages import render_not_found

    hostile = '<script>alert(1)</script>" onload="x'
    page = render_not_found(SiteLook(name=hostile, description=hostile)).decode("utf-8")
    assert "<script>alert(1)" not in page and 'onload="x' not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;&#34; onload=&#34;x" in page


# --- issue 31, class 8: the site's own identity is no way in --------------------------------------


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        ({"base_url": "https://example.org?"}, "--base-url: 'https://example.org?': a base URL has no query"),
        (
            {"base_url": "https://example.org/r#"},
            "--base-url: 'https://example.org/r#': a base URL has no query",
        ),
        (
            {"name": "Results \u202egnp.exe"},
            "--site-name: holds U+202E RIGHT-TO-LEFT OVERRIDE at character 9",
        ),
        ({"name": "Acme\u200dEvals"}, "--site-name: holds U+200D ZERO WIDTH JOINER at character 5"),
        ({"description": "Evals \u2067x"}, "--description: holds U+2067 RIGHT-TO-LEFT ISOLATE"),
        (
            {"base_url": 'https://x.org/a"b'},
            "--base-url: 'https://x.org/a\"b' is not a valid URL (RFC 3986): it holds '\"'",
        ),
        (
            {"base_url": "https://x.org/<r>"},
            "--base-url: 'https://x.org/<r>' is not a valid URL (RFC 3986): it holds '<' '>'",
        ),
        (
            {"base_url": "https://x.org/]]>"},
            "--base-url: 'https://x.org/]]>' is not a valid URL (RFC 3986): it holds '>'",
        ),
        (
            {"base_url": "https://x.org/%zz"},
            "--base-url: 'https://x.org/%zz' is not a valid URL (RFC 3986): a '%' begins",
        ),
        (
            {"base_url": "https://x.org/ü"},
            "--base-url: 'https://x.org/ü' is not a valid URL (RFC 3986): it holds 'ü'",
        ),
        ({"base_url": "https://[::1/r"}, "--base-url: 'https://[::1/r' is not an absolute http(s) URL"),
        (
            {"base_url": "https://x.org/a[b]"},
            "--base-url: 'https://x.org/a[b]' is not a valid URL (RFC 3986): its host",
        ),
    ],
    ids=[
        "empty-query",
        "empty-fragment",
        "rlo-name",
        "zwj-name",
        "rli-description",
        "quote",
        "angle",
        "cdata-end",
        "bad-escape",
        "non-ascii",
        "open-bracket",
        "bracket-path",
    ],
)
def test_a_hidden_character_or_an_invalid_url_is_refused_naming_the_flag(
    flags: dict[str, str], message: str
) -> None:
    assert _problems(None, **flags)[0].startswith(message)


def test_valid_urls_stay_as_written() -> None:
    for url in ("https://[::1]:8080/r/", "https://x.org/r%20s/", "http://127.0.0.1:8000/a-b_c~d/"):
        assert load_site(None, {"base_url": url}).base_url == url
