"""Structured logs (issue 15): one line per game start, end, abandonment and bot fault, carrying the table,
game and player ids; one JSON object a line in production, a readable line in development."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from typing import Any

import pytest

from bots.runner import play_bot_turns
from games.live import service
from games.models import Game
from tests.server_helpers import ROOT
from tests.table_helpers import actor, make_players, make_table, start

pytestmark = pytest.mark.django_db(transaction=True)


def events(caplog, kind: str) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "jassweb.events" and getattr(r, "event", None) == kind]


def test_a_game_logs_its_start_and_its_end_once_each_with_table_game_and_player_ids(caplog):
    caplog.set_level(logging.INFO, logger="jassweb.events")
    nora, emil = make_players(("Nora", "Emil"))
    table = make_table(nora, [nora, "rules", emil, "random"], mode="fair", round_count=2)
    game = start(table, nora)
    [started] = events(caplog, "game_started")
    assert (started.table, started.game, started.players) == (table.pk, game.pk, [nora.pk, None, emil.pk, None])
    assert started.seats == [f"player {nora.pk}", "bot rules", f"player {emil.pk}", "bot random"]
    assert started.getMessage().startswith(f"game {game.pk} started at table {table.pk} (fair): North player")

    while True:  # the bots move headless; the two people play their first legal move
        play_bot_turns(game.pk)
        row = Game.objects.get(pk=game.pk)
        state = service.load_state(row)
        if state.over:
            break
        person = nora if state.player == 0 else emil
        move = state.observation(state.player).legal_actions()[0]
        service.submit(game.pk, state.player, move, actor=actor(person), expected_seq=row.action_count)
    finished = Game.objects.get(pk=game.pk)
    [ended] = events(caplog, "game_finished")
    assert (ended.table, ended.game, ended.players) == (table.pk, game.pk, [nora.pk, None, emil.pk, None])
    assert (ended.points, ended.winner, ended.moves) == (finished.points, finished.winner, finished.action_count)
    assert f"game {game.pk} finished at table {table.pk}: {finished.points[0]} to {finished.points[1]}" in (
        ended.getMessage()
    )
    assert not events(caplog, "game_abandoned")


def test_an_abandoned_game_logs_its_reason_and_a_refused_abandon_logs_nothing(caplog):
    caplog.set_level(logging.INFO, logger="jassweb.events")
    nora, emil, sara = make_players(("Nora", "Emil", "Sara"))
    table = make_table(nora, [nora, "rules", emil, "rules"])
    game = start(table, nora)
    with pytest.raises(service.ServiceError):
        service.abandon_game(table.pk, actor(sara))  # not seated: refused, nothing logged
    assert not events(caplog, "game_abandoned")
    service.abandon_game(table.pk, actor(emil))  # a request to Nora: the game runs on, nothing logged yet
    assert not events(caplog, "game_abandoned")
    service.answer_abandon(table.pk, nora, agree=True)
    [abandoned] = events(caplog, "game_abandoned")
    assert (abandoned.table, abandoned.game, abandoned.players) == (table.pk, game.pk, [nora.pk, None, emil.pk, None])
    reason = "Emil asked and the other players agreed"
    assert abandoned.reason == reason
    assert abandoned.getMessage() == f"game {game.pk} abandoned at table {table.pk} after 0 moves: {reason}"


def test_a_remote_bots_fault_is_logged_with_its_bot_and_place_and_without_its_hand(caplog):
    caplog.set_level(logging.INFO, logger="jassweb.events")
    nora = make_players(("Nora",))[0]
    table = make_table(nora, [])
    url = "http://127.0.0.1:9/mybot"
    for position in range(4):
        service.set_remote_bot(table.pk, position, url, f"Bot {position}", "spec", actor(nora))
    game = start(table, nora)
    state = service.load_state(game)
    seat = state.player
    move = state.observation(seat).legal_actions()[0]
    report = service.BotReport(latency_ms=5000, fault_kind="timeout", fault_detail="no answer in 5 s")
    service.submit(game.pk, seat, move, actor=service.BOT_RUNNER, expected_seq=0, report=report)
    service.record_fault(game.pk, 2, 0, "http_status", "game_info: HTTP 500", latency_ms=12)
    first, second = events(caplog, "bot_fault")
    assert (first.table, first.game, first.seat, first.bot) == (table.pk, game.pk, seat, url)
    assert (first.kind, first.detail, first.round, first.trick, first.latency_ms) == (
        "timeout",
        "no answer in 5 s",
        0,
        0,
        5000,
    )
    assert (second.seat, second.kind, second.trick, second.latency_ms) == (2, "http_status", None, 12)
    assert "round 1 after the round: http_status" in second.getMessage()


def _playgame(env: dict[str, str], tmp_path) -> subprocess.CompletedProcess[str]:
    merged = {k: v for k, v in os.environ.items() if not k.startswith(("JASSWEB_", "DJANGO_"))}
    merged.update({"JASSWEB_SQLITE_PATH": str(tmp_path / "db.sqlite3"), **env})
    run: dict[str, Any] = {"cwd": ROOT, "env": merged, "capture_output": True, "text": True, "timeout": 120}
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], check=True, **run)
    seats = ["--seat", "rules", "--seat", "random", "--seat", "rules", "--seat", "random"]
    return subprocess.run(
        [sys.executable, "manage.py", "playgame", *seats, "--mode", "fair", "--rounds", "2", "--seed", "7"], **run
    )


def test_production_logs_are_one_json_object_a_line_with_the_ids_as_fields(tmp_path):
    played = _playgame({"JASSWEB_DEBUG": "0", "DJANGO_SECRET_KEY": "oplog-test-" + "k" * 40}, tmp_path)
    assert played.returncode == 0, played.stderr
    lines = [json.loads(line) for line in played.stderr.splitlines() if line.strip()]  # each line parses
    game = json.loads(played.stdout)["game"]
    by_event = {line.get("event"): line for line in lines}
    started, finished = by_event["game_started"], by_event["game_finished"]
    for line in (started, finished):
        assert line["logger"] == "jassweb.events" and line["level"] == "INFO"
        assert line["game"] == game and isinstance(line["table"], int) and line["players"] == [None] * 4
        assert line["time"].endswith("+00:00") and isinstance(line["pid"], int)
    assert finished["points"] == json.loads(played.stdout)["points"]


def test_development_logs_are_plain_readable_lines(tmp_path):
    played = _playgame({}, tmp_path)
    assert played.returncode == 0, played.stderr
    game = json.loads(played.stdout)["game"]
    assert f"INFO jassweb.events: game {game} started at table" in played.stderr
    assert f"INFO jassweb.events: game {game} finished at table" in played.stderr
    assert not played.stderr.lstrip().startswith("{")
