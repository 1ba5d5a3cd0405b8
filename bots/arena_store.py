"""Store arena games: each outcome becomes a game record, imported like any other (history, replay)."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from bots.arena import ArenaGame, GameOutcome, is_url
from games.catalogue import SeatKind
from games.engine import FAIR, Action, GamePlan, GameState
from games.hslu import encode_round
from games.live.states import load as load_state
from games.models import Action as ActionRow
from games.models import Game
from games.records import TRUMP_KEYS, import_record, weis_record
from games.summaries import rows as summaries


def outcome_record(outcome: GameOutcome, game: ArenaGame) -> dict[str, Any]:
    """The arena game as the document ``exportgame`` writes (every card is checked again on import)."""
    config = game.config
    state = GameState.replay(config, ((seat, Action.from_code(code)) for seat, code in outcome.moves), GamePlan(config))
    seats = []
    for position in range(4):
        spec = game.team_a if position % 2 == game.a_side else game.team_b
        entry: dict[str, Any] = {"position": position, "name": spec[:60]}
        if is_url(spec):
            entry |= {"kind": SeatKind.REMOTE, "bot": None, "url": spec, "dialect": game.dialect}
        else:
            entry |= {"kind": SeatKind.BOT, "bot": spec}
        seats.append(entry)
    record: dict[str, Any] = {"mode": config.mode, "seed": config.seed}
    if config.mode == FAIR:
        record["round_count"] = config.round_count
        record["fair_schedule"] = list(state.plan.schedule or ())
    else:
        record["target"] = config.target
    if config.multipliers:
        record["multipliers"] = dict(zip(TRUMP_KEYS, config.multipliers, strict=True))
    record |= {
        "points": list(state.scores),
        "winner": state.winner,
        "status": "finished",
        "seats": seats,
        "faults": outcome.faults,
        "rounds": [encode_round(rnd) for rnd in state.rounds],
    }
    if config.weis:
        record |= weis_record(state)
    return record


def store_outcome(outcome: GameOutcome, game: ArenaGame, *, rated: bool = False) -> Game:
    """Import the arena game and keep each move's think time, so the replay shows them.

    The game counts in the statistics (as an arena game) and, when ``rated``, moves
    its bots' ratings, in the same transaction as its storing.
    """
    name = f"Arena: {game.team_a[:24]} vs {game.team_b[:24]} #{game.index + 1}"
    with transaction.atomic():
        stored = import_record(outcome_record(outcome, game), name=name)
        actions = list(stored.actions.order_by("seq"))
        for action, ms in zip(actions, outcome.think_ms, strict=True):
            action.latency_ms = round(ms)
        ActionRow.objects.bulk_update(actions, ["latency_ms"])
        if stored.status == Game.FINISHED:
            if rated:
                stored.rated = True
                stored.save(update_fields=["rated"])
            summaries.record_game_end(stored, load_state(stored), source=summaries.ARENA, rated=rated)
    return stored
