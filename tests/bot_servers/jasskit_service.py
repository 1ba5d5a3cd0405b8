"""jass-kit's player service, the reference HSLU bot peer, run for tests.

    python -m tests.bot_servers.jasskit_service --port 5001 alice bob

serves jass-kit's ``AgentRandomSchieber`` players with jass-kit's own Flask app
and routes: ``http://127.0.0.1:5001/alice`` answers ``/action_trump``,
``/action_play_card`` and ``/game_info`` (jass-kit's dialect). The same agents
also answer the spec's paths under ``/spec/``: ``http://127.0.0.1:5001/spec/alice``
answers ``/select_trump``, ``/play_card`` and ``/game_info`` through jass-kit's
handlers, so one service stands for both dialects. Every request is counted;
``GET /stats`` reports the counts by path and status.

GPL-3 jass-kit is a test dependency only: this file lives under tests/.
"""

from __future__ import annotations

import argparse
import logging
import threading
from collections import Counter

from flask import jsonify, request
from jass.agents.agent_random_schieber import AgentRandomSchieber
from jass.service import player_service_route as routes
from jass.service.player_service_app import PlayerServiceApp


def make_app(names: list[str]) -> PlayerServiceApp:
    app = PlayerServiceApp("jasskit_test_service")
    for name in names:
        app.add_player(name, AgentRandomSchieber())
    spec_routes = {
        "select_trump": routes.action_trump,
        "play_card": routes.action_play_card,
        "game_info": routes.game_info,
    }
    for path, handler in spec_routes.items():
        app.add_url_rule(f"/spec/<string:player_name>/{path}", f"spec_{path}", handler, methods=["POST"])
    counts: Counter[str] = Counter()
    lock = threading.Lock()

    @app.after_request
    def count(response):
        with lock:
            counts[f"{request.path.rsplit('/', 1)[-1]} {response.status_code}"] += 1
        return response

    @app.get("/stats")
    def stats():
        with lock:
            return jsonify(dict(counts))

    return app


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("names", nargs="+")
    args = parser.parse_args()
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    make_app(args.names).run(host="127.0.0.1", port=args.port, threaded=True)


if __name__ == "__main__":
    main()
