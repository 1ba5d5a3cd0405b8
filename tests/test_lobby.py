"""The lobby list: finished tables age out, each table says whether a seat is free (issue 11, finding 10)."""

from __future__ import annotations

import io
import json
import re
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from games.live import service, snapshot
from games.models import Game, Player, Table

pytestmark = pytest.mark.django_db


def finished_table(name: str) -> Table:
    out = io.StringIO()
    call_command("playgame", *["--seat", "rules", "--seat", "random"] * 2, "--target", "150", "--seed", "4", stdout=out)
    game = Game.objects.get(pk=json.loads(out.getvalue())["game"])
    Table.objects.filter(pk=game.table_id).update(name=name)
    return game.table


def quiet_for(table: Table, minutes: float) -> None:
    Table.objects.filter(pk=table.pk).update(updated_at=timezone.now() - timedelta(minutes=minutes))


def names(rows: list[dict]) -> set[str]:
    return {r["name"] for r in rows}


def test_finished_tables_leave_the_lobby_after_a_quiet_while(settings):
    settings.JASSWEB_LOBBY_FINISHED_MINUTES = 10
    just_over = finished_table("Just over")
    long_over = finished_table("Long over")
    quiet_for(long_over, 11)
    waiting = service.create_table(Player.objects.create(name="Vreni"), name="Waiting long")
    quiet_for(waiting, 600)

    listed = names(snapshot.lobby_tables(None))
    assert {"Just over", "Waiting long"} <= listed
    assert "Long over" not in listed
    public, _ = snapshot.lobby_lists(set())
    assert names(public) == listed  # the live list for all watchers agrees with the page
    assert "Long over" not in Client().get("/").content.decode()

    quiet_for(just_over, 9)
    assert "Just over" in names(snapshot.lobby_tables(None))
    settings.JASSWEB_LOBBY_FINISHED_MINUTES = 5  # a setting, not a constant
    assert "Just over" not in names(snapshot.lobby_tables(None))


def test_a_running_game_stays_listed_however_quiet_its_table():
    table = service.create_table(None, name="Slow game", bot_delay_ms=0)
    for seat in range(4):
        service.set_bot(table.pk, seat, "random", service.SYSTEM)
    service.start_game(table.pk, service.SYSTEM, seed=1)
    quiet_for(table, 60 * 24)
    (row,) = [r for r in snapshot.lobby_tables(None) if r["name"] == "Slow game"]
    assert row["status"] == "running" and row["free_seats"] == 0


def test_each_row_counts_its_free_seats_and_the_page_marks_them_for_the_filters():
    vreni = Player.objects.create(name="Vreni")
    table = service.create_table(vreni, name="Two free")
    service.set_bot(table.pk, 0, "random", service.SYSTEM)
    service.set_bot(table.pk, 1, "random", service.SYSTEM)
    (row,) = snapshot.lobby_tables(None)
    assert row["free_seats"] == 2
    page = Client().get("/").content.decode()
    assert 'data-free="true"' in page and 'data-mine="false"' in page and 'data-status="waiting"' in page


def test_the_page_shows_each_seat_by_its_kind():
    vreni = Player.objects.create(name="Vreni")
    table = service.create_table(vreni, name="Mixed")
    service.take_seat(table.pk, 0, vreni)
    service.set_bot(table.pk, 1, "random", service.SYSTEM)
    service.set_remote_bot(table.pk, 2, "https://bots.example.org/mybot", "Mybot", "spec", service.SYSTEM)
    page = Client().get("/").content.decode()
    seats = re.findall(r'<li class="lobby-seat lobby-seat-(\w+)" data-seat="(\d)">(.*?)</li>', page, re.S)
    by_seat = {int(seat): (kind, body) for kind, seat, body in seats}
    assert [by_seat[s][0] for s in range(4)] == ["human", "bot", "remote", "empty"]
    assert "badge-bot" in by_seat[1][1] and "badge-remote" not in by_seat[1][1]
    assert "badge-remote" in by_seat[2][1] and "https://bots.example.org/mybot" in by_seat[2][1]
    assert "badge" not in by_seat[0][1] and "lobby-seat-name muted" in by_seat[3][1]
