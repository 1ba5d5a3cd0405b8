"""Draw the Swiss-German card faces as one SVG sprite: static/cards/swiss.svg.

    .venv/bin/python scripts/draw_swiss_cards.py [--check]

The project draws its own cards (no downloaded art). The sprite holds the four suit symbols
(``suit-D`` Schellen, ``suit-H`` Rosen, ``suit-S`` Schilten, ``suit-C`` Eicheln, in HSLU suit
order: D, H, S, C as docs/rules.md maps them) and a face for each card that is not a pip card
(``face-DA`` … ``face-C10``: Ass, König, Ober, Under and Banner of every suit). static/js/cards.js
and games/decks.py place these with ``<use href="swiss.svg#…">`` inside the same card markup as
the French deck, so one renderer draws both decks.

Shapes are kept bold and few, with a dark outline and one dominant colour per suit (Schellen
gold, Rosen red, Schilten black, Eicheln green and brown), so that a suit is told apart at the
10-pixel size of a phone's card corner. ``--check`` exits 1 if the committed sprite differs from
what this script draws (tests/test_decks.py runs the same check).
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPRITE = ROOT / "static" / "cards" / "swiss.svg"

INK = "#2a1d10"  # outlines: a warm near-black, softer than pure black on the cream card
SKIN = "#f3cfa6"
GOLD = "#f2b705"
RED = "#d22630"

# Per suit: the figure's main colour and its trim (tunic, flag), matching the suit symbol.
DRESS = {
    "D": ("#e9a800", RED),
    "H": ("#c62531", GOLD),
    "S": ("#2d2d2d", GOLD),
    "C": ("#3f7f2a", "#a8652a"),
}


def _f(value: float) -> str:
    """A coordinate with at most two decimals and no trailing zeros (stable, compact output)."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def schellen() -> str:
    """A round sleigh bell: gold body, red crown, the slit with its two holes, a ring on top."""
    cx, cy, r = 50, 58, 37
    y_cap = 47
    dx = math.sqrt(r * r - (cy - y_cap) ** 2)
    return "".join(
        [
            f'<circle cx="50" cy="12" r="7" fill="none" stroke="{INK}" stroke-width="5"/>',
            f'<circle cx="{cx}" cy="{cy}" r="{r}" fill="{GOLD}"/>',
            f'<path d="M{_f(cx - dx)} {y_cap}A{r} {r} 0 0 1 {_f(cx + dx)} {y_cap}Z" fill="{RED}"/>',
            f'<path d="M{_f(cx - dx)} {y_cap}H{_f(cx + dx)}" stroke="{INK}" stroke-width="4"/>',
            '<ellipse cx="36" cy="36" rx="8" ry="5" fill="#fff" opacity=".45" transform="rotate(-35 36 36)"/>',
            f'<path d="M31 79H69" stroke="{INK}" stroke-width="5" stroke-linecap="round"/>',
            f'<circle cx="29" cy="79" r="6" fill="{INK}"/><circle cx="71" cy="79" r="6" fill="{INK}"/>',
            f'<circle cx="{cx}" cy="{cy}" r="{r}" fill="none" stroke="{INK}" stroke-width="5"/>',
        ]
    )


def rosen() -> str:
    """A five-petalled heraldic rose: green sepals, red petals, a gold seed centre."""
    parts = []
    for k in range(5):  # sepals between the petals
        angle = 36 + 72 * k
        parts.append(
            f'<path d="M0 -47L9 -27L-9 -27Z" fill="#3c8a2e" stroke="{INK}" stroke-width="3" '
            f'stroke-linejoin="round" transform="translate(50 50) rotate({angle})"/>'
        )
    for k in range(5):
        a = math.radians(-90 + 72 * k)
        parts.append(
            f'<circle cx="{_f(50 + 21 * math.cos(a))}" cy="{_f(50 + 21 * math.sin(a))}" r="20" '
            f'fill="{RED}" stroke="{INK}" stroke-width="3.5"/>'
        )
    parts.append(f'<circle cx="50" cy="50" r="17" fill="#e8535b" stroke="{INK}" stroke-width="3"/>')
    parts.append(f'<circle cx="50" cy="50" r="8.5" fill="{GOLD}" stroke="{INK}" stroke-width="2.5"/>')
    for k in range(5):
        a = math.radians(-54 + 72 * k)
        parts.append(f'<circle cx="{_f(50 + 4 * math.cos(a))}" cy="{_f(50 + 4 * math.sin(a))}" r="1.4" fill="{INK}"/>')
    return "".join(parts)


SHIELD = "M12 8H88V44C88 70 72 85 50 95C28 85 12 70 12 44Z"


def schilten() -> str:
    """A heraldic shield: black field, a red band across it and a gold rim."""
    inner = "M20 15H80V44C80 64 67 77 50 86C33 77 20 64 20 44Z"
    return "".join(
        [
            f'<path d="{SHIELD}" fill="#262626"/>',
            f'<path d="M12 30H88V46H12Z" fill="{RED}"/>',
            f'<path d="{inner}" fill="none" stroke="{GOLD}" stroke-width="4"/>',
            f'<path d="{SHIELD}" fill="none" stroke="{INK}" stroke-width="5" stroke-linejoin="round"/>',
        ]
    )


def eicheln() -> str:
    """An acorn: brown nut, a green scaled cup, a stalk and an oak leaf."""
    leaf = "M56 14C64 4 80 4 90 8C86 12 88 16 82 18C84 22 80 26 74 24C70 28 62 24 56 14Z"
    return "".join(
        [
            f'<path d="{leaf}" fill="#4f9a34" stroke="{INK}" stroke-width="3" stroke-linejoin="round"/>',
            f'<path d="M50 30C50 22 52 16 56 12" fill="none" stroke="{INK}" stroke-width="5" stroke-linecap="round"/>',
            f'<ellipse cx="50" cy="64" rx="23" ry="30" fill="#a8652a" stroke="{INK}" stroke-width="4"/>',
            '<ellipse cx="42" cy="70" rx="5" ry="12" fill="#fff" opacity=".3"/>',
            f'<path d="M22 50C22 24 78 24 78 50C70 57 30 57 22 50Z" fill="#5d8f2c" stroke="{INK}" '
            'stroke-width="4" stroke-linejoin="round"/>',
            f'<path d="M32 37L40 49M44 33L50 51M56 33L60 49M68 37L66 47M27 44L31 51" stroke="{INK}" '
            'stroke-width="2" stroke-linecap="round" opacity=".55"/>',
        ]
    )


SUITS = {"D": schellen, "H": rosen, "S": schilten, "C": eicheln}

# -- faces: 50 x 100, the shape of the card's face area (static/css/jassweb.css .card-figure) -------
# The card's corner indices overlap the face's top-left (x < 8, y < 36) and bottom-right
# (x > 42, y > 64): nothing that matters is drawn there.


def mark(suit: str, x: float, y: float, size: float) -> str:
    return f'<use href="#suit-{suit}" x="{_f(x)}" y="{_f(y)}" width="{_f(size)}" height="{_f(size)}"/>'


def _head(cx: float, cy: float) -> str:
    return f'<circle cx="{_f(cx)}" cy="{_f(cy)}" r="6.5" fill="{SKIN}" stroke="{INK}" stroke-width="1.3"/>'


def _legs(hose: str) -> str:
    return (
        f'<path d="M18.5 70V89M27.5 70V89" stroke="{hose}" stroke-width="5"/>'
        f'<path d="M14 91.5H22M25 91.5H33" stroke="{INK}" stroke-width="3.4" stroke-linecap="round"/>'
    )


def _tunic(main: str, trim: str) -> str:
    return (
        f'<path d="M14 39L32 39L36 72L10 72Z" fill="{main}" stroke="{INK}" stroke-width="1.4" stroke-linejoin="round"/>'
        f'<path d="M12 62H34" stroke="{trim}" stroke-width="3"/>'
        f'<path d="M23 39V72" stroke="{trim}" stroke-width="2"/>'
        f'<path d="M11.5 66H34.5" stroke="{INK}" stroke-width="1" opacity=".6"/>'
    )


def under(suit: str) -> str:
    """The Under: a standing page holding the suit symbol low, below his hip."""
    main, trim = DRESS[suit]
    return "".join(
        [
            _legs(trim),
            _tunic(main, trim),
            f'<path d="M31 42L36 62" stroke="{main}" stroke-width="4.5" stroke-linecap="round"/>',
            f'<path d="M15 42L10 58" stroke="{main}" stroke-width="4.5" stroke-linecap="round"/>',
            _head(23, 30),
            f'<path d="M15.5 27C16 19 30 19 30.5 27Z" fill="{trim}" stroke="{INK}" stroke-width="1.2"/>',
            mark(suit, 0, 55, 20),
        ]
    )


def ober(suit: str) -> str:
    """The Ober: the same page, his symbol raised high above the shoulder, a plumed hat."""
    main, trim = DRESS[suit]
    return "".join(
        [
            _legs(trim),
            _tunic(main, trim),
            f'<path d="M15 42L9 62" stroke="{main}" stroke-width="4.5" stroke-linecap="round"/>',
            f'<path d="M31 42L38 24" stroke="{main}" stroke-width="4.5" stroke-linecap="round"/>',
            _head(22, 31),
            f'<path d="M13 27H31L28 22H16Z" fill="{trim}" stroke="{INK}" stroke-width="1.2" stroke-linejoin="round"/>',
            f'<path d="M19 22C17 14 18 9 22 5C23 11 23 16 22 22" fill="#fff" stroke="{INK}" stroke-width="1"/>',
            mark(suit, 28, 4, 21),
        ]
    )


def koenig(suit: str) -> str:
    """The König: a crowned king in a long robe with ermine, a sceptre and his symbol in hand."""
    main, trim = DRESS[suit]
    ermine = "".join(f'<path d="M{x} 88v3" stroke="{INK}" stroke-width="1.6"/>' for x in (14, 20, 26, 32, 38))
    return "".join(
        [
            f'<path d="M14 38L32 38L41 86L5 86Z" fill="{main}" stroke="{INK}" stroke-width="1.4" '
            'stroke-linejoin="round"/>',
            f'<path d="M5 86H41V93H5Z" fill="#fffaf0" stroke="{INK}" stroke-width="1.2"/>',
            ermine,
            f'<path d="M23 38V86" stroke="{trim}" stroke-width="2.5"/>',
            f'<path d="M13 38C17 44 29 44 33 38" fill="#fffaf0" stroke="{INK}" stroke-width="1.2"/>',
            f'<path d="M9 40V80" stroke="{GOLD}" stroke-width="2.4"/><circle cx="9" cy="38" r="3" fill="{GOLD}" '
            f'stroke="{INK}" stroke-width="1"/>',
            f'<path d="M15 44L10 55" stroke="{main}" stroke-width="4.5" stroke-linecap="round"/>',
            _head(23, 29),
            '<path d="M17.5 31C18 39 28 39 28.5 31C26 34 20 34 17.5 31Z" fill="#8a5a2b"/>',
            f'<path d="M15 23L16 14L19.5 19L23 12L26.5 19L30 14L31 23Z" fill="{GOLD}" stroke="{INK}" '
            'stroke-width="1.2" stroke-linejoin="round"/>',
            f'<path d="M31 45L37 52" stroke="{main}" stroke-width="4.5" stroke-linecap="round"/>',
            mark(suit, 29, 44, 20),
        ]
    )


def banner(suit: str) -> str:
    """The Banner (the ten): a flag in the suit's colours with the symbol on it, on a pole."""
    main, trim = DRESS[suit]
    flag = "M9 38C19 33 31 43 42 37V82C31 88 19 78 9 83Z"
    return "".join(
        [
            mark(suit, 22, 6, 22),
            '<path d="M8 34V95" stroke="#7a4a22" stroke-width="3.2" stroke-linecap="round"/>',
            f'<circle cx="8" cy="33" r="3.2" fill="{GOLD}" stroke="{INK}" stroke-width="1"/>',
            f'<path d="{flag}" fill="{main}" stroke="{INK}" stroke-width="1.5" stroke-linejoin="round"/>',
            f'<path d="M9 45C19 40 31 50 42 44M9 76C19 71 31 81 42 75" fill="none" stroke="{trim}" stroke-width="3"/>',
            '<circle cx="25.5" cy="60" r="12.5" fill="#fffaf0"/>',
            mark(suit, 15, 49.5, 21),
            f'<path d="M3 95H13" stroke="{INK}" stroke-width="3" stroke-linecap="round"/>',
        ]
    )


def ass(suit: str) -> str:
    """The Ass: the suit symbol large, in a gold laurel frame."""
    leaves = []
    for side in (-1, 1):
        for k in range(6):
            t = math.radians(200 - 28 * k) if side < 0 else math.radians(-20 + 28 * k)
            x, y = 25 + 18 * math.cos(t), 50 + 30 * math.sin(t)
            angle = math.degrees(t) + 90
            leaves.append(
                f'<ellipse cx="{_f(x)}" cy="{_f(y)}" rx="2.2" ry="5" fill="#5d8f2c" stroke="{INK}" '
                f'stroke-width=".8" transform="rotate({_f(angle)} {_f(x)} {_f(y)})"/>'
            )
    return "".join(
        [
            f'<ellipse cx="25" cy="50" rx="18" ry="30" fill="none" stroke="{GOLD}" stroke-width="1.6"/>',
            *leaves,
            mark(suit, 5, 30, 40),
        ]
    )


FACES = {"A": ass, "K": koenig, "Q": ober, "J": under, "10": banner}


def sprite() -> str:
    """The whole sprite, as text."""
    lines = [
        '<svg xmlns="http://www.w3.org/2000/svg">',
        "<!-- Swiss-German Jass cards, drawn by scripts/draw_swiss_cards.py; do not edit by hand. -->",
    ]
    for suit, draw in SUITS.items():
        lines.append(f'<symbol id="suit-{suit}" viewBox="0 0 100 100">{draw()}</symbol>')
    for suit in SUITS:
        for rank, draw in FACES.items():
            lines.append(f'<symbol id="face-{suit}{rank}" viewBox="0 0 50 100">{draw(suit)}</symbol>')
    lines.append("</svg>")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check that the committed sprite is current")
    args = parser.parse_args()
    text = sprite()
    if args.check:
        current = SPRITE.read_text() if SPRITE.exists() else ""
        if current != text:
            print(f"{SPRITE} is out of date: run scripts/draw_swiss_cards.py", file=sys.stderr)
            return 1
        return 0
    SPRITE.parent.mkdir(parents=True, exist_ok=True)
    SPRITE.write_text(text)
    print(f"wrote {SPRITE} ({len(text)} bytes, {text.count('<symbol')} symbols)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
