"""A game's record: one JSON document with its options, result, seats, faults, and one HSLU log per round.

Each round is exactly what jass-kit's ``GameState.to_json`` writes; a Weis game's Weis and Stöck,
which those logs have no place for, come in ``weis_rounds`` beside them.
"""

from __future__ import annotations

from typing import Any

from games.engine import CARD_CODES, GameState, RoundState, codes_of, weis_cards, weis_name, weis_points
from games.hslu import encode_round
from games.live.states import load as load_state
from games.models import Game, GameSeat
from games.records.schema import TRUMP_KEYS


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
        | ({"left": True} if s.standin == GameSeat.LEFT else {})
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
    record["standin_bot"] = game.standin_bot
    # Moves a stand-in bot made for a person whose turn clock ran out (or who left the game).
    record["standin_moves"] = [
        {"move": seq, "seat": seat} for seq, seat in game.actions.filter(standin=True).values_list("seq", "seat")
    ]
    if game.abandon_reason:
        record["abandon_reason"] = game.abandon_reason
    record["created_at"] = game.created_at.isoformat()
    record["finished_at"] = game.finished_at.isoformat() if game.finished_at else None
    record["rounds"] = [encode_round(rnd) for rnd in state.rounds]
    if state.config.weis:
        record |= weis_record(state)
    return record


def weis_record(state: GameState) -> dict[str, Any]:
    """A Weis game's keys of its record: the option, and per round (beside its HSLU log, which has no
    place for them) the Weis each seat declared, who scored them, and the Stöck."""
    return {"weis": True, "weis_rounds": [_weis_round(rnd) for rnd in state.rounds]}


def _weis_round(rnd: RoundState) -> dict[str, Any]:
    assert rnd.declared is not None, "only for a game with Weis"
    card = rnd.stoeck_card()
    return {
        "weis": [
            {"seat": seat, "cards": codes_of(weis_cards(code)), "points": weis_points(code), "name": weis_name(code)}
            for seat in range(4)
            for code in rnd.declared[seat]
        ],
        "weis_team": rnd.weis_team if rnd.weis_team >= 0 else None,
        "weis_points": sum(rnd.weis_points()),
        "stoeck": {"seat": rnd.stoeck, "card": CARD_CODES[card]} if rnd.stoeck >= 0 else None,
    }


ROUND_LOGS_NOTE = "Weis and Stöck are left out: jass-kit round logs have no place for them"


def round_logs(game: Game) -> tuple[list[dict[str, Any]], str | None]:
    """The game as bare jass-kit round logs (``GameState.to_json`` per round), and a note of what they
    leave out (a Weis game's Weis and Stöck), or None."""
    state = load_state(game)
    return [encode_round(rnd) for rnd in state.rounds], ROUND_LOGS_NOTE if game.weis else None
