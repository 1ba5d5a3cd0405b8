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

import numpy as np
from flask import jsonify, request
from jass.agents.agent_random_schieber import AgentRandomSchieber
from jass.game.game_observation import GameObservation
from jass.service import player_service_route as routes
from jass.service.player_service_app import PlayerServiceApp

from games.engine import legal_mask


class LawfulRandomSchieber(AgentRandomSchieber):
    """jass-kit's random player, its card drawn from the cards both rule books allow (``--lawful``).

    jass-kit 2.0.5 lets the fourth hand under-trump in a side-suit trick ruffed twice (jass-kit-py issue 10,
    tests/test_jasskit_differential.py), which the engine refuses as an illegal card: a fault, now and then, in a
    test that asks for none. Only its choice of card changes; its routes, parsing and answers are jass-kit's.
    """

    def action_play_card(self, obs: GameObservation) -> int:
        valid = np.flatnonzero(self._rule.get_valid_cards_from_obs(obs))
        hand = sum(1 << int(card) for card in np.flatnonzero(obs.hand))
        trick = tuple(int(card) for card in obs.current_trick[: obs.nr_cards_in_trick])
        ours = legal_mask(hand, trick, int(obs.trump))
        return int(self._rng.choice([card for card in valid if ours >> int(card) & 1]))


def make_app(names: list[str], lawful: bool = False) -> PlayerServiceApp:
    app = PlayerServiceApp("jasskit_test_service")
    for name in names:
        app.add_player(name, LawfulRandomSchieber() if lawful else AgentRandomSchieber())
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
    parser.add_argument("--lawful", action="store_true", help="never the under-trump jass-kit wrongly allows")
    args = parser.parse_args()
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    make_app(args.names, lawful=args.lawful).run(host="127.0.0.1", port=args.port, threaded=True)


if __name__ == "__main__":
    main()
