"""``/metrics``: who may read it, what each process counts, and the sum over processes.

In one process (the default registry): a committed move is counted once with its
time, a refused one not at all; limits, takeovers and bot answers are counted where
they happen; the database's gauges (running games, leases held) come from the rows.
Across processes: two daphne servers on PostgreSQL and Redis write to one
``PROMETHEUS_MULTIPROC_DIR`` while two people play a game through both (racing
tabs included), and a scrape of either server, at every person's turn, finds every
stored move counted exactly once; a server killed without a word leaves its moves
counted and its sockets dropped.
"""

from __future__ import annotations

import asyncio
import gc
import os
import random
import sys
from datetime import timedelta

import pytest
from django.utils import timezone
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from games.engine import Action
from games.live import limits, metrics, service, workers
from games.models import Worker
from jassweb.metrics import DatabaseCollector, forget_dead_processes
from tests.server_helpers import HTTP, ServerProcess, migrate
from tests.services import fetch_one, scale_out
from tests.table_helpers import actor, make_players, make_table, start
from tests.ws_helpers import LiveClient, after, at, close_all_clients, create_live_table, guest_cookies

TOKEN = "a-metrics-token-for-tests"


def value(name: str, **labels: str) -> float:
    """A sample of this process's default registry (0 when the series has no value yet)."""
    return REGISTRY.get_sample_value(name, labels) or 0.0


# -- the collector's pauses ----------------------------------------------------------------------


def test_each_garbage_collection_is_timed_once_by_its_generation():
    metrics.time_garbage_collections()
    metrics.time_garbage_collections()  # a second call adds no second hook
    assert sum(isinstance(hook, metrics._GcTimer) for hook in gc.callbacks) == 1
    before = [value("jassweb_gc_pause_seconds_count", generation=str(g)) for g in range(3)]
    seconds = value("jassweb_gc_pause_seconds_sum", generation="2")
    gc.collect()
    gc.collect(1)
    after = [value("jassweb_gc_pause_seconds_count", generation=str(g)) for g in range(3)]
    assert after[2] == before[2] + 1 and after[1] >= before[1] + 1
    assert value("jassweb_gc_pause_seconds_sum", generation="2") > seconds


def test_a_collection_near_the_recursion_limit_is_timed_by_the_next_one(monkeypatch):
    # A collection can start anywhere, a few frames above the recursion limit too (the hostile
    # frames of tests/test_hostile_websocket.py once took the parser there); the hook must not print a
    # RecursionError into the server's log, and what it could not record waits for the next collection.
    metrics.time_garbage_collections()
    timer = next(hook for hook in gc.callbacks if isinstance(hook, metrics._GcTimer))
    printed: list[object] = []
    monkeypatch.setattr(sys, "unraisablehook", printed.append)
    before = value("jassweb_gc_pause_seconds_count", generation="0")
    waited = []

    def down() -> int:
        try:
            frames_below = down() + 1
        except RecursionError:
            return 0
        if 1 < frames_below <= 30:  # the last frame or two cannot even enter the hook (its docstring)
            gc.collect(0)
            waited.append(len(timer.waiting))
        return frames_below

    down()
    gc.collect(0)
    assert max(waited) > 0 and timer.waiting == []  # some had to wait, and the next collection recorded them
    assert value("jassweb_gc_pause_seconds_count", generation="0") >= before + 20
    assert printed == []


def test_the_collectors_thresholds_are_three_positive_numbers(monkeypatch):
    import importlib

    from django.core.exceptions import ImproperlyConfigured

    import jassweb.settings

    try:
        monkeypatch.setenv("JASSWEB_GC_THRESHOLDS", "5000,10,40")
        assert importlib.reload(jassweb.settings).JASSWEB_GC_THRESHOLDS == (5000, 10, 40)
        for wrong in ("700,20", "700,0,20"):
            monkeypatch.setenv("JASSWEB_GC_THRESHOLDS", wrong)
            with pytest.raises(ImproperlyConfigured):
                importlib.reload(jassweb.settings)
    finally:
        monkeypatch.delenv("JASSWEB_GC_THRESHOLDS")
        importlib.reload(jassweb.settings)


# -- who may read it ----------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)  # the scrape reads the database from a thread of its own
def test_metrics_are_open_in_development_and_refused_in_production_without_the_token(client, settings):
    settings.DEBUG, settings.JASSWEB_METRICS_TOKEN = True, ""
    response = client.get("/metrics")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/plain; version=0.0.4")
    assert b"# TYPE jassweb_moves_total counter" in response.content

    settings.DEBUG = False
    response = client.get("/metrics", HTTP_HOST="203.0.113.9:8001")  # by address: before host checks
    assert response.status_code == 403 and b"JASSWEB_METRICS_TOKEN" in response.content


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("debug", [True, False])
def test_with_a_token_metrics_answer_only_that_bearer_token(client, settings, debug):
    settings.DEBUG, settings.JASSWEB_METRICS_TOKEN = debug, TOKEN
    assert client.get("/metrics").status_code == 401
    wrong = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}x")
    assert wrong.status_code == 401 and wrong["WWW-Authenticate"] == 'Bearer realm="metrics"'
    assert client.get("/metrics", HTTP_AUTHORIZATION=f"Basic {TOKEN}").status_code == 401
    ok = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert ok.status_code == 200 and b"jassweb_running_games 0.0" in ok.content


@pytest.mark.django_db(transaction=True)
def test_healthz_is_unchanged_beside_metrics(client, settings):
    settings.DEBUG, settings.JASSWEB_METRICS_TOKEN = False, TOKEN
    response = client.get("/healthz")
    assert response["Content-Type"] == "application/json" and "checks" in response.json()


@pytest.mark.django_db(transaction=True)
def test_the_grafana_dashboard_asks_only_for_series_the_endpoint_serves(client, settings):
    import json
    import re
    from pathlib import Path

    settings.DEBUG, settings.JASSWEB_METRICS_TOKEN = True, ""
    metrics.move_committed("bot", 0.001)  # histograms and labelled counters show once they have a value
    metrics.bot_answered(True, 0.1)
    metrics.leases_taken("dead", 1)
    metrics.socket_opened("lobby")
    metrics.socket_closed("lobby")
    metrics.THINKER_FALLBACKS.labels("rules").inc()
    metrics.THOUGHT.labels("rules").observe(0.01)
    metrics.game_started("")
    metrics.game_ended("", "finished")
    metrics.limit_refused("table", "person")
    metrics.bot_fault("timeout")
    metrics.time_garbage_collections()  # as a server does at start
    text = client.get("/metrics").content.decode()
    served = set(re.findall(r"^(?:# TYPE )?(jassweb_[a-z_]+)", text, re.MULTILINE))  # samples, and families
    dashboard = json.loads((Path(__file__).parent.parent / "deploy/grafana/jassweb.json").read_text())
    asked = {
        name
        for panel in dashboard["panels"]
        for target in panel["targets"]
        for name in re.findall(r"jassweb_[a-z_]+", target["expr"])
    }
    assert asked and asked <= served, asked - served
    assert {"jassweb_moves_total", "jassweb_move_latency_seconds_bucket"} <= asked


# -- what a process counts ----------------------------------------------------------------------


@pytest.mark.django_db
def test_a_committed_move_is_counted_once_with_its_time_and_a_refused_one_not_at_all(
    django_capture_on_commit_callbacks,
):
    nora, emil, sara, wim = make_players()
    table = make_table(nora, [nora, emil, sara, wim])
    with django_capture_on_commit_callbacks(execute=True):
        game = start(table, nora)
    moves, timed = value("jassweb_moves_total", by="person"), value("jassweb_move_latency_seconds_count", by="person")
    state = service.load_state(game)
    mover = (nora, emil, sara, wim)[state.player]
    with django_capture_on_commit_callbacks(execute=True):
        service.submit(game.pk, state.player, state.current.legal_actions()[0], actor=actor(mover), expected_seq=0)
    assert value("jassweb_moves_total", by="person") == moves + 1
    assert value("jassweb_move_latency_seconds_count", by="person") == timed + 1
    assert value("jassweb_move_latency_seconds_sum", by="person") > 0

    with django_capture_on_commit_callbacks(execute=True), pytest.raises(service.ServiceError):
        service.submit(game.pk, state.player, Action.trump(0), actor=actor(mover), expected_seq=0)  # stale
    assert value("jassweb_moves_total", by="person") == moves + 1


@pytest.mark.django_db
def test_games_started_and_ended_are_counted_by_what_arranges_their_table(django_capture_on_commit_callbacks):
    from bots.runner import play_bot_turns

    nora = make_players(("Nora",))[0]
    table = make_table(nora, ["random"] * 4, mode="fair", round_count=2)
    arranged = make_table(nora, ["random"] * 4, mode="fair", round_count=2)
    type(arranged).objects.filter(pk=arranged.pk).update(managed_by="/tournaments/7/")
    arranged.refresh_from_db()
    before = (
        value("jassweb_games_started_total", managed_by=""),
        value("jassweb_games_started_total", managed_by="/tournaments/7/"),
        value("jassweb_games_ended_total", managed_by="/tournaments/7/", status="finished"),
        value("jassweb_games_ended_total", managed_by="", status="abandoned"),
        value("jassweb_bot_answer_seconds_count", bot="builtin"),
    )
    with django_capture_on_commit_callbacks(execute=True):
        start(table, nora)
        game = service.start_game(arranged.pk, service.SYSTEM, seed=3)
    with django_capture_on_commit_callbacks(execute=True):
        moves = play_bot_turns(game.pk)
        service.abandon_game(table.pk, actor(nora))
    assert value("jassweb_games_started_total", managed_by="") == before[0] + 1
    assert value("jassweb_games_started_total", managed_by="/tournaments/7/") == before[1] + 1
    assert value("jassweb_games_ended_total", managed_by="/tournaments/7/", status="finished") == before[2] + 1
    assert value("jassweb_games_ended_total", managed_by="", status="abandoned") == before[3] + 1
    assert value("jassweb_bot_answer_seconds_count", bot="builtin") == before[4] + moves


@pytest.mark.django_db
def test_limit_refusals_and_bot_faults_are_counted_by_kind(settings):
    settings.JASSWEB_LIMITS_ON = True
    settings.JASSWEB_LIMITS = {**settings.JASSWEB_LIMITS, "table.person": "1/h"}
    refused = value("jassweb_limit_refusals_total", limit="table", scope="person")
    limits.hit("table", person=99)
    with pytest.raises(limits.Limited):
        limits.hit("table", person=99)
    assert value("jassweb_limit_refusals_total", limit="table", scope="person") == refused + 1

    faults = value("jassweb_bot_faults_total", kind="timeout")
    metrics.bot_fault("timeout")
    assert value("jassweb_bot_faults_total", kind="timeout") == faults + 1


@pytest.mark.django_db
def test_leases_taken_over_are_counted_and_the_database_gauges_show_who_holds_what():
    nora = make_players(("Nora",))[0]
    game = start(make_table(nora, ["random"] * 4), nora)
    first = workers.register()
    assert workers.claim(game.pk)
    workers.forget_local_id()
    second = workers.register()
    gauges = {f.name: f for f in DatabaseCollector().collect()}
    assert gauges["jassweb_running_games"].samples[0].value == 1
    held = {s.labels["worker"]: s.value for s in gauges["jassweb_leases_held"].samples}
    assert held == {first: 1, second: 0, "none": 0}

    taken = value("jassweb_leases_taken_over_total", source="dead")
    Worker.objects.filter(pk=first).update(heartbeat_at=timezone.now() - timedelta(seconds=workers.LEASE_SECONDS + 1))
    assert workers.reap()[0] == [game.pk]
    assert value("jassweb_leases_taken_over_total", source="dead") == taken + 1
    gauges = {f.name: f for f in DatabaseCollector().collect()}
    assert {s.labels["worker"]: s.value for s in gauges["jassweb_leases_held"].samples} == {second: 1, "none": 0}


def test_a_dead_process_s_live_gauges_are_dropped_and_a_live_one_s_kept(tmp_path):
    import subprocess
    import sys

    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(gone.stdout)
    for pid in (dead_pid, os.getpid()):
        (tmp_path / f"gauge_livesum_{pid}.db").write_bytes(b"")
        (tmp_path / f"counter_{pid}.db").write_bytes(b"")
    assert forget_dead_processes(str(tmp_path)) == [dead_pid]
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == sorted([f"counter_{dead_pid}.db", f"counter_{os.getpid()}.db", f"gauge_livesum_{os.getpid()}.db"])


# -- across processes -------------------------------------------------------------------------------


def scrape(url: str, token: str = TOKEN) -> dict[str, float]:
    """Every sample of a server's /metrics: ``name{label="value",...}`` -> value."""
    response = HTTP.get(url + "/metrics", headers={"Authorization": f"Bearer {token}"}, timeout=10)
    assert response.status_code == 200, response.text
    samples = {}
    for family in text_string_to_metric_families(response.text):
        for sample in family.samples:
            labels = ",".join(f'{k}="{v}"' for k, v in sorted(sample.labels.items()))
            samples[f"{sample.name}{{{labels}}}"] = sample.value
    return samples


def total(samples: dict[str, float], name: str, **labels: str) -> float:
    wanted = [f'{k}="{v}"' for k, v in labels.items()]
    return sum(v for k, v in samples.items() if k.startswith(name + "{") and all(w in k for w in wanted))


def person_or_over(view: dict) -> bool:
    """A person's turn (Nora North, Emil South), or the end."""
    return view["game"] is not None and (view["game"]["over"] or view["game"]["player"] in (0, 2))


def stored_moves(database_url: str, table_id: int) -> tuple[int, int]:
    """(all moves, the bots' moves) of a table's game, straight from PostgreSQL (bots sit East and West)."""
    moves, bot_moves = fetch_one(
        database_url,
        "SELECT count(*), count(*) FILTER (WHERE a.seat IN (1, 3)) FROM games_action a"
        " JOIN games_game g ON g.id = a.game_id WHERE g.table_id = %s",
        table_id,
    )
    return moves, bot_moves


@pytest.mark.services
@pytest.mark.asyncio
async def test_two_servers_count_every_move_once_while_a_game_plays(tmp_path):
    settings = {
        "JASSWEB_BOT_DELAY_MS": "0",
        "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "metrics"),
        "JASSWEB_METRICS_TOKEN": TOKEN,
    }
    with scale_out("metrics", **settings) as (env, database_url):
        migrate(env)
        servers = [ServerProcess(env), ServerProcess(env)]
        try:
            assert HTTP.get(servers[0].url + "/metrics").status_code == 401
            nora, emil = guest_cookies(servers[0].url, "Nora"), guest_cookies(servers[1].url, "Emil")
            table_id = create_live_table(servers[0].url, nora, mode="fair", round_count="2", seat="0")
            tabs = {0: await LiveClient.open(servers[0].url, table_id, nora, "Nora on server 1")}
            tabs[2] = await LiveClient.open(servers[1].url, table_id, emil, "Emil on server 2")
            await tabs[2].send({"type": "join", "seat": 2})
            for seat in (1, 3):
                await tabs[0].send({"type": "add_bot", "seat": seat, "bot": "random"})
            await tabs[0].state(lambda v: all(s["kind"] != "empty" for s in v["seats"]))
            twin = await LiveClient.open(servers[1].url, table_id, nora, "Nora on server 2")
            await tabs[0].send({"type": "start"})

            rng = random.Random(27)
            checks = races = 0
            while True:
                game = (await tabs[0].state(person_or_over))["game"]
                if game["over"]:
                    break
                seat, seq = game["player"], game["seq"]
                view = (await tabs[seat].state(at(seq), 20))["game"]
                if seq % 5 < 2:  # a person's turn: nothing moves until they do, so the counts must agree
                    moves, bot_moves = stored_moves(database_url, table_id)
                    for server in servers:
                        samples = scrape(server.url)
                        assert total(samples, "jassweb_moves_total") == moves == seq
                        assert total(samples, "jassweb_moves_total", by="bot") == bot_moves
                        assert total(samples, "jassweb_move_latency_seconds_count") == moves
                        assert total(samples, "jassweb_bot_answer_seconds_count", bot="builtin") == bot_moves
                        assert total(samples, "jassweb_open_sockets", kind="table") == 3
                        assert total(samples, "jassweb_running_games") == 1
                        assert total(samples, "jassweb_games_started_total", managed_by="") == 1
                    checks += 1
                options = (
                    [{"type": "choose_trump", "trump": t, "seq": seq} for t in view["legal_trumps"]]
                    if view["legal_trumps"]
                    else [{"type": "play_card", "card": c, "seq": seq} for c in view["legal"]]
                )
                if seat == 0 and len(options) > 1:  # both of Nora's tabs send a move at once: one is stored
                    await twin.state(at(seq), 20)
                    await asyncio.gather(tabs[0].send(options[0]), twin.send(options[-1]))
                    races += 1
                else:
                    await tabs[seat].send(rng.choice(options))
                await tabs[0].state(after(seq), 20)

            moves, bot_moves = stored_moves(database_url, table_id)
            assert checks >= 10 and races >= 5
            samples = scrape(servers[1].url)
            assert total(samples, "jassweb_moves_total") == moves == game["seq"]
            assert total(samples, "jassweb_games_ended_total", status="finished") == 1

            # A server killed without a word: its moves stay counted, its sockets are no longer open.
            servers[1].kill()
            samples = scrape(servers[0].url)
            assert total(samples, "jassweb_moves_total") == moves
            assert total(samples, "jassweb_open_sockets", kind="table") == 1
        finally:
            await close_all_clients()
            for server in servers:
                server.stop()
