"""Bots thinking on other machines: Channels workers on the Redis channel layer (``JASSWEB_THINKERS=channels``).

A real server sends every built-in bot's decision to ``manage.py runworker --layer
bots bots-think`` processes and plays a whole game with their answers; a
decision nobody answers in time is the rule bot's, so no table waits for a
missing worker; and what travels is exactly the deciding seat's observation.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import numpy as np
import pytest

from bots import think
from games.engine import GameConfig, GamePlan, GameState
from tests.server_helpers import ROOT, ServerProcess, migrate
from tests.services import redis_channel_layers, require_redis
from tests.ws_helpers import LiveClient, close_all_clients, create_live_table, guest_cookies

pytestmark = pytest.mark.services


def observations(games: int = 3):
    rng = np.random.default_rng(4)
    for seed in range(games):
        config = GameConfig(mode="fair", round_count=2, seed=seed)
        state = GameState.new(config, GamePlan(config))
        while not state.over:
            obs = state.observation(state.player)
            yield obs
            actions = obs.legal_actions()
            state = state.apply(state.player, actions[int(rng.integers(len(actions)))])


def test_an_observation_travels_whole_and_alone():
    count = 0
    for obs in observations():
        data = think.observation_to_data(obs)
        assert think.observation_from_data(data) == obs
        # Only the deciding seat's hand travels: one card mask, and it is the viewer's.
        assert data[9] == obs.hand and obs.viewer == obs.player
        count += 1
    assert count > 200


@pytest.mark.asyncio
async def test_a_decision_nobody_answers_is_the_rule_bots_in_time(settings):
    from bots.runner import BotTurn
    from bots.thinkers import RemoteThinkers

    layers = redis_channel_layers()
    layers["bots"] = {
        "BACKEND": "channels_redis.core.RedisChannelLayer",
        "CONFIG": {"hosts": [require_redis()], "prefix": f"test-bots-{uuid.uuid4().hex[:8]}"},
    }
    settings.CHANNEL_LAYERS = layers
    from channels.layers import channel_layers

    channel_layers.backends = {}
    obs = next(o for o in observations() if len(o.legal_actions()) > 1)
    turn = BotTurn(1, 0, obs.player, 0, obs, 7, 0.0, bot="mcts-fast")
    thinkers = RemoteThinkers()
    await thinkers.start()
    try:
        action = await thinkers.think(turn, deadline=time.time() + 0.2)
    finally:
        await thinkers.close()
        channel_layers.backends = {}
    assert action in obs.legal_actions()
    assert action == think.think("rules", obs, (7, 0, obs.player))
    assert thinkers.fallbacks == 1  # nobody answered by the deadline: the fallback's move


@pytest.mark.asyncio
async def test_a_server_plays_a_whole_game_with_bots_thinking_in_channels_workers():
    redis_url = require_redis()
    with tempfile.TemporaryDirectory() as folder:
        env = {
            "JASSWEB_SQLITE_PATH": str(Path(folder) / "db.sqlite3"),
            "REDIS_URL": redis_url,
            "JASSWEB_CHANNEL_PREFIX": f"thinkers-{uuid.uuid4().hex[:8]}",
            "JASSWEB_THINKERS": "channels",
            "JASSWEB_BOT_DELAY_MS": "0",
        }
        migrate(env)
        worker_log = tempfile.NamedTemporaryFile(prefix="runworker-", suffix=".log", delete=False)  # noqa: SIM115
        merged = {**os.environ, **env}
        merged.pop("DJANGO_SETTINGS_MODULE", None)
        worker = subprocess.Popen(
            [sys.executable, "manage.py", "runworker", "--layer", "bots", "bots-think"],
            cwd=ROOT,
            env=merged,
            stdout=worker_log,
            stderr=subprocess.STDOUT,
        )
        server = ServerProcess(env)
        try:
            cookies = guest_cookies(server.url, "Olga")
            table_id = create_live_table(server.url, cookies, mode="fair", round_count="2", seat="watch")
            client = await LiveClient.open(server.url, table_id, cookies, "Olga")
            for seat, bot in enumerate(("mcts-fast", "rules", "mcts-fast", "random")):
                await client.send({"type": "add_bot", "seat": seat, "bot": bot})
            await client.state(lambda v: all(s["kind"] == "bot" for s in v["seats"]))
            await client.send({"type": "start"})
            view = await client.state(lambda v: v["game"] is not None and v["game"]["over"], 120)
            assert view["game"]["status"] == "finished" and view["game"]["seq"] >= 74
            log = server.output()
            assert "no thinker answered" not in log, log[-2000:]
            # The server thought nothing itself: it started no pool of bot processes.
            children = subprocess.run(
                ["ps", "--ppid", str(server.process.pid), "-o", "pid="], capture_output=True, text=True
            ).stdout.split()
            assert children == [], children
            assert worker.poll() is None
        finally:
            await close_all_clients()
            server.stop()
            worker.terminate()
            worker.wait(timeout=10)
