"""Fair game mode (thesis §3.1): round pairs with the same deal for both teams.

Rounds come in pairs (r, r'). r' deals r's four hands again with the suits
permuted, and rotated so that each player of r' holds the (permuted) hand of the
player in the same position relative to forehand in r. Forehand passes to the
other team every round, so r and r' must lie an odd number of rounds apart.

A schedule is the thesis' list ``d``: ``d[i] == 0`` if round i+1 is an original,
``d[i] == t`` if it repeats round t (1-based, t < i+1).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import permutations

from .cards import SUITS, four, permute_mask
from .errors import InvalidConfigError

IDENTITY = (0, 1, 2, 3)
SUIT_PERMUTATIONS = tuple(four(p) for p in permutations(SUITS) if p != IDENTITY)


def random_schedule(round_count: int, rng: random.Random) -> list[int]:
    """Return a random valid schedule ``d`` for an even ``round_count``.

    Each team starts the same number of original rounds when ``round_count``
    is a multiple of 4; otherwise the number of originals (``round_count / 2``)
    is odd and one team, chosen at random, starts one more.

    >>> schedule = random_schedule(12, random.Random(1))
    >>> len(schedule), schedule.count(0)       # 0: an original deal, k: a repeat of round k
    (12, 6)
    """
    check_round_count(round_count)
    half = round_count // 2
    splits = [(half // 2, half // 2)]
    if half % 2:
        # One team starts one more original; try a random one first (with two rounds
        # only the team that starts round 1 can).
        splits = [(half // 2 + 1, half // 2), (half // 2, half // 2 + 1)]
        rng.shuffle(splits)
    for split in splits:
        schedule: list[int] = []
        if _extend(schedule, ([], []), list(split), round_count, rng):
            return schedule
    raise AssertionError(f"no valid schedule of {round_count} rounds")  # unreachable


def _extend(
    schedule: list[int],
    open_rounds: tuple[list[int], list[int]],
    originals: list[int],
    round_count: int,
    rng: random.Random,
) -> bool:
    """Fill ``schedule`` up to ``round_count`` rounds by randomized backtracking."""
    index = len(schedule)
    if index == round_count:
        return not open_rounds[0] and not open_rounds[1]
    parity = index % 2
    options: list[int] = [-1] * (originals[parity] > 0) + list(open_rounds[1 - parity])
    rng.shuffle(options)
    for option in options:
        if option == -1:
            originals[parity] -= 1
            open_rounds[parity].append(index)
            schedule.append(0)
        else:
            open_rounds[1 - parity].remove(option)
            schedule.append(option + 1)
        if _extend(schedule, open_rounds, originals, round_count, rng):
            return True
        schedule.pop()
        if option == -1:
            originals[parity] += 1
            open_rounds[parity].remove(index)
        else:
            open_rounds[1 - parity].append(option)
    return False


def check_round_count(round_count: object) -> int:
    """Return ``round_count`` if it is a valid fair-mode length (even, 2..48)."""
    if type(round_count) is not int or round_count < 2 or round_count > 48 or round_count % 2:
        raise InvalidConfigError(f"a fair game has an even number of rounds from 2 to 48, got {round_count!r}")
    return round_count


def check_schedule(schedule: Sequence[int]) -> list[tuple[int, int]]:
    """Validate a schedule ``d`` and return its round pairs as 0-based (original, repeat) indices."""
    n = len(schedule)
    check_round_count(n)
    pairs = []
    repeated: set[int] = set()
    for i, x in enumerate(schedule):
        if type(x) is not int or not 0 <= x <= i:
            raise InvalidConfigError(f"schedule entry {i + 1} must be 0 or an earlier round, got {x!r}")
        if x == 0:
            continue
        t = x - 1
        if schedule[t] != 0:
            raise InvalidConfigError(f"round {i + 1} repeats round {x}, which is itself a repeat")
        if t in repeated:
            raise InvalidConfigError(f"round {x} is repeated twice")
        if (i - t) % 2 == 0:
            raise InvalidConfigError(f"rounds {x} and {i + 1} are started by the same team")
        repeated.add(t)
        pairs.append((t, i))
    originals = [i for i, x in enumerate(schedule) if x == 0]
    if len(originals) != n // 2 or repeated != set(originals):
        raise InvalidConfigError(f"every round must belong to exactly one pair: {list(schedule)!r}")
    by_team = [sum(1 for i in originals if i % 2 == p) for p in (0, 1)]
    if abs(by_team[0] - by_team[1]) > (n // 2) % 2:
        raise InvalidConfigError(f"the teams start {by_team[0]} and {by_team[1]} original rounds")
    return sorted(pairs)


def random_deal(rng: random.Random) -> tuple[int, int, int, int]:
    """Shuffle the deck and return four hands of nine cards as masks."""
    deck = list(range(36))
    rng.shuffle(deck)
    hands = []
    for seat in range(4):
        mask = 0
        for card in deck[9 * seat : 9 * seat + 9]:
            mask |= 1 << card
        hands.append(mask)
    return four(hands)


def repeat_hands(
    hands: Sequence[int], original_forehand: int, forehand: int, permutation: Sequence[int]
) -> tuple[int, int, int, int]:
    """Deal an original round's hands again, suits permuted, rotated to a new forehand.

    The player ``k`` places after the new forehand (in play order) receives the
    permuted hand of the player ``k`` places after the original forehand.
    """
    result = [0, 0, 0, 0]
    for k in range(4):
        result[(forehand - k) % 4] = permute_mask(hands[(original_forehand - k) % 4], four(permutation))
    return four(result)
