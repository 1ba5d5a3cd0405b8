"""What each viewer of a table sees: seats, the game, and only their own hand.

``table_view`` is the one place that turns the stored game into the JSON a
client receives. A spectator's view and every seated player's view share the
public part; ``hand`` and ``legal`` appear only for the seat the viewer plays.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Count, OuterRef, Prefetch, Q, Subquery

from bots.registry import BUILTIN_BOTS, bot_choices
from games.engine import CARD_CODES, FAIR, PUSH, TRUMPS, GameState, RoundState, Trick, codes_of, team_of
from games.models import Game, GameSeat, Player, Seat, Table
from games.service import load_state


def _trick_cards(cards: tuple[int, ...], first: int) -> list[dict[str, Any]]:
    return [{"seat": (first - i) % 4, "card": CARD_CODES[c]} for i, c in enumerate(cards)]


def _trick(trick: Trick) -> dict[str, Any]:
    return {"cards": _trick_cards(trick.cards, trick.first), "winner": trick.winner, "points": trick.points}


def _previous_trick(state: GameState) -> dict[str, Any] | None:
    """The game's most recently completed trick, even when it ended the previous round."""
    for index in range(state.round_index, -1, -1):
        if state.rounds[index].tricks:
            return {**_trick(state.rounds[index].tricks[-1]), "round": index + 1}
    return None


def _round_summary(index: int, rnd: RoundState, scores: tuple[int, int]) -> dict[str, Any]:
    return {
        "round": index + 1,
        "dealer": rnd.dealer,
        "trump": rnd.trump,
        "declarer": rnd.declarer,
        "pushed": rnd.pushed,
        "points": list(scores),
        "match": rnd.is_match,
        "complete": rnd.is_over,
    }


def game_view(game: Game, state: GameState, seats: list[GameSeat], viewer_seat: int | None) -> dict[str, Any]:
    """The view of one game for ``viewer_seat`` (``None``: a spectator)."""
    rnd = state.current
    obs = rnd.observation(viewer_seat)
    round_scores = state.round_scores()
    view: dict[str, Any] = {
        "id": game.pk,
        "seq": game.action_count,
        "status": game.status,
        "mode": game.mode,
        "target": game.target,
        "round_count": game.round_count,
        "round": state.round_index + 1,
        "scores": list(state.scores),
        "winner": state.winner,
        "over": state.over,
        "dealer": rnd.dealer,
        "forehand": rnd.forehand_seat,
        "player": -1 if state.over or game.status != Game.RUNNING else rnd.player,
        "phase": "over" if state.over or rnd.is_over else ("trump" if rnd.in_trump_phase else "play"),
        "trump": rnd.trump,
        "declarer": rnd.declarer,
        "pushed": rnd.pushed,
        "leader": rnd.leader,
        "trick": _trick_cards(rnd.trick, rnd.leader),
        "last_trick": _trick(rnd.tricks[-1]) if rnd.tricks else None,
        "previous_trick": _previous_trick(state),
        "tricks_played": len(rnd.tricks),
        "round_points": list(round_scores[-1]),
        "hand_sizes": list(obs.hand_sizes),
        "rounds": [_round_summary(i, r, s) for i, (r, s) in enumerate(zip(state.rounds, round_scores, strict=True))],
        "multipliers": game.multipliers,
        "players": _players(game, seats),
        "faults": _faults(game),
    }
    if viewer_seat is not None:
        view["hand"] = codes_of(obs.hand)
        my_turn = view["player"] == viewer_seat
        view["legal"] = codes_of(obs.legal_mask()) if my_turn and rnd.trump >= 0 else []
        legal_trumps = [a.value for a in obs.legal_actions() if not a.is_card] if my_turn else []
        view["legal_trumps"] = legal_trumps
    if state.over and game.mode == FAIR:
        rpa = state.round_point_advantages()
        view["pairs"] = [
            {"rounds": [first + 1, second + 1], "rpa": rpa.get(first)} for first, second in state.plan.pairs()
        ]
    return view


def _players(game: Game, seats: list[GameSeat]) -> list[dict[str, Any]]:
    """Who plays each seat, and for bots their last answer time and how many faults they made."""
    latest: dict[int, int] = {}
    for seat, latency in (
        game.actions.filter(latency_ms__isnull=False).order_by("seq").values_list("seat", "latency_ms")
    ):
        latest[seat] = latency
    faults = dict(game.faults.values("seat").annotate(n=Count("pk")).values_list("seat", "n"))
    return [
        {
            "seat": s.position,
            "name": s.name,
            "kind": s.kind,
            "bot": s.bot or None,
            "remote_url": s.remote_url or None,
            "dialect": s.remote_dialect or None,
            "latency_ms": latest.get(s.position),
            "faults": faults.get(s.position, 0),
        }
        for s in seats
    ]


def _faults(game: Game) -> list[dict[str, Any]]:
    """A remote bot's faults in this game; what would show its hand only once the game is over."""
    over = game.status != Game.RUNNING
    return [
        {
            "seat": f.seat,
            "seq": f.seq,
            "round": f.round + 1,
            "trick": None if f.trick is None else f.trick + 1,  # None: after the round (game_info)
            "kind": f.kind,
            "detail": f.detail + (f" ({f.hidden_detail})" if over and f.hidden_detail else ""),
            "latency_ms": f.latency_ms,
        }
        for f in game.faults.all()
    ]


def _seat_view(seat: Seat) -> dict[str, Any]:
    bot = BUILTIN_BOTS.get(seat.bot)
    if seat.player:
        name = seat.player.name
    elif seat.remote_url:
        name = seat.remote_name
    else:
        name = f"{bot.label} bot" if bot else ""
    return {
        "position": seat.position,
        "team": team_of(seat.position),
        "kind": seat.kind,
        "name": name,
        "bot": seat.bot or None,
        "remote_url": seat.remote_url or None,
        "dialect": seat.remote_dialect or None,
        "player_id": seat.player_id,
    }


def _table_options(table: Table) -> dict[str, Any]:
    return {
        "id": table.pk,
        "name": table.name,
        "mode": table.mode,
        "target": table.target,
        "round_count": table.round_count,
        "multipliers": table.multipliers,
        "private": table.private,
    }


def current_game(table: Table) -> Game | None:
    """The running game of a table, else its most recent one (a running game is always the newest)."""
    return table.games.order_by("-created_at", "-pk").first()


def table_view(table_id: int, viewer: Player | None) -> dict[str, Any] | None:
    """Everything ``viewer`` may see at a table, as JSON-ready data (``None`` if no such table)."""
    table = Table.objects.filter(pk=table_id).select_related("created_by").first()
    if table is None:
        return None
    seats = list(table.seats.select_related("player").order_by("position"))
    my_position = next((s.position for s in seats if viewer and s.player_id == viewer.pk), None)
    game = current_game(table)
    view: dict[str, Any] = {
        "version": table.version,
        "table": {
            **_table_options(table),
            "bot_delay_ms": table.bot_delay_ms,
            "bot_timeout_s": table.bot_timeout_s,
            "creator": table.created_by.name if table.created_by else None,
        },
        "seats": [_seat_view(s) for s in seats],
        "you": {
            "player_id": viewer.pk if viewer else None,
            "name": viewer.name if viewer else None,
            "seat": my_position,
            "can_manage": viewer is not None and (table.created_by_id == viewer.pk or my_position is not None),
        },
        "bots": bot_choices(),
        "trumps": [*TRUMPS, PUSH],
        "game": None,
    }
    if game is not None:
        game_seats = list(game.seats.order_by("position"))
        played = next((s.position for s in game_seats if viewer and s.player_id == viewer.pk), None)
        if not table.private or played is not None or view["you"]["can_manage"]:
            view["game"] = game_view(game, load_state(game), game_seats, played)
        else:
            view["hidden_game"] = game.status  # a private table's game is for its players only
        view["you"]["game_seat"] = played
    return view


def lobby_tables(viewer: Player | None = None, limit: int = 50) -> list[dict[str, Any]]:
    """Tables for the lobby, most recently active first, in a fixed number of queries.

    Private tables are listed only for their creator and the players seated there.
    """
    newest_game = Game.objects.filter(table=OuterRef("pk")).order_by("-created_at", "-pk").values("pk")[:1]
    listed = Q(private=False)
    if viewer is not None:
        listed |= Q(created_by=viewer) | Q(seats__player=viewer)
    tables = list(
        Table.objects.filter(listed, imported=False)
        .distinct()
        .order_by("-updated_at")
        .annotate(current_game_id=Subquery(newest_game))
        .prefetch_related(Prefetch("seats", queryset=Seat.objects.select_related("player").order_by("position")))[
            :limit
        ]
    )
    games = Game.objects.in_bulk([t.current_game_id for t in tables if t.current_game_id])
    result = []
    for table in tables:
        seats = list(table.seats.all())
        game = games.get(table.current_game_id)
        managers = {s.player_id for s in seats if s.player_id} | ({table.created_by_id} - {None})
        result.append(
            {
                **_table_options(table),
                "seats": [_seat_view(s) for s in seats],
                "managers": sorted(managers),  # who may add bots: the creator and seated players
                "status": game.status if game else "waiting",
                "points": game.points if game else None,
                "game": game.pk if game else None,
            }
        )
    return result
