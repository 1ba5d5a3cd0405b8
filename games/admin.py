"""The operator's view: tables, games, faults, remote bots, people and server processes in Django's admin.

Games change only through ``games.live.service`` (the one writer), so the admin
shows them and never edits them: tables, games, faults, remote bots and
workers are read-only here. Moderation goes through the service too: renaming
a person uses ``service.rename_player`` (their tables and running games show
the new name at once), and a table without a running game may be deleted.
A running game's seed and deals stay out of the admin: they are its hands.
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any, TypedDict

from django.contrib import admin
from django.contrib.admin.forms import AdminAuthenticationForm
from django.core.exceptions import ValidationError
from django.db.models import Count, Model, QuerySet
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html

from games.engine import SEAT_NAMES
from games.live import chat, limits, service, workers
from games.models import (
    ChatMessage,
    ChatReport,
    Fault,
    Game,
    GameSeat,
    Player,
    RemoteBotSeat,
    Seat,
    Table,
    Worker,
)

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations


class LimitedAdminAuthenticationForm(AdminAuthenticationForm):
    """The admin's log-in form, within the site's limits on log-in attempts: past one, no password is tried."""

    limited = False

    def clean(self) -> dict[str, Any]:
        try:
            limits.count_login_attempt(self.request)
        except limits.Limited as exc:
            self.limited = True
            raise ValidationError(exc.message, code="rate_limited") from None
        return super().clean()


admin.site.login_form = LimitedAdminAuthenticationForm


def admin_login(request: HttpRequest) -> HttpResponse:
    """The admin's log-in page (``admin.site.login``), answering 429 to an attempt past a limit."""
    response = admin.site.login(request)
    form = (getattr(response, "context_data", None) or {}).get("form")
    if getattr(form, "limited", False):
        response.status_code = 429
    return response


class GameTotal(TypedDict):
    """The count the changelists annotate their rows with (``get_queryset``)."""

    game_total: int


def _admin_link(obj: Model | None, label: object = None) -> str:
    """A link to ``obj``'s page in the admin ("-" for none)."""
    if obj is None:
        return "-"
    meta = obj._meta
    url = reverse(f"admin:{meta.app_label}_{meta.model_name}_change", args=[obj.pk])
    return format_html('<a href="{}">{}</a>', url, label if label is not None else obj)


class ReadOnly:
    """Shown, never edited or added here: changes go through the service."""

    def has_add_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False


# -- tables -------------------------------------------------------------------------------------------


class SeatInline(ReadOnly, admin.TabularInline):
    model = Seat
    fields = ("position_name", "player", "bot", "remote_name", "remote_url", "remote_dialect")
    readonly_fields = fields
    extra = 0
    can_delete = False

    @admin.display(description="seat")
    def position_name(self, seat: Seat) -> str:
        return SEAT_NAMES[seat.position]


@admin.register(Table)
class TableAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ("id", "name", "mode", "private", "imported", "creator", "games_played", "created_at", "updated_at")
    list_filter = ("mode", "private", "imported")
    search_fields = ("name", "created_by__name", "=id")
    date_hierarchy = "created_at"
    list_select_related = ("created_by",)
    inlines = [SeatInline]
    readonly_fields = ("creator", "games")
    fields = (
        ("name", "mode", "private", "imported"),
        ("target", "round_count", "multipliers"),
        ("bot_delay_ms", "bot_timeout_s", "turn_clock_s", "standin_bot", "round_pause_s"),
        ("creator", "created_at", "updated_at", "version"),
        "games",
    )

    def get_queryset(self, request: HttpRequest) -> QuerySet[Table]:
        return super().get_queryset(request).annotate(game_total=Count("games"))

    @admin.display(description="created by", ordering="created_by__name")
    def creator(self, table: Table) -> str:
        return _admin_link(table.created_by)

    @admin.display(description="games", ordering="game_total")
    def games_played(self, table: WithAnnotations[Table, GameTotal]) -> int:
        return table.game_total

    @admin.display(description="games at this table")
    def games(self, table: Table) -> str:
        links = [_admin_link(g, f"#{g.pk} {g.status}") for g in table.games.order_by("-created_at")[:50]]
        return format_html(", ".join(["{}"] * len(links)), *links) if links else "-"

    def has_delete_permission(self, request: HttpRequest, obj: Table | None = None) -> bool:
        # Moderation may remove a table (an offensive name), but not under a game being played.
        if obj is not None and obj.games.filter(status=Game.RUNNING).exists():
            return False
        return super().has_delete_permission(request, obj)


# -- games --------------------------------------------------------------------------------------------


class GameSeatInline(ReadOnly, admin.TabularInline):
    model = GameSeat
    fields = (
        "position_name",
        "name",
        "person",
        "bot",
        "remote_url",
        "remote_dialect",
        "last_latency_ms",
        "fault_count",
        "standin",
    )
    readonly_fields = fields
    extra = 0
    can_delete = False

    @admin.display(description="seat")
    def position_name(self, seat: GameSeat) -> str:
        return SEAT_NAMES[seat.position]

    @admin.display(description="person")
    def person(self, seat: GameSeat) -> str:
        return _admin_link(seat.player)


class FaultInline(ReadOnly, admin.TabularInline):
    model = Fault
    fields = ("seat_name", "round_number", "trick_number", "kind", "detail", "shown_after_game", "latency_ms")
    readonly_fields = fields
    extra = 0
    can_delete = False

    @admin.display(description="seat")
    def seat_name(self, fault: Fault) -> str:
        return SEAT_NAMES[fault.seat]

    @admin.display(description="round")
    def round_number(self, fault: Fault) -> int:
        return fault.round + 1

    @admin.display(description="trick")
    def trick_number(self, fault: Fault) -> str:
        return "after the round" if fault.trick is None else str(fault.trick + 1)

    @admin.display(description="hidden detail")
    def shown_after_game(self, fault: Fault) -> str:
        return _hidden_detail(fault)


def _hidden_detail(fault: Fault) -> str:
    """The part of a fault that shows the bot's hand (e.g. its illegal card): only once the game is over."""
    if fault.game.status == Game.RUNNING:
        return "(shown when the game is over)" if fault.hidden_detail else ""
    return fault.hidden_detail


@admin.register(Game)
class GameAdmin(ReadOnly, admin.ModelAdmin):
    list_display = (
        "id",
        "table_link",
        "mode",
        "status",
        "score",
        "winner",
        "players",
        "created_at",
        "finished_at",
        "replay_link",
    )
    list_filter = ("status", "mode", "table__private", "table__imported")
    search_fields = ("=id", "table__name", "seats__name", "seats__remote_url")
    date_hierarchy = "created_at"
    list_select_related = ("table",)
    inlines = [GameSeatInline, FaultInline]
    readonly_fields = ("table_link", "score", "replay_link", "record_link", "driver_link")

    def get_queryset(self, request: HttpRequest) -> QuerySet[Game]:
        return super().get_queryset(request).prefetch_related("seats")

    def get_fields(self, request: HttpRequest, obj: Game | None = None):
        fields = [
            ("table_link", "mode", "status"),
            ("score", "winner", "action_count"),
            ("target", "round_count", "multipliers", "fair_schedule"),
            ("turn_clock_s", "standin_bot"),
            ("created_at", "finished_at", "turn_started_at"),
            "abandon_reason",
            "driver_link",
            ("replay_link", "record_link"),
        ]
        if obj is not None and obj.status != Game.RUNNING:
            fields.append(("seed", "deals"))  # the hands: only once nobody plays them any more
        return fields

    @admin.display(description="table", ordering="table__name")
    def table_link(self, game: Game) -> str:
        return _admin_link(game.table)

    @admin.display(description="score")
    def score(self, game: Game) -> str:
        return " : ".join(str(p) for p in game.points) if game.points else "-"

    @admin.display(description="players")
    def players(self, game: Game) -> str:
        return ", ".join(s.name for s in game.seats.all())

    @admin.display(description="replay")
    def replay_link(self, game: Game) -> str:
        if game.status == Game.RUNNING:
            return format_html('<a href="{}">watch the table</a>', reverse("table", args=[game.table_id]))
        return format_html('<a href="{}">replay</a>', reverse("replay", args=[game.pk]))

    @admin.display(description="record")
    def record_link(self, game: Game) -> str:
        if game.status == Game.RUNNING:
            return "-"
        return format_html('<a href="{}">record.json</a>', reverse("record_json", args=[game.pk]))

    @admin.display(description="driven by")
    def driver_link(self, game: Game) -> str:
        if not game.driver:
            return "-"
        worker = Worker.objects.filter(pk=game.driver).first()
        return _admin_link(worker, game.driver) if worker else f"{game.driver} (gone)"


@admin.register(Fault)
class FaultAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ("created_at", "game_link", "bot", "kind", "detail", "where", "latency_ms")
    list_filter = ("kind", "created_at")
    search_fields = ("detail", "=game__id", "game__seats__remote_url")
    date_hierarchy = "created_at"
    list_select_related = ("game",)
    fields = ("game_link", "bot", "where", "kind", "detail", "shown_after_game", "latency_ms", "created_at")
    readonly_fields = fields

    def get_queryset(self, request: HttpRequest) -> QuerySet[Fault]:
        return super().get_queryset(request).prefetch_related("game__seats")

    @admin.display(description="game", ordering="game")
    def game_link(self, fault: Fault) -> str:
        return _admin_link(fault.game, f"#{fault.game_id}")

    @admin.display(description="bot")
    def bot(self, fault: Fault) -> str:
        seat = next((s for s in fault.game.seats.all() if s.position == fault.seat), None)
        name = f"{SEAT_NAMES[fault.seat]}: {seat.name}" if seat else SEAT_NAMES[fault.seat]
        return f"{name} ({seat.remote_url})" if seat and seat.remote_url else name

    @admin.display(description="round, trick")
    def where(self, fault: Fault) -> str:
        trick = "after the round" if fault.trick is None else f"trick {fault.trick + 1}"
        return f"round {fault.round + 1}, {trick}"

    @admin.display(description="hidden detail")
    def shown_after_game(self, fault: Fault) -> str:
        return _hidden_detail(fault)


@admin.register(RemoteBotSeat)
class RemoteBotAdmin(ReadOnly, admin.ModelAdmin):
    """Every seat an HSLU bot by URL played: its answer time and faults, newest games first."""

    list_display = ("remote_url", "name", "game_link", "remote_dialect", "last_latency_ms", "fault_count")
    list_filter = ("remote_dialect", "game__status")
    search_fields = ("remote_url", "name")
    list_select_related = ("game",)
    ordering = ("-game__created_at", "position")
    fields = ("remote_url", "name", "game_link", "position", "remote_dialect", "last_latency_ms", "fault_count")
    readonly_fields = fields

    def get_queryset(self, request: HttpRequest) -> QuerySet[GameSeat]:
        return super().get_queryset(request).exclude(remote_url="")

    @admin.display(description="game", ordering="game")
    def game_link(self, seat: GameSeat) -> str:
        return _admin_link(seat.game, f"#{seat.game_id} ({seat.game.status})")


# -- people -------------------------------------------------------------------------------------------


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    """People: accounts and guests. A new name goes through the service (their tables see it at once)."""

    list_display = ("id", "name", "account", "is_guest", "games_played", "chat_muted_until", "created_at")
    list_filter = (("user", admin.EmptyFieldListFilter),)
    search_fields = ("name", "user__username", "user__email", "=id")
    date_hierarchy = "created_at"
    list_select_related = ("user",)
    fields = ("name", "account", "chat_muted_until", "created_at", "games")
    readonly_fields = ("account", "created_at", "games")
    actions = ("mute_for_a_day", "mute_for_a_week", "unmute", "ban_accounts")

    @admin.action(description="Mute in the chat for a day (they may still play)")
    def mute_for_a_day(self, request: HttpRequest, queryset: QuerySet[Player]) -> None:
        queryset.update(chat_muted_until=timezone.now() + timedelta(days=1))

    @admin.action(description="Mute in the chat for a week")
    def mute_for_a_week(self, request: HttpRequest, queryset: QuerySet[Player]) -> None:
        queryset.update(chat_muted_until=timezone.now() + timedelta(days=7))

    @admin.action(description="Let them chat again")
    def unmute(self, request: HttpRequest, queryset: QuerySet[Player]) -> None:
        queryset.update(chat_muted_until=None)

    @admin.action(description="Ban their accounts (they can no longer log in; guests have none)")
    def ban_accounts(self, request: HttpRequest, queryset: QuerySet[Player]) -> None:
        from django.contrib.auth.models import User

        User.objects.filter(pk__in=queryset.exclude(user=None).values("user_id")).update(is_active=False)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # people come by the sign-up page or a nickname

    def get_queryset(self, request: HttpRequest) -> QuerySet[Player]:
        return super().get_queryset(request).annotate(game_total=Count("game_seats"))

    @admin.display(description="account", ordering="user__username")
    def account(self, player: Player) -> str:
        return _admin_link(player.user, player.user.get_username()) if player.user else "guest"

    @admin.display(description="guest", boolean=True)
    def is_guest(self, player: Player) -> bool:
        return player.user_id is None

    @admin.display(description="games", ordering="game_total")
    def games_played(self, player: WithAnnotations[Player, GameTotal]) -> int:
        return player.game_total

    @admin.display(description="games played")
    def games(self, player: Player) -> str:
        seats = player.game_seats.select_related("game").order_by("-game__created_at")[:50]
        links = [_admin_link(s.game, f"#{s.game_id} {s.game.status}") for s in seats]
        return format_html(", ".join(["{}"] * len(links)), *links) if links else "-"

    def save_model(self, request: HttpRequest, obj: Player, form, change: bool) -> None:
        if change and "name" in form.changed_data:
            service.rename_player(obj, obj.name)
        elif not change:
            super().save_model(request, obj, form, change)


# -- chat moderation ----------------------------------------------------------------------------------


@admin.register(ChatMessage)
class ChatMessageAdmin(ReadOnly, admin.ModelAdmin):
    """What people said at tables; a moderator hides a message (gone from every page at once)."""

    list_display = ("created_at", "name", "room", "text", "table_link", "reported", "hidden")
    list_filter = ("hidden", "room", ("reports", admin.EmptyFieldListFilter))
    search_fields = ("text", "name", "=player__id")
    date_hierarchy = "created_at"
    list_select_related = ("table",)
    fields = (
        "created_at",
        "name",
        "player",
        "room",
        "text",
        "phrase",
        "table_link",
        "game",
        "seq",
        "hidden",
        "context",
    )
    readonly_fields = fields
    actions = ("hide_messages",)

    def get_queryset(self, request: HttpRequest) -> QuerySet[ChatMessage]:
        return super().get_queryset(request).annotate(report_total=Count("reports"))

    @admin.display(description="table")
    def table_link(self, message: ChatMessage) -> str:
        return _admin_link(message.table)

    @admin.display(description="reports", ordering="report_total")
    def reported(self, message: ChatMessage) -> int:
        return getattr(message, "report_total", 0)

    @admin.display(description="said around it")
    def context(self, message: ChatMessage) -> str:
        """The five messages before and after it at its table."""
        around = ChatMessage.objects.filter(table_id=message.table_id)
        before = list(around.filter(pk__lt=message.pk).order_by("-pk")[:5])[::-1]
        after = list(around.filter(pk__gt=message.pk).order_by("pk")[:5])
        lines = [*before, message, *after]
        return format_html(
            "<br>".join(["{}{} ({}): {}{}"] * len(lines)),
            *[
                part
                for line in lines
                for part in (
                    "» " if line.pk == message.pk else "",
                    line.name,
                    line.room,
                    line.text,
                    " [hidden]" if line.hidden else "",
                )
            ],
        )

    @admin.action(description="Hide the selected messages")
    def hide_messages(self, request: HttpRequest, queryset: QuerySet[ChatMessage]) -> None:
        chat.hide(list(queryset))


@admin.register(ChatReport)
class ChatReportAdmin(ReadOnly, admin.ModelAdmin):
    """People's reports of messages, newest first, each with its message to look at."""

    list_display = ("created_at", "reporter", "said", "message_link", "resolved")
    list_filter = ("resolved",)
    list_select_related = ("message", "reporter")

    @admin.display(description="said")
    def said(self, report: ChatReport) -> str:
        return f"{report.message.name}: {report.message.text}"

    @admin.display(description="message")
    def message_link(self, report: ChatReport) -> str:
        return _admin_link(report.message, "look and hide")


# -- server processes ---------------------------------------------------------------------------------


@admin.register(Worker)
class WorkerAdmin(ReadOnly, admin.ModelAdmin):
    """Server processes that drive games (``games.live.workers``): alive while their heartbeat is fresh."""

    list_display = ("id", "host", "pid", "started_at", "heartbeat_at", "alive", "games_driven")
    fields = list_display
    readonly_fields = list_display

    @admin.display(boolean=True)
    def alive(self, worker: Worker) -> bool:
        return worker.heartbeat_at >= timezone.now() - timedelta(seconds=workers.LEASE_SECONDS)

    @admin.display(description="running games driven")
    def games_driven(self, worker: Worker) -> int:
        return Game.objects.filter(driver=worker.pk, status=Game.RUNNING).count()
