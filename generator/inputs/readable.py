"""Text as a reader sees it: the format characters a page does not show, and names compared by
what they read as. Standard library only (the site configuration and every family use it)."""

from __future__ import annotations

import unicodedata

BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""The bidirectional controls: marks, embeddings, overrides and isolates. Drawn as nothing, they
reorder the text around them (``Results \\u202egnp.exe`` reads "Results exe.png")."""


_IGNORABLE_RANGES = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
"""Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt): characters a renderer draws
as nothing when it has no glyph for them — besides the format characters, the combining grapheme
joiner, the Hangul fillers, the Mongolian and other variation selectors. Python's ``unicodedata``
does not carry the property."""


def is_hidden(char: str) -> bool:
    """Whether a reader does not see ``char``: a format character (Cf) or a default ignorable."""
    if unicodedata.category(char) == "Cf":
        return True
    point = ord(char)
    return any(low <= point <= high for low, high in _IGNORABLE_RANGES)


def hidden_character(text: str) -> str | None:
    """Why ``text`` holds a character a reader does not see, naming the first one and where: a Unicode
    format character (category Cf: the bidi controls, zero-width space and joiners, soft hyphen, word
    joiner, byte-order mark…) or another default ignorable (a Hangul filler, a variation selector);
    None when it holds none."""
    for index, char in enumerate(text):
        if not char.isascii() and is_hidden(char):
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
    visible = "".join(c for c in folded if not is_hidden(c))
    return " ".join(visible.casefold().split())


BLANK_LOOKING = frozenset("\u2800\u3164\u115f\u1160\uffa0")
"""Characters drawn as an empty space although Unicode does not call them white space: the braille
pattern blank and the Hangul fillers."""

MOST_COMBINING_MARKS = 8
"""The most combining marks one character may carry in a site's name or description: scripts stack
two or three (Vietnamese, Thai, Tibetan), a "zalgo" text dozens that cover the lines around it."""


def unreadable(text: str) -> str | None:
    """Why a reader cannot read ``text`` as it is meant, or None: a character they do not see
    (:func:`hidden_character`), a private-use, unassigned or surrogate code point (drawn differently
    by every font, or as a box), more than :data:`MOST_COMBINING_MARKS` combining marks on one
    character, or text that reads as blank (only spaces, fillers and the braille blank)."""
    hidden = hidden_character(text)
    if hidden is not None:
        return hidden
    stacked = 0
    for index, char in enumerate(text):
        category = unicodedata.category(char)
        if category in ("Co", "Cn", "Cs"):
            kind = {"Co": "a private-use", "Cn": "an unassigned", "Cs": "a surrogate"}[category]
            return (
                f"holds U+{ord(char):04X}, {kind} code point, at character {index + 1}, which no reader "
                "can be sure to see as meant: write it without"
            )
        stacked = stacked + 1 if category in ("Mn", "Me") else 0
        if stacked > MOST_COMBINING_MARKS:
            return (
                f"stacks more than {MOST_COMBINING_MARKS} combining marks on one character at character "
                f"{index + 1}, which draws over the text around it"
            )
    if all(char.isspace() or char in BLANK_LOOKING or is_hidden(char) for char in text):
        return "reads as blank: write a name a reader can see"
    return None
