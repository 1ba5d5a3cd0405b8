"""Pages: lobby, table, game result, replay, history, records, identity (guest nickname, sign-up)."""

from __future__ import annotations

import asyncio
import contextvars
import time
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.models import User
from django.core.paginator import Paginator
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext, ngettext
from django.views.decorators.http import require_POST

from games import access, decks, records
from games.catalogue import bot_choices
from games.engine import FAIR, STANDARD, TRUMP_NAMES
from games.errors import ErrorCode
from games.live import chat, limits, service, snapshot, states
from games.live.bothooks import driver as bot_driver
from games.live.identity import become_guest, choose_deck, deck_for_request, player_for_request
from games.models import ROUND_PAUSES, Competitor, Game, GameAnalysis, Player, Table
from games.pages import history, profiles, rules_help, stats, stored_analyses
from games.pages.names import BOT_LABELS, local_bot_label
from games.pages.replay import replay_data

MAX_UPLOAD = records.MAX_RECORD_BYTES  # bytes of a record file


def _next_or(request: HttpRequest, default: str) -> str:
    """Where to go after a form: the posted ``next`` if it stays on this site, else ``default``."""
    target = request.POST.get("next", "")
    if target and url_has_allowed_host_and_scheme(target, {request.get_host()}, request.is_secure()):
        return target
    return reverse(default)


def _int(value: str | None, default: int) -> int:
    try:
        return int(value) if value is not None and value != "" else default
    except ValueError:
        return default


def _bot_choices() -> list[dict[str, str]]:
    return [{**bot, "label": str(BOT_LABELS.get(bot["label"], bot["label"]))} for bot in bot_choices()]


def _with_seat_labels(tables: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The lobby's tables with each seat's name in the page's language (``label``) for the seat buttons."""
    return [
        {**t, "seats": [{**seat, "label": service.seat_name(seat["position"])} for seat in t["seats"]]} for t in tables
    ]


def lobby(request: HttpRequest) -> HttpResponse:
    """Open tables, the form to create one, and who you are."""
    return render(
        request,
        "lobby.html",
        {
            "player": player_for_request(request),
            "tables": _with_seat_labels(snapshot.lobby_tables(player_for_request(request))),
            "people_online": snapshot.people_at_tables(),
            "play_now_wait": settings.JASSWEB_PLAY_NOW_WAIT_S,
            "top_games": snapshot.top_games(),
            "bots": _bot_choices(),
            "seat_names": [service.seat_name(position) for position in range(4)],
            "turn_clocks": settings.JASSWEB_TURN_CLOCK_CHOICES,
            "default_clock": _default_clock(),
            "round_pauses": ROUND_PAUSES,
            "default_pause": settings.JASSWEB_ROUND_PAUSE_S,
            "hide_over_after": round(settings.JASSWEB_LOBBY_FINISHED_MINUTES * 60),
            "hide_over_minutes": f"{settings.JASSWEB_LOBBY_FINISHED_MINUTES:g}",
        },
    )


def rules(request: HttpRequest) -> HttpResponse:
    """How Schieber is played here: legal cards with pictures, scoring, fair mode and RPA."""
    deck = deck_for_request(request)
    return render(request, "rules.html", {"player": player_for_request(request), **rules_help.rules_context(deck)})


def _default_clock() -> int:
    """The lobby form's turn clock: 60 s when offered (tables with people need one), else the first clock."""
    choices = settings.JASSWEB_TURN_CLOCK_CHOICES
    return 60 if 60 in choices else next((c for c in choices if c), 0)


@require_POST
def guest(request: HttpRequest) -> HttpResponse:
    """Become (or rename) a guest with a nickname kept in the session."""
    try:
        if player_for_request(request) is None:  # a new guest (a rename creates nobody)
            limits.hit("guest", address=limits.request_address(request))
        become_guest(request, request.POST.get("nickname", ""))
    except limits.Limited as exc:
        messages.error(request, exc.message)
    except ValueError as exc:
        messages.error(request, str(exc).capitalize() + ".")
    return redirect(_next_or(request, "lobby"))


# The cards each deck shows in the settings' preview: every kind of face once, all four suits.
DECK_PREVIEW = ("DA", "HK", "SQ", "CJ", "H10", "S9", "C6")


def user_settings(request: HttpRequest) -> HttpResponse:
    """The visitor's settings: which cards they see (kept on their player, or in the session)."""
    previews = [
        {"deck": deck, "cards": [decks.card_html(code, deck, "card-rule") for code in DECK_PREVIEW]}
        for deck in decks.DECKS.values()
    ]
    return render(request, "settings.html", {"player": player_for_request(request), "previews": previews})


@require_POST
def set_deck(request: HttpRequest) -> HttpResponse:
    """Choose the French or the Swiss-German cards (the header's switch and the settings page post here)."""
    try:
        chosen = choose_deck(request, request.POST.get("deck", ""))
    except ValueError as exc:
        messages.error(request, str(exc).capitalize() + ".")
    else:
        if request.POST.get("confirm"):
            messages.success(request, gettext("You now see {deck} cards.").format(deck=chosen.label))
    return redirect(_next_or(request, "settings"))


def signup(request: HttpRequest) -> HttpResponse:
    """Create an account; a guest's games, seats and imported records come along (``identity.claim_guest``)."""
    form: UserCreationForm[User] = UserCreationForm(request.POST or None)
    status = 200
    if request.method == "POST":
        try:
            limits.hit("signup", address=limits.request_address(request))
        except limits.Limited as exc:
            form.add_error(None, exc.message)  # the form is not saved: no account
            status = 429
        if status == 200 and form.is_valid():
            with transaction.atomic():  # no account without the guest's games
                user = form.save()
                login(request, user)  # user_logged_in: the session's guest becomes the account's
            return redirect(_next_or(request, "lobby"))
    context = {"form": form, "player": player_for_request(request)}
    return render(request, "registration/signup.html", context, status=status)


class LoginView(auth_views.LoginView):
    """Log in; a guest's games, seats and imported records move to the account (``identity.claim_guest``).

    Attempts are limited (``limits.count_login_attempt``), whether they succeed or not.
    """

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        return super().get_context_data(player=player_for_request(self.request), **kwargs)

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        try:
            limits.count_login_attempt(request)
        except limits.Limited as exc:  # no password is tried: the form is shown again, unchecked
            form = self.get_form_class()(request, initial={"username": request.POST.get("username", "")})
            return self.render_to_response(self.get_context_data(form=form, limit_error=exc.message), status=429)
        return super().post(request, *args, **kwargs)


@require_POST
def create_table(request: HttpRequest) -> HttpResponse:
    """Open a table with the submitted options and seat its creator where they chose."""
    player = player_for_request(request)
    if player is None:
        messages.error(request, gettext("Choose a nickname or sign in to open a table."))
        return redirect("lobby")
    mode = request.POST.get("mode", STANDARD)
    try:
        limits.hit("table", person=player.pk, address=limits.request_address(request))
    except limits.Limited as exc:
        messages.error(request, exc.message)
        return redirect("lobby")
    try:
        table = service.create_table(
            player,
            name=request.POST.get("name", ""),
            mode=mode if mode in (STANDARD, FAIR) else "?",
            target=_int(request.POST.get("target"), 1000),
            round_count=_int(request.POST.get("round_count"), 12),
            multipliers=request.POST.get("multipliers") == "on",
            weis=request.POST.get("weis") == "on",
            private=request.POST.get("private") == "on",
            bot_timeout_s=_int(request.POST.get("bot_timeout"), 5),
            turn_clock_s=_int(request.POST.get("turn_clock"), _default_clock()),
            standin_bot=request.POST.get("standin_bot") or "rules",
            round_pause_s=_int(request.POST.get("round_pause"), settings.JASSWEB_ROUND_PAUSE_S),
            rated={"rated": True, "casual": False}.get(request.POST.get("rated", "")),
        )
        seat = request.POST.get("seat", "2")
        if seat in ("0", "1", "2", "3"):
            service.take_seat(table.pk, int(seat), player)
    except service.ServiceError as exc:
        messages.error(request, exc.message)
        return redirect("lobby")
    return redirect("table", table_id=table.pk)


@require_POST
def play_now(request: HttpRequest) -> HttpResponse:
    """*Play now*: a seat at a table waiting for people, or a new one that bots fill after a short wait."""
    player = player_for_request(request)
    if player is None:
        messages.error(request, gettext("Choose a nickname or sign in to play."))
        return redirect("lobby")
    try:
        limits.hit("table", person=player.pk, address=limits.request_address(request))
        table = service.play_now(player, request.POST.get("bot") or "rules")
    except limits.Limited as exc:
        messages.error(request, exc.message)
        return redirect("lobby")
    except service.ServiceError as exc:
        messages.error(request, exc.message)
        return redirect("lobby")
    return redirect("table", table_id=table.pk)


def _enterable_table(request: HttpRequest, table_id: int, player: Player | None) -> Table:
    """The table if the visitor may enter it (``access.may_enter``); a 404 otherwise, as for no table at all."""
    table = access.enterable_table(table_id, player, request.session)
    if table is None:
        raise Http404("no such table")
    return table


@require_POST
def seat_action(request: HttpRequest, table_id: int) -> HttpResponse:
    """The lobby's seat buttons without JavaScript: sit, add a bot, or leave."""
    player = player_for_request(request)
    _enterable_table(request, table_id, player)
    position = _int(request.POST.get("seat"), -1)
    try:
        if player is None:
            raise service.ServiceError(ErrorCode.NO_IDENTITY, gettext("Choose a nickname or sign in first."))
        action = request.POST.get("action")
        if action == "join":
            service.take_seat(table_id, position, player)
        elif action == "add_bot":
            service.set_bot(table_id, position, request.POST.get("bot", ""), service.Actor(player_id=player.pk))
        elif action == "leave":
            service.leave_seat(table_id, player)
        else:
            raise service.ServiceError(ErrorCode.BAD_ACTION, gettext("Unknown seat action."))
    except service.ServiceError as exc:
        messages.error(request, exc.message)
        return redirect(_next_or(request, "lobby"))
    return redirect("table", table_id=table_id)


def table(request: HttpRequest, table_id: int) -> HttpResponse:
    """The table: seats, the game in progress, your hand. Live over a websocket."""
    player = player_for_request(request)
    table = _enterable_table(request, table_id, player)
    if table.imported:  # an imported record's table plays no games: show the game itself
        imported = Game.objects.filter(table=table).order_by("-pk").first()
        if imported is None:
            raise Http404("no such table")
        return redirect("replay", game_id=imported.pk)
    view = snapshot.table_view(table_id, player)
    if view is None:
        raise Http404("no such table")
    creator = player is not None and table.created_by_id == player.pk
    # Only the creator hands out a private table's invitation link.
    invite_url = request.build_absolute_uri(access.invite_path(table)) if table.private and creator else None
    response = render(
        request,
        "table.html",
        {
            "view": view,
            "table_name": view["table"]["name"],
            "player": player,
            "socket_path": f"/ws/tables/{table_id}/",
            "trump_names": TRUMP_NAMES,
            "chat_phrases": chat.phrases(),
            "invite_url": invite_url,
        },
    )
    if invite_url:
        # The same secret on every response beside names others choose: never compressed (BREACH,
        # jassweb/compression.py).
        setattr(response, "jassweb_uncompressed", True)  # noqa: B010 - a flag, not a field of HttpResponse
    return response


def invitation(request: HttpRequest, table_id: int, token: str = "") -> HttpResponse:
    """A private table's invitation: the session may enter the table from now on (else a 404).

    The link (``access.invite_path``) carries the token in its fragment: its page (a GET, the same for every
    table, saying nothing of whether the table exists) posts it here from static/js/invitation.js. A link of
    the older form, the token in the path, is still honoured.
    """
    if request.method == "GET" and not token:
        return render(request, "invitation.html", {"table_id": table_id})
    if request.method == "POST":
        token = request.POST.get("token", "")
    table = get_object_or_404(Table, pk=table_id, imported=False)
    if not access.accept_invitation(request.session, table, token):
        raise Http404("no such table")
    return redirect("table", table_id=table.pk)


@require_POST
def renew_invitation(request: HttpRequest, table_id: int) -> HttpResponse:
    """The creator of a private table replaces its invitation link: the old one leads nowhere from now on."""
    player = player_for_request(request)
    table = _enterable_table(request, table_id, player)
    if not table.private or player is None or table.created_by_id != player.pk:
        raise Http404("no such table")
    access.renew_invitation(table)
    messages.success(request, gettext("A new invitation link: the old one no longer opens this table."))
    return redirect("table", table_id=table.pk)


def _visible_game(request: HttpRequest, game_id: int) -> tuple[Game, Player | None]:
    """The game if the visitor may see it; a 404 otherwise (a private game does not exist for others)."""
    game = get_object_or_404(Game.objects.select_related("table"), pk=game_id)
    player = player_for_request(request)
    if not access.may_see(game, player):
        raise Http404("no such game")
    return game, player


def game_result(request: HttpRequest, game_id: int) -> HttpResponse:
    """A game's result: scores per round, and for fair games each pair's point advantage."""
    game, player = _visible_game(request, game_id)
    state = states.load(game)
    seats = list(game.seats.order_by("position"))
    view = snapshot.game_view(game, state, seats, None)
    # Fair pairs from the viewer's side: their team if they played, else North & South.
    mine = next((s.position % 2 for s in seats if player is not None and s.player_id == player.pk), None)
    side = 0 if mine is None else mine
    pairs = [{**p, "value": None if p["advantage"] is None else p["advantage"][side]} for p in view.get("pairs") or []]
    return render(
        request,
        "game_result.html",
        {
            "game": game,
            "view": view,
            "seats": seats,
            "trump_names": TRUMP_NAMES,
            "seat_names": [service.seat_name(position) for position in range(4)],
            "table_url": None if game.table.imported else reverse("table", kwargs={"table_id": game.table_id}),
            "series": history.series(game),
            "player": player,
            "standins": game.actions.filter(standin=True).count(),
            "pairs": pairs,
            "pair_side": "you" if mine is not None else "North & South",
            "pair_label": gettext("you") if mine is not None else gettext("North & South"),
            "standin_label": local_bot_label(game.standin_bot),
            "rating_changes": profiles.rating_changes(game),
            "weis_rounds": snapshot.weis_rounds(view, deck_for_request(request)),
        },
    )


def replay(request: HttpRequest, game_id: int) -> HttpResponse:
    """Step through a finished or abandoned game card by card, all four hands open."""
    started = time.perf_counter()
    game, player = _visible_game(request, game_id)
    data = None if game.status == Game.RUNNING else replay_data(game, viewer=player)
    response = render(
        request,
        "replay.html",
        {
            "game": game,
            "replay": data,
            "chat_phrases": {phrase["key"]: phrase["text"] for phrase in chat.phrases()},
            "player": player,
            "table_url": None if game.table.imported else reverse("table", kwargs={"table_id": game.table_id}),
        },
        status=200,
    )
    # Server time of the page, for the browser's dev tools and for bench/replay.py.
    response["Server-Timing"] = f"app;dur={(time.perf_counter() - started) * 1000:.1f}"
    return response


def record_json(request: HttpRequest, game_id: int) -> HttpResponse:
    """The game's record, the same document as ``manage.py exportgame ID``."""
    game, _ = _visible_game(request, game_id)
    if game.status == Game.RUNNING:
        return JsonResponse(
            {"error": "running", "message": "the game is still running; its record opens when it is over"},
            status=409,
        )
    response = JsonResponse(records.game_record(game), json_dumps_params={"separators": (",", ":")})
    if request.GET.get("download"):
        response["Content-Disposition"] = f'attachment; filename="jassweb-game-{game.pk}.json"'
    return response


def round_logs_json(request: HttpRequest, game_id: int) -> HttpResponse:
    """The game as bare jass-kit round logs (``manage.py exportgame ID --round-logs``); a Weis game's
    response says in a header that its Weis and Stöck are left out (the result page says it beside the link)."""
    game, _ = _visible_game(request, game_id)
    if game.status == Game.RUNNING:
        return JsonResponse(
            {"error": "running", "message": "the game is still running; its record opens when it is over"},
            status=409,
        )
    logs, note = records.round_logs(game)
    response = JsonResponse(logs, safe=False, json_dumps_params={"separators": (",", ":")})
    if note:
        response["X-Jassweb-Left-Out"] = note.replace("ö", "oe")  # headers are ASCII
    if request.GET.get("download"):
        response["Content-Disposition"] = f'attachment; filename="jassweb-game-{game.pk}-rounds.json"'
    return response


def analysis_json(request: HttpRequest, game_id: int) -> HttpResponse:
    """The game's analysis (progress while it runs), for the replay page to poll; never of a running game."""
    game, _ = _visible_game(request, game_id)
    if game.status == Game.RUNNING:
        return JsonResponse(
            {"error": "running", "message": "the game is still running; it is analysed when it is over"},
            status=409,
        )
    return JsonResponse(stored_analyses.analysis_view(game), json_dumps_params={"separators": (",", ":")})


def _queue_analysis(request: HttpRequest, game_id: int) -> tuple[JsonResponse, bool]:
    """Queue a visible game's analysis if it wants one (``analyse_game``); the answer and whether it is queued."""
    game, player = _visible_game(request, game_id)
    if game.status == Game.RUNNING:
        message = gettext("The game is still running: it can be analysed when it is over.")
        return JsonResponse({"error": "running", "message": message}, status=409), False
    if not settings.JASSWEB_ANALYSIS:
        message = gettext("This server analyses no games on request.")
        return JsonResponse({"error": "analysis_off", "message": message}, status=409), False
    if stored_analyses.wanted(game):
        try:
            limits.hit("analysis", person=player.pk if player else None, address=limits.request_address(request))
        except limits.Limited as exc:
            return JsonResponse({"error": exc.code, "message": exc.message}, status=429), False
        stored_analyses.request(game)
    view = stored_analyses.analysis_view(game)
    return JsonResponse(view, status=202), view["status"] == GameAnalysis.QUEUED


@require_POST
async def analyse_game(request: HttpRequest, game_id: int) -> HttpResponse:
    """Ask for the analysis of a game that is over (the replay's *Analyse* button): queued for this
    process's analysis worker, whose progress the replay then polls from ``analysis.json``."""
    response, queued = await sync_to_async(_queue_analysis)(request, game_id)
    if queued:
        # A fresh context: tasks started from this request must not carry its asgiref thread context, whose
        # executor ends with the request (their database calls would fail after it).
        asyncio.get_running_loop().call_soon(_start_analysis, game_id, context=contextvars.Context())
    return response


def _start_analysis(game_id: int) -> None:
    driver = bot_driver()
    driver.ensure_started()  # on this server's event loop: its driver may not have started yet
    driver.analyse(game_id)


def _game_list(request: HttpRequest, games, player: Player | None) -> tuple[list[dict], object]:
    page = Paginator(history.with_seats(games), history.PAGE_SIZE).get_page(request.GET.get("page"))
    return [history.game_row(g, player) for g in page.object_list], page


def my_games(request: HttpRequest) -> HttpResponse:
    """The games the visitor sat in, newest first."""
    player = player_for_request(request)
    rows, page = _game_list(request, access.my_games(player), player) if player else ([], None)
    return render(request, "games_list.html", {"player": player, "rows": rows, "page": page, "mine": True})


def recent_games(request: HttpRequest) -> HttpResponse:
    """Recent finished and abandoned games at public tables."""
    player = player_for_request(request)
    rows, page = _game_list(request, access.recent_games(), player)
    return render(request, "games_list.html", {"player": player, "rows": rows, "page": page, "mine": False})


def import_game(request: HttpRequest) -> HttpResponse:
    """Upload a game record (ours, or jass-kit round logs) and open its replay.

    Importing needs a nickname or an account: an imported game belongs to its
    importer. It is private unless they tick *Public*: a private import is seen by
    its importer only (``access.may_see``: 404 for everyone else, even with its
    link), a public one by everyone and in the public games list.
    """
    player = player_for_request(request)
    error, status = None, 200
    if request.method == "POST":
        raw, error, status = _import_input(request, player)
        if raw is not None:
            try:
                game = records.import_record(
                    records.parse_record(raw),
                    importer=player,
                    private=request.POST.get("public") != "on",
                    name=request.POST.get("name", "").strip()[:60],
                )
            except records.RecordError as exc:
                error, status = str(exc), 400
            else:
                messages.success(
                    request,
                    ngettext(
                        "Imported game {number}: {rounds} round, every card checked.",
                        "Imported game {number}: {rounds} rounds, every card checked.",
                        len(game.deals),
                    ).format(number=game.pk, rounds=len(game.deals)),
                )
                return redirect("replay", game_id=game.pk)
    return render(request, "import.html", {"player": player, "error": error}, status=status)


def _import_input(request: HttpRequest, player: Player | None) -> tuple[bytes | None, str | None, int]:
    """The bytes of the record to import, or why there are none and the status to answer with.

    Nothing is read past a refusal; the import limit counts every attempt by someone who may import.
    """
    if player is None:
        return None, gettext("Choose a nickname (or log in) first: an imported game is kept as yours."), 403
    try:
        limits.hit("import", person=player.pk, address=limits.request_address(request))
    except limits.Limited as exc:
        return None, exc.message, 429
    upload = request.FILES.get("record")
    if upload is not None:
        if upload.size is not None and upload.size > MAX_UPLOAD:
            message = gettext("the file has {size} bytes; at most {limit} are accepted")
            return None, message.format(size=upload.size, limit=MAX_UPLOAD), 400
        return upload.read(), None, 200
    if request.POST.get("text", "").strip():
        return request.POST["text"].encode(), None, 200
    return None, gettext("choose a record file or paste a record"), 400


def stats_page(request: HttpRequest) -> HttpResponse:
    """The thesis' evaluation of this server's finished public games: Table 4.1 and Figures 4.1-4.3."""
    started = time.perf_counter()
    data = stats.page_data(stats.Filters.from_query(request.GET))
    response = render(request, "stats.html", {"player": player_for_request(request), **data})
    response["Server-Timing"] = f"app;dur={(time.perf_counter() - started) * 1000:.1f}"
    return response


def leaderboard(request: HttpRequest) -> HttpResponse:
    """Ratings of people and bots, together or apart, best first."""
    asked = request.GET.get("who", "all")
    who = asked if asked in profiles.WHO else "all"
    player = player_for_request(request)
    return render(
        request,
        "leaderboard.html",
        {
            "player": player,
            "who": who,
            "rows": profiles.leaderboard(who),
            "mine": profiles.competitor_of_player(player),
            "sigmas": profiles.SIGMAS_SHOWN,
        },
    )


def profile(request: HttpRequest, competitor_id: int) -> HttpResponse:
    """A person's or a bot's rating, rating history, games and results (the games the visitor may see)."""
    competitor = get_object_or_404(Competitor.objects.select_related("player"), pk=competitor_id)
    player = player_for_request(request)
    data = profiles.profile(competitor, player, request.GET.get("page"))
    return render(request, "profile.html", {"player": player, "sigmas": profiles.SIGMAS_SHOWN, **data})


def my_profile(request: HttpRequest) -> HttpResponse:
    """Your own profile, once you have finished a game; else the leaderboard says how to get one."""
    competitor = profiles.competitor_of_player(player_for_request(request))
    if competitor is None:
        messages.info(request, gettext("Your profile starts with your first finished game."))
        return redirect("leaderboard")
    return redirect("profile", competitor_id=competitor.pk)
