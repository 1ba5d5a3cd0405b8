"""The arena: two teams of bots play many games; duplicate (fair-mode) statistics say who is better.

A team is a built-in bot name (``mcts-fast``, ``rules``, …) or an HSLU bot URL,
and plays both seats of its side. Games run in worker processes straight on the
engine (no database); each yields a ``GameOutcome`` with the moves, points,
per-round advantage, think times and remote-bot faults. ``--store`` turns the
outcomes into game records and imports them, so they appear in the history and
the replay like any other game.

Statistics. In fair mode every deal is played by both teams (round pairs), so
the unit of evidence is a pair of rounds: its mean advantage cancels the luck
of the deal. The mean point advantage per round gets a 95% interval from the
pairs (Student's t); in standard mode from the rounds. The win rate gets a
Wilson 95% interval (draws count as not won).
"""

from __future__ import annotations

import asyncio
import math
import statistics
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from games.engine import FAIR, STANDARD, Action, GameConfig, GamePlan, GameState

if TYPE_CHECKING:
    import httpx

    from bots.runner import BotPlayer, BotTurn
    from games.live.service import BotReport

URL_PREFIXES = ("http://", "https://")


def is_url(spec: str) -> bool:
    return spec.startswith(URL_PREFIXES)


@dataclass(frozen=True)
class ArenaGame:
    """What a worker needs to play one game."""

    index: int
    team_a: str
    team_b: str
    a_side: int  # 0: team A sits North/South; 1: East/West
    config: GameConfig
    time_per_move: float | None  # built-in bots' time cap; remote bots' answer timeout
    dialect: str = "auto"


@dataclass
class GameOutcome:
    """One finished game, from team A's side."""

    index: int
    a_side: int
    seed: int
    points: tuple[int, int]  # per team, North/South first
    winner: int | None  # team 0/1, None on a draw
    advantages: list[int]  # per round: A's points minus B's
    pairs: list[tuple[int, int]]  # fair mode: (original, repeat) round indexes
    moves: list[tuple[int, int]]  # (seat, action code) in order
    think_ms: list[float]  # per move
    faults: list[dict[str, Any]] = field(default_factory=list)  # remote bots: seat, round, trick, move, kind, detail

    @property
    def a_result(self) -> str:
        if self.winner is None:
            return "draw"
        return "win" if self.winner == self.a_side else "loss"


class _Seat:
    """One seat's player in a worker: a built-in bot, or a remote bot over HTTP."""

    def __init__(self, spec: str, time_per_move: float | None, dialect: str) -> None:
        self.spec = spec
        self.timeout = time_per_move or 5.0
        self.dialect = dialect
        if is_url(spec):
            self.bot = None
        else:
            from bots.registry import get_bot

            self.bot = get_bot(spec)
            if time_per_move is not None and hasattr(self.bot, "time_cap"):
                self.bot.time_cap = time_per_move


class EngineGame:
    """An arena game for the bot driver's turn loop (``bots.runner.drive``): straight on the engine, no database."""

    def __init__(self, game: ArenaGame, client: httpx.AsyncClient) -> None:
        from games.hslu import jass_type

        config = game.config
        self.game = game
        self.client = client
        self.state = GameState.new(config, GamePlan(config))
        specs = [game.team_a if seat % 2 == game.a_side else game.team_b for seat in range(4)]
        self.seats = [_Seat(spec, game.time_per_move, game.dialect) for spec in specs]
        self.rng = np.random.default_rng([config.seed, game.index])  # one stream for the game: a seed replays it
        self.jass_typ = jass_type(config.mode, config.target if config.mode == STANDARD else None)
        self.moves: list[tuple[int, int]] = []
        self.think_ms: list[float] = []
        self.faults: list[dict[str, Any]] = []
        self._asked = 0.0

    @property
    def finished(self) -> bool:
        return self.state.over

    def next_turn(self) -> BotTurn:
        from bots.runner import BotTurn

        seat = self.state.player
        player = self.seats[seat]
        self._asked = time.perf_counter()
        return BotTurn(
            game_id=self.game.index,
            seq=len(self.moves),
            seat=seat,
            round_index=self.state.round_index,
            observation=self.state.observation(seat),
            seed=self.game.config.seed,
            delay=0.0,
            bot=player.spec if player.bot is not None else "",
            remote_url=player.spec if player.bot is None else "",
            dialect=player.dialect,
            timeout=player.timeout,
            jass_typ=self.jass_typ,
        )

    async def commit(self, turn: BotTurn, action: Action, report: BotReport) -> None:
        from bots import remote

        self.think_ms.append((time.perf_counter() - self._asked) * 1000)
        seat = turn.seat
        if report.dialect:
            self.seats[seat].dialect = report.dialect
        if report.fault_kind:
            self.faults.append(
                {
                    "seat": seat,
                    "round": self.state.round_index,
                    "trick": len(self.state.current.tricks),
                    "move": len(self.moves),
                    "kind": report.fault_kind,
                    "detail": report.fault_detail,
                    "latency_ms": report.latency_ms,
                }
            )
        self.moves.append((seat, action.code))
        round_index = self.state.round_index
        self.state = self.state.apply(seat, action)
        finished = self.state.rounds[round_index]
        if finished.is_over and any(s.bot is None for s in self.seats):
            for other, informed in enumerate(self.seats):
                if informed.bot is None:
                    fault = await remote.send_game_info(
                        self.client,
                        informed.spec,
                        informed.dialect,
                        finished.observation(other),
                        self.jass_typ,
                        informed.timeout,
                    )
                    if fault is not None:
                        self.faults.append(
                            {
                                "seat": other,
                                "round": round_index,
                                "trick": None,
                                "move": None,
                                "kind": fault.kind,
                                "detail": fault.detail,
                                "latency_ms": 0,
                            }
                        )

    async def hold(self, turn: object) -> None:
        """Nothing to wait for: arena turns never pause for a round summary (``BotTurn.pause`` is 0)."""

    def outcome(self) -> GameOutcome:
        state, game = self.state, self.game
        scores = state.round_scores()
        return GameOutcome(
            index=game.index,
            a_side=game.a_side,
            seed=game.config.seed,
            points=state.scores,
            winner=state.winner,
            advantages=[s[game.a_side] - s[1 - game.a_side] for s in scores],
            pairs=state.plan.pairs(),
            moves=self.moves,
            think_ms=self.think_ms,
            faults=self.faults,
        )


def _arena_player(game: EngineGame) -> BotPlayer:
    """The bot driver's player for an arena game: the seat's own bot instance and the game's one random stream
    (so that a seed replays a match exactly), remote bots over HTTP like everywhere."""
    from bots import remote
    from bots.runner import BotPlayer
    from games.live.service import BotReport

    class ArenaPlayer(BotPlayer):
        async def move(self, turn: BotTurn, asked: float | None = None) -> tuple[Action, BotReport]:
            seat = game.seats[turn.seat]
            if seat.bot is not None:
                return seat.bot.act(turn.observation, game.rng), BotReport()
            answer = await remote.ask_bot(
                self.client, turn.remote_url, turn.dialect, turn.observation, turn.jass_typ, turn.timeout, game.rng
            )
            fault = answer.fault
            return answer.action, BotReport(
                latency_ms=round(answer.latency * 1000),
                dialect=answer.dialect if answer.dialect_confirmed else None,
                fault_kind=fault.kind if fault else None,
                fault_detail=fault.detail if fault else "",
            )

    return ArenaPlayer(game.client)


async def _play(game: ArenaGame) -> GameOutcome:
    from bots import remote
    from bots.runner import drive

    # The one client for bot traffic (no proxies from the environment; each request's own timeout,
    # up to remote.MAX_TIMEOUT, not httpx's default 5 s, which cut off any longer --time-per-move).
    async with remote.new_client() as client:
        engine_game = EngineGame(game, client)
        await drive(engine_game, _arena_player(engine_game))
    return engine_game.outcome()


def play_game(game: ArenaGame) -> GameOutcome:
    """Play one arena game to its end (run it in a worker process)."""
    return asyncio.run(_play(game))


def schedule(
    team_a: str,
    team_b: str,
    games: int,
    *,
    mode: str = FAIR,
    rounds: int = 12,
    target: int = 1000,
    seed: int = 1,
    time_per_move: float | None = None,
    dialect: str = "auto",
    weis: bool = False,
) -> list[ArenaGame]:
    """The games of a match. Team A sits North/South in even games and East/West in odd ones."""
    return [
        ArenaGame(
            index=i,
            team_a=team_a,
            team_b=team_b,
            a_side=i % 2,
            config=GameConfig(mode=mode, target=target, round_count=rounds, seed=seed * 100_003 + i, weis=weis),
            time_per_move=time_per_move,
            dialect=dialect,
        )
        for i in range(games)
    ]


# -- statistics ------------------------------------------------------------------------------


def wilson(successes: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% by default)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    centre = p + z * z / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    denominator = 1 + z * z / n
    return (max(0.0, (centre - spread) / denominator), min(1.0, (centre + spread) / denominator))


T_975 = (  # Student's t 97.5% quantiles for 1..30 degrees of freedom
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip


def t_quantile_975(df: int) -> float:
    """Student's t 97.5% quantile (two-sided 95%): a table to 30, the Cornish-Fisher expansion beyond."""
    if df <= 0:
        return math.inf
    if df <= len(T_975):
        return T_975[df - 1]
    z = 1.959964
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    return z + g1 / df + g2 / df**2 + g3 / df**3


def mean_interval(values: list[float]) -> tuple[float, float, float]:
    """(mean, low, high): the mean with its 95% t interval."""
    n = len(values)
    if n == 0:
        return (0.0, 0.0, 0.0)
    mean = statistics.fmean(values)
    if n == 1:
        return (mean, -math.inf, math.inf)
    half = t_quantile_975(n - 1) * statistics.stdev(values) / math.sqrt(n)
    return (mean, mean - half, mean + half)


def p95(values: list[float]) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return float(ordered[min(len(ordered) - 1, math.ceil(0.95 * len(ordered)) - 1)])


@dataclass
class Summary:
    """The match so far, from team A's side."""

    team_a: str
    team_b: str
    outcomes: list[GameOutcome] = field(default_factory=list)

    def add(self, outcome: GameOutcome) -> None:
        self.outcomes.append(outcome)

    @property
    def games(self) -> int:
        return len(self.outcomes)

    def count(self, result: str) -> int:
        return sum(1 for o in self.outcomes if o.a_result == result)

    def units(self) -> list[float]:
        """Independent advantage samples: per fair pair (its mean), else per round."""
        units: list[float] = []
        for o in self.outcomes:
            if o.pairs:
                units += [(o.advantages[a] + o.advantages[b]) / 2 for a, b in o.pairs if b < len(o.advantages)]
            else:
                units += [float(x) for x in o.advantages]
        return units

    def rounds(self) -> int:
        return sum(len(o.advantages) for o in self.outcomes)

    def advantage(self) -> tuple[float, float, float]:
        """Mean point advantage per round and its 95% interval (fair pairs' means average to the same mean)."""
        return mean_interval(self.units())

    def times(self, team_a: bool) -> list[float]:
        result = []
        for o in self.outcomes:
            side = o.a_side if team_a else 1 - o.a_side
            result += [ms for (seat, _), ms in zip(o.moves, o.think_ms, strict=True) if seat % 2 == side]
        return result

    def faults(self, team_a: bool) -> int:
        return sum(1 for o in self.outcomes for f in o.faults if (f["seat"] % 2 == o.a_side) == team_a)

    def running_line(self) -> str:
        mean = self.advantage()[0] if self.outcomes else 0.0
        return (
            f"{self.team_a} {self.count('win')} : {self.count('loss')} {self.team_b}"
            f" ({self.count('draw')} drawn) · advantage {mean:+.1f}/round"
        )

    def final_line(self) -> str:
        n = self.games
        wins = self.count("win")
        low, high = wilson(wins, n)
        mean = self.advantage()[0]
        return (
            f"{self.team_a} vs {self.team_b}: {self.team_a} won {wins} of {n} games "
            f"(win rate {wins / n:.1%}, 95% CI [{low:.1%}, {high:.1%}]), "
            f"mean point advantage {mean:+.1f} per round"
        )
