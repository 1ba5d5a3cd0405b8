"""Who is asking: a signed-in user or a guest with a nickname, both as a ``Player``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.contrib import messages
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, User
from django.contrib.auth.signals import user_logged_in
from django.db import IntegrityError, transaction
from django.dispatch import receiver
from django.http import HttpRequest
from django.utils.translation import gettext, ngettext

from games.decks import DECKS, FRENCH, Deck, deck_named
from games.live import service
from games.models import GameSeat, Player, Table

GUEST_SESSION_KEY = "jassweb_guest_player"
# The deck of a visitor who is neither a guest nor signed in; a player keeps theirs in ``Player.deck``.
DECK_SESSION_KEY = "jassweb_deck"
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


def player_for_scope(scope: Mapping[str, Any]) -> Player | None:
    """The player of a websocket connection (call from a sync context: it may touch the database)."""
    return _player_for(scope.get("user"), scope.get("session"))


def clean_nickname(raw: str) -> str:
    nickname = " ".join((raw or "").split())
    if not 1 <= len(nickname) <= MAX_NICKNAME:
        raise ValueError(gettext("a nickname has 1 to {count} characters").format(count=MAX_NICKNAME))
    return nickname


def become_guest(request: HttpRequest, nickname: str) -> Player:
    """Make the session a guest with ``nickname`` (or rename its guest, at its tables too)."""
    nickname = clean_nickname(nickname)
    player = player_for_request(request)
    if player is not None and not player.is_guest:
        raise ValueError(gettext("you are logged in as {name}; log out to play as a guest").format(name=player.name))
    if player is not None:
        if player.name != nickname:
            service.rename_player(player, nickname)
        return player
    player = Player.objects.create(name=nickname, deck=request.session.pop(DECK_SESSION_KEY, FRENCH))
    request.session[GUEST_SESSION_KEY] = player.pk
    return player


def deck_for_request(request: HttpRequest) -> Deck:
    """The deck this visitor sees: their player's (account or guest), else the one kept in the session."""
    user, session = getattr(request, "user", None), getattr(request, "session", None)
    if user is not None and user.is_authenticated:
        key = Player.objects.filter(user=user).values_list("deck", flat=True).first()
    elif session is not None and session.get(GUEST_SESSION_KEY) is not None:
        key = (
            Player.objects.filter(pk=session[GUEST_SESSION_KEY], user__isnull=True)
            .values_list("deck", flat=True)
            .first()
        )
    else:
        key = None
    if key is None and session is not None:
        key = session.get(DECK_SESSION_KEY)
    return deck_named(key)


def choose_deck(request: HttpRequest, key: str) -> Deck:
    """Remember ``key`` as the visitor's deck: on their player (every device) or in their session."""
    if key not in DECKS:
        raise ValueError(f"no such deck: {key!r} (choose {' or '.join(DECKS)})")
    player = player_for_request(request)
    if player is not None:
        Player.objects.filter(pk=player.pk).update(deck=key)
    else:
        request.session[DECK_SESSION_KEY] = key
    return DECKS[key]


def claim_guest(session: Any, user: User) -> str | None:
    """After a sign-up or a log-in, the session's guest and everything it did become the account's.

    A new account takes the guest's player itself (``service.adopt_guest``); an account that
    has a player already takes over the guest's seats, games and imported records
    (``service.merge_players``). Returns a sentence for the person, or None if there was no guest.
    """
    guest = Player.objects.filter(pk=session.get(GUEST_SESSION_KEY), user__isnull=True).first()
    if guest is None:
        session.pop(GUEST_SESSION_KEY, None)
        return None
    nickname = guest.name  # before an account renames it
    games = GameSeat.objects.filter(player=guest).values("game_id").distinct().count()
    games += Table.objects.filter(created_by=guest, imported=True).count()
    account = Player.objects.filter(user=user).first()
    if account is None:
        try:
            with transaction.atomic():
                service.adopt_guest(guest, user)
        except IntegrityError:  # the account got a player meanwhile (another tab): merge into that one
            account = Player.objects.get(user=user)
    kept: list[int] = []
    if account is not None:
        kept = service.merge_players(guest, account)
    session.pop(GUEST_SESSION_KEY, None)  # only now: should the move fail, the session is still the guest's
    if not games:
        return None
    moved = games - len(kept)
    note = ngettext(
        "Your {count} game as guest {nickname} is now in your account.",
        "Your {count} games as guest {nickname} are now in your account.",
        moved,
    ).format(count=moved, nickname=nickname)
    if kept:
        listed = ", ".join(f"#{game_id}" for game_id in kept)
        note += " " + ngettext(
            "Game {games} stayed with the guest: you played it under both names.",
            "Games {games} stayed with the guest: you played them under both names.",
            len(kept),
        ).format(games=listed)
    return note


@receiver(user_logged_in, dispatch_uid="jassweb_claim_guest")
def _claim_guest_on_login(sender: Any, request: HttpRequest | None, user: User, **kwargs: Any) -> None:
    if request is None or getattr(request, "session", None) is None:
        return
    note = claim_guest(request.session, user)
    if note:
        messages.success(request, note, fail_silently=True)


@receiver(user_logged_in, dispatch_uid="jassweb_deck_on_login")
def _deck_on_login(sender: Any, request: HttpRequest | None, user: AbstractBaseUser, **kwargs: Any) -> None:
    """A deck chosen before signing in (as a visitor, not a guest) becomes the account's: the latest choice wins.

    Registered after ``_claim_guest_on_login`` so that a guest's player is adopted before this looks it up.
    """
    session = getattr(request, "session", None)
    if session is not None and session.get(DECK_SESSION_KEY) in DECKS:
        Player.objects.filter(pk=player_for_user(user).pk).update(deck=session.pop(DECK_SESSION_KEY))
