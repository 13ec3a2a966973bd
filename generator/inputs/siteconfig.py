"""The site's own identity: its name, base URL, description, logo and accent colour.

Read from the ``[site]`` table of ``benchsite.toml`` (``--config FILE``; without it, the file of
that name in the working directory when there is one), then overridden by the build's flags
(``--site-name``, ``--base-url``, ``--description``, ``--logo``, ``--accent``). Every value is
checked before anything is read or written; every problem is printed with its file and key, then
the build stops (exit 2) having written nothing. The logo is embedded in each page as a ``data:``
URI: a page still fetches nothing, and the single-file report stays one file.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import json
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from generator.errors import EXIT_USAGE, BenchsiteError, printable
from generator.inputs.readable import unreadable

CONFIG_NAME = "benchsite.toml"
KEYS = ("name", "base_url", "description", "logo", "accent")
FLAGS = {
    "name": "--site-name",
    "base_url": "--base-url",
    "description": "--description",
    "logo": "--logo",
    "accent": "--accent",
}
DEFAULT_ACCENT = "#0b5cad"
DEFAULT_DESCRIPTION = (
    "Benchmark results from sealed runs: leaderboards with exact intervals, rank bands and disclosures."
)
LOGO_BYTES = 16 * 1024
"""Embedded in every page, run pages too (20,000 pages carry it 20,000 times): a header logo needs less."""
LOGO_TYPES = {".svg": "image/svg+xml", ".png": "image/png"}
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
MIN_CONTRAST = 4.5
"""WCAG 2 AA for normal text: links and marks are drawn in the accent on the white page."""
_COLOUR = re.compile(r"#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


@dataclass(frozen=True)
class SiteLook:
    """How every page presents the site: never a figure. Part of a run page's view, so a change
    renders the run pages again rather than reusing cached ones. A plain dataclass: the no-op
    rebuild reads it with the standard library alone."""

    name: str = "benchsite"
    """Shown in every page's header and title."""
    description: str = DEFAULT_DESCRIPTION
    """The pages' meta description and the feed's subtitle."""
    base_url: str | None = None
    """Absolute http(s) URL of the site folder, ending in '/'; None: links stay relative."""
    logo: str | None = None
    """The logo as a data: URI (SVG or PNG), or None."""
    accent: str = DEFAULT_ACCENT
    """Links and chart marks: #rgb or #rrggbb, at least 4.5:1 against white."""

    def absolute(self, path: str) -> str:
        """``path`` (relative to the site folder) under the base URL; ``index.html`` as its folder."""
        assert self.base_url is not None, "absolute() needs a base URL"
        if path == "index.html" or path.endswith("/index.html"):
            path = path.removesuffix("index.html")
        return self.base_url + path

    def digest(self) -> str:
        """What the site-level files depend on beyond the versions: every field."""
        text = json.dumps(dataclasses.asdict(self), sort_keys=True)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


class SiteConfigError(BenchsiteError):
    """The site's configuration (benchsite.toml or a flag) is unusable (exit 2)."""

    exit_code = EXIT_USAGE


@dataclass(frozen=True)
class _Found:
    """Values gathered so far and every problem, each as ``<file>: <key>: <reason>``."""

    values: dict[str, tuple[str, str, Path]] = field(default_factory=dict)
    """key → (value, where it came from, the folder a relative logo path is resolved against)."""
    problems: list[str] = field(default_factory=list)


def _read_file(path: Path, found: _Found) -> None:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        found.problems.append(f"{path}: cannot be read: {exc.strerror}")
        return
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        found.problems.append(f"{path}: not valid TOML: {exc}")
        return
    for key in sorted(set(data) - {"site"}):
        found.problems.append(f"{path}: {key}: unknown table or key (benchsite reads only [site])")
    site = data.get("site", {})
    if not isinstance(site, dict):
        found.problems.append(f"{path}: site: must be a table, [site]")
        return
    for key, value in sorted(site.items()):
        if key not in KEYS:
            found.problems.append(f"{path}: site.{key}: unknown key (known: {', '.join(KEYS)})")
        elif not isinstance(value, str):
            found.problems.append(f"{path}: site.{key}: must be a string, not {type(value).__name__}")
        else:
            found.values[key] = (value, f"{path}: site.{key}", path.parent)


def _text(value: str, limit: int) -> str | None:
    if not value.strip():
        return "must not be empty"
    if _CONTROL.search(value):
        return "must be one line of text without control characters"
    unseen = unreadable(value)  # a bidi control would reorder every page's header around it
    if unseen is not None:
        return unseen
    if len(value) > limit:
        return f"is {len(value)} characters long; at most {limit}"
    return None


_URI_CHARACTERS = re.compile(r"[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]*")
"""The characters RFC 3986 allows in a URI: unreserved, reserved and '%' (of an escape)."""
_BAD_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")
_HOST = re.compile(r"(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._~!$&'()*+,;=%]+)(?::[0-9]*)?")
"""A URI's authority without user information: a bracketed IPv6 literal or a registered name or
IPv4 address, and an optional port."""


def _base_url(value: str) -> tuple[str | None, str | None]:
    """An absolute http(s) URL that RFC 3986 allows as written (a reader's browser and a feed reader
    take it as it is): its characters, escapes, host and path checked; then '/' appended."""
    try:
        parts = urlsplit(value)
    except ValueError:  # e.g. an unclosed IPv6 bracket
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not parts.netloc:
        return None, f"{value!r} is not an absolute http(s) URL such as https://example.org/results/"
    if "?" in value or "#" in value or "@" in parts.netloc:  # an empty query or fragment too
        return None, f"{value!r}: a base URL has no query, fragment or user name"
    odd = "".join(sorted({c for c in value if not _URI_CHARACTERS.fullmatch(c)}))
    if odd:
        return None, (
            f"{value!r} is not a valid URL (RFC 3986): it holds {' '.join(repr(c) for c in odd)}; "
            "percent-encode them (a space as %20, '\"' as %22, '<' as %3C, '>' as %3E)"
        )
    if _BAD_ESCAPE.search(value):
        return None, f"{value!r} is not a valid URL (RFC 3986): a '%' begins no escape (write %25)"
    if not _HOST.fullmatch(parts.netloc) or "[" in parts.path or "]" in parts.path:
        return None, f"{value!r} is not a valid URL (RFC 3986): its host or path is malformed"
    return value if value.endswith("/") else value + "/", None


def _luminance(colour: str) -> float:
    digits = colour[1:] if len(colour) == 7 else "".join(c * 2 for c in colour[1:])
    channels = [int(digits[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast_on_white(colour: str) -> float:
    """WCAG 2 contrast ratio of ``colour`` (#rgb or #rrggbb) against white."""
    return 1.05 / (_luminance(colour) + 0.05)


def _accent(value: str) -> tuple[str | None, str | None]:
    if not _COLOUR.fullmatch(value):
        return None, f"{value!r} is not a colour: write #rgb or #rrggbb"
    ratio = contrast_on_white(value)
    if ratio < MIN_CONTRAST:
        return None, (
            f"{value} has a contrast of {ratio:.2f}:1 on the white page; links in it need at least "
            f"{MIN_CONTRAST}:1 (WCAG AA): choose a darker colour"
        )
    return value.lower(), None


def _logo(value: str, folder: Path) -> tuple[str | None, str | None]:
    path = Path(value).expanduser()
    path = path if path.is_absolute() else folder / path
    kind = LOGO_TYPES.get(path.suffix.lower())
    if kind is None:
        return None, f"{path}: a logo is an .svg or .png file"
    try:
        if not path.is_file():
            return None, f"{path}: no such file"
        data = path.read_bytes()
    except OSError as exc:
        return None, f"{path}: cannot be read: {exc.strerror}"
    if len(data) > LOGO_BYTES:
        return (
            None,
            f"{path}: is {len(data)} bytes; a logo is embedded in every page, so at most {LOGO_BYTES}",
        )
    valid = data.startswith(PNG_SIGNATURE) if kind == "image/png" else b"<svg" in data[:4096]
    if not valid:
        return None, f"{path}: is not a{' PNG' if kind == 'image/png' else 'n SVG'} image"
    return f"data:{kind};base64,{base64.b64encode(data).decode('ascii')}", None


def _checked(key: str, value: str, folder: Path) -> tuple[str | None, str | None]:
    if key == "base_url":
        return _base_url(value)
    if key == "accent":
        return _accent(value)
    if key == "logo":
        return _logo(value, folder)
    problem = _text(value, 80 if key == "name" else 300)
    return (None, problem) if problem else (" ".join(value.split()), None)


def load_site(config: Path | None, flags: dict[str, str | None], cwd: Path | None = None) -> SiteLook:
    """The site's look from ``config`` (else ``./benchsite.toml`` when it exists) and the flags, which
    win; every problem raised at once, with its file and key."""
    found = _Found()
    here = cwd or Path.cwd()
    default = here / CONFIG_NAME
    if config is not None:
        _read_file(config, found)
    elif default.is_file():
        _read_file(default, found)
    for key, value in flags.items():
        if value is not None:
            found.values[key] = (value, FLAGS[key], here)
    checked: dict[str, Any] = {}
    for key, (value, where, folder) in sorted(found.values.items()):
        result, problem = _checked(key, value, folder)
        if problem is not None:
            found.problems.append(f"{where}: {problem}")
        else:
            checked[key] = result
    if found.problems:
        lines = [printable(p) for p in found.problems]
        summary = f"{len(lines)} problem(s) in the site's configuration; nothing was written (exit 2)"
        raise SiteConfigError("\n".join([*lines, summary]))
    return SiteLook(**checked)
