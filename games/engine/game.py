"""A game (match) of Schieber: configuration, deals from one seed, rounds and scores.

A game is its configuration plus the ordered list of ``(seat, action)``; the
deals follow from the seed, and scores, trick winners and whose turn it is are
derived by replaying the actions (``GameState.replay``).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from .cards import SEAT_NAMES, TRUMPS, next_seat, team_of
from .errors import IllegalActionError, IllegalReason, InvalidActionError, InvalidConfigError
from .fair import (
    IDENTITY,
    SUIT_PERMUTATIONS,
    check_round_count,
    check_schedule,
    random_deal,
    random_schedule,
    repeat_hands,
)
from .round import Action, Observation, RoundState
from .rules import MATCH_BONUS, MULTIPLIER_PRESETS
from .weis import STOECK_POINTS

STANDARD = "standard"
FAIR = "fair"
MODES = (STANDARD, FAIR)
MAX_TARGET = 100_000


@dataclass(frozen=True, slots=True)
class GameConfig:
    """The options that fix a game: mode, length, multipliers and the seed of every deal."""

    mode: str = STANDARD
    target: int = 1000  # standard mode: points to win
    round_count: int = 12  # fair mode: number of rounds (even)
    multipliers: tuple[int, ...] | None = None  # six factors, per trump 0..5 (checked below); None = off
    seed: int = 0
    weis: bool = False  # Weis and Stöck (docs/rules.md): off keeps the game exactly the HSLU one

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise InvalidConfigError(f"mode must be 'standard' or 'fair', got {self.mode!r}")
        if self.mode == STANDARD and (type(self.target) is not int or not 1 <= self.target <= MAX_TARGET):
            raise InvalidConfigError(f"target must be an integer from 1 to {MAX_TARGET}, got {self.target!r}")
        if self.mode == FAIR:
            check_round_count(self.round_count)
        if self.multipliers is not None:
            m = self.multipliers
            if not isinstance(m, tuple) or len(m) != 6 or any(type(x) is not int or not 1 <= x <= 10 for x in m):
                raise InvalidConfigError(f"multipliers must be six integers 1..10 (D H S C O U), got {m!r}")
        if type(self.seed) is not int or self.seed < 0:
            raise InvalidConfigError(f"seed must be a non-negative integer, got {self.seed!r}")
        if type(self.weis) is not bool:
            raise InvalidConfigError(f"weis must be True or False, got {self.weis!r}")

    @staticmethod
    def multipliers_from(value: str | Mapping[int | str, int] | None) -> tuple[int, ...] | None:
        """Read multipliers from a preset name (``"classic"``) or a ``{trump: factor}`` mapping.

        >>> GameConfig.multipliers_from("classic"), GameConfig.multipliers_from({4: 3})
        ((1, 1, 2, 2, 3, 3), (1, 1, 1, 1, 3, 1))
        """
        if value is None or value == "off":
            return None
        if isinstance(value, str):
            try:
                return MULTIPLIER_PRESETS[value]
            except KeyError:
                raise InvalidConfigError(f"unknown multiplier preset: {value!r}") from None
        factors = [1] * 6
        for key, factor in value.items():
            try:
                trump = int(key)
            except (TypeError, ValueError):
                raise InvalidConfigError(f"multiplier key must be a trump 0..5, got {key!r}") from None
            if trump not in TRUMPS:
                raise InvalidConfigError(f"multiplier key must be a trump 0..5, got {key!r}")
            factors[trump] = factor
        return tuple(factors)

    def multiplier(self, trump: int) -> int:
        return 1 if self.multipliers is None else self.multipliers[trump]


@dataclass(frozen=True, slots=True)
class Deal:
    """The cards of one round: who deals, the four hands, and for fair pairs what it repeats."""

    index: int  # 0-based round number
    dealer: int
    hands: tuple[int, int, int, int]
    repeats: int | None = None  # 0-based index of the original round, for a repeated round
    permutation: tuple[int, int, int, int] = IDENTITY  # suit -> suit applied to the original

    @property
    def forehand(self) -> int:
        return next_seat(self.dealer)


def _rng(seed: int, *labels: object) -> random.Random:
    # A string seed is hashed with SHA-512: the same stream on every platform and version.
    return random.Random(":".join(["jassweb", str(seed), *map(str, labels)]))


class GamePlan:
    """The deals of a game: drawn from ``config.seed``, or given (a stored or imported game).

    Deals already known (``known_deals``) are used as they are; any later round
    is drawn from the seed. For fair games the schedule is drawn from the seed
    unless given. The first dealer is drawn from the seed too, unless given
    (``first_dealer``: a game played again, where the deal moves on).
    """

    __slots__ = ("_deals", "config", "first_dealer", "schedule")

    def __init__(
        self,
        config: GameConfig,
        *,
        schedule: Sequence[int] | None = None,
        known_deals: Sequence[Deal] = (),
        first_dealer: int | None = None,
    ) -> None:
        self.config = config
        if first_dealer is not None and first_dealer not in range(4):
            raise InvalidConfigError(f"the first dealer is a seat 0..3, got {first_dealer!r}")
        if known_deals:
            self.first_dealer = known_deals[0].dealer
        else:
            self.first_dealer = _rng(config.seed, "dealer").randrange(4) if first_dealer is None else first_dealer
        if config.mode == FAIR:
            if schedule is None:
                schedule = random_schedule(config.round_count, _rng(config.seed, "schedule"))
            elif len(schedule) != config.round_count:
                raise InvalidConfigError(f"the schedule has {len(schedule)} rounds, the game {config.round_count}")
            check_schedule(schedule)
            self.schedule: tuple[int, ...] | None = tuple(schedule)
        else:
            if schedule is not None:
                raise InvalidConfigError("only fair games have a schedule")
            self.schedule = None
        self._deals: dict[int, Deal] = {}
        for index, deal in enumerate(known_deals):
            if deal.index != index or deal.dealer != self.dealer(index):
                raise InvalidConfigError(f"deal {index + 1} is out of order or has the wrong dealer")
            self._deals[index] = deal

    def dealer(self, index: int) -> int:
        """The dealer of round ``index`` (0-based): it moves on one seat every round."""
        return (self.first_dealer - index) % 4

    def deal(self, index: int) -> Deal:
        """Return the deal of round ``index`` (0-based)."""
        if index < 0 or (self.schedule is not None and index >= len(self.schedule)):
            raise InvalidConfigError(f"no round {index + 1} in this game")
        cached = self._deals.get(index)
        if cached is not None:
            return cached
        dealer = self.dealer(index)
        if self.schedule is None or self.schedule[index] == 0:
            deal = Deal(index, dealer, random_deal(_rng(self.config.seed, "deal", index)))
        else:
            original = self.deal(self.schedule[index] - 1)
            permutation = _rng(self.config.seed, "permutation", index).choice(SUIT_PERMUTATIONS)
            hands = repeat_hands(original.hands, original.forehand, next_seat(dealer), permutation)
            deal = Deal(index, dealer, hands, original.index, permutation)
        self._deals[index] = deal
        return deal

    def pairs(self) -> list[tuple[int, int]]:
        """Fair mode: the (original, repeat) round pairs, 0-based; empty in standard mode."""
        if self.schedule is None:
            return []
        return [(x - 1, i) for i, x in enumerate(self.schedule) if x]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GamePlan):
            return NotImplemented
        return (self.config, self.first_dealer, self.schedule) == (other.config, other.first_dealer, other.schedule)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"GamePlan({self.config!r}, first_dealer={self.first_dealer}, schedule={self.schedule})"


@dataclass(frozen=True, slots=True)
class GameState:
    """A game in progress or finished: every round so far and the credited scores. Immutable."""

    config: GameConfig
    plan: GamePlan
    rounds: tuple[RoundState, ...]  # every round so far; the last one may be in progress
    scores: tuple[int, int]  # credited points, multipliers and match bonuses included
    over: bool = False
    winner: int | None = None  # team 0 (North/South) or 1 (East/West); None while running or on a draw

    @classmethod
    def new(cls, config: GameConfig, plan: GamePlan | None = None) -> GameState:
        """Start a game: deal the first round (from ``plan``, or from the seed).

        >>> GameState.new(GameConfig(mode="standard", target=1000, seed=7))
        <GameState standard round 1, scores 0:0, ... to move>
        """
        if plan is None:
            plan = GamePlan(config)
        elif plan.config != config:
            raise InvalidConfigError(f"the plan is for {plan.config!r}, not {config!r}")
        first = plan.deal(0)
        return cls(config, plan, (RoundState.deal(first.hands, first.dealer, config.weis),), (0, 0))

    @classmethod
    def replay(
        cls, config: GameConfig, actions: Iterable[tuple[int, Action]], plan: GamePlan | None = None
    ) -> GameState:
        """Rebuild a game from its configuration (or plan) and its ``(seat, action)`` list, checking each."""
        state = cls.new(config, plan)
        for seat, action in actions:
            state = state.apply(seat, action)
        return state

    @property
    def current(self) -> RoundState:
        """The round being played (after the game ends: the last round played)."""
        return self.rounds[-1]

    @property
    def round_index(self) -> int:
        return len(self.rounds) - 1

    @property
    def player(self) -> int:
        """The seat to act, or -1 once the game is over."""
        return -1 if self.over else self.current.player

    def apply(self, seat: int, action: Action) -> GameState:
        """Return the game after ``seat`` takes ``action``; raise ``IllegalActionError`` if not allowed."""
        if self.over:
            raise IllegalActionError(
                f"illegal {action!r} by {_seat_name(seat)}: the game is over",
                reason=IllegalReason.GAME_OVER,
                seat=seat if seat in range(4) else None,
            )
        before = self.current
        after = before.apply(action, seat)
        return self._advance(before, after)

    def _advance(self, before: RoundState, after: RoundState) -> GameState:
        rounds = self.rounds[:-1] + (after,)
        credits = self._credits(before, after)
        if not credits:
            return GameState(self.config, self.plan, rounds, self.scores)
        scores = self.scores
        for team, points in credits:
            # Credited one at a time, in the order of the rules (Stöck, Weis, the trick): a standard
            # game ends at the first credit that takes a team to the target.
            scores = (scores[0] + points, scores[1]) if team == 0 else (scores[0], scores[1] + points)
            if self.config.mode == STANDARD and scores[team] >= self.config.target:
                return GameState(self.config, self.plan, rounds, scores, True, team)
        if not after.is_over:
            return GameState(self.config, self.plan, rounds, scores)
        if self.config.mode == FAIR and len(rounds) == self.config.round_count:
            winner = None if scores[0] == scores[1] else (0 if scores[0] > scores[1] else 1)
            return GameState(self.config, self.plan, rounds, scores, True, winner)
        deal = self.plan.deal(len(rounds))
        next_round = RoundState.deal(deal.hands, deal.dealer, self.config.weis)
        return GameState(self.config, self.plan, rounds + (next_round,), scores)

    def _credits(self, before: RoundState, after: RoundState) -> list[tuple[int, int]]:
        """What a move credits, in order, as (team, points): Stöck when announced; with the first
        trick its Weis; with each trick its points (and a match bonus with the ninth)."""
        credits = []
        factor = self.config.multiplier(after.trump) if after.trump >= 0 else 1
        if after.stoeck >= 0 and before.stoeck < 0:
            credits.append((team_of(after.stoeck), STOECK_POINTS * factor))
        if len(after.tricks) == len(before.tricks):
            return credits
        if len(after.tricks) == 1 and after.weis_team >= 0:
            credits.append((after.weis_team, sum(after.weis_points()) * factor))
        trick = after.tricks[-1]
        won = trick.points + (MATCH_BONUS if after.is_match else 0)
        credits.append((team_of(trick.winner), won * factor))
        return credits

    def round_scores(self) -> list[tuple[int, int]]:
        """The points each round credited to each team (multipliers, match bonus, Weis and Stöck included).

        A standard game that ended within a round (at the target) credited that round only up to the
        moment it ended: its last entry is what was credited, not the whole round.
        """
        result = []
        for rnd in self.rounds:
            factor = self.config.multiplier(rnd.trump) if rnd.trump >= 0 else 1
            a, b = rnd.score()
            result.append((a * factor, b * factor))
        if self.over and self.config.mode == STANDARD and result:
            before = (sum(r[0] for r in result[:-1]), sum(r[1] for r in result[:-1]))
            result[-1] = (self.scores[0] - before[0], self.scores[1] - before[1])
        return result

    def actions(self) -> list[tuple[int, Action]]:
        """Return every ``(seat, action)`` of the game in order."""
        result = []
        for rnd in self.rounds:
            result.extend(rnd.seated_actions())
        return result

    def deal(self, index: int) -> Deal:
        return self.plan.deal(index)

    def observation(self, seat: int | None) -> Observation:
        """What ``seat`` (or a spectator, for ``None``) may know of the current round."""
        return self.current.observation(seat)

    def round_point_advantages(self) -> dict[int, int]:
        """Fair mode: RPA (thesis def. 3.3) of every round of each completed pair, by 0-based index.

        RPA(r1) = points of r1's starting team in r1 - points of r2's starting team in r2.
        """
        scores = self.round_scores()
        result = {}
        for first, second in self.plan.pairs():
            if second >= len(self.rounds) or not self.rounds[second].is_over:
                continue
            start1 = team_of(self.rounds[first].forehand_seat)
            start2 = team_of(self.rounds[second].forehand_seat)
            rpa = scores[first][start1] - scores[second][start2]
            result[first], result[second] = rpa, -rpa
        return result

    def __repr__(self) -> str:
        status = "over" if self.over else f"{SEAT_NAMES[self.player]} to move"
        return (
            f"<GameState {self.config.mode} round {self.round_index + 1}, "
            f"scores {self.scores[0]}:{self.scores[1]}, {status}>"
        )


def _seat_name(seat: object) -> str:
    if type(seat) is int and 0 <= seat < 4:
        return SEAT_NAMES[seat]
    raise InvalidActionError(f"not a seat (0-3): {seat!r}")
