"""Schieber card rules: legal cards, trick winner, trick points (``docs/rules.md``).

Two layers: the documented public functions take card ids and validate their
input; the ``*_mask`` / table functions below them are the unchecked fast path
used by the round state and by search, and trust their caller.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .cards import (
    CARD_CODES,
    JACK,
    OBE_ABE,
    RANK_NAMES,
    SUIT_MASKS,
    SUITS,
    TRUMP_NAMES,
    TRUMPS,
    UNE_UFE,
    format_cards,
    iter_cards,
    mask_of,
)
from .errors import InvalidActionError

LAST_TRICK_BONUS = 5
MATCH_BONUS = 100
ROUND_POINTS = 157  # 152 card points + the last-trick bonus
MULTIPLIER_PRESETS = {"classic": (1, 1, 2, 2, 3, 3)}  # D H S C Obe-Abe Une-Ufe

# Strength of each rank offset (A K Q J 10 9 8 7 6) as trump: J > 9 > A > K > Q > 10 > 8 > 7 > 6.
TRUMP_STRENGTH = (6, 5, 4, 8, 3, 7, 2, 1, 0)
_PLAIN_POINTS = (11, 4, 3, 2, 10, 0, 0, 0, 0)
_TRUMP_POINTS = (11, 4, 3, 20, 10, 14, 0, 0, 0)
_OBE_POINTS = (11, 4, 3, 2, 10, 0, 8, 0, 0)
_UNE_POINTS = (0, 4, 3, 2, 10, 0, 8, 0, 11)


def _points_row(trump: int) -> tuple[int, ...]:
    if trump == OBE_ABE:
        return tuple(_OBE_POINTS[c % 9] for c in range(36))
    if trump == UNE_UFE:
        return tuple(_UNE_POINTS[c % 9] for c in range(36))
    return tuple((_TRUMP_POINTS if c // 9 == trump else _PLAIN_POINTS)[c % 9] for c in range(36))


# CARD_POINTS[trump][card]: what a card is worth under a trump.
CARD_POINTS = tuple(_points_row(trump) for trump in TRUMPS)


def _win_rank(trump: int, led: int, card: int) -> int:
    suit, rank = divmod(card, 9)
    if trump < 4 and suit == trump:
        return 100 + TRUMP_STRENGTH[rank]
    if suit != led:
        return -1
    return rank if trump == UNE_UFE else 8 - rank


# WIN_RANK[trump][led][card]: a card beats another in a trick iff its rank is higher;
# cards that can never win (neither trump nor the led suit) rank -1.
WIN_RANK = tuple(tuple(tuple(_win_rank(trump, led, card) for card in range(36)) for led in SUITS) for trump in TRUMPS)

# HIGHER_TRUMPS[card]: the cards of the same suit that beat ``card`` when that suit is trump.
HIGHER_TRUMPS = tuple(
    mask_of(c for c in range(suit * 9, suit * 9 + 9) if TRUMP_STRENGTH[c % 9] > TRUMP_STRENGTH[card % 9])
    for card in range(36)
    for suit in (card // 9,)
)
JACK_BITS = tuple(1 << (suit * 9 + JACK) for suit in SUITS)


def legal_mask_after(hand: int, led: int, top: int, trump: int) -> int:
    """Return the legal cards (a mask) when the trick is already started (fast path, unchecked).

    ``led`` is the suit of the trick's first card and ``top`` the card that wins
    the trick so far: when a trump is in the trick, ``top`` is the highest trump.
    The result is never empty while ``hand`` is not.
    """
    follow = hand & SUIT_MASKS[led]
    if trump >= 4:  # Obe-Abe and Une-Ufe: follow suit if you can.
        return follow or hand
    trump_mask = SUIT_MASKS[trump]
    trumps = hand & trump_mask
    if led == trump:
        # Must follow trump, unless the only trump held is the Jack (Puur).
        if trumps == 0 or trumps == JACK_BITS[trump]:
            return hand
        return trumps
    if top // 9 != trump:
        # No trump in the trick: follow suit or play any trump; anything if void.
        return (follow | trumps) if follow else hand
    if trumps == hand:
        return hand  # only trumps left: any of them, even an under-trump
    allowed_trumps = trumps & HIGHER_TRUMPS[top]
    if follow:
        return follow | allowed_trumps
    return (hand & ~trump_mask) | allowed_trumps


def winning_card(trick: Sequence[int], trump: int) -> int:
    """Return the card that wins a started trick so far (fast path, unchecked)."""
    ranks = WIN_RANK[trump][trick[0] // 9]
    best = trick[0]
    for card in trick[1:]:
        if ranks[card] > ranks[best]:
            best = card
    return best


def legal_mask(hand: int, trick: Sequence[int], trump: int) -> int:
    """Return the legal cards as a mask for a hand mask and the current trick (unchecked)."""
    if not trick:
        return hand
    return legal_mask_after(hand, trick[0] // 9, winning_card(trick, trump), trump)


def _check_trump(trump: object) -> int:
    if type(trump) is not int or trump not in TRUMPS:
        raise InvalidActionError(f"not a trump (0-5): {trump!r}")
    return trump


def _check_trick(cards: Sequence[int], sizes: range) -> tuple[int, ...]:
    cards = tuple(cards)
    if len(cards) not in sizes:
        raise InvalidActionError(
            f"a trick here has {sizes.start}-{sizes.stop - 1} cards, got {len(cards)}: {list(cards)!r}"
        )
    mask_of(cards)  # validates ids and duplicates
    return cards


def legal_cards(hand: Iterable[int], trick: Sequence[int], trump: int) -> list[int]:
    """Return the card ids of ``hand`` that may be played on ``trick`` under ``trump``.

    ``hand`` is the player's cards, ``trick`` the cards already in the current
    trick in the order played (0-3 cards), ``trump`` a trump code 0..5. Applies
    following suit, the Jack-of-trumps (Puur) exemption and the ban on
    under-trumping (unless the hand holds only trumps). Raises
    ``InvalidActionError`` on malformed input.

    >>> from games.engine.cards import D8, S7, S9, S8, S6, SA, H6, DA, SPADES
    >>> legal_cards([S8, S6, SA, H6, DA], [D8, S7, S9], SPADES)
    [0]
    """
    hand_mask = mask_of(hand)
    trick = _check_trick(trick, range(0, 4))
    trump = _check_trump(trump)
    if not hand_mask:
        raise InvalidActionError("the hand is empty")
    if hand_mask & mask_of(trick):
        raise InvalidActionError(f"hand and trick share cards: {format_cards(trick)}")
    return list(iter_cards(legal_mask(hand_mask, trick, trump)))


def trick_winner(cards: Sequence[int], first: int, trump: int) -> int:
    """Return the seat that wins a complete trick.

    ``cards`` are the four card ids in the order played, ``first`` the seat that
    led, ``trump`` a trump code 0..5. The highest trump wins if any was played,
    else the highest card of the led suit (Une-Ufe: the lowest).
    """
    cards = _check_trick(cards, range(4, 5))
    trump = _check_trump(trump)
    if type(first) is not int or not 0 <= first < 4:
        raise InvalidActionError(f"not a seat (0-3): {first!r}")
    return (first - cards.index(winning_card(cards, trump))) % 4


def trick_points(cards: Sequence[int], trump: int, last: bool = False) -> int:
    """Return the points of the cards of a trick, plus 5 when it is the round's last trick."""
    cards = _check_trick(cards, range(0, 5))
    row = CARD_POINTS[_check_trump(trump)]
    return sum(row[card] for card in cards) + (LAST_TRICK_BONUS if last else 0)


def illegal_card_reason(hand: int, trick: Sequence[int], trump: int, card: int, stoeck: int = -1) -> str:
    """Explain in words why ``card`` may not be played (for error messages)."""
    kind, which = refusal(hand, trick, trump, card, stoeck)
    if kind == "absent":
        return f"{CARD_CODES[which]} is not in the hand"
    if kind == "stoeck_card":
        return f"Stöck were announced with {CARD_CODES[which]}, which must come now"
    if kind == "follow":
        return f"must follow {TRUMP_NAMES[which]}"
    if kind == "follow_trump":
        return f"must follow trump ({TRUMP_NAMES[which]})"
    return f"may not under-trump {CARD_CODES[which]}"


def refusal(hand: int, trick: Sequence[int], trump: int, card: int, stoeck: int = -1) -> tuple[str, int]:
    """Which rule refuses ``card``: ("absent", card), ("stoeck_card", the Stöck card), ("follow", suit),
    ("follow_trump", suit) or ("under_trump", the trick's highest trump).

    ``stoeck`` is the card the player announced Stöck with and must play now (-1: none; see
    ``RoundState.stoeck_due``). Only for a card that ``legal_mask`` refuses. The table words it in the
    viewer's deck from this (games/decks.py, static/js/cards.js); ``why_not`` words it with the
    French suit symbols.
    """
    if not hand >> card & 1:
        return "absent", card
    if stoeck >= 0:
        return "stoeck_card", stoeck
    led = trick[0] // 9
    if trump >= 4 or (led != trump and card // 9 != trump):
        return "follow", led
    if led == trump:
        return "follow_trump", led
    return "under_trump", winning_card(trick, trump)


SUIT_SYMBOLS = "\u2666\u2665\u2660\u2663"  # ♦ ♥ ♠ ♣, in HSLU suit order


def card_label(card: int) -> str:
    """A card as players write it: suit symbol and rank (``♠9``, ``♥J``)."""
    return SUIT_SYMBOLS[card // 9] + RANK_NAMES[card % 9]


def why_not(hand: int, trick: Sequence[int], trump: int, card: int, stoeck: int = -1) -> str:
    """Tell a player in plain words why ``card`` of their ``hand`` may not be played now.

    The counterpart of ``legal_mask`` for people: "You must follow ♥", "No under-trumping: the ♠9
    in the trick is higher". Only for a card that ``legal_mask`` refuses.
    """
    kind, which = refusal(hand, trick, trump, card, stoeck)
    if kind == "absent":
        return f"You do not hold {card_label(which)}"
    if kind == "stoeck_card":
        return f"You announced Stöck: play the {card_label(which)} now"
    if kind == "follow":
        return f"You must follow {SUIT_SYMBOLS[which]}"
    if kind == "follow_trump":
        return f"Trump {SUIT_SYMBOLS[which]} was led: you must follow it"
    return f"No under-trumping: the {card_label(which)} in the trick is higher"
