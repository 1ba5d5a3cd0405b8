"""The two decks a person may choose: French suits (♦ ♥ ♠ ♣) or Swiss-German (Schellen, Rosen, Schilten, Eicheln).

A deck changes only how cards look and are named, never the game: cards keep their HSLU codes
(``HA``, ``S10``) everywhere else, and docs/rules.md maps the suits (D Schellen, H Rosen,
S Schilten, C Eicheln). The words here are the server's copy of ``DECK_STRINGS`` in
static/js/cards.js (tests/test_decks.py keeps the two equal), and ``card_html`` draws a card with
the markup of that module's ``cardElement``, for pages rendered on the server (rules, settings).
The Swiss faces are an SVG sprite drawn by scripts/draw_swiss_cards.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.templatetags.static import static
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import gettext, gettext_lazy, pgettext, pgettext_lazy

from games.engine import CARD_CODES, refusal

if TYPE_CHECKING:
    from django_stubs_ext import StrPromise

FRENCH = "french"
SWISS = "swiss"
SPRITE = "cards/swiss.svg"  # under static/
SUIT_LETTERS = "DHSC"
RANKS = ("A", "K", "Q", "J", "10", "9", "8", "7", "6")

# Pip positions (x %, y %) of the number cards: the same as static/js/cards.js.
_L, _M, _R = 28, 50, 72
PIPS: dict[str, list[tuple[float, float]]] = {
    "6": [(_L, 18), (_L, 50), (_L, 82), (_R, 18), (_R, 50), (_R, 82)],
    "7": [(_L, 18), (_L, 50), (_L, 82), (_R, 18), (_R, 50), (_R, 82), (_M, 34)],
    "8": [(_L, 18), (_L, 50), (_L, 82), (_R, 18), (_R, 50), (_R, 82), (_M, 34), (_M, 66)],
    "9": [(_L, 18), (_L, 39), (_L, 61), (_L, 82), (_R, 18), (_R, 39), (_R, 61), (_R, 82), (_M, 50)],
    "10": [(_L, 18), (_L, 39), (_L, 61), (_L, 82), (_R, 18), (_R, 39), (_R, 61), (_R, 82), (_M, 28.5), (_M, 71.5)],
}

# Why a card may not be played, in the words of the deck ({suit}: the deck's suit text, {card}: a card's text).
# The English words equal static/js/cards.js; the page's language translates them (``_LOCAL_REASONS``).
REASONS = {
    "follow": "You must follow {suit}",
    "follow_trump": "Trump {suit} was led: you must follow it",
    "under_trump": "No under-trumping: the {card} in the trick is higher",
    "absent": "You do not hold {card}",
    "stoeck_card": "You announced Stöck: play the {card} now",
}
_LOCAL_REASONS = {
    "follow": gettext_lazy("You must follow {suit}"),
    "follow_trump": gettext_lazy("Trump {suit} was led: you must follow it"),
    "under_trump": gettext_lazy("No under-trumping: the {card} in the trick is higher"),
    "absent": gettext_lazy("You do not hold {card}"),
    "stoeck_card": gettext_lazy("You announced Stöck: play the {card} now"),
}

NO_TRUMP_YET = "\u2013"  # an en dash, where a round has no trump yet
NO_SUIT_TRUMPS = {4: ("⬇", "Obe-Abe"), 5: ("⬆", "Une-Ufe"), 10: ("↪", "Push")}

# The deck's words in the page's language. The Swiss suits (Schellen, Rosen, Schilten, Eicheln) and
# Under, Ober, Banner are proper names that Swiss players use in every language, so they are not here;
# the French suits and ranks are translated. "Obe-Abe" and "Une-Ufe" keep their Swiss names too.
_LOCAL_WORDS = {
    "Diamonds": pgettext_lazy("suit", "Diamonds"),
    "Hearts": pgettext_lazy("suit", "Hearts"),
    "Spades": pgettext_lazy("suit", "Spades"),
    "Clubs": pgettext_lazy("suit", "Clubs"),
    "Ace": pgettext_lazy("rank", "Ace"),
    "King": pgettext_lazy("rank", "King"),
    "Queen": pgettext_lazy("rank", "Queen"),
    "Jack": pgettext_lazy("rank", "Jack"),
    "Ten": pgettext_lazy("rank", "Ten"),
    "Nine": pgettext_lazy("rank", "Nine"),
    "Eight": pgettext_lazy("rank", "Eight"),
    "Seven": pgettext_lazy("rank", "Seven"),
    "Six": pgettext_lazy("rank", "Six"),
    "Ass": pgettext_lazy("Swiss rank", "Ass"),
    "König": pgettext_lazy("Swiss rank", "König"),
    "Push": pgettext_lazy("trump", "Push"),
}


def local_word(word: str) -> str:
    """A deck word (suit, rank, "Push") in the page's language; proper names unchanged."""
    return str(_LOCAL_WORDS.get(word, word))


@dataclass(frozen=True)
class Deck:
    """How one deck names and draws the cards."""

    key: str
    label: StrPromise  # the deck's name in a menu (lazily translated)
    suit_names: dict[str, str]  # by HSLU suit letter
    symbols: dict[str, str]  # a suit's text symbol; empty: the deck's suits are pictures (the sprite)
    rank_names: dict[str, str]  # "A" -> "Ace" / "Ass"
    indices: dict[str, str]  # what a card's corner shows: "Q" -> "Q" / "O"
    card_format: str  # a card's full name from {rank} and {suit}
    pip_ranks: frozenset[str]  # ranks drawn as rows of suit symbols
    flip_pips: bool  # the lower pips upside down, as French cards print them

    @property
    def is_swiss(self) -> bool:
        return self.key == SWISS

    def suit_text(self, suit: str) -> str:
        """A suit in running text: its symbol (♥) if the deck has one, else its name (Rosen)."""
        return self.symbols.get(suit) or self.suit_name(suit)

    def suit_name(self, suit: str) -> str:
        """A suit's name in the page's language: "Hearts" / "Herz" / "Rosen"."""
        return local_word(self.suit_names[suit])

    def rank_name(self, rank: str) -> str:
        """A rank's name in the page's language: "Ace" / "As" / "Ober"."""
        return local_word(self.rank_names[rank])

    def local_ranks(self) -> dict[str, str]:
        return {rank: self.rank_name(rank) for rank in self.rank_names}

    def card_name(self, code: str) -> str:
        """ "Ace of Hearts" / "Rosen Ass" for "HA", in the page's language."""
        if self.is_swiss:
            card_format = pgettext("Swiss card: Rosen Ass", "{suit} {rank}")
        else:
            card_format = gettext("{rank} of {suit}")
        return card_format.format(rank=self.rank_name(code[1:]), suit=self.suit_name(code[0]))

    def card_text(self, code: str) -> str:
        """A card in running text: "♥A" with symbols, else its full name ("Rosen Ass")."""
        if self.symbols:
            return self.symbols[code[0]] + self.indices[code[1:]]
        return self.card_name(code)

    def trump_name(self, trump: int) -> str:
        """ "Hearts" / "Rosen" for trump 1; the deck-free trumps by their own names; "" for none."""
        if 0 <= trump < 4:
            return self.suit_name(SUIT_LETTERS[trump])
        return local_word(NO_SUIT_TRUMPS[trump][1]) if trump in NO_SUIT_TRUMPS else ""

    def reason(self, hand: int, trick: Sequence[int], trump: int, card: int, stoeck: int = -1) -> str:
        """Why ``card`` of ``hand`` may not be played now, in this deck's words (as the table says it)."""
        rule, which = refusal(hand, trick, trump, card, stoeck)
        if rule in ("follow", "follow_trump"):
            return str(_LOCAL_REASONS[rule]).format(suit=self.suit_text(SUIT_LETTERS[which]))
        return str(_LOCAL_REASONS[rule]).format(card=self.card_text(CARD_CODES[which]))


DECKS = {
    FRENCH: Deck(
        key=FRENCH,
        label=gettext_lazy("French"),
        suit_names={"D": "Diamonds", "H": "Hearts", "S": "Spades", "C": "Clubs"},
        symbols={"D": "♦", "H": "♥", "S": "♠", "C": "♣"},
        rank_names={
            "A": "Ace",
            "K": "King",
            "Q": "Queen",
            "J": "Jack",
            "10": "Ten",
            "9": "Nine",
            "8": "Eight",
            "7": "Seven",
            "6": "Six",
        },
        indices={rank: rank for rank in RANKS},
        card_format="{rank} of {suit}",
        pip_ranks=frozenset({"10", "9", "8", "7", "6"}),
        flip_pips=True,
    ),
    SWISS: Deck(
        key=SWISS,
        label=gettext_lazy("Swiss-German"),
        suit_names={"D": "Schellen", "H": "Rosen", "S": "Schilten", "C": "Eicheln"},
        symbols={},
        rank_names={"A": "Ass", "K": "König", "Q": "Ober", "J": "Under", "10": "Banner"}
        | {rank: rank for rank in ("9", "8", "7", "6")},
        indices={rank: rank for rank in RANKS} | {"Q": "O", "J": "U"},
        card_format="{suit} {rank}",
        pip_ranks=frozenset({"9", "8", "7", "6"}),
        flip_pips=False,
    ),
}
DECK_CHOICES = [(deck.key, deck.label) for deck in DECKS.values()]


def deck_named(key: str | None) -> Deck:
    """The deck called ``key``; the French one for anything else."""
    return DECKS.get(key or "", DECKS[FRENCH])


# -- drawing (the markup of static/js/cards.js) --------------------------------------------------


def _use(css_class: str, view_box: str, symbol: str) -> SafeString:
    return format_html(
        '<svg class="{}" viewBox="{}" aria-hidden="true" focusable="false"><use href="{}#{}"></use></svg>',
        css_class,
        view_box,
        static(SPRITE),
        symbol,
    )


def suit_mark(suit: str, deck: Deck) -> SafeString:
    """A suit's symbol as inline markup: the text symbol (♥), or the Swiss picture from the sprite."""
    if deck.symbols:
        return format_html("{}", deck.symbols[suit])
    return _use("suit-mark", "0 0 100 100", f"suit-{suit}")


def card_html(code: str, deck: Deck, extra_class: str = "") -> SafeString:
    """A face-up card as static/js/cards.js ``cardElement`` draws it, for pages rendered on the server."""
    suit, rank = code[0], code[1:]
    mark = suit_mark(suit, deck)

    def corner(position: str) -> SafeString:
        return format_html(
            '<span class="card-corner card-corner-{}" aria-hidden="true"><span class="card-rank">{}</span>'
            '<span class="card-suit">{}</span></span>',
            position,
            deck.indices[rank],
            mark,
        )

    if rank in deck.pip_ranks:
        pips = format_html_join(
            "",
            '<span class="{}" data-x="{}" data-y="{}">{}</span>',  # placed by static/css (no inline style: CSP)
            (("pip pip-flip" if deck.flip_pips and y > 55 else "pip", f"{x:g}", f"{y:g}", mark) for x, y in PIPS[rank]),
        )
        face = format_html('<span class="card-face card-pips" aria-hidden="true">{}</span>', pips)
    elif deck.is_swiss:
        face = format_html(
            '<span class="card-face card-figure" aria-hidden="true">{}</span>',
            _use("card-figure-art", "0 0 50 100", f"face-{code}"),
        )
    elif rank == "A":
        face = format_html(
            '<span class="card-face card-ace" aria-hidden="true"><span class="pip-ace">{}</span></span>', mark
        )
    else:
        face = format_html(
            '<span class="card-face card-court" aria-hidden="true"><span class="court-frame">'
            '<span class="court-letter">{}</span><span class="court-suit">{}</span></span></span>',
            rank,
            mark,
        )
    return format_html(
        '<span class="card suit-{} {}" data-card="{}" role="img" aria-label="{}">{}{}{}</span>',
        suit,
        extra_class,
        code,
        deck.card_name(code),
        corner("tl"),
        face,
        corner("br"),
    )


def trump_html(trump: int, deck: Deck) -> SafeString:
    """A trump with its symbol and name, so that it never relies on colour (templates' ``{% trump %}``)."""
    if 0 <= trump < 4:
        suit = SUIT_LETTERS[trump]
        return format_html(
            '<span class="suit suit-{}" aria-hidden="true">{}</span> {}',
            suit,
            suit_mark(suit, deck),
            deck.trump_name(trump),
        )
    if trump in (4, 5):
        return format_html('<span class="suit" aria-hidden="true">{}</span> {}', *NO_SUIT_TRUMPS[trump])
    return format_html("{}", deck.trump_name(trump) or NO_TRUMP_YET)
