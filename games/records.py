"""Game records: one JSON document per game, for export (and, later, import)."""

from __future__ import annotations

from typing import Any

from games.hslu import encode_round
from games.models import Game
from games.service import load_state

TRUMP_KEYS = ("0", "1", "2", "3", "4", "5")


def game_record(game: Game) -> dict[str, Any]:
    """The record of a game: options, result, seats, and one HSLU full-state log per round.

    Each round is exactly what jass-kit's ``GameState.to_json`` writes, so it
    loads with ``GameState.from_json``.
    """
    state = load_state(game)
    record: dict[str, Any] = {"id": game.pk, "mode": game.mode}
    if game.mode == "standard":
        record["target"] = game.target
    else:
        record["round_count"] = game.round_count
    if game.multipliers:
        record["multipliers"] = dict(zip(TRUMP_KEYS, game.multipliers, strict=True))
    if game.fair_schedule:
        record["fair_schedule"] = list(game.fair_schedule)
    record["points"] = list(state.scores)
    record["winner"] = state.winner
    record["status"] = game.status
    record["seed"] = game.seed
    record["seats"] = [
        {"position": s.position, "name": s.name, "kind": s.kind, "bot": s.bot or None}
        | ({"url": s.remote_url, "dialect": s.remote_dialect} if s.remote_url else {})
        for s in game.seats.order_by("position")
    ]
    over = game.status != Game.RUNNING
    record["faults"] = [
        {
            "seat": f.seat,
            "round": f.round,
            "trick": f.trick,
            "move": f.seq,
            "kind": f.kind,
            "detail": f.detail + (f" ({f.hidden_detail})" if over and f.hidden_detail else ""),
            "latency_ms": f.latency_ms,
        }
        for f in game.faults.all()
    ]
    record["created_at"] = game.created_at.isoformat()
    record["finished_at"] = game.finished_at.isoformat() if game.finished_at else None
    record["rounds"] = [encode_round(rnd) for rnd in state.rounds]
    return record
