"""Who may see what: the one rule behind the table page, its websocket, history, replay and records.

A public table and its games are everyone's to watch (replays and records of a
game open once it is over). A private table exists only for those it concerns;
everyone else gets a 404, as if it did not exist (table ids count up, so the
id alone must not be enough):

- the table (its page, its websocket, its seat buttons) is entered by its
  creator, whoever holds a seat there or sat in one of its games, and whoever
  opened its invitation link (``/tables/<id>/invite/<token>/``, a 128-bit
  token the creator copies from the table page; noted in their session);
- a game at a private table (live, result, replay, record) is shown only to
  those who sat in it and to the table's creator (or, for an imported record,
  its importer) — not to someone who sits down at the table afterwards.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterable
from typing import Any

from django.db.models import Exists, OuterRef, Q, QuerySet

from games.models import Game, GameSeat, Player, Seat, Table, new_invite_token

INVITED_SESSION_KEY = "jassweb_invited_tables"
MAX_REMEMBERED_INVITATIONS = 100  # per session: the most recent ones


# -- games ------------------------------------------------------------------------------------


def shows_game(
    private: bool, creator_id: int | None, game_player_ids: Iterable[int | None], viewer_id: int | None
) -> bool:
    """Whether a viewer may see a game, from plain facts (the live view decides per frame with it)."""
    if not private:
        return True
    if viewer_id is None:
        return False
    return viewer_id == creator_id or viewer_id in game_player_ids


def may_see(game: Game, player: Player | None) -> bool:
    """True when ``player`` (``None``: an anonymous visitor) may see ``game`` at all."""
    if not game.table.private:
        return True
    if player is None:
        return False
    return game.table.created_by_id == player.pk or game.seats.filter(player=player).exists()


def visible_games(player: Player | None) -> QuerySet[Game]:
    """Every game ``player`` may see, as one query."""
    public = Q(table__private=False)
    if player is None:
        return Game.objects.filter(public)
    sat = Exists(GameSeat.objects.filter(game=OuterRef("pk"), player=player))
    return Game.objects.filter(public | Q(table__created_by=player) | Q(sat))


def my_games(player: Player) -> QuerySet[Game]:
    """The games ``player`` sat in or imported (as a record), newest first."""
    sat = Exists(GameSeat.objects.filter(game=OuterRef("pk"), player=player))
    imported = Q(table__imported=True, table__created_by=player)
    return Game.objects.filter(Q(sat) | imported).order_by("-created_at", "-pk")


def recent_games() -> QuerySet[Game]:
    """Finished and abandoned games at public tables, newest first: the public history."""
    return (
        Game.objects.filter(table__private=False)
        .exclude(status=Game.RUNNING)
        .order_by("-finished_at", "-created_at", "-pk")
    )


# -- tables -----------------------------------------------------------------------------------


def invited_tables(session: Any) -> list[int]:
    """The private tables whose invitation link this session opened."""
    if session is None:
        return []
    value = session.get(INVITED_SESSION_KEY)
    return [t for t in value if type(t) is int] if isinstance(value, list) else []


def accept_invitation(session: Any, table: Table, token: str) -> bool:
    """Note in ``session`` that it holds ``table``'s invitation, if ``token`` is the table's; True if so."""
    if not table.private or not hmac.compare_digest(table.invite_token.encode(), (token or "").encode()):
        return False
    invited = [t for t in invited_tables(session) if t != table.pk]
    session[INVITED_SESSION_KEY] = [*invited, table.pk][-MAX_REMEMBERED_INVITATIONS:]
    return True


def may_enter(table: Table, player: Player | None, session: Any) -> bool:
    """Whether a visitor may open ``table``'s page and websocket and take its seats (two queries at most)."""
    if not table.private:
        return True
    if table.pk in invited_tables(session):
        return True
    if player is None:
        return False
    if table.created_by_id == player.pk:
        return True
    return (
        Seat.objects.filter(table=table, player=player).exists()
        or GameSeat.objects.filter(game__table=table, player=player).exists()
    )


def enterable_table(table_id: int, player: Player | None, session: Any) -> Table | None:
    """The table if it exists and the visitor may enter it, else None (a 404 or a refused websocket)."""
    table = Table.objects.filter(pk=table_id).first()
    if table is None or not may_enter(table, player, session):
        return None
    return table


def invite_path(table: Table) -> str:
    """The path of a private table's invitation link: the token in the fragment, which a browser never sends
    (no server's or proxy's access log, no Referer holds it); the landing page posts it (``views.invitation``)."""
    return f"/tables/{table.pk}/invite/#{table.invite_token}"


def renew_invitation(table: Table) -> str:
    """Give ``table`` a new invitation token (the old link stops working; who entered stays in); the new one."""
    table.invite_token = new_invite_token()
    table.save(update_fields=["invite_token"])
    return table.invite_token
