"""Tournament pages: the list, the creation form, a tournament's page, registration, invitations, downloads."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from games.catalogue import DIALECTS, Dialect, bot_choices, builtin_bots
from games.live import limits
from games.live.identity import player_for_request
from games.models import Player
from games.pages.names import BOT_LABELS
from tournaments import report, service
from tournaments.models import Entrant, Member, Tournament

LIST_LENGTH = 30  # tournaments per section of /tournaments/


def _bot_label(name: str) -> str:
    bot = builtin_bots().get(name)
    return str(BOT_LABELS.get(bot.label, bot.label)) if bot else name


def _bots() -> list[dict[str, str]]:
    return [{**b, "label": _bot_label(b["name"])} for b in bot_choices()]


def _int(value: str | None, default: int) -> int:
    try:
        return int(value) if value else default
    except ValueError:
        return default


def tournament_list(request: HttpRequest) -> HttpResponse:
    """Upcoming, running and finished tournaments."""
    everything = Tournament.objects.select_related("owner")
    sections = [
        ("upcoming", gettext("Open for registration"), everything.filter(status=Tournament.REGISTRATION)),
        ("running", gettext("Running"), everything.filter(status=Tournament.RUNNING)),
        (
            "finished",
            gettext("Finished"),
            everything.filter(status__in=(Tournament.FINISHED, Tournament.CANCELLED)).order_by("-finished_at"),
        ),
    ]
    return render(
        request,
        "tournaments/list.html",
        {
            "player": player_for_request(request),
            "sections": [
                {"key": key, "title": title, "tournaments": list(rows[:LIST_LENGTH])} for key, title, rows in sections
            ],
        },
    )


def _starts_at(value: str) -> datetime | None:
    """The form's start time (the browser's local ``datetime-local`` in the server's time zone), or None."""
    if not value:
        return None
    parsed = parse_datetime(value)
    if parsed is None:
        raise service.TournamentError("bad_options", gettext("the start time is not a date and time"))
    if timezone.is_naive(parsed):
        parsed = timezone.make_aware(parsed)
    if parsed <= timezone.now():
        raise service.TournamentError("bad_options", gettext("the start time has passed"))
    return parsed


def tournament_new(request: HttpRequest) -> HttpResponse:
    """The creation form; its POST opens the tournament for registration."""
    player = player_for_request(request)
    context: dict[str, Any] = {
        "player": player,
        "turn_clocks": [c for c in settings.JASSWEB_TURN_CLOCK_CHOICES if c],
        "form": request.POST,
    }
    if request.method == "POST":
        if player is None:
            messages.error(request, gettext("Choose a nickname or sign in to organise a tournament."))
            return redirect("tournament_new")
        try:
            limits.hit("table", person=player.pk, address=limits.request_address(request))
            tournament = service.create(
                player,
                service.Options(
                    name=request.POST.get("name", ""),
                    format=request.POST.get("format", Tournament.ROUND_ROBIN),
                    rounds=_int(request.POST.get("rounds"), 3),
                    match_mode=request.POST.get("match", Tournament.FAIR_MATCH),
                    round_count=_int(request.POST.get("round_count"), 4),
                    target=_int(request.POST.get("target"), 1000),
                    weis=request.POST.get("weis") == "on",
                    rated=request.POST.get("rated") == "on",
                    max_games=_int(request.POST.get("max_games"), 8),
                    max_games_per_url=_int(request.POST.get("max_per_url"), 2),
                    turn_clock_s=_int(request.POST.get("turn_clock"), 60),
                    bot_timeout_s=_int(request.POST.get("bot_timeout"), 5),
                    starts_at=_starts_at(request.POST.get("starts_at", "")),
                ),
            )
        except limits.Limited as exc:
            context["error"] = exc.message
        except service.TournamentError as exc:
            context["error"] = exc.message
        else:
            return redirect("tournament", tournament_id=tournament.pk)
        return render(request, "tournaments/new.html", context, status=400)
    return render(request, "tournaments/new.html", context)


def _team_name(entrant: Entrant, members: list[Member]) -> str:
    """A team's name as the page shows it: the name a team of built-in bots got by default ("Rule-based", "Random
    & Rule-based") in the page's language; any other name as it was given."""
    bots = [m.bot for m in members]
    if not bots or not all(bot in builtin_bots() for bot in bots):
        return entrant.name
    if entrant.name != service.default_team_name([builtin_bots()[bot].label for bot in bots], bots_only=True):
        return entrant.name
    return service.default_team_name([_bot_label(bot) for bot in bots], bots_only=True)


def _member_view(member: Member) -> dict[str, Any]:
    if member.player_id is not None:
        assert member.player is not None
        return {"kind": "person", "name": member.player.name, "player": member.player_id}
    if member.bot:
        return {"kind": "bot", "name": _bot_label(member.bot)}
    if member.remote_url:
        return {"kind": "remote", "name": member.remote_name, "url": member.remote_url}
    return {"kind": "open", "name": ""}


def live_context(tournament: Tournament) -> dict[str, Any]:
    """What the live part of a tournament's page shows, the same for every viewer (the page personalises it)."""
    progress = service.load(tournament)
    data = report.summary(tournament, progress)
    members = report.members_of(tournament)
    names = {e.pk: _team_name(e, members.get(e.pk, [])) for e in progress.entrants}
    entrants = []
    for entrant in progress.entrants:
        if entrant.status == Entrant.DROPPED:
            continue
        seats = [_member_view(m) for m in members.get(entrant.pk, [])]
        managers = {m.player_id for m in members.get(entrant.pk, []) if m.player_id} | (
            {entrant.registered_by_id} if entrant.registered_by_id else set()
        )
        labels = " & ".join(seat["name"] for seat in seats)
        entrants.append(
            {
                "entrant": entrant,
                "name": names[entrant.pk],
                # Members are named beside the team only when its name does not say them already.
                "named_by_members": names[entrant.pk] in (labels, seats[0]["name"] if seats else ""),
                # A bot on both seats is shown once.
                "seats": seats[:1]
                if len(seats) == 2 and seats[0]["kind"] != "person" and seats[0] == seats[1]
                else seats,
                "managers": " ".join(str(p) for p in sorted(managers)),
                "players": " ".join(str(s["player"]) for s in seats if s.get("player")),
            }
        )
    players = {
        e.pk: " ".join(str(m.player_id) for m in members.get(e.pk, []) if m.player_id) for e in progress.entrants
    }
    order = progress.order
    rounds: list[dict[str, Any]] = []
    for row in progress.matches:
        match = row.match
        if not rounds or rounds[-1]["number"] != match.round_number:
            rounds.append({"number": match.round_number, "matches": []})
        result = row.result(order)
        games = [
            {"id": g.game_id, "table": g.table_id, "status": g.status, "points": g.points, "index": g.match_game.index}
            for g in row.games
        ]
        running = row.running
        rounds[-1]["matches"].append(
            {
                "a": names[match.a_id],
                "b": names[match.b_id] if match.b_id is not None else None,
                "players": " ".join(p for p in (players[match.a_id], players.get(match.b_id or 0, "")) if p),
                "result": result,
                "match_points": (result.match_points(result.a), result.match_points(result.b))
                if result is not None and result.b is not None
                else None,
                "points": result.points if result is not None and not result.forfeited else None,
                "forfeit": [names[match.a_id if side == "a" else match.b_id or 0] for side in match.forfeit],
                "status": "done" if row.complete else "running" if running else "pending",
                "games": games,
                "table": running.table_id if running else None,
            }
        )
    rounds.reverse()  # the round being played first
    ranked_ids = [e.pk for line in progress.standings() for e in progress.entrants if e.order == line.team]
    for line, entrant_id in zip(data["standings"], ranked_ids, strict=True):  # both in the order of the standings
        line["shown"] = names[entrant_id]
    remote = any(m.remote_url for group in members.values() for m in group)
    return {
        "tournament": tournament,
        "standings": data["standings"],
        "show_faults": remote or any(line["faults"] for line in data["standings"]),
        "entrants": entrants,
        "rounds": rounds,
        "crosstable": [
            (names[pk], cells)
            for pk, (_, cells) in zip(ranked_ids, report.crosstable(progress, ranked_ids), strict=True)
        ]
        if tournament.format == Tournament.ROUND_ROBIN and tournament.status != Tournament.REGISTRATION
        else None,
        "crosstable_heads": [names[i] for i in ranked_ids],
        "games_done": sum(1 for g in data["games"] if g["status"] != "running"),
        "games_total": sum(len(r.games) for r in progress.matches),
    }


def render_live(tournament: Tournament) -> str:
    """The live part of a tournament's page as HTML (the page's first render and every live update)."""
    return render_to_string("tournaments/live.html", live_context(tournament))


def _tournament(tournament_id: int) -> Tournament:
    return get_object_or_404(Tournament.objects.select_related("owner"), pk=tournament_id)


def _my_team(tournament: Tournament, player: Player | None) -> Entrant | None:
    if player is None:
        return None
    member = (
        Member.objects.filter(entrant__tournament=tournament, player=player)
        .exclude(entrant__status=Entrant.DROPPED)
        .select_related("entrant")
        .first()
    )
    return member.entrant if member else None


def tournament_detail(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """A tournament: its options, teams, rounds, pairings and standings, live over a websocket."""
    tournament = _tournament(tournament_id)
    player = player_for_request(request)
    mine = _my_team(tournament, player)
    invite_url = None
    if mine is not None and mine.status == Entrant.PENDING:
        invite_url = request.build_absolute_uri(reverse("tournament_join", args=[tournament.pk, mine.invite_token]))
    return render(
        request,
        "tournaments/detail.html",
        {
            "player": player,
            "tournament": tournament,
            "live": render_live(tournament),
            "is_owner": player is not None and tournament.owner_id == player.pk,
            "my_team": mine,
            "invite_url": invite_url,
            "bots": _bots(),
            "dialects": DIALECTS,
            "socket_path": f"/ws/tournaments/{tournament.pk}/",
        },
    )


def _fail(request: HttpRequest, exc: service.TournamentError | limits.Limited) -> None:
    messages.error(request, exc.message)


def _person(request: HttpRequest) -> Player | None:
    player = player_for_request(request)
    if player is None:
        messages.error(request, gettext("Choose a nickname or sign in first."))
    return player


@require_POST
def tournament_register(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """Register a team: ``kind`` "bots" (one bot on both seats), "bot-partner" (you and a bot) or "people" (you
    and a person you invite by link)."""
    tournament = _tournament(tournament_id)
    player = _person(request)
    if player is None:
        return redirect("tournament", tournament_id=tournament.pk)
    kind = request.POST.get("kind", "")
    name = request.POST.get("name", "")
    try:
        limits.hit("table", person=player.pk, address=limits.request_address(request))
        if kind == "bots":
            bot = _bot_from_form(request)
            service.add_team(tournament.pk, player, name, (bot, bot))
        elif kind == "bot-partner":
            partner = service.bot_spec(request.POST.get("bot", ""))
            service.add_team(tournament.pk, player, name, (service.SeatSpec(player=player), partner))
        elif kind == "people":
            service.add_team(tournament.pk, player, name, (service.SeatSpec(player=player), None))
        else:
            raise service.TournamentError("bad_team", gettext("choose what kind of team to register"))
    except (service.TournamentError, limits.Limited) as exc:
        _fail(request, exc)
    return redirect("tournament", tournament_id=tournament.pk)


def _bot_from_form(request: HttpRequest) -> service.SeatSpec:
    url = request.POST.get("url", "").strip()
    if url:
        dialect = request.POST.get("dialect", Dialect.AUTO)
        return service.bot_spec(url, dialect, request.POST.get("bot_name", ""))
    return service.bot_spec(request.POST.get("bot", ""))


def tournament_join(request: HttpRequest, tournament_id: int, token: str) -> HttpResponse:
    """A team's invitation link: who invites you to which tournament, and the button to join the team."""
    tournament = _tournament(tournament_id)
    entrant = tournament.entrants.filter(invite_token=token).first()
    if entrant is None:
        raise Http404("no such invitation")
    player = player_for_request(request)
    if request.method == "POST" and player is not None:
        try:
            service.join_team(tournament.pk, token, player)
        except service.TournamentError as exc:
            _fail(request, exc)
        else:
            return redirect("tournament", tournament_id=tournament.pk)
    inviter = entrant.members.filter(slot=0).select_related("player").first()
    return render(
        request,
        "tournaments/join.html",
        {
            "player": player,
            "tournament": tournament,
            "entrant": entrant,
            "inviter": inviter.player.name if inviter and inviter.player else "",
            "open": entrant.status == Entrant.PENDING and tournament.status == Tournament.REGISTRATION,
        },
    )


def _act(request: HttpRequest, tournament_id: int, change: Callable[[Tournament, Player], object]) -> HttpResponse:
    """A button of the tournament's page: ``change`` as the visitor; its refusal shown; back to the page."""
    tournament = _tournament(tournament_id)
    player = _person(request)
    if player is not None:
        try:
            change(tournament, player)
        except service.TournamentError as exc:
            _fail(request, exc)
    return redirect("tournament", tournament_id=tournament.pk)


@require_POST
def tournament_team(request: HttpRequest, tournament_id: int, entrant_id: int) -> HttpResponse:
    """Take a team off the list (before the start) or withdraw it (while the tournament runs)."""

    def change(tournament: Tournament, player: Player) -> None:
        if tournament.status == Tournament.REGISTRATION:
            service.remove_team(tournament.pk, entrant_id, player)
        else:
            service.withdraw(tournament.pk, entrant_id, player)

    return _act(request, tournament_id, change)


@require_POST
def tournament_start(request: HttpRequest, tournament_id: int) -> HttpResponse:
    return _act(request, tournament_id, lambda tournament, player: service.start(tournament.pk, player))


@require_POST
def tournament_cancel(request: HttpRequest, tournament_id: int) -> HttpResponse:
    return _act(request, tournament_id, lambda tournament, player: service.cancel(tournament.pk, player))


def standings_json(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The standings, matches and games as JSON (docs/tournaments.md)."""
    data = report.summary(_tournament(tournament_id))
    response = JsonResponse(data, json_dumps_params={"ensure_ascii": False})
    response["Content-Disposition"] = f'inline; filename="tournament-{tournament_id}-standings.json"'
    return response


def standings_csv(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The standings as CSV: UTF-8 with a byte-order mark, so that a spreadsheet reads the team names right."""
    data = report.summary(_tournament(tournament_id))
    response = HttpResponse("\ufeff" + report.csv_text(data), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="tournament-{tournament_id}-standings.csv"'
    return response
