"""Who is asking: a signed-in user or a guest with a nickname, both as a ``Player``."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.http import HttpRequest

from games.models import Player

GUEST_SESSION_KEY = "jassweb_guest_player"
MAX_NICKNAME = 24


def player_for_user(user: AbstractBaseUser) -> Player:
    """The player of a signed-in user (created on first use)."""
    player, _ = Player.objects.get_or_create(user=user, defaults={"name": user.get_username()[:40]})
    return player


def _player_for(user: Any, session: Any) -> Player | None:
    if user is not None and not isinstance(user, AnonymousUser) and user.is_authenticated:
        return player_for_user(user)
    player_id = session.get(GUEST_SESSION_KEY) if session is not None else None
    if player_id is None:
        return None
    return Player.objects.filter(pk=player_id, user__isnull=True).first()


def player_for_request(request: HttpRequest) -> Player | None:
    return _player_for(getattr(request, "user", None), getattr(request, "session", None))


def player_for_scope(scope: dict[str, Any]) -> Player | None:
    """The player of a websocket connection (call from a sync context: it may touch the database)."""
    return _player_for(scope.get("user"), scope.get("session"))


def clean_nickname(raw: str) -> str:
    nickname = " ".join((raw or "").split())
    if not 1 <= len(nickname) <= MAX_NICKNAME:
        raise ValueError(f"a nickname has 1 to {MAX_NICKNAME} characters")
    return nickname


def become_guest(request: HttpRequest, nickname: str) -> Player:
    """Make the session a guest with ``nickname`` (or rename its guest)."""
    nickname = clean_nickname(nickname)
    player = player_for_request(request)
    if player is not None and player.is_guest:
        player.name = nickname
        player.save(update_fields=["name"])
        return player
    player = Player.objects.create(name=nickname)
    request.session[GUEST_SESSION_KEY] = player.pk
    return player
