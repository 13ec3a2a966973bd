"""Text as a reader sees it: the format characters a page does not show, and names compared by
what they read as. Standard library only (the site configuration and every family use it)."""

from __future__ import annotations

import unicodedata

BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""The bidirectional controls: marks, embeddings, overrides and isolates. Drawn as nothing, they
reorder the text around them (``Results \\u202egnp.exe`` reads "Results exe.png")."""


def hidden_character(text: str) -> str | None:
    """Why ``text`` holds a character a reader does not see, naming the first one and where: a Unicode
    format character (category Cf: the bidi controls, zero-width space and joiners, soft hyphen, word
    joiner, byte-order mark…); None when it holds none."""
    for index, char in enumerate(text):
        if unicodedata.category(char) == "Cf":
            name = unicodedata.name(char, "a format character")
            effect = "reorders the text around it" if char in BIDI_CONTROLS else "is not shown"
            return (
                f"holds U+{ord(char):04X} {name} at character {index + 1}, which {effect}: "
                "write it without invisible format characters"
            )
    return None


def reading_key(name: str) -> str:
    """``name`` as a reader tells names apart: compatibility forms folded (NFKC: fullwidth letters,
    ligatures), format characters removed, case folded, white space collapsed. Two names with one
    key read the same ("accuracy" and "accu\\u200bracy", "Accuracy" and "ａｃｃｕｒａｃｙ")."""
    folded = unicodedata.normalize("NFKC", name)
    visible = "".join(c for c in folded if unicodedata.category(c) != "Cf")
    return " ".join(visible.casefold().split())
