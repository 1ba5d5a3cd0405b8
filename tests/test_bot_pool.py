"""Search bots think in worker processes: a real server plays a whole game of four MCTS bots and
keeps answering its websockets meanwhile; the workers leave with the server."""

from __future__ import annotations

import asyncio
import os
import signal
import statistics
import subprocess
import sys
import time

import numpy as np
import pytest

from bots import think
from games.engine import GameConfig, GameState
from tests.server_helpers import ServerProcess, migrate
from tests.ws_helpers import LiveClient, close_all_clients, create_live_table, guest_cookies

pytestmark = pytest.mark.services

MAX_GAMES = 6  # games played until one is searched (the first is usually enough)


def worker_pids(server_pid: int) -> set[int]:
    """Every process descended from the server (its forkserver and bot workers)."""
    out = subprocess.run(["ps", "-e", "-o", "pid=,ppid="], capture_output=True, text=True, check=True).stdout
    children: dict[int, list[int]] = {}
    for line in out.splitlines():
        pid, ppid = map(int, line.split())
        children.setdefault(ppid, []).append(pid)
    found, todo = set(), [server_pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


async def ping(client: LiveClient, number: int) -> float:
    """Round trip of one ping, in seconds (state frames arriving meanwhile are kept)."""
    started = time.perf_counter()
    await client.send({"type": "ping", "id": number})
    while True:
        frame = await client.receive(10)
        assert frame["type"] != "error", f"the ping was refused: {frame}"
        if frame["type"] == "pong" and frame.get("id") == number:
            return time.perf_counter() - started


@pytest.mark.asyncio
async def test_four_mcts_bots_play_a_game_while_the_server_answers_pings(tmp_path):
    # Fifty pings a second are far over a person's message budget (tests/test_limits.py pins it).
    env = {
        "JASSWEB_SQLITE_PATH": str(tmp_path / "db.sqlite3"),
        "JASSWEB_BOT_DELAY_MS": "0",
        "JASSWEB_LIMIT_MESSAGE_PERSON": "off",
    }
    migrate(env)
    server = ServerProcess(env)
    workers: set[int] = set()
    try:
        cookies = guest_cookies(server.url, "Host")
        table = create_live_table(server.url, cookies, mode="fair", round_count="2", seat="watch")
        client = await LiveClient.open(server.url, table, cookies, "host")
        for seat in range(4):
            await client.send({"type": "add_bot", "seat": seat, "bot": "mcts-fast"})
        await client.state(lambda v: all(s["kind"] == "bot" for s in v["seats"]))
        started = time.monotonic()
        rtts: list[float] = []
        number = 0
        # The workers load the search kernels beside the first moves (the rule bot makes those, in a
        # millisecond): play games until one is searched, the bots taking their time.
        for _ in range(MAX_GAMES):
            previous = client.view["game"]["id"] if client.view["game"] else None
            await client.send({"type": "start"})
            await client.state(lambda v, previous=previous: v["game"] is not None and v["game"]["id"] != previous)
            thinking_pings = 0
            game_started = time.monotonic()
            while not client.view["game"]["over"]:
                number += 1
                seq_before = client.view["game"]["seq"]
                rtts.append(await ping(client, number))
                if client.view["game"]["seq"] == seq_before and not client.view["game"]["over"]:
                    thinking_pings += 1  # no move arrived around this ping: a bot was thinking
                await asyncio.sleep(0.02)
            game = client.view["game"]
            assert game["status"] == "finished" and game["round"] == 2
            assert sum(game["scores"]) >= 2 * 157
            if time.monotonic() - game_started > game["seq"] * 0.03:
                break  # searched: 30 ms and more a move (the rule bot standing in answers in a millisecond)
        else:
            pytest.fail(f"none of {MAX_GAMES} games was played by searching bots")
        # A pong that comes back before the next move: the server answered while a bot thought.
        assert thinking_pings >= 20, "pings were answered while bots thought"
        rtts.sort()
        p95 = rtts[int(0.95 * (len(rtts) - 1))]
        print(
            f"{len(rtts)} pings ({thinking_pings} while a bot thought): median {statistics.median(rtts) * 1000:.1f} ms,"
            f" p95 {p95 * 1000:.1f} ms, max {rtts[-1] * 1000:.1f} ms; game took {time.monotonic() - started:.1f} s"
        )
        # The bots ran in worker processes beside the server, which are gone with it.
        workers = worker_pids(server.process.pid)
        assert len(workers) >= 2, "a forkserver and at least one bot worker"
    finally:
        await close_all_clients()
        server.process.send_signal(signal.SIGKILL)
        server.process.wait()
    deadline = time.monotonic() + 10
    while any(os.path.exists(f"/proc/{pid}") for pid in workers) and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    left = [pid for pid in workers if os.path.exists(f"/proc/{pid}")]
    assert not left, f"bot workers outlived a killed server: {left}"


def test_a_pooled_move_is_the_move_the_bot_makes_in_process():
    state = GameState.new(GameConfig(seed=21))
    obs = state.observation(state.player)
    expected = think.think("rules", obs, (21, 0, state.player))
    pooled = think.pool().submit(think.think, "rules", obs, (21, 0, state.player)).result(timeout=60)
    assert pooled == expected
    from bots.registry import get_bot

    assert get_bot("rules").act(obs, np.random.default_rng([21, 0, state.player])) == expected


def test_workers_leave_the_cores_to_the_server_first():
    think.start()
    levels = {think.pool().submit(os.nice, 0).result(timeout=60) for _ in range(8)}
    assert levels == {min(19, os.nice(0) + think.NICENESS)}  # the server (here: the test process) keeps its own


WARM_UP_PROBE = """
import sys, time
from bots import think
from games.engine import GameConfig, GameState

think.warm_up()
print("after start:", "bots.mcts" in sys.modules)
state = GameState.new(GameConfig(seed=3))
obs = state.observation(state.player)
think.think("rules", obs, (3, 0, state.player))
print("after a rule bot's move:", "bots.mcts" in sys.modules)
think.think("mcts-fast", obs, (3, 0, state.player), deadline=time.time() + 1)
from bots import mcts
deadline = time.time() + 120
while not mcts._compiled and time.time() < deadline:
    time.sleep(0.02)
print("kernels loaded:", mcts._compiled)
"""


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        # A server's workers prepare every built-in bot when they start (the default)...
        ("eager", ["after start: True", "after a rule bot's move: True", "kernels loaded: True"]),
        # ...or each bot when it is first asked to move: simple bots' tables never load the search kernels.
        ("lazy", ["after start: False", "after a rule bot's move: False", "kernels loaded: True"]),
    ],
)
def test_a_worker_prepares_every_bot_at_its_start_or_each_when_first_asked(mode, expected):
    env = {**os.environ, "JASSWEB_BOT_WARM_UP": mode}
    run = subprocess.run([sys.executable, "-c", WARM_UP_PROBE], env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.splitlines() == expected


def test_an_unknown_warm_up_mode_is_refused_by_name():
    env = {**os.environ, "JASSWEB_BOT_WARM_UP": "soon"}
    run = subprocess.run([sys.executable, "-c", "import bots.think"], env=env, capture_output=True, text=True)
    assert run.returncode != 0
    assert "JASSWEB_BOT_WARM_UP must be 'eager' or 'lazy', got 'soon'" in run.stderr
