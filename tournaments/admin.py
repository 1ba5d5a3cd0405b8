"""The operator's view of tournaments: read-only, like the games (changes go through ``tournaments.service``).

(The admin's classes are generic only to the type checker: Django's own are not subscriptable.)
"""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest
from django.utils.html import format_html

from games.admin import ReadOnly
from tournaments.models import Entrant, Match, Member, Tournament


class EntrantInline(ReadOnly, admin.TabularInline):
    model = Entrant
    fields = ("order", "name", "status", "registered_by")
    readonly_fields = fields
    extra = 0

    def has_delete_permission(self, request: HttpRequest, obj: Tournament | None = None) -> bool:
        return False


@admin.register(Tournament)
class TournamentAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ("name", "format", "match_mode", "status", "owner", "created_at", "page")
    list_filter = ("status", "format", "match_mode", "rated")
    search_fields = ("name",)
    readonly_fields = [f.name for f in Tournament._meta.fields] + ["page"]
    inlines = [EntrantInline]

    @admin.display(description="page")
    def page(self, tournament: Tournament) -> str:
        return format_html('<a href="/tournaments/{}/">/tournaments/{}/</a>', tournament.pk, tournament.pk)


class MemberInline(ReadOnly, admin.TabularInline):
    model = Member
    fields = ("slot", "player", "bot", "remote_url", "remote_name", "remote_dialect")
    readonly_fields = fields
    extra = 0

    def has_delete_permission(self, request: HttpRequest, obj: Entrant | None = None) -> bool:
        return False


@admin.register(Entrant)
class EntrantAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ("name", "tournament", "status", "order")
    list_filter = ("status",)
    search_fields = ("name", "tournament__name")
    readonly_fields = [f.name for f in Entrant._meta.fields if f.name != "invite_token"]
    exclude = ("invite_token",)  # a pending team's invitation: its own to hand out
    inlines = [MemberInline]


@admin.register(Match)
class MatchAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ("tournament", "round_number", "index", "a", "b", "forfeit")
    list_filter = ("tournament",)
    readonly_fields = [f.name for f in Match._meta.fields]
