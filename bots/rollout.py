"""Batched rollouts: many rounds as rows of one int64 array, advanced by numba-compiled kernels.

Search needs far more playouts than the engine's ``RoundState`` (one Python
tuple per card) can give, so the bots keep a round as one row of 18 ints
(``encode_round``) and play it with compiled kernels (numba: about 600x
jass-kit's random play on one core, where lockstep numpy over a batch would pay
a dozen array calls per card). ``playouts`` finishes a whole batch of rows in
one call, with random or rule-of-thumb (``greedy_card``) players, and is the
unchecked fast path: it trusts that every row is a consistent round with the
trump declared. ``bots.mcts`` calls the same kernels from inside its tree
search. The engine stays the reference: the legal-card rule is the engine's own
``legal_mask_after``, compiled (``compile_engine_function``), and
``tests/test_rollout.py`` checks every legal mask, trick winner and point total
here against ``RoundState``'s checked path.

Randomness inside the kernels is a xorshift64* stream seeded by the caller, so
a batch played twice from the same seed plays the same cards.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Sequence

import numpy as np
from numba import njit

from games.engine import SUIT_MASKS, TRUMPS, RoundState, Trick, rules
from games.engine.rules import CARD_POINTS, LAST_TRICK_BONUS, MATCH_BONUS, WIN_RANK

# Layout of one round row. Hands are card masks (bit c = card c), as in the engine.
HANDS = 0  # 0..3: the four hands
TRUMP = 4
PLAYER = 5  # seat to move, -1 when the round is over
LEADER = 6  # seat that leads the current trick
TRICK = 7  # 7..10: cards of the current trick in play order
TRICK_LEN = 11
TOP = 12  # card winning the current trick so far, -1 when empty
TRICKS_DONE = 13
POINTS = 14  # 14, 15: card points of team 0 and team 1
TRICKS_WON = 16  # 16, 17: tricks won by team 0 and team 1 (a team with nine makes a match)
ROW_SIZE = 18

# Constant tables as arrays; numba freezes module-level arrays into the compiled code.
SUIT_MASK_TABLE = np.array(SUIT_MASKS, dtype=np.int64)
WIN_RANK_TABLE = np.array(WIN_RANK, dtype=np.int64)  # [trump, led suit, card]
CARD_POINT_TABLE = np.array(CARD_POINTS, dtype=np.int64)  # [trump, card]
assert WIN_RANK_TABLE.shape == (len(TRUMPS), 4, 36)

_XORSHIFT_MULTIPLIER = np.uint64(0x2545F4914F6CDD1D)


# -- encoding --------------------------------------------------------------------


def encode_round(state: RoundState) -> np.ndarray:
    """Return a round whose trump is declared as one row (the layout above)."""
    return encode_parts(
        state.hands, state.trump, state.player, state.leader, state.trick, state.top, state.tricks, state.points
    )


def encode_parts(
    hands: Sequence[int],
    trump: int,
    player: int,
    leader: int,
    trick: tuple[int, ...],
    top: int,
    tricks: tuple[Trick, ...],
    points: tuple[int, int],
) -> np.ndarray:
    """Return one row from a round's parts (an observation plus sampled hands gives these too)."""
    row = np.zeros(ROW_SIZE, dtype=np.int64)
    row[HANDS : HANDS + 4] = hands
    row[TRUMP] = trump
    row[PLAYER] = player
    row[LEADER] = leader
    row[TRICK : TRICK + len(trick)] = trick
    row[TRICK_LEN] = len(trick)
    row[TOP] = top
    row[TRICKS_DONE] = len(tricks)
    row[POINTS : POINTS + 2] = points
    for done in tricks:
        row[TRICKS_WON + done.winner % 2] += 1
    return row


def seed_state(seed: int) -> np.ndarray:
    """Return a generator state for the kernels (one uint64, never zero) from any integer seed."""
    value = (int(seed) * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) % (1 << 64)
    return np.array([value or 1], dtype=np.uint64)


# -- kernels (unchecked fast path) ------------------------------------------------


@njit(cache=True, nogil=True)
def next_random(rng: np.ndarray) -> np.uint64:
    """Advance a xorshift64* generator held in ``rng[0]`` and return its next 64-bit output."""
    x: np.uint64 = rng[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng[0] = x
    return x * _XORSHIFT_MULTIPLIER


@njit(cache=True, nogil=True)
def random_below(rng: np.ndarray, n: int) -> int:
    """Return a random int in ``0..n-1`` (``n`` is at most 36 here, so modulo bias is negligible)."""
    return int((next_random(rng) >> np.uint64(11)) % np.uint64(n))


@njit(cache=True, nogil=True)
def bit_count(mask: int) -> int:
    """Return the number of cards in a mask."""
    count = 0
    while mask:
        mask &= mask - 1
        count += 1
    return count


def _de_bruijn_index() -> np.ndarray:
    """Bit index by the top six bits of ``(1 << index) * _DE_BRUIJN`` (a de Bruijn sequence: all distinct)."""
    table = np.zeros(64, dtype=np.int64)
    for index in range(64):
        table[((1 << index) * _DE_BRUIJN) % (1 << 64) >> 58] = index
    return table


_DE_BRUIJN = 0x03F79D71B4CB0A89
_DE_BRUIJN_INDEX = _de_bruijn_index()


@njit(cache=True, nogil=True)
def nth_card(mask: int, n: int) -> int:
    """Return the ``n``-th lowest card (0-based) of a mask.

    The lowest set bit's index is a multiply and a table lookup (de Bruijn), not a
    loop over up to 35 shifts: the solver calls this at every node.
    """
    for _ in range(n):
        mask &= mask - 1
    low = np.uint64(mask & -mask)
    return int(_DE_BRUIJN_INDEX[(low * np.uint64(_DE_BRUIJN)) >> np.uint64(58)])


@njit(cache=True, nogil=True)
def random_card(mask: int, rng: np.ndarray) -> int:
    """Return a uniformly random card of a non-empty mask."""
    return nth_card(mask, random_below(rng, bit_count(mask)))


def compile_engine_function(function: Callable[..., int]) -> Callable[..., int]:
    """Compile a fast-path function of the engine with numba, so that a kernel runs the engine's rule, not a copy.

    The code object is the engine's, unchanged; only the module-level tuples it reads (``SUIT_MASKS``,
    ``HIGHER_TRUMPS``...) are rebound to int64 arrays, which numba indexes faster than frozen tuples.
    """
    namespace = dict(function.__globals__)
    for name in function.__code__.co_names:
        if isinstance(namespace.get(name), tuple):
            namespace[name] = np.array(namespace[name], dtype=np.int64)
    clone = types.FunctionType(function.__code__, namespace, function.__name__, function.__defaults__)
    clone.__qualname__ = function.__qualname__
    kernel: Callable[..., int] = njit(cache=True, nogil=True)(clone)
    return kernel


# The legal-card rule has one source, ``games/engine/rules.py``; ``tests/test_rollout.py`` still checks every mask.
legal_mask_after = compile_engine_function(rules.legal_mask_after)


@njit(cache=True, nogil=True)
def legal_mask(row: np.ndarray) -> int:
    """Return the cards the player to move may play (the engine's ``legal_mask_after``, unchecked)."""
    hand: int = row[HANDS + row[PLAYER]]
    if row[TRICK_LEN] == 0:
        return hand
    return legal_mask_after(hand, row[TRICK] // 9, row[TOP], row[TRUMP])


@njit(cache=True, nogil=True)
def play_card(row: np.ndarray, card: int) -> None:
    """Play ``card`` for the player to move, in place; score the trick when it is complete."""
    player = row[PLAYER]
    trump = row[TRUMP]
    row[HANDS + player] ^= np.int64(1) << card
    length = row[TRICK_LEN]
    if length == 0:
        row[TOP] = card
    else:
        ranks = WIN_RANK_TABLE[trump, row[TRICK] // 9]
        if ranks[card] > ranks[row[TOP]]:
            row[TOP] = card
    row[TRICK + length] = card
    length += 1
    if length < 4:
        row[TRICK_LEN] = length
        row[PLAYER] = (player + 3) % 4
        return
    top = row[TOP]
    position = 0
    won = 0
    for index in range(4):
        played = row[TRICK + index]
        won += CARD_POINT_TABLE[trump, played]
        if played == top:
            position = index
    winner = (row[LEADER] - position) % 4
    row[TRICKS_DONE] += 1
    if row[TRICKS_DONE] == 9:
        won += LAST_TRICK_BONUS
        winner_next = -1
    else:
        winner_next = winner
    row[POINTS + winner % 2] += won
    row[TRICKS_WON + winner % 2] += 1
    row[PLAYER] = winner_next
    row[LEADER] = winner_next
    row[TRICK_LEN] = 0
    row[TOP] = -1
    row[TRICK : TRICK + 4] = 0  # a row is a value: equal rounds give equal rows


@njit(cache=True, nogil=True)
def score(row: np.ndarray, team: int) -> int:
    """Return ``team``'s points of a finished round, the match bonus included."""
    points: int = row[POINTS + team]
    if row[TRICKS_WON + team] == 9:
        points += MATCH_BONUS
    return points


@njit(cache=True, nogil=True)
def finish_randomly(row: np.ndarray, rng: np.ndarray) -> None:
    """Play random legal cards until the round is over, in place."""
    while row[PLAYER] >= 0:
        play_card(row, random_card(legal_mask(row), rng))


@njit(cache=True, nogil=True)
def greedy_lead(row: np.ndarray, rng: np.ndarray) -> int:
    """Lead a sure winner (the best card left in its suit, not to be ruffed) with the most points, else low.

    Playouts see every hand, so "sure" is exact for the cards still out.
    """
    player = row[PLAYER]
    hand = row[HANDS + player]
    trump = row[TRUMP]
    points = CARD_POINT_TABLE[trump]
    others = row[HANDS + (player + 1) % 4] | row[HANDS + (player + 2) % 4] | row[HANDS + (player + 3) % 4]
    opponents = (row[HANDS + (player + 1) % 4], row[HANDS + (player + 3) % 4])
    trump_mask = SUIT_MASK_TABLE[trump] if trump < 4 else np.int64(0)
    best_sure, best_sure_points = -1, -1
    best_low, best_low_cost = -1, 1 << 30
    remaining = hand
    while remaining:
        card = nth_card(remaining, 0)
        remaining &= remaining - 1
        suit = card // 9
        ranks = WIN_RANK_TABLE[trump, suit]
        cost = points[card] * 64 + ranks[card]
        if cost < best_low_cost:
            best_low, best_low_cost = card, cost
        suit_mask = SUIT_MASK_TABLE[suit]
        beaten = False
        rest = others & suit_mask
        while rest:
            other_low = rest & -rest
            rest ^= other_low
            other = 0
            while other_low > 1:
                other_low >>= 1
                other += 1
            if ranks[other] > ranks[card]:
                beaten = True
                break
        if not beaten and trump_mask and suit != trump:
            for opponent in opponents:
                if opponent & suit_mask == 0 and opponent & trump_mask:
                    beaten = True
        if not beaten and points[card] > best_sure_points:
            best_sure, best_sure_points = card, points[card]
    return best_sure if best_sure >= 0 else best_low


@njit(cache=True, nogil=True)
def greedy_card(row: np.ndarray, rng: np.ndarray, randomness: float) -> int:
    """Pick a card by a light rule of thumb, or with chance ``randomness`` a random legal one.

    Following, a player takes a trick from the opponents with its cheapest
    winning card when it can, gives points when the partner already holds the
    trick as the last to play, and otherwise throws its lowest-points card;
    leading, see ``greedy_lead``. This keeps playouts from wasting Aces and
    Puurs at random, which is what makes random playouts a noisy judge of a
    position.
    """
    mask = legal_mask(row)
    length = row[TRICK_LEN]
    if (mask & (mask - 1)) == 0:
        return random_card(mask, rng)
    if randomness > 0.0 and (next_random(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0) < randomness:
        return random_card(mask, rng)
    if length == 0:
        if randomness < 0.0:
            return random_card(mask, rng)
        return greedy_lead(row, rng)
    trump = row[TRUMP]
    points = CARD_POINT_TABLE[trump]
    ranks = WIN_RANK_TABLE[trump, row[TRICK] // 9]
    top = row[TOP]
    top_rank = ranks[top]
    top_index = 0
    for index in range(length):
        if row[TRICK + index] == top:
            top_index = index
    partner_holds = (length - top_index) == 2  # the partner played two cards before us
    best_win, best_win_cost = -1, 1 << 30
    best_give, best_give_points = -1, -(1 << 30)
    best_low, best_low_cost = -1, 1 << 30
    remaining = mask
    while remaining:
        card = nth_card(remaining, 0)
        remaining &= remaining - 1
        rank = ranks[card]
        # Cost of giving a card up: its points, then its strength (keep high cards for later).
        cost = points[card] * 64 + (rank if rank >= 0 else 0)
        if rank > top_rank:
            if cost < best_win_cost:
                best_win, best_win_cost = card, cost
        else:
            if cost < best_low_cost:
                best_low, best_low_cost = card, cost
            give = points[card] * 64 - (rank if rank >= 0 else 0)
            if give > best_give_points:
                best_give, best_give_points = card, give
    if partner_holds:
        if best_low < 0:
            return best_win
        return best_give if length == 3 else best_low
    if best_win >= 0:
        return best_win
    return best_low


@njit(cache=True, nogil=True)
def finish_greedily(row: np.ndarray, rng: np.ndarray, randomness: float) -> None:
    """Play ``greedy_card`` until the round is over, in place."""
    while row[PLAYER] >= 0:
        play_card(row, greedy_card(row, rng, randomness))


@njit(cache=True, nogil=True)
def _playouts(rows: np.ndarray, rng: np.ndarray, randomness: float, trace: np.ndarray, record: bool) -> np.ndarray:
    count = rows.shape[0]
    scores = np.empty((count, 2), dtype=np.int64)
    for game in range(count):
        row = rows[game]
        step = 0
        while row[PLAYER] >= 0:
            card = random_card(legal_mask(row), rng) if randomness >= 1.0 else greedy_card(row, rng, randomness)
            if record:
                trace[game, step] = card
            play_card(row, card)
            step += 1
        scores[game, 0] = score(row, 0)
        scores[game, 1] = score(row, 1)
    return scores


@njit(cache=True, nogil=True)
def _deal_rows(count: int, rng: np.ndarray) -> np.ndarray:
    rows = np.zeros((count, ROW_SIZE), dtype=np.int64)
    deck = np.arange(36)
    for game in range(count):
        for index in range(35, 0, -1):  # Fisher-Yates
            other = random_below(rng, index + 1)
            deck[index], deck[other] = deck[other], deck[index]
        row = rows[game]
        for index in range(36):
            row[HANDS + index // 9] |= np.int64(1) << deck[index]
        forehand = random_below(rng, 4)
        row[TRUMP] = random_below(rng, 6)
        row[PLAYER] = forehand
        row[LEADER] = forehand
        row[TOP] = -1
    return rows


# -- batch API ---------------------------------------------------------------------


def random_rounds(count: int, seed: int) -> np.ndarray:
    """Return ``count`` fresh rounds: random deals, random forehand, random trump declared."""
    return _deal_rows(count, seed_state(seed))


def playouts(rows: np.ndarray, seed: int, randomness: float = 1.0, trace: np.ndarray | None = None) -> np.ndarray:
    """Finish every round of ``rows`` (shape ``(n, ROW_SIZE)``, changed in place); return the final scores.

    ``randomness`` 1 plays uniformly random legal cards; below 1 plays
    ``greedy_card`` with that share of random moves. Scores have shape
    ``(n, 2)``, match bonus included. With ``trace`` (shape ``(n, 36)``) each
    row's cards are recorded in the order played, so a test can replay them
    through the engine. Unchecked fast path.
    """
    record = trace is not None
    if trace is None:
        trace = np.empty((0, 0), dtype=np.int64)
    return _playouts(rows, seed_state(seed), randomness, trace, record)


def random_playouts(rows: np.ndarray, seed: int, trace: np.ndarray | None = None) -> np.ndarray:
    """Finish every round of ``rows`` with uniformly random legal cards (``playouts`` with randomness 1)."""
    return playouts(rows, seed, 1.0, trace)


def legal_masks(rows: np.ndarray) -> np.ndarray:
    """Return the legal mask of every row (0 for a finished round)."""
    return np.array([legal_mask(row) if row[PLAYER] >= 0 else 0 for row in rows], dtype=np.int64)
