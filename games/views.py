"""Pages: lobby, table, game result, identity (guest nickname, sign-up)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.forms import UserCreationForm
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from bots.registry import bot_choices
from games import service, snapshot
from games.engine import FAIR, SEAT_NAMES, STANDARD, TRUMP_NAMES
from games.identity import become_guest, player_for_request
from games.models import Game


def _next_or(request: HttpRequest, default: str) -> str:
    """Where to go after a form: the posted ``next`` if it stays on this site, else ``default``."""
    target = request.POST.get("next", "")
    if target and url_has_allowed_host_and_scheme(target, {request.get_host()}, request.is_secure()):
        return target
    return reverse(default)


def _int(value: str | None, default: int) -> int:
    try:
        return int(value) if value not in (None, "") else default
    except ValueError:
        return default


def lobby(request: HttpRequest) -> HttpResponse:
    """Open tables, the form to create one, and who you are."""
    return render(
        request,
        "lobby.html",
        {
            "player": player_for_request(request),
            "tables": snapshot.lobby_tables(),
            "bots": bot_choices(),
            "seat_names": SEAT_NAMES,
        },
    )


@require_POST
def guest(request: HttpRequest) -> HttpResponse:
    """Become (or rename) a guest with a nickname kept in the session."""
    try:
        become_guest(request, request.POST.get("nickname", ""))
    except ValueError as exc:
        messages.error(request, str(exc).capitalize() + ".")
    return redirect(_next_or(request, "lobby"))


def signup(request: HttpRequest) -> HttpResponse:
    form = UserCreationForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user)
        return redirect("lobby")
    return render(request, "registration/signup.html", {"form": form})


@require_POST
def create_table(request: HttpRequest) -> HttpResponse:
    """Open a table with the submitted options and seat its creator where they chose."""
    player = player_for_request(request)
    if player is None:
        messages.error(request, "Choose a nickname or sign in to open a table.")
        return redirect("lobby")
    mode = request.POST.get("mode", STANDARD)
    try:
        table = service.create_table(
            player,
            name=request.POST.get("name", ""),
            mode=mode if mode in (STANDARD, FAIR) else "?",
            target=_int(request.POST.get("target"), 1000),
            round_count=_int(request.POST.get("round_count"), 12),
            multipliers=request.POST.get("multipliers") == "on",
            bot_timeout_s=_int(request.POST.get("bot_timeout"), 5),
        )
        seat = request.POST.get("seat", "2")
        if seat in ("0", "1", "2", "3"):
            service.take_seat(table.pk, int(seat), player)
    except service.ServiceError as exc:
        messages.error(request, exc.message)
        return redirect("lobby")
    return redirect("table", table_id=table.pk)


@require_POST
def seat_action(request: HttpRequest, table_id: int) -> HttpResponse:
    """The lobby's seat buttons without JavaScript: sit, add a bot, or leave."""
    player = player_for_request(request)
    position = _int(request.POST.get("seat"), -1)
    try:
        if player is None:
            raise service.ServiceError("no_identity", "Choose a nickname or sign in first.")
        action = request.POST.get("action")
        if action == "join":
            service.take_seat(table_id, position, player)
        elif action == "add_bot":
            service.set_bot(table_id, position, request.POST.get("bot", ""), service.Actor(player_id=player.pk))
        elif action == "leave":
            service.leave_seat(table_id, player)
        else:
            raise service.ServiceError("bad_action", "Unknown seat action.")
    except service.ServiceError as exc:
        messages.error(request, exc.message)
        return redirect(_next_or(request, "lobby"))
    return redirect("table", table_id=table_id)


def table(request: HttpRequest, table_id: int) -> HttpResponse:
    """The table: seats, the game in progress, your hand. Live over a websocket."""
    player = player_for_request(request)
    view = snapshot.table_view(table_id, player)
    if view is None:
        raise Http404("no such table")
    return render(
        request,
        "table.html",
        {
            "view": view,
            "table_name": view["table"]["name"],
            "player": player,
            "socket_path": f"/ws/tables/{table_id}/",
            "trump_names": TRUMP_NAMES,
        },
    )


def game_result(request: HttpRequest, game_id: int) -> HttpResponse:
    """A game's result: scores per round, and for fair games each pair's point advantage."""
    game = get_object_or_404(Game.objects.select_related("table"), pk=game_id)
    state = service.load_state(game)
    seats = list(game.seats.order_by("position"))
    view = snapshot.game_view(game, state, seats, None)
    return render(
        request,
        "game_result.html",
        {
            "game": game,
            "view": view,
            "seats": seats,
            "trump_names": TRUMP_NAMES,
            "seat_names": SEAT_NAMES,
            "table_url": reverse("table", kwargs={"table_id": game.table_id}),
            "player": player_for_request(request),
        },
    )
