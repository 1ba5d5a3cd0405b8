"""The rules page (/rules/): worked examples of legal cards, drawn as the table draws cards.

Which cards of an example are legal is not written by hand: the rules engine decides, so the
pictures can never contradict the game.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.utils.html import format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import gettext_lazy as _

from games.decks import RANKS, SUIT_LETTERS, Deck, card_html
from games.engine.cards import card_code, card_from_code, mask_from_codes
from games.engine.rules import CARD_POINTS, legal_cards

if TYPE_CHECKING:
    from django_stubs_ext import StrPromise


class _Words(dict):
    """The fields an example's text may use, in the viewer's deck.

    {suit_H}: "Hearts" / "Rosen", {card_S10}: "♠10" / "Schilten Banner", {rank_J}: "Jack" / "Under",
    {trump_order}: the trump suit's ranks from the top, as the cards' corners show them.
    """

    def __init__(self, deck: Deck) -> None:
        super().__init__()
        self.deck = deck

    def __missing__(self, key: str) -> str:
        if key == "trump_order":
            return " ".join(self.deck.indices[rank] for rank in ("J", "9", "A", "K", "Q", "10", "8", "7", "6"))
        kind, _, which = key.partition("_")
        if kind == "suit":
            return self.deck.suit_name(which)
        if kind == "card":
            return self.deck.card_text(which)
        if kind == "rank":
            return self.deck.rank_name(which)
        raise KeyError(key)


@dataclass(frozen=True)
class LegalExample:
    """A trick in progress and a hand: the engine marks which cards of the hand may be played."""

    title: StrPromise  # lazily translated, with fields of ``_Words``
    explanation: StrPromise
    trump: int
    trick: tuple[str, ...]
    hand: tuple[str, ...]

    def legal_codes(self) -> set[str]:
        trick = [card_from_code(c) for c in self.trick]
        return {card_code(c) for c in legal_cards([card_from_code(c) for c in self.hand], trick, self.trump)}

    def render(self, deck: Deck) -> dict[str, object]:
        """What the template needs, in ``deck``: the trump's name, the trick's cards and the hand with verdicts."""
        legal = self.legal_codes()
        hand_mask = mask_from_codes(self.hand)
        trick = [card_from_code(c) for c in self.trick]
        words = _Words(deck)
        hand = []
        for code in self.hand:
            if code in legal:
                hand.append({"code": code, "legal": True, "html": card_html(code, deck, "card-rule card-rule-legal")})
            else:
                reason = deck.reason(hand_mask, trick, self.trump, card_from_code(code))
                html = card_html(code, deck, "card-rule card-rule-illegal")
                hand.append({"code": code, "legal": False, "html": html, "reason": reason})
        return {
            "title": str(self.title).format_map(words),
            "explanation": str(self.explanation).format_map(words),
            "trump": deck.trump_name(self.trump),
            "trump_code": self.trump,
            "trick": [card_html(c, deck, "card-rule") for c in self.trick],
            "hand": hand,
        }


DIAMONDS, HEARTS, SPADES, CLUBS, OBE_ABE, UNE_UFE = range(6)

LEGAL_EXAMPLES = (
    LegalExample(
        _("Follow suit, or trump"),
        _(
            "{suit_H} were led. You hold {suit_H}, so you must play one of them, but a trump is always allowed too "
            "(here no trump is in the trick yet, so any trump)."
        ),
        DIAMONDS,
        ("HK",),
        ("HA", "H7", "D6", "C10", "S9"),
    ),
    LegalExample(
        _("Cannot follow: play anything"),
        _("{suit_D} were led and you hold none: every card may be played."),
        SPADES,
        ("DA",),
        ("HQ", "C7", "S6", "HJ"),
    ),
    LegalExample(
        _("No under-trumping"),
        _(
            "{suit_H} were led and the {card_S10} has trumped it. You may follow {suit_H} or over-trump with the "
            "{card_SA} (trump order {trump_order}), but not play the lower {card_S6}."
        ),
        SPADES,
        ("HK", "S10"),
        ("HQ", "S6", "SA", "D7"),
    ),
    LegalExample(
        _("The {rank_J} of trumps (Puur) need not follow"),
        _(
            "Trump ({suit_C}) was led. Your only trump is the {rank_J}, which never has to be played: "
            "any card is allowed."
        ),
        CLUBS,
        ("C8",),
        ("CJ", "HA", "D9", "S6"),
    ),
    LegalExample(
        _("Only trumps left"),
        _("A hand of nothing but trumps may play any of them, even below the trump in the trick."),
        HEARTS,
        ("SK", "H9"),
        ("H6", "H7", "HA"),
    ),
    LegalExample(
        _("Obe-Abe and Une-Ufe: follow suit"),
        _("Without a trump suit you follow the led suit if you can; otherwise anything goes."),
        OBE_ABE,
        ("S8",),
        ("S6", "SQ", "HA", "D10"),
    ),
)


def legal_examples(deck: Deck) -> list[dict[str, object]]:
    return [example.render(deck) for example in LEGAL_EXAMPLES]


def cards_row(codes: str, deck: Deck) -> SafeString:
    """Several cards side by side, e.g. ``cards_row("SJ S9 SA", deck)``."""
    return format_html_join("", "{}", ((card_html(code, deck, "card-rule"),) for code in codes.split()))


def points_rows(deck: Deck) -> list[tuple[str, list[int]]]:
    """Each rank's points as trump, in another suit, in Obe-Abe and in Une-Ufe (the engine's table)."""
    rows = []
    for rank in RANKS:
        as_trump = CARD_POINTS[HEARTS][card_from_code("H" + rank)]
        plain = CARD_POINTS[HEARTS][card_from_code("S" + rank)]
        top_down = CARD_POINTS[OBE_ABE][card_from_code("S" + rank)]
        bottom_up = CARD_POINTS[UNE_UFE][card_from_code("S" + rank)]
        rows.append((deck.rank_name(rank), [as_trump, plain, top_down, bottom_up]))
    return rows


def rules_context(deck: Deck) -> dict[str, object]:
    """The rules page's pictures and words in ``deck``."""
    return {
        "examples": legal_examples(deck),
        "hearts": cards_row("HA HK HQ HJ H10 H9 H8 H7 H6", deck),
        "trump_order": cards_row("SJ S9 SA SK SQ S10 S8 S7 S6", deck),
        "points": points_rows(deck),
        "suits": [deck.suit_name(s) for s in SUIT_LETTERS],
        "ranks": deck.local_ranks(),
        "suit_row": format_html_join("", "{}", ((card_html(s + "A", deck, "card-rule"),) for s in SUIT_LETTERS)),
    }
