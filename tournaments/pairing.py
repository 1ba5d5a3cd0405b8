"""Pairings and standings of a tournament as plain data: round robin, the Swiss system, tie-breaks.

A pure module (no Django, no I/O, no clock): the tournament service feeds it the
entrants and the results so far and stores what it answers. Teams are known by
their keys (ints, in registration order); every choice that is not decided by
the results is decided by that order or by the tournament's seed, so the same
tournament pairs and ranks the same way wherever and whenever it is computed.

Scoring (``MatchResult``): a match is won by the team with more points over its
games (2 match points), drawn on equal points (1 each), lost otherwise (0).
Tie-breaks, in order: the total point advantage, then (Swiss) the Buchholz
score (the match points of every opponent met, summed), then registration order.
A bye (Swiss, odd number of teams) is a won match with no point advantage; a
forfeit is a loss for the team that did not show and a win for the other, with
no point advantage either (the points of a game that did not happen mean nothing).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

WIN, DRAW, LOSS = 2, 1, 0  # match points


@dataclass(frozen=True)
class Pairing:
    """Two teams that meet in a round (``b`` None: ``a`` has the bye)."""

    a: int
    b: int | None


@dataclass(frozen=True)
class MatchResult:
    """How a match between ``a`` and ``b`` ended (``b`` None: a bye for ``a``).

    ``points``: each team's points over the match's games. ``forfeited``: the teams that
    did not show (one or both). ``agreed_draw``: a game abandoned by agreement.
    """

    a: int
    b: int | None
    points: tuple[int, int] = (0, 0)
    forfeited: frozenset[int] = frozenset()
    agreed_draw: bool = False

    def match_points(self, team: int) -> int:
        """The match points ``team`` (``a`` or ``b``) earned in this match."""
        if self.b is None:
            return WIN
        if self.forfeited:
            return LOSS if team in self.forfeited else WIN
        if self.agreed_draw:
            return DRAW
        mine, theirs = self.points if team == self.a else self.points[::-1]
        return WIN if mine > theirs else DRAW if mine == theirs else LOSS

    def advantage(self, team: int) -> int:
        """``team``'s points minus its opponent's (0 for a bye, a forfeit or an agreed draw)."""
        if self.b is None or self.forfeited or self.agreed_draw:
            return 0
        return self.points[0] - self.points[1] if team == self.a else self.points[1] - self.points[0]

    def opponent(self, team: int) -> int | None:
        return self.b if team == self.a else self.a


@dataclass
class Standing:
    """One team's line in the standings."""

    team: int
    played: int = 0
    won: int = 0
    drawn: int = 0
    lost: int = 0
    match_points: int = 0
    point_advantage: int = 0
    buchholz: int = 0
    opponents: list[int] = field(default_factory=list)


def standings(teams: Sequence[int], results: Iterable[MatchResult], *, buchholz: bool) -> list[Standing]:
    """The teams ranked by match points, point advantage, (``buchholz``) Buchholz, then their order in ``teams``."""
    lines = {team: Standing(team) for team in teams}
    for result in results:
        for team in (result.a, result.b):
            if team is None or team not in lines:
                continue
            line = lines[team]
            earned = result.match_points(team)
            line.played += 1
            line.won += earned == WIN
            line.drawn += earned == DRAW
            line.lost += earned == LOSS
            line.match_points += earned
            line.point_advantage += result.advantage(team)
            opponent = result.opponent(team)
            if opponent is not None:
                line.opponents.append(opponent)
    if buchholz:
        for line in lines.values():
            line.buchholz = sum(lines[o].match_points for o in line.opponents if o in lines)
    order = {team: index for index, team in enumerate(teams)}
    return sorted(
        lines.values(),
        key=lambda s: (-s.match_points, -s.point_advantage, -(s.buchholz if buchholz else 0), order[s.team]),
    )


# -- round robin -----------------------------------------------------------------------------------


def round_robin(teams: Sequence[int]) -> list[list[Pairing]]:
    """Every team meets every other once: the circle method, one list of pairings per round.

    With an odd number of teams one team rests each round (it is not paired: a round robin
    gives no points for resting, since every team rests once). Seats alternate, so each team
    is ``a`` about as often as ``b``.
    """
    ring: list[int | None] = list(teams)
    if len(ring) < 2:
        return []
    if len(ring) % 2:
        ring.append(None)
    n = len(ring)
    rounds: list[list[Pairing]] = []
    for r in range(n - 1):
        pairs: list[Pairing] = []
        for i in range(n // 2):
            first, second = ring[i], ring[n - 1 - i]
            if first is None or second is None:
                continue
            if (i == 0 and r % 2) or (i > 0 and i % 2):
                first, second = second, first
            pairs.append(Pairing(first, second))
        rounds.append(pairs)
        ring = [ring[0], ring[-1], *ring[1:-1]]  # the first stays, the others turn by one
    return rounds


def round_robin_rounds(count: int) -> int:
    """How many rounds a round robin of ``count`` teams takes."""
    return 0 if count < 2 else count - 1 if count % 2 == 0 else count


# -- Swiss system ----------------------------------------------------------------------------------


def first_order(teams: Sequence[int], seed: int) -> list[int]:
    """The order of the teams before any result: shuffled by the tournament's seed (round 1 pairs neighbours)."""
    order = list(teams)
    random.Random(seed).shuffle(order)
    return order


def swiss_round(ranking: Sequence[int], met: set[frozenset[int]], byes: set[int]) -> list[Pairing]:
    """The next Swiss round: ``ranking`` best first; teams that ``met`` are not paired again if it can be helped.

    With an odd number of teams the lowest-ranked team without a bye yet gets one (the
    lowest-ranked team when all had one). The rest are paired from the top, each team with
    the best-ranked team it has not met such that the others can still be paired too; only
    when no such pairing exists are teams that met paired again (fewest repeats, best first).
    """
    pool = list(ranking)
    pairings: list[Pairing] = []
    if len(pool) % 2:
        resting = next((t for t in reversed(pool) if t not in byes), pool[-1])
        pool.remove(resting)
        bye = Pairing(resting, None)
    else:
        bye = None
    for allowed_repeats in range(len(pool) // 2 + 1):
        found = _pair(pool, met, allowed_repeats, budget=[20_000])
        if found is not None:
            pairings = found
            break
    else:  # unreachable: with every repeat allowed, neighbours pair
        pairings = [Pairing(pool[i], pool[i + 1]) for i in range(0, len(pool), 2)]
    return [*pairings, *([bye] if bye else [])]


def _pair(pool: list[int], met: set[frozenset[int]], repeats: int, budget: list[int]) -> list[Pairing] | None:
    """Pair ``pool`` (ranked) top-down with at most ``repeats`` rematches; None if impossible within the budget."""
    if not pool:
        return []
    budget[0] -= 1
    if budget[0] < 0:
        return None
    top, rest = pool[0], pool[1:]
    for index, other in enumerate(rest):
        repeat = frozenset((top, other)) in met
        if repeat and repeats == 0:
            continue
        tail = _pair(rest[:index] + rest[index + 1 :], met, repeats - repeat, budget)
        if tail is not None:
            return [Pairing(top, other), *tail]
    return None
