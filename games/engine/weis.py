"""Weis and Stöck (``docs/rules.md``, *Weis and Stöck*): what a hand holds, what it is worth, who scores.

A Weis is named by a small int code (it is the ``value`` of a ``weis`` action):

- a run of ``n`` cards (3..9) of one suit whose highest card is ``top``:
  ``100 * n + top`` (``Vierblatt`` HA-H10 is ``409``);
- four of a kind of rank offset ``r`` (A, K, Q, J, 10, 9): ``1000 + r``
  (four Jacks are ``1003``).

Runs are the *maximal* runs of a hand in the natural order 6..A (seven in
sequence are one Siebenblatt, not two Weis), so the Weis of a hand are a
fixed, small set and any subset of them names one declaration.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .cards import (
    ACE,
    CARD_CODES,
    JACK,
    KING,
    NINE,
    QUEEN,
    SUIT_MASKS,
    TEN,
    UNE_UFE,
    next_seat,
    team_of,
)
from .errors import InvalidActionError

STOECK_POINTS = 20
RUN_POINTS = {3: 20, 4: 50, 5: 100, 6: 150, 7: 200, 8: 250, 9: 300}
RUN_NAMES = {
    3: "Dreiblatt",
    4: "Vierblatt",
    5: "Fünfblatt",
    6: "Sechsblatt",
    7: "Siebenblatt",
    8: "Achtblatt",
    9: "Neunblatt",
}
# Four of a kind that count (four 6s, 7s or 8s count nothing).
QUARTET_POINTS = {JACK: 200, NINE: 150, ACE: 100, KING: 100, QUEEN: 100, TEN: 100}
QUARTET_NAMES = {
    JACK: "four Jacks",
    NINE: "four Nines",
    ACE: "four Aces",
    KING: "four Kings",
    QUEEN: "four Queens",
    TEN: "four Tens",
}
QUARTET_BASE = 1000
_RANK_BITS = tuple(sum(1 << (suit * 9 + rank) for suit in range(4)) for rank in range(9))


def _check_code(code: object) -> int:
    if type(code) is int:
        if code >= QUARTET_BASE and code - QUARTET_BASE in QUARTET_POINTS:
            return code
        length, top = divmod(code, 100)
        if length in RUN_POINTS and 0 <= top < 36 and top % 9 + length <= 9:
            return code
    raise InvalidActionError(f"not a Weis code (runs 100*length+top card, four of a kind 1000+rank): {code!r}")


def check_weis(code: object) -> int:
    """Return ``code`` if it names a Weis, else raise ``InvalidActionError``."""
    return _check_code(code)


def weis_cards(code: int) -> int:
    """The cards (a mask) of a Weis."""
    if code >= QUARTET_BASE:
        return _RANK_BITS[code - QUARTET_BASE]
    length, top = divmod(code, 100)
    return ((1 << length) - 1) << top


def weis_points(code: int) -> int:
    """What a Weis is worth (before multipliers)."""
    if code >= QUARTET_BASE:
        return QUARTET_POINTS[code - QUARTET_BASE]
    return RUN_POINTS[code // 100]


def weis_length(code: int) -> int:
    return 4 if code >= QUARTET_BASE else code // 100


def weis_name(code: int) -> str:
    """A Weis as players name it, with card codes: ``Vierblatt HA-H10``, ``four Jacks``."""
    if code >= QUARTET_BASE:
        return QUARTET_NAMES[code - QUARTET_BASE]
    length, top = divmod(code, 100)
    return f"{RUN_NAMES[length]} {CARD_CODES[top]}-{CARD_CODES[top + length - 1]}"


def hand_weis(hand: int) -> tuple[int, ...]:
    """Every Weis a hand (a mask) holds: its maximal runs of three or more, then its counting quartets.

    >>> from games.engine import mask_from_codes
    >>> found = hand_weis(mask_from_codes(["HA", "HK", "HQ", "HJ", "DA", "SA", "CA", "C6", "S6"]))
    >>> [(weis_name(code), weis_points(code)) for code in found]
    [('Vierblatt HA-HJ', 50), ('four Aces', 100)]
    """
    found = []
    for suit in range(4):
        bits = (hand & SUIT_MASKS[suit]) >> (9 * suit)
        offset = 0
        while bits:
            if not bits & 1:
                skip = (bits & -bits).bit_length() - 1
                bits >>= skip
                offset += skip
                continue
            length = 0
            while bits & 1:
                bits >>= 1
                length += 1
            if length >= 3:
                found.append(100 * length + 9 * suit + offset)
            offset += length
    for rank in QUARTET_POINTS:
        if hand & _RANK_BITS[rank] == _RANK_BITS[rank]:
            found.append(QUARTET_BASE + rank)
    return tuple(found)


def rank_key(code: int, trump: int, position: int) -> tuple[int, int, int, int, int]:
    """How a declared Weis ranks (higher wins), declared by the ``position``-th player of the first trick.

    Points, then length, then height (the top card; in Une-Ufe the lower card
    ranks higher; four of a kind by their rank), then a run in the trump suit,
    then the earlier declaration in the order of play.
    """
    if code >= QUARTET_BASE:
        rank = code - QUARTET_BASE
        height = rank if trump == UNE_UFE else 8 - rank
        in_trump = 0
    else:
        length, top = divmod(code, 100)
        height = (top % 9 + length - 1) if trump == UNE_UFE else 8 - top % 9
        in_trump = int(top // 9 == trump)
    return (weis_points(code), weis_length(code), height, in_trump, -position)


def scoring_team(declared: Sequence[Sequence[int]], trump: int, forehand: int) -> int:
    """The team holding the single best declared Weis (it scores all Weis of both its players), or -1."""
    best: tuple[int, int, int, int, int] | None = None
    team = -1
    seat = forehand
    for position in range(4):
        for code in declared[seat]:
            key = rank_key(code, trump, position)
            if best is None or key > best:
                best, team = key, team_of(seat)
        seat = next_seat(seat)
    return team


def team_weis_points(declared: Sequence[Sequence[int]], team: int) -> int:
    """All Weis declared by both players of ``team``."""
    if team < 0:
        return 0
    return sum(weis_points(code) for seat in (team, team + 2) for code in declared[seat])


def stoeck_cards(trump: int) -> int:
    """The King and Queen of a trump suit (a mask), or 0 in Obe-Abe and Une-Ufe."""
    if not 0 <= trump < 4:
        return 0
    return (1 << (9 * trump + KING)) | (1 << (9 * trump + QUEEN))


def cards_of_weis(codes: Iterable[int]) -> int:
    """The union of the cards of several Weis (a mask)."""
    mask = 0
    for code in codes:
        mask |= weis_cards(code)
    return mask
