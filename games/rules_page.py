"""The rules page (/rules/): worked examples of legal cards, drawn as the table draws cards.

Which cards of an example are legal is not written by hand: the rules engine decides, so the
pictures can never contradict the game.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from games.engine import TRUMP_NAMES
from games.engine.cards import card_code, card_from_code, mask_from_codes
from games.engine.rules import CARD_POINTS, illegal_card_reason, legal_cards

SUITS = {"D": ("♦", "Diamonds"), "H": ("♥", "Hearts"), "S": ("♠", "Spades"), "C": ("♣", "Clubs")}
RANK_NAMES = {"A": "Ace", "K": "King", "Q": "Queen", "J": "Jack", "10": "Ten", "9": "Nine", "8": "Eight"}
RANK_NAMES |= {"7": "Seven", "6": "Six"}

# Pip positions (x %, y %) of the number cards: the same as static/js/cards.js.
_L, _M, _R = 28, 50, 72
PIPS = {
    "6": [(_L, 18), (_L, 50), (_L, 82), (_R, 18), (_R, 50), (_R, 82)],
    "7": [(_L, 18), (_L, 50), (_L, 82), (_R, 18), (_R, 50), (_R, 82), (_M, 34)],
    "8": [(_L, 18), (_L, 50), (_L, 82), (_R, 18), (_R, 50), (_R, 82), (_M, 34), (_M, 66)],
    "9": [(_L, 18), (_L, 39), (_L, 61), (_L, 82), (_R, 18), (_R, 39), (_R, 61), (_R, 82), (_M, 50)],
    "10": [(_L, 18), (_L, 39), (_L, 61), (_L, 82), (_R, 18), (_R, 39), (_R, 61), (_R, 82), (_M, 28.5), (_M, 71.5)],
}


def card_name(code: str) -> str:
    """ "Ace of Hearts" for "HA"."""
    return f"{RANK_NAMES[code[1:]]} of {SUITS[code[0]][1]}"


def card_html(code: str, extra_class: str = "") -> SafeString:
    """A face-up card as static/js/cards.js ``cardElement`` draws it, for pages rendered on the server."""
    suit, rank = code[0], code[1:]
    symbol = SUITS[suit][0]

    def corner(position: str) -> SafeString:
        return format_html(
            '<span class="card-corner card-corner-{}" aria-hidden="true"><span class="card-rank">{}</span>'
            '<span class="card-suit">{}</span></span>',
            position,
            rank,
            symbol,
        )

    if rank in PIPS:
        pips = format_html_join(
            "",
            '<span class="{}" style="left:{}%;top:{}%">{}</span>',
            (("pip pip-flip" if y > 55 else "pip", x, y, symbol) for x, y in PIPS[rank]),
        )
        face = format_html('<span class="card-face card-pips" aria-hidden="true">{}</span>', pips)
    elif rank == "A":
        face = format_html(
            '<span class="card-face card-ace" aria-hidden="true"><span class="pip-ace">{}</span></span>', symbol
        )
    else:
        face = format_html(
            '<span class="card-face card-court" aria-hidden="true"><span class="court-frame">'
            '<span class="court-letter">{}</span><span class="court-suit">{}</span></span></span>',
            rank,
            symbol,
        )
    return format_html(
        '<span class="card suit-{} {}" data-card="{}" role="img" aria-label="{}">{}{}{}</span>',
        suit,
        extra_class,
        code,
        card_name(code),
        corner("tl"),
        face,
        corner("br"),
    )


@dataclass(frozen=True)
class LegalExample:
    """A trick in progress and a hand: the engine marks which cards of the hand may be played."""

    title: str
    explanation: str
    trump: int
    trick: tuple[str, ...]
    hand: tuple[str, ...]

    def legal_codes(self) -> set[str]:
        trick = [card_from_code(c) for c in self.trick]
        return {card_code(c) for c in legal_cards([card_from_code(c) for c in self.hand], trick, self.trump)}

    def render(self) -> dict[str, object]:
        """What the template needs: the trump's name, the trick's cards and the hand with verdicts."""
        legal = self.legal_codes()
        hand_mask = mask_from_codes(self.hand)
        trick = [card_from_code(c) for c in self.trick]
        hand = []
        for code in self.hand:
            if code in legal:
                hand.append({"code": code, "legal": True, "html": card_html(code, "card-rule card-rule-legal")})
            else:
                reason = illegal_card_reason(hand_mask, trick, self.trump, card_from_code(code))
                html = card_html(code, "card-rule card-rule-illegal")
                hand.append({"code": code, "legal": False, "html": html, "reason": reason})
        return {
            "title": self.title,
            "explanation": self.explanation,
            "trump": TRUMP_NAMES[self.trump],
            "trump_code": self.trump,
            "trick": [card_html(c, "card-rule") for c in self.trick],
            "hand": hand,
        }


DIAMONDS, HEARTS, SPADES, CLUBS, OBE_ABE, UNE_UFE = range(6)

LEGAL_EXAMPLES = (
    LegalExample(
        "Follow suit, or trump",
        "Hearts were led. You hold Hearts, so you must play one of them, but a trump is always allowed too "
        "(here no trump is in the trick yet, so any trump).",
        DIAMONDS,
        ("HK",),
        ("HA", "H7", "D6", "C10", "S9"),
    ),
    LegalExample(
        "Cannot follow: play anything",
        "Diamonds were led and you hold none: every card may be played.",
        SPADES,
        ("DA",),
        ("HQ", "C7", "S6", "HJ"),
    ),
    LegalExample(
        "No under-trumping",
        "Hearts were led and the ♠10 has trumped it. You may follow Hearts or over-trump with the ♠A "
        "(trump order J 9 A K Q 10 8 7 6), but not play the lower ♠6.",
        SPADES,
        ("HK", "S10"),
        ("HQ", "S6", "SA", "D7"),
    ),
    LegalExample(
        "The Jack of trumps (Puur) need not follow",
        "Trump (Clubs) was led. Your only trump is the Jack, which never has to be played: any card is allowed.",
        CLUBS,
        ("C8",),
        ("CJ", "HA", "D9", "S6"),
    ),
    LegalExample(
        "Only trumps left",
        "A hand of nothing but trumps may play any of them, even below the trump in the trick.",
        HEARTS,
        ("SK", "H9"),
        ("H6", "H7", "HA"),
    ),
    LegalExample(
        "Obe-Abe and Une-Ufe: follow suit",
        "Without a trump suit you follow the led suit if you can; otherwise anything goes.",
        OBE_ABE,
        ("S8",),
        ("S6", "SQ", "HA", "D10"),
    ),
)


def legal_examples() -> list[dict[str, object]]:
    return [example.render() for example in LEGAL_EXAMPLES]


def cards_row(codes: str) -> SafeString:
    """Several cards side by side, e.g. ``cards_row("SJ S9 SA")``."""
    return format_html_join("", "{}", ((card_html(code, "card-rule"),) for code in codes.split()))


def points_rows() -> list[tuple[str, list[int]]]:
    """Each rank's points as trump, in another suit, in Obe-Abe and in Une-Ufe (the engine's table)."""
    rows = []
    for rank in ("A", "K", "Q", "J", "10", "9", "8", "7", "6"):
        as_trump = CARD_POINTS[HEARTS][card_from_code("H" + rank)]
        plain = CARD_POINTS[HEARTS][card_from_code("S" + rank)]
        top_down = CARD_POINTS[OBE_ABE][card_from_code("S" + rank)]
        bottom_up = CARD_POINTS[UNE_UFE][card_from_code("S" + rank)]
        rows.append((RANK_NAMES[rank], [as_trump, plain, top_down, bottom_up]))
    return rows


def rules_context() -> dict[str, object]:
    return {
        "examples": legal_examples(),
        "hearts": cards_row("HA HK HQ HJ H10 H9 H8 H7 H6"),
        "trump_order": cards_row("SJ S9 SA SK SQ S10 S8 S7 S6"),
        "points": points_rows(),
    }
