"""Open-hand (double-dummy) solver: the exact points every legal card is worth with all four hands known.

The value of a position for a team is the points that team has at the end of
the round — points already won, the last trick's 5 and a Match (257) included
— when it plays to maximise them and the other team plays to minimise them,
everyone seeing every card. ``card_values(state)`` gives it for every legal
card of the player to move, from that player's team.

The search is alpha-beta in numba-compiled code (the unchecked fast path,
like ``bots/rollout.py``; ``tests/test_solver.py`` checks it against a brute
force over the rollout kernels and replays its lines through the engine's
checked path), with the tricks of double-dummy bridge solvers made to count
points rather than tricks:

- null-window searches (bisection on the point total, MTD-style), so every
  pass only asks "at least *b*?" and cuts as early as possible;
- a transposition table at trick boundaries keyed by the four remaining hands,
  the leader, the team that still could make a Match and the trump; entries
  keep lower and upper bounds on the points still to come, so they stay true
  across passes and across every position of the same round; once neither
  team can make a Match the two teams' points still to come add up to what
  is left, so the team is left out of the key and one entry, kept from team
  0's view and flipped for team 1, serves both (the analysis solves both
  teams' positions of a round in one table: with no node budget a 12-round
  game's open-hand values took 13% less time, and within the budget 9 of 57
  positions more were solved); at the fourth
  card of the first four tricks the table is probed for every card's next
  trick start before any is searched (enhanced transposition cut-offs;
  deeper, the probes cost more time than the nodes they save);
- equivalent cards: two cards of one hand, next to each other in rank within
  their suit once the cards already gone are removed and worth the same
  points, lead to the same value, so only one of them is searched;
- quick-trick bounds: at a trick boundary each side's sure points are a
  floor for it and lower the other side's ceiling, so many windows are
  decided without a move (``_sure_points``; each part holds under one plan
  of play, so they add up, and ``tests/test_solver.py`` checks the floor
  against a brute force): its trumps above all of the other side's; the
  tops the leader can cash before the other side gets in, with the cards
  its partner (its costliest of the suit) and the opponents (their cheapest:
  they must follow) put on them, and then the partner's tops if the leader
  can reach the partner with a low card of a suit the partner tops; against
  trumps, the other side's trumps drawn first when the leader holds enough
  above them; in a trump game, the last trick's 5 when the highest trump can
  be kept for it (the Jack always: no rule forces it out while another card
  is left; another if its holder has more other trumps than can be led at
  it) or the other side has no trump, with a side-suit card the partner
  keeps for it; and when the other side leads without a trump, the trick a
  ruff takes from it and the ruffer's tops after;
- move ordering: the table's best move first; then, for a lead, the last
  two leads that cut off at the same depth (killer moves: sibling positions
  differ in a few cards, and the same lead tends to refute them), and for
  the other hands the reply that last cut off against the same winning card
  at that depth (a counter move); then a rule of thumb (cheapest winner,
  smear on the partner's trick; lead sure winners no opponent can ruff,
  else low to the partner's top card of a suit, else low), the history of
  earlier cut-offs breaking ties (for leads their own, weighted by the
  tricks left);
- the last three tricks are played out by small alpha-betas of their own
  (``_three_tricks`` for the seventh trick's ways, each decided by what the
  last two can give at most when that settles it, else by ``_two_tricks``:
  at most 16 ways, the ninth trick forced), not by nodes of the main search;
  the seventh trick's start still has its table entry and floors, the two
  after it are not stored, which keeps the table's room for the positions
  nearer the root;
- cheap nodes: the kernels are compiled without reference counting (they
  allocate nothing, and counting the arrays passed at every call cost a
  sixth of the time), the helpers are inlined into ``_node``, a table bucket
  is one 64-byte cache line, and suits are handled as 9-bit masks in rank
  order (``RANK_MASK``) by table lookups rather than loops over their cards;
- the table's memory on its way early: at the fourth card of a trick every
  card's next trick start gets its key (only the played card's suit is
  encoded again) and a prefetch of its bucket at once, so the misses of a
  table larger than the cache overlap instead of stalling one after the
  other; the child takes its key from there, and the enhanced transposition
  cut-offs use the same keys.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from games.engine import RoundState
from games.engine.rules import LAST_TRICK_BONUS, MATCH_BONUS

from .rollout import (
    CARD_POINT_TABLE,
    SUIT_MASK_TABLE,
    WIN_RANK_TABLE,
    encode_round,
    legal_mask_after,
    nth_card,
    playouts,
)

# Layout of the search state (one small int64 array changed in place and restored).
_HANDS = 0  # 0..3
_TRICK = 4  # 4..7: cards of the current trick in play order
_TLEN = 8
_LEADER = 9
_TOP = 10  # card winning the current trick, -1 when empty
_DONE = 11  # tricks completed
_MATCH = 12  # bit t set while team t has won every trick so far (could still make a Match)
_LEFT = 13  # points of the cards still in the hands
_STATE_SIZE = 14

_ETC_DONE = 3  # enhanced transposition cut-offs at the fourth card of tricks 1..4 (deeper: more time)
_TT_BITS = 20  # 1M entries of 32 bytes (32 MB): one round's positions fit with room to spare
_WORK_MOVES = 0  # work[depth, 0:9]: the cards to search at that depth, in order
_WORK_KEYS = 9  # work[depth, 9:18]: their ordering keys
_WORK_KILLER = 18  # work[depth, 18]: the lead of the last cut-off at that trick start, -1 if none
_WORK_KILLER2 = 19  # the one before it
_WORK_COUNTER = 20  # work[depth, 20 + card]: the reply that last cut off while that card won the trick, or -1
_WORK_CHILD_A = 56  # work[depth, 56:65] / [65:74]: at a trick's fourth card, each card's next trick start's key
_WORK_CHILD_B = 65
_WORK_PRE_A = 74  # work[depth, 74:76]: a trick start's key, written by the fourth card before the call
_WORK_PRE_B = 75
_WORK_PRE = 76  # work[depth, 76]: 1 while that key is there to take
_WORK_SIZE = 80
_STATS_ROW = 36  # work[36]: the statistics and history (stats[...] below)
_STATE_ROW = 37  # work[37]: the search state (st[...] below); rows 0..35 are the depths
_NODES = 0  # stats[0]: nodes visited; stats[1]: null-window passes; stats[4 + card]: history
_PASSES = 1
_LIMIT = 2  # stats[2]: nodes allowed; stats[3]: 1 once a search ran out of them
_ABORTED = 3
_HISTORY = 4
_LEAD_HISTORY = 40  # stats[40 + card]: cut-offs by that card as a lead, weighted by the tricks left


def _suit_orders() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Rank tables per trump: the cards of each suit weakest first, and what the canonical form needs.

    ORDER[trump, suit, i]: the i-th weakest card of the suit. HIGHER[trump, card]:
    the cards of its suit that beat it, weakest first (-1 padded). CLASS[trump,
    card]: its points as a small class number. NEXT_SAME[trump, suit, i, class]:
    the first index >= i in ORDER whose card has that class (9 if none).
    """
    classes = sorted({int(p) for p in CARD_POINT_TABLE.ravel()})
    order = np.zeros((6, 4, 9), dtype=np.int64)
    higher = np.full((6, 36, 8), -1, dtype=np.int64)
    point_class = np.zeros((6, 36), dtype=np.int64)
    next_same = np.full((6, 4, 10, len(classes)), 9, dtype=np.int64)
    for trump in range(6):
        for suit in range(4):
            ranks = WIN_RANK_TABLE[trump, suit]
            cards = sorted(range(suit * 9, suit * 9 + 9), key=lambda c: ranks[c])
            order[trump, suit] = cards
            for index, card in enumerate(cards):
                higher[trump, card, : 8 - index] = cards[index + 1 :]
                point_class[trump, card] = classes.index(int(CARD_POINT_TABLE[trump, card]))
            for start in range(9, -1, -1):
                for klass in range(len(classes)):
                    if start < 9:
                        found = point_class[trump, cards[start]] == klass
                        next_same[trump, suit, start, klass] = (
                            start if found else next_same[trump, suit, start + 1, klass]
                        )
    return order, higher, point_class, next_same


SUIT_ORDER, HIGHER_IN_SUIT, POINT_CLASS, NEXT_SAME_CLASS = _suit_orders()


def _rank_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Tables for suits as 9-bit masks in rank order (bit 0: the weakest card of the suit).

    RANK_IN_SUIT[trump, card]: its rank index in its suit. RANK_MASK[trump, suit,
    m]: the suit's cards of the 9-bit mask ``m`` (bit i: card ``9 * suit + i``) in
    rank order. SPOTS[trump, suit, r]: the canonical spots of the cards of the
    rank-order mask ``r`` (each as low as its points and order allow). LOW_BIT[m]:
    the index of the lowest set bit of a 9-bit mask.
    """
    rank_in_suit = np.zeros((6, 36), dtype=np.int64)
    rank_mask = np.zeros((6, 4, 512), dtype=np.int64)
    spots = np.zeros((6, 4, 512), dtype=np.int64)
    for trump in range(6):
        for suit in range(4):
            for index in range(9):
                rank_in_suit[trump, SUIT_ORDER[trump, suit, index]] = index
            for mask in range(512):
                ranked = 0
                for bit in range(9):
                    if mask >> bit & 1:
                        ranked |= 1 << rank_in_suit[trump, 9 * suit + bit]
                rank_mask[trump, suit, mask] = ranked
                previous = -1
                spot_mask = 0
                for index in range(9):
                    if mask >> index & 1:
                        card = SUIT_ORDER[trump, suit, index]
                        previous = NEXT_SAME_CLASS[trump, suit, previous + 1, POINT_CLASS[trump, card]]
                        spot_mask |= 1 << previous
                spots[trump, suit, mask] = spot_mask
    low_bit = np.zeros(512, dtype=np.int64)
    high_bit = np.zeros(512, dtype=np.int64)
    for mask in range(1, 512):
        low_bit[mask] = (mask & -mask).bit_length() - 1
        high_bit[mask] = mask.bit_length() - 1
    return rank_in_suit, rank_mask, spots, low_bit, high_bit


RANK_IN_SUIT, RANK_MASK, SPOTS, LOW_BIT, HIGH_BIT = _rank_tables()
POPCOUNT = np.array([bin(mask).count("1") for mask in range(512)], dtype=np.int64)  # of a 9-bit mask


def _follow_tables() -> tuple[np.ndarray, np.ndarray]:
    """DEAREST[trump, suit, m, k] / CHEAPEST[...]: the points of the ``k`` costliest / cheapest cards of the
    suit's 9-bit mask ``m`` (all of them when it has fewer): what a hand following ``k`` times gives at most /
    at least."""
    dearest = np.zeros((6, 4, 512, 10), dtype=np.int32)
    cheapest = np.zeros((6, 4, 512, 10), dtype=np.int32)
    held = (np.arange(512)[:, None] >> np.arange(9)[None, :]) & 1 == 1  # [mask, bit]
    for trump in range(6):
        for suit in range(4):
            values = np.broadcast_to(CARD_POINT_TABLE[trump, 9 * suit : 9 * suit + 9], held.shape)
            low_first = np.sort(np.where(held, values, 1 << 20), axis=1)
            high_first = -np.sort(np.where(held, -values, 1 << 20), axis=1)
            cheapest[trump, suit, :, 1:] = np.cumsum(np.where(low_first < 1 << 20, low_first, 0), axis=1)
            dearest[trump, suit, :, 1:] = np.cumsum(np.where(high_first > -(1 << 20), high_first, 0), axis=1)
    return dearest, cheapest


DEAREST, CHEAPEST = _follow_tables()
_MIX = (
    np.uint64(0x9E3779B97F4A7C15),
    np.uint64(0xC2B2AE3D27D4EB4F),
    np.uint64(0x165667B19E3779F9),
    np.uint64(0xD6E8FEB86659FD93),
)
_VALUE_MASK = 0xFFFF


class TranspositionTable:
    """Bounds on the points still to come at trick boundaries; reusable across positions of any deal.

    A row is ``[key0, key1, entry, unused]``: the canonical hands, exactly (three
    bits per card still out, see ``_canonical``; the leader, Match state, team and
    trump in key0's high bits; the team is 0 once neither team can make a Match,
    and the bounds are then team 0's), and the lower bound, upper bound and best
    canonical card packed in one int64.
    """

    def __init__(self, bits: int = _TT_BITS) -> None:
        self.bits = bits
        # Rows of four words (two of key, one entry, one unused), two to a bucket: one bucket is one
        # 64-byte cache line, so a probe costs one memory access.
        flat = np.full(((1 << bits) + 2) * 4, -1, dtype=np.int64)
        start = (-flat.ctypes.data % 64) // 8
        self.rows = flat[start : start + (1 << bits) * 4].reshape(1 << bits, 4)

    def clear(self) -> None:
        self.rows.fill(-1)


# -- kernels (unchecked fast path) ----------------------------------------------------

_Function = TypeVar("_Function", bound=Callable[..., Any])


def _kernel(function: _Function) -> _Function:
    """Compiled without reference counting: the kernels allocate nothing, and counting every array passed
    at every call of ``_node`` cost about a sixth of the search's time."""
    return njit(cache=True, nogil=True, _nrt=False)(function)  # type: ignore[call-overload,no-any-return]


def _inlined_kernel(function: _Function) -> _Function:
    """A helper of ``_node`` inlined where it is called (numba's own inlining): no call, no argument copies."""
    return njit(cache=True, nogil=True, _nrt=False, inline="always")(function)  # type: ignore[call-overload,no-any-return]


def _prefetch_intrinsic(typingctx: Any, rows: Any, index: Any) -> Any:
    """Ask for the cache line of ``rows.flat[index]`` without waiting for it (LLVM's prefetch for reading)."""
    signature = types.void(rows, index)

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        array = context.make_array(sig.args[0])(context, builder, args[0])
        address = builder.bitcast(builder.gep(array.data, [args[1]]), ir.IntType(8).as_pointer())
        int32 = ir.IntType(32)
        function = cgutils.get_or_insert_function(  # type: ignore[no-untyped-call]
            builder.module, ir.FunctionType(ir.VoidType(), [address.type, int32, int32, int32]), "llvm.prefetch.p0i8"
        )
        builder.call(function, [address, ir.Constant(int32, 0), ir.Constant(int32, 3), ir.Constant(int32, 1)])
        return context.get_dummy_value()

    return signature, codegen


_prefetch: Any = intrinsic(_prefetch_intrinsic)


@_inlined_kernel
def _suit_of(card: int) -> int:
    """``card // 9`` for a card 0..35, without the sign fix-ups of Python's floor division."""
    return (card * 57) >> 9


@_inlined_kernel
def _legal(st: np.ndarray, player: int, trump: int) -> int:
    """The legal cards of ``player``: the engine's rule, compiled (``bots.rollout.legal_mask_after``)."""
    hand: int = st[_HANDS + player]
    if st[_TLEN] == 0:
        return hand
    return legal_mask_after(hand, _suit_of(st[_TRICK]), st[_TOP], trump)


@_inlined_kernel
def _lowest(mask: int) -> int:
    """The lowest card of a non-empty mask (``bots.rollout.nth_card``)."""
    return nth_card(mask, 0)


@_inlined_kernel
def _redundant(card: int, hand: int, legal: int, others: int, trump: int) -> bool:
    """Whether a higher card of the same hand is equivalent to ``card`` (so only that one is searched).

    Equivalent: the next card above it in its suit that is still in play (in a
    hand or in the trick) is ours, legal now, and worth the same points.
    """
    suit = _suit_of(card)
    present = RANK_MASK[trump, suit, ((hand | others) >> (9 * suit)) & 511]
    rank = RANK_IN_SUIT[trump, card]
    higher = present >> (rank + 1)
    if higher == 0:
        return False
    above = SUIT_ORDER[trump, suit, rank + 1 + LOW_BIT[higher]]
    return bool((legal >> above) & 1 != 0 and CARD_POINT_TABLE[trump, above] == CARD_POINT_TABLE[trump, card])


@_inlined_kernel
def _order(
    st: np.ndarray, player: int, trump: int, legal: int, first: int, work: np.ndarray, depth: int, stats: np.ndarray
) -> int:
    """Write the cards to search into ``work[depth, _WORK_MOVES:]``, most promising first; return how many.

    ``first`` (the table's best move, or -1) goes first, then a rule of thumb
    with the history of earlier cut-offs breaking ties. One card of each run
    of equivalent cards is kept.
    """
    points = CARD_POINT_TABLE[trump]
    hand = st[_HANDS + player]
    tlen = st[_TLEN]
    in_trick = np.int64(0)
    for index in range(tlen):
        in_trick |= np.int64(1) << st[_TRICK + index]
    others = (st[0] | st[1] | st[2] | st[3] | in_trick) & ~hand
    count = 0
    partner_holds = False
    last = tlen == 3
    top_rank = -1
    ranks = WIN_RANK_TABLE[trump, 0]
    if tlen > 0:
        ranks = WIN_RANK_TABLE[trump, _suit_of(st[_TRICK])]
        top = st[_TOP]
        top_rank = ranks[top]
        top_index = 0
        for index in range(tlen):
            if st[_TRICK + index] == top:
                top_index = index
        partner_holds = (tlen - top_index) == 2
    if legal & (legal - 1) == 0:
        work[depth, _WORK_MOVES] = _lowest(legal)
        return 1
    lead_suit = -1
    best_opponent = -1
    best_partner = -1
    opponents = st[_HANDS + ((player + 1) & 3)] | st[_HANDS + ((player + 3) & 3)]
    partner_hand = st[_HANDS + ((player + 2) & 3)]
    killer = work[depth, _WORK_KILLER]
    killer2 = work[depth, _WORK_KILLER2]
    counter = -1
    if tlen > 0:
        counter = work[depth, _WORK_COUNTER + st[_TOP]]
    remaining = legal
    while remaining:
        card = _lowest(remaining)
        remaining &= remaining - 1
        if card != first and _redundant(card, hand, legal, others, trump):
            continue
        value = points[card]
        if card == first:
            key = np.int64(1) << 30
        elif card == killer and tlen == 0:
            key = np.int64(1) << 29
        elif card == killer2 and tlen == 0:
            key = np.int64(1) << 28
        elif card == counter:
            key = np.int64(1) << 29
        elif tlen == 0:
            # Lead: a card nobody can beat in its suit (and no opponent can ruff) first, points on it;
            # then low to the partner's winner of the suit; then low cards.
            suit = _suit_of(card)
            suit_ranks = WIN_RANK_TABLE[trump, suit]
            rank = suit_ranks[card]
            if suit != lead_suit:
                # Cards come lowest id first, so a suit's cards are consecutive: its tops once per suit.
                lead_suit = suit
                best_opponent = -1
                best_partner = -1
                theirs = RANK_MASK[trump, suit, (opponents >> (9 * suit)) & 511]
                if theirs:
                    best_opponent = suit_ranks[SUIT_ORDER[trump, suit, HIGH_BIT[theirs]]]
                partners = RANK_MASK[trump, suit, (partner_hand >> (9 * suit)) & 511]
                if partners:
                    best_partner = suit_ranks[SUIT_ORDER[trump, suit, HIGH_BIT[partners]]]
            ruffable = trump < 4 and suit != trump and (opponents & SUIT_MASK_TABLE[trump]) != 0
            if rank > best_opponent and rank > best_partner and not ruffable:
                key = 3000 + value * 16
            elif best_partner > best_opponent and best_partner > rank and not ruffable:
                key = 2500 - value * 16 - rank
            else:
                key = 1000 - value * 16 - rank
        else:
            rank = ranks[card]
            wins = rank > top_rank
            if partner_holds:
                if last:
                    key = (3000 + value * 16) if not wins else (1000 + value)
                else:
                    key = (2000 - value * 16 - rank) if not wins else (1000 - value)
            elif wins:
                key = (3000 + value * 16 - rank) if last else (3000 - value * 4 - rank)
            else:
                key = 2000 - value * 16 - (rank if rank > 0 else 0)
        if tlen == 0:
            key = key * (1 << 24) + min(stats[_LEAD_HISTORY + card], (1 << 24) - 1)
        else:
            key = key * 4096 + min(stats[_HISTORY + card], 4095)
        # Insertion sort, best first.
        position = count
        while position > 0 and work[depth, _WORK_KEYS + position - 1] < key:
            work[depth, _WORK_KEYS + position] = work[depth, _WORK_KEYS + position - 1]
            work[depth, _WORK_MOVES + position] = work[depth, _WORK_MOVES + position - 1]
            position -= 1
        work[depth, _WORK_KEYS + position] = key
        work[depth, _WORK_MOVES + position] = card
        count += 1
    return count


@_inlined_kernel
def _canonical(st: np.ndarray, trump: int, leader: int, match: int, me: int) -> tuple[int, int]:
    """The position's four hands as a key, with every card moved as low in its suit as its points and order allow.

    Only the order of the cards still out and their points matter to the rest
    of the round (the Jack of trumps, whose rule is special, is the only trump
    worth 20), so two positions with the same canonical hands have the same
    value: playing the 6 or the 7 of a plain suit first leads to one entry.
    Per suit, the cards still out are taken weakest first (``RANK_MASK``: the
    suit's cards as a mask in rank order) and each goes to its canonical spot
    (``SPOTS``), where three bits say whose it is; suits 0-1 fill the first
    word, 2-3 the second (27 bits a suit), and the first word's high bits
    hold the leader, the Match state, the team and the trump (``_key``).
    """
    everyone, odd, high = _owners(st)
    return _key(
        _suit_code(everyone, odd, high, trump, 0),
        _suit_code(everyone, odd, high, trump, 1),
        _suit_code(everyone, odd, high, trump, 2),
        _suit_code(everyone, odd, high, trump, 3),
        leader,
        match,
        me,
        trump,
    )


@_inlined_kernel
def _owners(st: np.ndarray) -> tuple[int, int, int]:
    """The cards in the hands, those of hands 1 and 3, and those of hands 2 and 3 (a card's owner in two bits)."""
    h1 = st[1]
    h2 = st[2]
    h3 = st[3]
    return st[0] | h1 | h2 | h3, h1 | h3, h2 | h3


@_inlined_kernel
def _key(
    code0: int, code1: int, code2: int, code3: int, leader: int, match: int, me: int, trump: int
) -> tuple[int, int]:
    """The table's two-word key from the four suits' codes (``_suit_code``) and the rest of the position."""
    return code0 | (code1 << 27) | ((leader | (match << 2) | (me << 4) | (trump << 5)) << 54), code2 | (code3 << 27)


@_inlined_kernel
def _suit_code(everyone: int, odd: int, high: int, trump: int, suit: int) -> int:
    """One suit's 27 bits of the canonical key (see ``_canonical``): three bits per canonical spot.

    ``everyone``: the cards in the hands; ``odd``: those of hands 1 and 3; ``high``: of hands 2 and 3.
    """
    shift = 9 * suit
    present = (everyone >> shift) & 511
    code = 0
    if present == 0:
        return code
    ranks = RANK_MASK[trump, suit]
    present = ranks[present]
    spots = SPOTS[trump, suit, present]
    ones = ranks[(odd >> shift) & 511]
    twos = ranks[(high >> shift) & 511]
    while present:
        rank = LOW_BIT[present]
        code |= (1 + ((ones >> rank) & 1) + 2 * ((twos >> rank) & 1)) << (3 * LOW_BIT[spots])
        present &= present - 1
        spots &= spots - 1
    return code


@_inlined_kernel
def _translate(st: np.ndarray, trump: int, card: int, to_canonical: bool) -> int:
    """A card of the hands at a trick start to its canonical card (see ``_canonical``), or back.

    Within a suit the i-th card still out (weakest first) stands on the i-th
    canonical spot, so either way is counting the set bits below it.
    """
    suit = _suit_of(card)
    everyone = st[0] | st[1] | st[2] | st[3]
    present = RANK_MASK[trump, suit, (everyone >> (9 * suit)) & 511]
    spots = SPOTS[trump, suit, present]
    source, target = (present, spots) if to_canonical else (spots, present)
    below = source & ((1 << RANK_IN_SUIT[trump, card]) - 1)
    while below:
        below &= below - 1
        target &= target - 1
    other: int = SUIT_ORDER[trump, suit, LOW_BIT[target]]
    return other


@_inlined_kernel
def _bucket(k0: int, k1: int, bits: int) -> int:
    """The first row of the key's bucket (two rows, one cache line)."""
    h = np.uint64(k0) * _MIX[0]
    h ^= np.uint64(k1) * _MIX[1]
    h ^= h >> np.uint64(29)
    return int(np.int64(h >> np.uint64(64 - bits))) & ~1


@_inlined_kernel
def _find(table: np.ndarray, bucket: int, k0: int, k1: int) -> int:
    """The row of the bucket that holds the key, or -1."""
    for row in range(bucket, bucket + 2):
        if table[row, 0] == k0 and table[row, 1] == k1:
            return row
    return -1


@_inlined_kernel
def _trick_won(st: np.ndarray, card: int, led_ranks: np.ndarray, points: np.ndarray) -> tuple[int, int]:
    """(the winner's seat, the trick's card points) when ``card`` is the fourth card of the trick in ``st``."""
    top = card if led_ranks[card] > led_ranks[st[_TOP]] else st[_TOP]
    won = points[card]
    position = 3
    for spot in range(3):
        played = st[_TRICK + spot]
        won += points[played]
        if played == top:
            position = spot
    return (st[_LEADER] - position) & 3, won


@_inlined_kernel
def _quick_tricks(st: np.ndarray, leader: int, trump: int, follows: bool, drawn: bool = False) -> tuple[int, int]:
    """(points, tricks) the leader's side surely takes by cashing its tops before the other side gets in.

    Counts the leader's cards that beat every other card still out in their
    suit, their points, and with ``follows`` the partner's costliest cards of
    the suit, as many as the leader cashes there (it follows to them), and
    each opponent's cheapest ones (it must follow; a card it throws away
    instead falls on one of these tricks too). In a trump game a side suit counts only
    while no opponent holds a trump (one could ruff once void). A floor for the
    leader's side, and the other side's ceiling drops by as much.
    """
    points = CARD_POINT_TABLE[trump]
    ours = st[_HANDS + leader]
    opponents = st[_HANDS + ((leader + 1) & 3)] | st[_HANDS + ((leader + 3) & 3)]
    partner = st[_HANDS + ((leader + 2) & 3)]
    outside = opponents | partner
    opponent_trumps = (opponents & SUIT_MASK_TABLE[trump]) if trump < 4 and not drawn else np.int64(0)
    floor = 0
    tricks = 0
    for suit in range(4):
        if trump < 4 and (suit == trump or opponent_trumps):
            continue
        suit_mask = SUIT_MASK_TABLE[suit]
        mine = ours & suit_mask
        if mine == 0:
            continue
        rest_out = outside & suit_mask
        # Walk the suit from the top: our cards above the best card out are sure winners.
        cashed = 0
        for index in range(8, -1, -1):
            card = SUIT_ORDER[trump, suit, index]
            bit = np.int64(1) << card
            if rest_out & bit:
                break
            if mine & bit:
                cashed += 1
                floor += points[card]
        tricks += cashed
        if follows and cashed:
            # The partner follows to them: its costliest cards of the suit fall on our tricks; and each
            # opponent follows too, with its cheapest.
            shift = 9 * suit
            floor += DEAREST[trump, suit, (partner >> shift) & 511, cashed]
            floor += CHEAPEST[trump, suit, (st[_HANDS + ((leader + 1) & 3)] >> shift) & 511, cashed]
            floor += CHEAPEST[trump, suit, (st[_HANDS + ((leader + 3) & 3)] >> shift) & 511, cashed]
    return floor, tricks


@_inlined_kernel
def _reaches(st: np.ndarray, leader: int, partner: int, trump: int) -> bool:
    """Whether the leader holds a card of a side suit whose best card still out is the partner's."""
    everyone = st[0] | st[1] | st[2] | st[3]
    mine = st[_HANDS + leader]
    theirs = st[_HANDS + partner]
    for suit in range(4):
        shift = 9 * suit
        if suit == trump or (mine >> shift) & 511 == 0:
            continue
        top = SUIT_ORDER[trump, suit, HIGH_BIT[RANK_MASK[trump, suit, (everyone >> shift) & 511]]]
        if (theirs >> top) & 1:
            return True
    return False


@_inlined_kernel
def _draws_trumps(st: np.ndarray, leader: int, trump: int) -> int:
    """The other side's trump points if the leader can draw all its trumps, or -1.

    It can when it holds trumps above all of theirs at least as many as the longer
    of their trump holdings, and the partner (following to them) has no trump
    above the lowest of those: each lead takes a trump from each of them and
    the leader keeps the lead.
    """
    shift = 9 * trump
    ranks = RANK_MASK[trump, trump]
    ours = ranks[(st[_HANDS + leader] >> shift) & 511]
    partner = ranks[(st[_HANDS + ((leader + 2) & 3)] >> shift) & 511]
    left = ranks[(st[_HANDS + ((leader + 1) & 3)] >> shift) & 511]
    right = ranks[(st[_HANDS + ((leader + 3) & 3)] >> shift) & 511]
    theirs = left | right
    need = max(POPCOUNT[left], POPCOUNT[right])
    if need == 0 or ours == 0:
        return -1
    # Our trumps above all of theirs, from the top; the lowest one needed must beat the partner's.
    above = ours >> (HIGH_BIT[theirs] + 1)
    if POPCOUNT[above] < need:
        return -1
    lowest = HIGH_BIT[theirs] + 1
    taken = 0
    for rank in range(8, -1, -1):
        if (ours >> rank) & 1:
            taken += 1
            if taken == need:
                lowest = rank
                break
    if partner and HIGH_BIT[partner] > lowest:
        return -1
    points = CARD_POINT_TABLE[trump]
    total = 0
    while theirs:
        rank = LOW_BIT[theirs]
        theirs &= theirs - 1
        total += points[SUIT_ORDER[trump, trump, rank]]
    return total


@_inlined_kernel
def _keeps_master(st: np.ndarray, team: int, trump: int, outside: int) -> bool:
    """Whether the player of ``team`` who holds the highest trump still out can keep it to the last trick.

    Only a trump led while it is its holder's only trump forces it out (the Jack
    of trumps not even then: no rule makes its holder play it while another card
    is left; a hand of trumps only follows with its others). The other side can
    lead trumps at most as often as it holds trumps, the partner (leading trumps
    only when it holds nothing else) as often as it holds trumps, so a holder
    with more other trumps than that keeps it.
    """
    shift = 9 * trump
    holder = st[_HANDS + team]
    partner = st[_HANDS + team + 2]
    top = SUIT_ORDER[trump, trump, HIGH_BIT[RANK_MASK[trump, trump, ((holder | partner) >> shift) & 511]]]
    if (holder >> top) & 1 == 0:
        holder, partner = partner, holder
    if top == shift + 3:
        return True
    others = POPCOUNT[(holder >> shift) & 511] - 1
    return bool(others >= POPCOUNT[(outside >> shift) & 511] + POPCOUNT[(partner >> shift) & 511])


@_inlined_kernel
def _partner_keeps(st: np.ndarray, leader: int, team: int, trump: int, outside: int) -> int:
    """Points of the side-suit card the partner of ``team``'s highest trump can keep for the last trick."""
    shift = 9 * trump
    seat = team
    top = SUIT_ORDER[
        trump, trump, HIGH_BIT[RANK_MASK[trump, trump, ((st[_HANDS + team] | st[_HANDS + team + 2]) >> shift) & 511]]
    ]
    if (st[_HANDS + team] >> top) & 1:
        seat = team + 2
    partner = st[_HANDS + seat]
    if (seat == leader and outside == 0) or (partner >> shift) & 511:
        return 0
    others = (st[0] | st[1] | st[2] | st[3]) & ~partner
    points = CARD_POINT_TABLE[trump]
    kept = 0
    for suit in range(4):
        if suit == trump:
            continue
        mine = (partner >> (9 * suit)) & 511
        if mine == 0 or POPCOUNT[mine] - 1 < POPCOUNT[(others >> (9 * suit)) & 511]:
            continue
        while mine:
            card = 9 * suit + LOW_BIT[mine]
            mine &= mine - 1
            if points[card] > kept:
                kept = points[card]
    return kept


@_inlined_kernel
def _ruff_and_cash(st: np.ndarray, leader: int, team: int, trump: int, mine: int, keep_top: bool, follows: bool) -> int:
    """Points ``team`` surely takes by ruffing the trick the other side (holding no trump) is about to lead,
    then cashing the ruffer's side-suit tops (``_quick_tricks`` as if it led): the led card's points at
    least, plus the best ruffer's tops; -1 if no hand of ``team`` can ruff (with ``keep_top``: with a
    trump other than the team's highest)."""
    points = CARD_POINT_TABLE[trump]
    lead_hand = st[_HANDS + leader]
    cheapest = 1 << 20
    while lead_hand:
        card = _lowest(lead_hand)
        lead_hand &= lead_hand - 1
        if points[card] < cheapest:
            cheapest = points[card]
    shift = 9 * trump
    top = SUIT_ORDER[trump, trump, HIGH_BIT[RANK_MASK[trump, trump, (mine >> shift) & 511]]]
    best = -1
    for seat in range(team, 4, 2):
        trumps = st[_HANDS + seat] & mine
        if keep_top:
            trumps &= ~(np.int64(1) << top)
        if trumps:
            cashed, _ = _quick_tricks(st, seat, trump, follows)
            if cashed > best:
                best = cashed
    if best < 0:
        return -1
    return best + cheapest


@_inlined_kernel
def _sure_points(st: np.ndarray, leader: int, team: int, trump: int) -> tuple[int, int]:
    """(points, tricks) ``team`` surely takes from here: a floor on its points.

    Its trumps above every trump of the other side win whatever trick they fall
    in (only a partner's higher trump can beat them). If ``team`` leads, add
    the side-suit tops the leader can cash while the other side holds no trump
    (``_quick_tricks``; in Obe-Abe and Une-Ufe all of the leader's tops), and
    then the partner's tops if the leader can reach the partner with a low card
    of a suit the partner tops (``_reaches``); against trumps, if the leader
    can first draw them all with its top trumps (``_draws_trumps``), their
    points and then its tops. In a trump game, the last trick
    (its 5 and a side-suit card the partner keeps for it, ``_partner_keeps``)
    when the highest trump can be kept for it (``_keeps_master``) or the other
    side has no trump; and if the other side leads without a trump, the trick a
    ruff takes from it and the ruffer's tops after (``_ruff_and_cash``).
    Only the counted cards' own points are counted (and the led card's after a
    ruff); every part holds under one plan of play, so they add up.
    """
    points = 0
    tricks = 0
    if trump < 4:
        trump_mask = SUIT_MASK_TABLE[trump]
        mine = (st[_HANDS + team] | st[_HANDS + team + 2]) & trump_mask
        outside = (st[_HANDS + 1 - team] | st[_HANDS + 3 - team]) & trump_mask
        if mine:
            for index in range(8, -1, -1):
                card = SUIT_ORDER[trump, trump, index]
                bit = np.int64(1) << card
                if outside & bit:
                    break
                if mine & bit:
                    tricks += 1
                    points += CARD_POINT_TABLE[trump, card]
        last = 0
        kept = 0
        if mine != 0 and (outside == 0 or (tricks > 0 and _keeps_master(st, team, trump, outside))):
            # The last trick: with no trump on the other side a trump kept to the end takes it, and so
            # does the highest trump if its holder can keep it (``_keeps_master``).
            last = LAST_TRICK_BONUS
            kept = _partner_keeps(st, leader, team, trump, outside)
        if leader & 1 == team and outside != 0 and tricks > 0:
            drawn = _draws_trumps(st, leader, trump)
            if drawn >= 0:
                # The leader draws the other side's trumps with its top trumps, then cashes its tops.
                cashed, cashed_tricks = _quick_tricks(st, leader, trump, True, True)
                if drawn + cashed > last + kept:
                    return points + drawn + cashed, tricks + cashed_tricks
        if leader & 1 == team and outside == 0:
            cashed, cashed_tricks = _quick_tricks(st, leader, trump, kept == 0)
            partner = (leader + 2) & 3
            if _reaches(st, leader, partner, trump):
                # Then low to the partner's top of a side suit, and the partner cashes its tops (which
                # may hold the card it keeps for the last trick: that one counts once).
                via, via_tricks = _quick_tricks(st, partner, trump, kept == 0)
                return points + last + cashed + max(via, kept), tricks + cashed_tricks + via_tricks
            return points + last + kept + cashed, tricks + cashed_tricks
        last += kept
        if outside == 0 and mine != 0:
            # The other side leads and has no trump: either of ours with a trump ruffs, takes the led
            # card and then cashes its tops; with a trump other than our highest to ruff with, the
            # last trick stays ours too.
            ruffed = _ruff_and_cash(st, leader, team, trump, mine, True, kept == 0)
            if ruffed >= 0:
                return points + last + ruffed, tricks + 1
            ruffed = _ruff_and_cash(st, leader, team, trump, mine, False, kept == 0)
            return points + max(last, ruffed), tricks + 1
        return points + last, tricks
    if leader & 1 == team:
        own, own_tricks = _quick_tricks(st, leader, trump, True)
        partner = (leader + 2) & 3
        if _reaches(st, leader, partner, trump):
            # Then low to the partner's top of a suit, and the partner cashes its tops.
            via, via_tricks = _quick_tricks(st, partner, trump, True)
            return own + via, own_tricks + via_tricks
        return own, own_tricks
    return 0, 0


@_inlined_kernel
def _last_trick(st: np.ndarray, me: int, trump: int) -> int:
    """Points ``me`` gets from the ninth trick (one card left in each hand), Match bonus included."""
    leader = st[_LEADER]
    led_card = _lowest(st[_HANDS + leader])
    ranks = WIN_RANK_TABLE[trump, _suit_of(led_card)]
    points = CARD_POINT_TABLE[trump]
    top = led_card
    winner = leader
    won: int = points[led_card] + LAST_TRICK_BONUS
    for step in range(1, 4):
        seat = (leader - step) & 3
        card = _lowest(st[_HANDS + seat])
        won += points[card]
        if ranks[card] > ranks[top]:
            top = card
            winner = seat
    team = winner & 1
    if team != me:
        return 0
    return won + (MATCH_BONUS if st[_MATCH] & (1 << me) else 0)


@_kernel
def _two_tricks(st: np.ndarray, alpha: int, beta: int, me: int, trump: int) -> int:
    """Points ``me`` gets from the last two tricks (two cards left in each hand), fail-soft, Match bonus included.

    Alpha-beta over at most 16 ways to play the eighth trick (the ninth is
    forced), without the table: cheaper than a lookup, and it leaves the table
    to the positions nearer the root. Searched from the leader's side
    (``sign`` flips the values when the leader is not ``me``).
    """
    leader = st[_LEADER]
    points = CARD_POINT_TABLE[trump]
    seat1 = (leader + 3) & 3
    seat2 = (leader + 2) & 3
    seat3 = (leader + 1) & 3
    hand0 = st[_HANDS + leader]
    hand1 = st[_HANDS + seat1]
    hand2 = st[_HANDS + seat2]
    hand3 = st[_HANDS + seat3]
    match = st[_MATCH] & (1 << me)
    sign = 1 if (leader & 1) == me else -1
    low = alpha if sign == 1 else -beta
    high = beta if sign == 1 else -alpha
    best0 = -(1 << 20)
    moves0 = hand0
    while moves0:
        card0 = _lowest(moves0)
        moves0 &= moves0 - 1
        suit = _suit_of(card0)
        ranks = WIN_RANK_TABLE[trump, suit]
        low1 = max(low, best0)
        best1 = 1 << 20
        moves1 = legal_mask_after(hand1, suit, card0, trump)
        while moves1:
            card1 = _lowest(moves1)
            moves1 &= moves1 - 1
            top1 = card1 if ranks[card1] > ranks[card0] else card0
            high2 = min(high, best1)
            best2 = -(1 << 20)
            moves2 = legal_mask_after(hand2, suit, top1, trump)
            while moves2:
                card2 = _lowest(moves2)
                moves2 &= moves2 - 1
                top2 = card2 if ranks[card2] > ranks[top1] else top1
                low3 = max(low1, best2)
                best3 = 1 << 20
                moves3 = legal_mask_after(hand3, suit, top2, trump)
                while moves3:
                    card3 = _lowest(moves3)
                    moves3 &= moves3 - 1
                    top3 = card3 if ranks[card3] > ranks[top2] else top2
                    if top3 == card0:
                        winner = leader
                    elif top3 == card1:
                        winner = seat1
                    elif top3 == card2:
                        winner = seat2
                    else:
                        winner = seat3
                    # The ninth trick: every hand's last card, led by the eighth trick's winner.
                    c0 = _lowest(hand0 ^ (np.int64(1) << card0))
                    c1 = _lowest(hand1 ^ (np.int64(1) << card1))
                    c2 = _lowest(hand2 ^ (np.int64(1) << card2))
                    c3 = _lowest(hand3 ^ (np.int64(1) << card3))
                    if winner == leader:
                        lead = c0
                    elif winner == seat1:
                        lead = c1
                    elif winner == seat2:
                        lead = c2
                    else:
                        lead = c3
                    last_ranks = WIN_RANK_TABLE[trump, _suit_of(lead)]
                    top = lead
                    last_winner = winner
                    for step in range(1, 4):
                        seat = (winner - step) & 3
                        if seat == leader:
                            card = c0
                        elif seat == seat1:
                            card = c1
                        elif seat == seat2:
                            card = c2
                        else:
                            card = c3
                        if last_ranks[card] > last_ranks[top]:
                            top = card
                            last_winner = seat
                    value = 0
                    if (winner & 1) == me:
                        value += points[card0] + points[card1] + points[card2] + points[card3]
                    if (last_winner & 1) == me:
                        value += points[c0] + points[c1] + points[c2] + points[c3] + LAST_TRICK_BONUS
                        if match and (winner & 1) == me:
                            value += MATCH_BONUS
                    value *= sign
                    if value < best3:
                        best3 = value
                        if best3 <= low3:
                            break
                if best3 > best2:
                    best2 = best3
                    if best2 >= high2:
                        break
            if best2 < best1:
                best1 = best2
                if best1 <= low1:
                    break
        if best1 > best0:
            best0 = best1
            if best0 >= high:
                break
    return sign * best0


@_kernel
def _three_tricks(st: np.ndarray, alpha: int, beta: int, me: int, trump: int) -> int:
    """Points ``me`` gets from the last three tricks (three cards left in each hand), fail-soft, Match bonus
    included: alpha-beta over the seventh trick's ways (at most 81), the last two by ``_two_tricks``, without
    the table. A way whose trick alone, or with all that is left, already settles the window is not searched
    further. The caller (``_node`` at the seventh trick's start) stores the answer in the table. Cards in id
    order: in trees this small ordering cost more than it saved. Its four loops are ``_two_tricks``' on
    purpose: one trick's hands unrolled, as a shared kernel would need a call at every way."""
    leader = st[_LEADER]
    points = CARD_POINT_TABLE[trump]
    seat1 = (leader + 3) & 3
    seat2 = (leader + 2) & 3
    seat3 = (leader + 1) & 3
    hand0 = st[_HANDS + leader]
    hand1 = st[_HANDS + seat1]
    hand2 = st[_HANDS + seat2]
    hand3 = st[_HANDS + seat3]
    old_match = st[_MATCH]
    left = st[_LEFT]
    sign = 1 if (leader & 1) == me else -1
    low = alpha if sign == 1 else -beta
    high = beta if sign == 1 else -alpha
    best0 = -(1 << 20)
    moves0 = hand0
    while moves0:
        card0 = _lowest(moves0)
        moves0 &= moves0 - 1
        suit = _suit_of(card0)
        ranks = WIN_RANK_TABLE[trump, suit]
        low1 = max(low, best0)
        best1 = 1 << 20
        moves1 = legal_mask_after(hand1, suit, card0, trump)
        while moves1:
            card1 = _lowest(moves1)
            moves1 &= moves1 - 1
            top1 = card1 if ranks[card1] > ranks[card0] else card0
            high2 = min(high, best1)
            best2 = -(1 << 20)
            moves2 = legal_mask_after(hand2, suit, top1, trump)
            while moves2:
                card2 = _lowest(moves2)
                moves2 &= moves2 - 1
                top2 = card2 if ranks[card2] > ranks[top1] else top1
                low3 = max(low1, best2)
                best3 = 1 << 20
                moves3 = legal_mask_after(hand3, suit, top2, trump)
                while moves3:
                    card3 = _lowest(moves3)
                    moves3 &= moves3 - 1
                    top3 = card3 if ranks[card3] > ranks[top2] else top2
                    if top3 == card0:
                        winner = leader
                    elif top3 == card1:
                        winner = seat1
                    elif top3 == card2:
                        winner = seat2
                    else:
                        winner = seat3
                    won = points[card0] + points[card1] + points[card2] + points[card3]
                    gain = won if (winner & 1) == me else 0
                    high3 = min(high2, best3)
                    new_match = old_match & (1 << (winner & 1))
                    rest = left - won + LAST_TRICK_BONUS + (MATCH_BONUS if new_match & (1 << me) else 0)
                    # What the last two tricks can give at most decides some of them without a search.
                    if sign == 1:
                        if gain + rest <= low3:
                            value = gain + rest
                            if value < best3:
                                best3 = value
                            break
                        if gain >= high3:
                            value = gain
                            if value < best3:
                                best3 = value
                            continue
                    else:
                        if -gain <= low3:
                            value = -gain
                            if value < best3:
                                best3 = value
                            break
                        if -(gain + rest) >= high3:
                            value = -(gain + rest)
                            if value < best3:
                                best3 = value
                            continue
                    st[_HANDS + leader] = hand0 ^ (np.int64(1) << card0)
                    st[_HANDS + seat1] = hand1 ^ (np.int64(1) << card1)
                    st[_HANDS + seat2] = hand2 ^ (np.int64(1) << card2)
                    st[_HANDS + seat3] = hand3 ^ (np.int64(1) << card3)
                    st[_LEADER] = winner
                    st[_MATCH] = new_match
                    if sign == 1:
                        value = gain + _two_tricks(st, low3 - gain, high3 - gain, me, trump)
                    else:
                        value = -(gain + _two_tricks(st, -high3 - gain, -low3 - gain, me, trump))
                    if value < best3:
                        best3 = value
                        if best3 <= low3:
                            break
                if best3 > best2:
                    best2 = best3
                    if best2 >= high2:
                        break
            if best2 < best1:
                best1 = best2
                if best1 <= low1:
                    break
        if best1 > best0:
            best0 = best1
            if best0 >= high:
                break
    st[_HANDS + leader] = hand0
    st[_HANDS + seat1] = hand1
    st[_HANDS + seat2] = hand2
    st[_HANDS + seat3] = hand3
    st[_LEADER] = leader
    st[_MATCH] = old_match
    return sign * best0


@_inlined_kernel
def _store(
    table: np.ndarray,
    slot: int,
    bucket: int,
    k0: int,
    k1: int,
    best: int,
    alpha: int,
    beta: int,
    card: int,
    done: int,
    flip: bool,
    total: int,
) -> None:
    """Store what a search of the trick start keyed ``k0, k1`` found: ``best`` is a lower bound if it is above
    the window's ``alpha``, an upper bound if below ``beta`` (both if inside), merged with a hit's bounds;
    ``card``: its best card in canonical form + 1 (0: none). ``slot``: the row the probe found, or the
    bucket's second row. Two entries per bucket: the first keeps the position nearest the root (the
    costliest to redo), the second takes the newest. With ``flip`` the entry serves both teams and is kept
    from the other team's view: the values become ``total`` minus them, the window's ends swapped."""
    if flip:
        best, alpha, beta = total - best, total - beta, total - alpha
    lower = 0
    upper = _VALUE_MASK
    hit = table[slot, 0] == k0 and table[slot, 1] == k1
    if hit:
        lower = table[slot, 2] & _VALUE_MASK
        upper = (table[slot, 2] >> 16) & _VALUE_MASK
    if best > alpha and best > lower:
        lower = best
    if best < beta and best < upper:
        upper = best
    if not hit:
        first_entry = table[bucket, 2]
        if first_entry < 0 or done <= (first_entry >> 40):
            # Nearer the root than the first entry's position (or as near): it takes the first
            # place and the old first entry moves to the second.
            for column in range(3):
                table[bucket + 1, column] = table[bucket, column]
            slot = bucket
        else:
            slot = bucket + 1
    table[slot, 0] = k0
    table[slot, 1] = k1
    table[slot, 2] = lower | (upper << 16) | (np.int64(card) << 32) | (np.int64(done) << 40)


@_kernel
def _node(work: np.ndarray, table: np.ndarray, alpha: int, beta: int, me: int, trump: int, bits: int) -> int:
    """Points team ``me`` still gets from here (this trick's cards on), fail-soft alpha-beta.

    The state, the statistics and every depth's scratch live in the one ``work``
    array (two arrays a call rather than four: the arguments are copied at every node).
    """
    st = work[_STATE_ROW]
    stats = work[_STATS_ROW]
    stats[_NODES] += 1
    if stats[_NODES] > stats[_LIMIT]:
        # Out of budget: the caller throws the answer away; nothing below this is stored.
        stats[_ABORTED] = 1
        return alpha
    tlen = st[_TLEN]
    leader = st[_LEADER]
    done = st[_DONE]
    points = CARD_POINT_TABLE[trump]
    depth = done * 4 + tlen
    slot = -1  # the table row of this trick start's entry (only trick starts have one)
    bucket = 0
    first = -1
    alpha0 = alpha
    beta0 = beta
    k0 = k1 = 0
    # With no Match left for either team the points still to come split in two (the team's and the other's
    # add up to ``total``): one entry serves both teams, kept from team 0's view and flipped for team 1.
    flip = st[_MATCH] == 0 and me == 1
    total = st[_LEFT] + LAST_TRICK_BONUS
    if tlen == 0:
        # A key the fourth card wrote for this trick start is taken now, whichever way the node returns.
        precomputed = work[depth, _WORK_PRE]
        work[depth, _WORK_PRE] = 0
        if done == 9:
            return MATCH_BONUS if st[_MATCH] == (1 << me) else 0
        if done == 8:
            return _last_trick(st, me, trump)
        high: int = st[_LEFT] + LAST_TRICK_BONUS + (MATCH_BONUS if st[_MATCH] & (1 << me) else 0)
        if high <= alpha:
            return high
        if done == 7:
            # Exact and cheap: cheaper than the floors below, and a better fail-soft bound.
            return _two_tricks(st, alpha, beta, me, trump)
        # Floors: what each side surely takes. The ceiling of one side is what is left minus the
        # other side's floor (and no Match once the other side surely takes a trick).
        # One call site in a loop, not two calls: numba inlines the floors' code where it is called, and
        # once is a third of the solver's compile time; ours alone may already settle the window.
        low = theirs = their_tricks = 0
        for side in range(2):
            sure, tricks = _sure_points(st, leader, me ^ side, trump)
            if side == 0:
                low = sure
                if low >= beta:
                    return low
            else:
                theirs, their_tricks = sure, tricks
        if their_tricks > 0:
            high = st[_LEFT] + LAST_TRICK_BONUS - theirs
            if high <= alpha:
                return high
        if precomputed:
            # Written by the trick's fourth card, which has already asked for the bucket.
            k0 = work[depth, _WORK_PRE_A]
            k1 = work[depth, _WORK_PRE_B]
        else:
            k0, k1 = _canonical(st, trump, leader, st[_MATCH], me if st[_MATCH] else 0)
        # Two entries per bucket: the first keeps the position nearest the root (the costliest to
        # redo), the second takes the newest; a hit may be in either.
        bucket = _bucket(k0, k1, bits)
        slot = _find(table, bucket, k0, k1)
        if slot >= 0:
            entry = table[slot, 2]
            lower: int = entry & _VALUE_MASK
            upper: int = (entry >> 16) & _VALUE_MASK
            if flip:
                lower, upper = total - upper, total - lower
            if lower >= beta:
                return lower
            if upper <= alpha:
                return upper
            if lower > low:
                low = lower
            if upper < high:
                high = upper
            stored = ((entry >> 32) & 63) - 1
            if stored >= 0:
                first = _translate(st, trump, stored, False)
        else:
            slot = bucket + 1
        if low > alpha:
            alpha = low
        if high < beta:
            beta = high
        if alpha >= beta:
            return alpha
    if done == 6 and tlen == 0:
        # The last three tricks by their own search, cheaper than nodes of this one; only the answer
        # goes to the table.
        best = _three_tricks(st, alpha, beta, me, trump)
        if slot >= 0 and stats[_ABORTED] == 0:
            _store(table, slot, bucket, k0, k1, best, alpha0, beta0, 0, done, flip, total)
        return best
    player = (leader - tlen) & 3
    legal = _legal(st, player, trump)
    count = _order(st, player, trump, legal, first, work, depth, stats)
    maximizing = (player & 1) == me
    best = -1 if maximizing else 1 << 20
    best_card = -1
    led_ranks = WIN_RANK_TABLE[trump, 0]
    if tlen > 0:
        led_ranks = WIN_RANK_TABLE[trump, _suit_of(st[_TRICK])]
    if tlen == 3 and done <= 5:
        # Every card's next trick start: its key (only the played card's suit changes) and a prefetch
        # of its bucket, so the table's memory is on its way for all of them at once.
        everyone, odd, high = _owners(st)
        code0 = _suit_code(everyone, odd, high, trump, 0)
        code1 = _suit_code(everyone, odd, high, trump, 1)
        code2 = _suit_code(everyone, odd, high, trump, 2)
        code3 = _suit_code(everyone, odd, high, trump, 3)
        for index in range(count):
            card = work[depth, _WORK_MOVES + index]
            keep = ~(np.int64(1) << card)
            suit = _suit_of(card)
            code = _suit_code(everyone & keep, odd & keep, high & keep, trump, suit)
            winner, _ = _trick_won(st, card, led_ranks, points)
            child_match = st[_MATCH] & (1 << (winner & 1))
            child_a, child_b = _key(
                code if suit == 0 else code0,
                code if suit == 1 else code1,
                code if suit == 2 else code2,
                code if suit == 3 else code3,
                winner,
                child_match,
                me if child_match else 0,
                trump,
            )
            work[depth, _WORK_CHILD_A + index] = child_a
            work[depth, _WORK_CHILD_B + index] = child_b
            _prefetch(table, _bucket(child_a, child_b, bits) * 4)
    if tlen == 3 and done <= _ETC_DONE and count > 1:
        # Enhanced transposition cut-off: a card whose next trick start the table already decides
        # against the window refutes this node without a search.
        for index in range(count):
            winner, won = _trick_won(st, work[depth, _WORK_MOVES + index], led_ranks, points)
            gain = won if (winner & 1) == me else 0
            e0 = work[depth, _WORK_CHILD_A + index]
            e1 = work[depth, _WORK_CHILD_B + index]
            spot = _find(table, _bucket(e0, e1, bits), e0, e1)
            if spot >= 0:
                entry = table[spot, 2]
                child_lower: int = entry & _VALUE_MASK
                child_upper: int = (entry >> 16) & _VALUE_MASK
                if me == 1 and (st[_MATCH] & (1 << (winner & 1))) == 0:
                    child_total = st[_LEFT] - points[work[depth, _WORK_MOVES + index]] + LAST_TRICK_BONUS
                    child_lower, child_upper = child_total - child_upper, child_total - child_lower
                if maximizing:
                    at_least: int = gain + child_lower
                    if at_least >= beta:
                        return at_least
                else:
                    at_most: int = gain + child_upper
                    if at_most <= alpha:
                        return at_most
    for index in range(count):
        card = work[depth, _WORK_MOVES + index]
        bit = np.int64(1) << card
        st[_HANDS + player] ^= bit
        st[_LEFT] -= points[card]
        st[_TRICK + tlen] = card
        old_top = st[_TOP]
        if tlen == 0:
            led_ranks = WIN_RANK_TABLE[trump, _suit_of(card)]
            st[_TOP] = card
        elif led_ranks[card] > led_ranks[old_top]:
            st[_TOP] = card
        if tlen < 3:
            st[_TLEN] = tlen + 1
            value = _node(work, table, alpha, beta, me, trump, bits)
            st[_TLEN] = tlen
        else:
            winner, won = _trick_won(st, card, led_ranks, points)
            if done == 8:
                won += LAST_TRICK_BONUS
            gain = won if (winner & 1) == me else 0
            old_match = st[_MATCH]
            new_match = old_match & (1 << (winner & 1))
            ceiling = st[_LEFT] + LAST_TRICK_BONUS + (MATCH_BONUS if new_match & (1 << me) else 0)
            if done < 7 and ceiling <= alpha - gain:
                # The next trick start's first test (its ceiling) without the call; still counted as its node.
                stats[_NODES] += 1
                value = gain + ceiling
            else:
                saved0 = st[_TRICK]
                saved1 = st[_TRICK + 1]
                saved2 = st[_TRICK + 2]
                st[_MATCH] = new_match
                st[_LEADER] = winner
                st[_DONE] = done + 1
                st[_TLEN] = 0
                st[_TOP] = -1
                if done == 6:
                    # The last two tricks: straight to their own search (still counted as a node).
                    stats[_NODES] += 1
                    value = gain + _two_tricks(st, alpha - gain, beta - gain, me, trump)
                else:
                    work[depth + 1, _WORK_PRE_A] = work[depth, _WORK_CHILD_A + index]
                    work[depth + 1, _WORK_PRE_B] = work[depth, _WORK_CHILD_B + index]
                    work[depth + 1, _WORK_PRE] = 1
                    value = gain + _node(work, table, alpha - gain, beta - gain, me, trump, bits)
                st[_MATCH] = old_match
                st[_LEADER] = leader
                st[_DONE] = done
                st[_TLEN] = tlen
                st[_TRICK] = saved0
                st[_TRICK + 1] = saved1
                st[_TRICK + 2] = saved2
        st[_TOP] = old_top
        st[_LEFT] += points[card]
        st[_HANDS + player] ^= bit
        if maximizing:
            if value > best:
                best = value
                best_card = card
                if best >= beta:
                    break
                if best > alpha:
                    alpha = best
        else:
            if value < best:
                best = value
                best_card = card
                if best <= alpha:
                    break
                if best < beta:
                    beta = best
    if (maximizing and best >= beta) or (not maximizing and best <= alpha):
        if tlen == 0 and work[depth, _WORK_KILLER] != best_card:
            work[depth, _WORK_KILLER2] = work[depth, _WORK_KILLER]
            work[depth, _WORK_KILLER] = best_card
        elif tlen > 0:
            work[depth, _WORK_COUNTER + st[_TOP]] = best_card
        if tlen == 0:
            stats[_LEAD_HISTORY + best_card] += (9 - done) * (9 - done)
        else:
            stats[_HISTORY + best_card] += 1
    if slot >= 0 and stats[_ABORTED] == 0:
        # The best card is stored in canonical form, so it means the same card in every equal position.
        canon_best = _translate(st, trump, best_card, True) + 1 if best_card >= 0 else 0
        _store(table, slot, bucket, k0, k1, best, alpha0, beta0, canon_best, done, flip, total)
    return best


@_kernel
def _exact(work: np.ndarray, table: np.ndarray, me: int, trump: int, guess: int, bits: int) -> int:
    """The exact points team ``me`` still gets, by null-window tests narrowing [low, high] (MTD(f) with bisection).

    The position is the state in ``work[_STATE_ROW]``.
    """
    st = work[_STATE_ROW]
    stats = work[_STATS_ROW]
    low = 0
    high = st[_LEFT] + LAST_TRICK_BONUS + MATCH_BONUS
    for spot in range(st[_TLEN]):
        high += CARD_POINT_TABLE[trump, st[_TRICK + spot]]
    # Null-window tests: the first at the guess, then steps doubling away from it until the value
    # is bracketed, then bisection. Fail-soft answers tighten the bracket a little more.
    test = guess
    step = 1
    bracketed_low = False
    bracketed_high = False
    passes = 0
    while low < high:
        if test <= low:
            test = low + 1
        if test > high:
            test = high
        value = _node(work, table, test - 1, test, me, trump, bits)
        passes += 1
        if stats[_ABORTED]:
            return -1
        if value >= test:
            low = value
            bracketed_low = True
            if bracketed_high:
                test = (low + high + 1) // 2
            else:
                test = low + step
                step *= 2
        else:
            high = value
            bracketed_high = True
            if bracketed_low:
                test = (low + high + 1) // 2
            else:
                test = high - step + 1
                step *= 2
    stats[_PASSES] += passes
    return low


# -- positions and the API --------------------------------------------------------------


def _state_array(state: RoundState) -> np.ndarray:
    """The search state of a round in play (trump declared, not over)."""
    st = np.zeros(_STATE_SIZE, dtype=np.int64)
    st[_HANDS : _HANDS + 4] = state.hands
    st[_TRICK : _TRICK + len(state.trick)] = state.trick
    st[_TLEN] = len(state.trick)
    st[_LEADER] = state.leader
    st[_TOP] = state.top
    st[_DONE] = len(state.tricks)
    match = 3
    for trick in state.tricks:
        match &= 1 << (trick.winner % 2)
    st[_MATCH] = match
    points = CARD_POINT_TABLE[state.trump]
    st[_LEFT] = sum(
        int(points[c])
        for c in range(36)
        if (state.hands[0] | state.hands[1] | state.hands[2] | state.hands[3]) >> c & 1
    )
    return st


class OutOfBudget(Exception):
    """A search needed more nodes than it was allowed (``Solver(node_limit=...)``)."""


@dataclass
class Solution:
    """The solver's answer for one position: each legal card's points for the mover's team."""

    team: int  # the team of the player to move
    values: dict[int, int]  # legal card -> points that team ends the round with after it
    nodes: int  # search nodes visited

    @property
    def best(self) -> int:
        """The highest value of any legal card."""
        return max(self.values.values())

    @property
    def best_cards(self) -> list[int]:
        return sorted(card for card, value in self.values.items() if value == self.best)


class Solver:
    """Solves positions of rounds; keeps its transposition table between calls (reuse one per round).

    ``node_limit`` caps the nodes of one ``value`` / ``card_values`` call: past it
    the call raises ``OutOfBudget`` (what the table learned so far stays, so
    the positions after it in the same round get cheaper).
    """

    def __init__(self, bits: int = _TT_BITS, node_limit: int | None = None) -> None:
        self.table = TranspositionTable(bits)
        self.node_limit = node_limit
        self.work = np.zeros((_STATE_ROW + 1, _WORK_SIZE), dtype=np.int64)
        self.stats = self.work[_STATS_ROW]
        self.reset()

    def reset(self) -> None:
        """Forget everything earlier calls learned: the table, and the killer moves and history that order
        the cards (they change how many nodes a search takes, never its values)."""
        self.table.clear()
        self.work.fill(0)
        self.work[:_STATS_ROW, _WORK_KILLER:_WORK_CHILD_A] = -1

    def _start(self) -> None:
        self.stats[_NODES] = 0
        self.stats[_PASSES] = 0
        self.stats[_ABORTED] = 0
        self.stats[_LIMIT] = self.node_limit if self.node_limit is not None else 1 << 62

    def _future(self, state: RoundState, team: int, guess: int) -> int:
        self.work[_STATE_ROW, :_STATE_SIZE] = _state_array(state)
        future = int(_exact(self.work, self.table.rows, team, state.trump, guess, self.table.bits))
        if self.stats[_ABORTED]:
            raise OutOfBudget(f"more than {self.node_limit} nodes")
        return future

    @property
    def nodes(self) -> int:
        """Nodes the last call visited."""
        return int(self.stats[_NODES])

    def value(self, state: RoundState, team: int | None = None) -> int:
        """Points ``team`` (default: the mover's) ends the round with, both teams playing perfectly open-handed."""
        if state.trump < 0:
            raise ValueError("the trump is not declared yet")
        if team is None:
            team = state.player % 2
        if state.player < 0:
            return state.score()[team]
        self._start()
        guess = self._ladder_guess(state, team)
        return state.points[team] + self._future(state, team, guess - state.points[team])

    def _ladder_guess(self, state: RoundState, team: int) -> int:
        """A close guess of ``team``'s final points: the exact values along the rule-of-thumb line, from its end back.

        Every null-window pass far from the value costs many nodes, and the
        rule of thumb alone is often 20-60 points off from the first card.
        Solving the positions at the trick starts of its line backwards, each
        with the one after it as its guess, is cheap (they are small, and each
        leaves its subtree in the table) and moves the guess to what perfect
        play makes of all but the first trick.
        """
        row = encode_round(state)[None, :]
        trace = np.full((1, 36), -1, dtype=np.int64)
        final = playouts(row, seed=0, randomness=0.0, trace=trace)
        guess = int(final[0, team])
        starts = []
        position = state
        for card in trace[0]:
            if card < 0 or position.is_over:
                break
            position = position.play_unchecked(int(card))
            if not position.trick and not position.is_over and len(position.tricks) < 8:
                starts.append(position)
        for position in reversed(starts):
            guess = position.points[team] + self._future(position, team, guess - position.points[team])
        return guess

    def card_values(self, state: RoundState) -> Solution:
        """Every legal card's value for the mover's team (see the module docstring)."""
        if state.trump < 0 or state.player < 0:
            raise ValueError("no card to play in this state")
        self._start()
        team = state.player % 2
        legal = state.legal_mask()
        trump = state.trump
        hand = state.hands[state.player]
        others = (sum(state.hands) - hand) | sum(1 << c for c in state.trick)
        values: dict[int, int] = {}
        guess = _greedy_guess(state, team)
        cards = [c for c in range(36) if legal >> c & 1]
        # Search one card of each equivalent run, highest first, and copy its value to the others.
        for card in reversed(cards):
            twin = _twin_above(card, hand, legal, others, trump)
            if twin >= 0 and twin in values:
                values[card] = values[twin]
                continue
            after = state.play_unchecked(card)
            if after.player < 0:
                values[card] = after.score()[team]
                continue
            future = self._future(after, team, guess + state.points[team] - after.points[team])
            values[card] = after.points[team] + future
            guess = values[card] - state.points[team]
        return Solution(team=team, values=dict(sorted(values.items())), nodes=self.nodes)


def _greedy_guess(state: RoundState, team: int) -> int:
    """A first guess of the points ``team`` still gets: both sides playing the rollout rule of thumb."""
    row = encode_round(state)[None, :]
    return int(playouts(row, seed=0, randomness=0.0)[0, team]) - state.points[team]


def _twin_above(card: int, hand: int, legal: int, others: int, trump: int) -> int:
    """The next card up that ``card`` is equivalent to (see ``_redundant``), or -1."""
    points = CARD_POINT_TABLE[trump]
    for above in HIGHER_IN_SUIT[trump, card]:
        if above < 0:
            return -1
        if hand >> above & 1:
            return int(above) if legal >> above & 1 and points[above] == points[card] else -1
        if others >> above & 1:
            return -1
    return -1
