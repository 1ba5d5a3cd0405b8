"""A complete HSLU Jass bot in one file: the spec's paths, the standard library's HTTP server.

    .venv/bin/python -m bots.examples.simple_bot --port 5001

serves a bot at http://127.0.0.1:5001/ (the spec's dialect): POST /select_trump
and /play_card answer {"trump": n} and {"card": "C8"}; /game_info is
acknowledged. It uses Jassweb's pure rules engine and HSLU codec (no Django) to
read the request and find the legal cards; swap in your own strategy in
``choose_trump`` and ``choose_card``.

    .venv/bin/python -m bots.examples.simple_bot --port 5001 --bot solver

serves one of Jassweb's built-in bots instead (``random``, ``rules``,
``mcts-fast``, ``mcts-strong``, ``solver``): any HSLU server can invite it.
"""

from __future__ import annotations

import argparse
import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import numpy as np

from games.engine import CARD_CODES, PUSH, SUIT_MASKS, SUITS, Observation, iter_cards
from games.engine.rules import CARD_POINTS, WIN_RANK
from games.hslu import decode_observation
from games.json_depth import nested_deeper_than

MAX_REQUEST_DEPTH = 16  # levels of lists and objects in a request (the interface's requests use four)


def choose_trump(obs: Observation) -> int:
    """Declare the suit we hold most cards of (Jack and Nine count double); push a weak hand."""

    def weight(suit: int) -> int:
        cards = list(iter_cards(obs.hand & SUIT_MASKS[suit]))
        return len(cards) + sum(1 for c in cards if c % 9 in (3, 5))  # the Jack and the Nine

    best = max(SUITS, key=weight)
    if weight(best) < 4 and obs.forehand == -1:
        return PUSH
    return best


def choose_card(obs: Observation) -> int:
    """Win the trick with the cheapest winning card if we can; otherwise throw the cheapest card."""
    legal = list(iter_cards(obs.legal_mask()))
    value = CARD_POINTS[obs.trump]
    if obs.trick:
        ranks = WIN_RANK[obs.trump][obs.trick[0] // 9]
        winners = [c for c in legal if ranks[c] > ranks[obs.top]]
        if winners:
            return min(winners, key=lambda c: (value[c], ranks[c]))
        return min(legal, key=lambda c: (value[c], ranks[c]))
    return max(legal, key=lambda c: value[c])  # lead our most valuable card


def builtin_strategy(name: str) -> tuple[Callable[[Observation], int], Callable[[Observation], int]]:
    """``choose_trump`` and ``choose_card`` of the built-in bot ``name`` (``bots.registry``), one move at a time
    (a search bot's tables are not shared between threads)."""
    from bots.registry import get_bot

    bot = get_bot(name)
    warm_up = getattr(bot, "warm_up", None)
    if callable(warm_up):
        warm_up()
    rng = np.random.default_rng()
    lock = threading.Lock()

    def trump(obs: Observation) -> int:
        with lock:
            return bot.choose_trump(obs, rng)

    def card(obs: Observation) -> int:
        with lock:
            return bot.act(obs, rng).value

    return trump, card


class BotHandler(BaseHTTPRequestHandler):
    # (choose_trump, choose_card): the simple strategy above, or a built-in bot's (``--bot``).
    strategy: ClassVar[tuple[Callable[[Observation], int], Callable[[Observation], int]]] = (choose_trump, choose_card)

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        path = self.path.rstrip("/").rsplit("/", 1)[-1]
        if path == "game_info":
            return self.reply(200, {})
        if nested_deeper_than(body, MAX_REQUEST_DEPTH):  # json.loads would recurse to the stack's limit
            return self.reply(400, {"error": f"the request nests more than {MAX_REQUEST_DEPTH} levels deep"})
        try:
            obs = decode_observation(json.loads(body))
        except ValueError as exc:
            return self.reply(400, {"error": str(exc)})
        if path == "select_trump":
            return self.reply(200, {"trump": self.strategy[0](obs)})
        if path == "play_card":
            return self.reply(200, {"card": CARD_CODES[self.strategy[1](obs)]})
        return self.reply(404, {"error": f"no such path: {self.path}"})

    def reply(self, status: int, data: dict[str, object]) -> None:
        payload = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: object) -> None:
        pass  # quiet: a game makes a hundred requests


def main() -> None:
    parser = argparse.ArgumentParser(description="A simple HSLU Jass bot (spec paths).")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=5001)
    parser.add_argument("--bot", help="serve this built-in bot (e.g. solver) instead of the simple strategy")
    args = parser.parse_args()
    if args.bot:
        BotHandler.strategy = builtin_strategy(args.bot)
    server = ThreadingHTTPServer((args.host, args.port), BotHandler)
    print(f"bot ready at http://{args.host}:{args.port}/  (spec paths; Ctrl-C stops)", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
