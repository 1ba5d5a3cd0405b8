"""Cards, suits, seats and trumps in HSLU numbering; sets of cards as 36-bit masks.

Card ``c`` is an int 0..35 in the order ``DA DK DQ DJ D10 D9 D8 D7 D6``, then
hearts, spades and clubs. Its suit is ``c // 9`` and its rank offset ``c % 9``
(A K Q J 10 9 8 7 6). A set of cards (a hand, the cards played) is an int whose
bit ``c`` is set when card ``c`` is in the set.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from .errors import InvalidActionError

__all__ = [
    "ACE",
    "C6",
    "C7",
    "C8",
    "C9",
    "C10",
    "CA",
    "CARD_CODES",
    "CARD_IDS",
    "CJ",
    "CK",
    "CLUBS",
    "CQ",
    "D6",
    "D7",
    "D8",
    "D9",
    "D10",
    "DA",
    "DIAMONDS",
    "DJ",
    "DK",
    "DQ",
    "EAST",
    "EIGHT",
    "FULL_DECK",
    "H6",
    "H7",
    "H8",
    "H9",
    "H10",
    "HA",
    "HEARTS",
    "HJ",
    "HK",
    "HQ",
    "JACK",
    "KING",
    "NINE",
    "NORTH",
    "NO_TRUMP",
    "OBE_ABE",
    "PUSH",
    "QUEEN",
    "RANK_NAMES",
    "S6",
    "S7",
    "S8",
    "S9",
    "S10",
    "SA",
    "SEATS",
    "SEAT_NAMES",
    "SEVEN",
    "SIX",
    "SJ",
    "SK",
    "SOUTH",
    "SPADES",
    "SQ",
    "SUITS",
    "SUIT_LETTERS",
    "SUIT_MASKS",
    "TEN",
    "TRUMPS",
    "TRUMP_NAMES",
    "UNE_UFE",
    "WEST",
    "card_code",
    "card_from_code",
    "cards_of",
    "check_card",
    "codes_of",
    "format_cards",
    "four",
    "iter_cards",
    "mask_from_codes",
    "mask_of",
    "next_seat",
    "partner_of",
    "permute_card",
    "permute_mask",
    "rank_of",
    "suit_of",
    "team_of",
]

# Suits and trumps (HSLU codes).
DIAMONDS, HEARTS, SPADES, CLUBS = 0, 1, 2, 3
OBE_ABE, UNE_UFE = 4, 5
PUSH = 10
NO_TRUMP = -1
SUITS = (DIAMONDS, HEARTS, SPADES, CLUBS)
TRUMPS = (DIAMONDS, HEARTS, SPADES, CLUBS, OBE_ABE, UNE_UFE)
TRUMP_NAMES = {
    DIAMONDS: "Diamonds",
    HEARTS: "Hearts",
    SPADES: "Spades",
    CLUBS: "Clubs",
    OBE_ABE: "Obe-Abe",
    UNE_UFE: "Une-Ufe",
    PUSH: "Push",
}
SUIT_LETTERS = "DHSC"

# Rank offsets within a suit.
ACE, KING, QUEEN, JACK, TEN, NINE, EIGHT, SEVEN, SIX = range(9)
RANK_NAMES = ("A", "K", "Q", "J", "10", "9", "8", "7", "6")

# Cards.
DA, DK, DQ, DJ, D10, D9, D8, D7, D6 = range(0, 9)
HA, HK, HQ, HJ, H10, H9, H8, H7, H6 = range(9, 18)
SA, SK, SQ, SJ, S10, S9, S8, S7, S6 = range(18, 27)
CA, CK, CQ, CJ, C10, C9, C8, C7, C6 = range(27, 36)
CARD_CODES = tuple(suit + rank for suit in SUIT_LETTERS for rank in RANK_NAMES)
CARD_IDS = {code: card for card, code in enumerate(CARD_CODES)}  # HSLU code -> card id

# Seats; play goes counter-clockwise, North -> West -> South -> East.
NORTH, EAST, SOUTH, WEST = 0, 1, 2, 3
SEATS = (NORTH, EAST, SOUTH, WEST)
SEAT_NAMES = ("North", "East", "South", "West")

FULL_DECK = (1 << 36) - 1
SUIT_MASKS = tuple(0x1FF << (9 * suit) for suit in SUITS)


def next_seat(seat: int) -> int:
    """Return the seat that plays after ``seat`` (counter-clockwise).

    >>> [SEAT_NAMES[next_seat(seat)] for seat in (NORTH, WEST, SOUTH, EAST)]
    ['West', 'South', 'East', 'North']
    """
    return (seat + 3) % 4


def partner_of(seat: int) -> int:
    """Return the partner of ``seat``."""
    return (seat + 2) % 4


def team_of(seat: int) -> int:
    """Return the team of ``seat``: 0 for North/South, 1 for East/West."""
    return seat % 2


def suit_of(card: int) -> int:
    """Return the suit (0..3) of a card id."""
    return card // 9


def rank_of(card: int) -> int:
    """Return the rank offset of a card id (0 = ace ... 8 = six)."""
    return card % 9


def check_card(card: object) -> int:
    """Return ``card`` if it is a card id 0..35, else raise ``InvalidActionError``."""
    if type(card) is not int or not 0 <= card < 36:
        raise InvalidActionError(f"not a card id (0-35): {card!r}")
    return card


def card_code(card: int) -> str:
    """Return the HSLU code of a card id, e.g. ``card_code(HJ) == "HJ"``."""
    return CARD_CODES[check_card(card)]


def card_from_code(code: str) -> int:
    """Return the card id of an HSLU code such as ``"C10"``.

    >>> card_from_code("HJ") == HJ, card_from_code("C10")
    (True, 31)
    >>> card_from_code("XJ")
    Traceback (most recent call last):
      ...
    games.engine.errors.InvalidActionError: unknown card code: 'XJ'
    """
    try:
        return CARD_IDS[code]
    except (KeyError, TypeError):
        raise InvalidActionError(f"unknown card code: {code!r}") from None


def mask_of(cards: Iterable[int]) -> int:
    """Return the mask of a collection of card ids (duplicates are an error).

    >>> bin(mask_of([DA, DK, HA]))
    '0b1000000011'
    >>> mask_of([DA, DA])
    Traceback (most recent call last):
      ...
    games.engine.errors.InvalidActionError: card 'DA' appears twice
    """
    mask = 0
    for card in cards:
        bit = 1 << check_card(card)
        if mask & bit:
            raise InvalidActionError(f"card {CARD_CODES[card]!r} appears twice")
        mask |= bit
    return mask


def iter_cards(mask: int) -> Iterator[int]:
    """Yield the card ids in ``mask`` in ascending order."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def cards_of(mask: int) -> list[int]:
    """Return the card ids in ``mask`` in ascending order."""
    return list(iter_cards(mask))


def codes_of(mask: int) -> list[str]:
    """Return the HSLU codes of the cards in ``mask`` in ascending id order.

    >>> codes_of(mask_of([C6, HJ, DA]))
    ['DA', 'HJ', 'C6']
    """
    return [CARD_CODES[card] for card in iter_cards(mask)]


def mask_from_codes(codes: Iterable[str]) -> int:
    """Return the mask of a collection of HSLU card codes."""
    return mask_of(card_from_code(code) for code in codes)


def format_cards(cards: Iterable[int]) -> str:
    """Return card ids as a readable, space-separated list of codes."""
    return " ".join(CARD_CODES[card] for card in cards)


def four(values: Iterable[int]) -> tuple[int, int, int, int]:
    """Return four ints (one per seat or suit) as a 4-tuple, the type the engine's values are declared with.

    >>> four(hand.bit_count() for hand in (0b111, 0b1, 0, 0b11))
    (3, 1, 0, 2)
    """
    first, second, third, fourth = values
    return (first, second, third, fourth)


def permute_card(card: int, permutation: tuple[int, int, int, int]) -> int:
    """Return ``card`` with its suit mapped through ``permutation`` (suit -> suit)."""
    return permutation[card // 9] * 9 + card % 9


def permute_mask(mask: int, permutation: tuple[int, int, int, int]) -> int:
    """Return the mask with every card's suit mapped through ``permutation``."""
    result = 0
    for suit in SUITS:
        result |= ((mask >> (9 * suit)) & 0x1FF) << (9 * permutation[suit])
    return result
