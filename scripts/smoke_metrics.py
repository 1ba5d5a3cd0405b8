"""The metrics check of scripts/production-smoke.sh: /metrics through nginx refuses a request without the token,
and with it counts every stored move once (summed over both servers) and the bot workers' decisions.

    smoke_metrics.py BASE_URL CA_FILE DATABASE_URL SERVER_URL...   (JASSWEB_METRICS_TOKEN in the environment)
"""

from __future__ import annotations

import os
import sys

import httpx
import psycopg
from prometheus_client.parser import text_string_to_metric_families


def fail(message: str) -> None:
    sys.exit(f"smoke: FAILED: {message}")


def sums(url: str, ca: str | bool, token: str) -> dict[str, float]:
    """Each series' samples of ``url``/metrics, summed over their labels."""
    response = httpx.get(url + "/metrics", headers={"Authorization": f"Bearer {token}"}, verify=ca, timeout=10)
    if response.status_code != 200:
        fail(f"{url}/metrics with the token: {response.status_code} {response.text[:200]}")
    totals: dict[str, float] = {}
    for family in text_string_to_metric_families(response.text):
        for sample in family.samples:
            totals[sample.name] = totals.get(sample.name, 0.0) + sample.value
    return totals


def main(base: str, ca: str, database_url: str, servers: list[str]) -> None:
    token = os.environ["JASSWEB_METRICS_TOKEN"]
    refused = httpx.get(base + "/metrics", verify=ca, timeout=10)
    if refused.status_code != 401:
        fail(f"/metrics without the token answered {refused.status_code}, not 401")
    with psycopg.connect(database_url) as db:
        row = db.execute(
            "SELECT count(*) FROM games_action a JOIN games_game g ON g.id = a.game_id"
            " JOIN games_table t ON t.id = g.table_id WHERE NOT t.imported"
        ).fetchone()
    stored = row[0] if row else 0
    seen = [sums(base, ca, token), *(sums(url, False, token) for url in servers)]
    moves = [s.get("jassweb_moves_total", 0.0) for s in seen]
    if any(m != stored for m in moves):
        fail(f"jassweb_moves_total through nginx and on each server {moves}, but {stored} moves are stored")
    thought = seen[0].get("jassweb_thinker_seconds_count", 0.0)
    if thought <= 0:
        fail("the bot workers counted no decision (jassweb_thinker_seconds_count)")
    latency = seen[0]["jassweb_move_latency_seconds_sum"] / seen[0]["jassweb_move_latency_seconds_count"]
    print(
        f"smoke: /metrics through nginx (401 without the token) and on both servers: {stored:.0f} moves stored,"
        f" each counted once (mean {latency * 1000:.1f} ms in the service); {thought:.0f} decisions by the bot"
        f" workers; {seen[0].get('jassweb_games_ended_total', 0):.0f} game ended"
    )


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:])
