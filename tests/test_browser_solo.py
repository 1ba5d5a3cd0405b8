"""One person in the browser against three bots: a whole game, a reload mid-game, a move before the socket opens."""

from __future__ import annotations

import asyncio
import re
import threading
from urllib.parse import urlsplit

from playwright.sync_api import expect

from tests.browser_helpers import (
    HAND_CARDS,
    LEGAL_CARDS,
    RESULT,
    add_bots,
    become_guest,
    my_seat,
    open_table,
    play_card,
    screenshot,
    shown_seq,
    start_game,
    take_turn,
    trick_card,
    wait_for_seq_after,
    wait_for_turn,
)

pytest_plugins = ["tests.browser_helpers"]


def test_guest_plays_a_full_game_against_three_bots(open_page):
    page = open_page()
    become_guest(page, "Vreni")
    open_table(page, "Quick game", target=150)
    assert my_seat(page) == 2
    add_bots(page, [0, 1, 3])
    start_game(page)
    expect(page.get_by_test_id("table-sub")).to_contain_text("Round 1")

    cards_played = 0
    trumps_chosen = 0
    while True:
        _, state = wait_for_turn([page])
        if state == "over":
            break
        if take_turn(page, state):
            cards_played += 1
        else:
            trumps_chosen += 1
        assert cards_played <= 9 * 20, "the game should have ended long ago"
    assert cards_played >= 1

    result = page.locator(RESULT)
    expect(result).to_be_visible()
    expect(result.get_by_test_id("result-title")).to_have_text(re.compile(r"^You (won!|lost\.)$"))
    scores = [int(result.get_by_test_id(f"result-score-{team}").inner_text()) for team in (0, 1)]
    assert max(scores) >= 150
    header_scores = [int(page.get_by_test_id(f"score-{team}").inner_text()) for team in (0, 1)]
    assert header_scores == scores
    screenshot(page, "result-overlay")

    # The result page of the game agrees, and the table offers a new game.
    expect(result.get_by_test_id("new-game")).to_be_enabled()
    result.get_by_test_id("game-link").click()
    page.wait_for_url(re.compile(r"/games/\d+/$"))
    expect(page.get_by_role("heading", level=1)).to_have_text(re.compile(r"(North & South|East & West) win"))
    expect(page.get_by_test_id("result-team-0")).to_contain_text(str(scores[0]))
    expect(page.get_by_test_id("result-team-1")).to_contain_text(str(scores[1]))
    expect(page.get_by_test_id("result-team-0")).to_contain_text("Vreni")


def play_to_our_second_card(page) -> None:
    """Play until a card of ours lies on the table and it is our turn to play again."""
    played = None
    while True:
        _, state = wait_for_turn([page])
        if state == "card" and played is not None:
            return
        played = take_turn(page, state) or played


def test_reloading_mid_game_keeps_the_seat_and_the_hand(open_page):
    page = open_page()
    become_guest(page, "Ruedi")
    open_table(page, "Reload table", target=5000)
    add_bots(page, [0, 1, 3])
    start_game(page)
    play_to_our_second_card(page)
    hand_before = sorted(c.get_attribute("data-card") for c in page.locator(HAND_CARDS).all())

    page.reload()
    assert my_seat(page) == 2
    expect(page.locator("[data-testid=seat-bottom] [data-you=true]")).to_contain_text("Ruedi")
    expect(page.locator(HAND_CARDS)).to_have_count(len(hand_before))
    assert sorted(c.get_attribute("data-card") for c in page.locator(HAND_CARDS).all()) == hand_before

    # Still our turn after the reload: play with the keyboard this time.
    _, state = wait_for_turn([page])
    assert state == "card"
    code = play_card(page, keyboard=True)
    expect(trick_card(page, code)).to_be_visible()
    expect(page.locator(HAND_CARDS)).to_have_count(len(hand_before) - 1)


def test_server_errors_show_as_a_dismissible_toast_and_drops_reconnect(open_page):
    page = open_page()
    become_guest(page, "Kari")
    routes = []

    def relay(route):
        # Pass everything through to the real server, and keep the route to act on it.
        route.connect_to_server()
        routes.append(route)

    page.route_web_socket(re.compile(r"/ws/tables/\d+/$"), relay)
    open_table(page, "Flaky line")
    expect(page.get_by_test_id("seat-bottom")).to_contain_text("Kari")

    routes[-1].send('{"type": "error", "code": "illegal", "message": "that card may not be played now"}')
    toast = page.get_by_test_id("toast")
    expect(toast).to_have_text(re.compile("That card may not be played now."))
    expect(page.get_by_test_id("toasts")).to_have_attribute("aria-live", "assertive")
    toast.get_by_role("button", name="Dismiss").click()
    expect(toast).to_have_count(0)

    # The connection drops: the page says so, reconnects by itself and gets a fresh state.
    connections = len(routes)
    routes[-1].close(code=1011, reason="gone")
    expect(page.get_by_test_id("connection")).to_be_visible()
    expect(page.get_by_test_id("connection")).to_contain_text("Reconnecting")
    expect(page.get_by_test_id("connection")).to_be_hidden(timeout=10_000)
    assert len(routes) == connections + 1
    add_bots(page, [0])  # and the new connection works


class HeldHandshakes:
    """A loopback TCP proxy in front of the server: pages pass at once; while ``hold`` is on,
    websocket handshakes wait until ``release`` (a slow network as a reloaded page meets it)."""

    def __init__(self, target: str) -> None:
        parts = urlsplit(target)
        self.target = (parts.hostname or "127.0.0.1", parts.port or 80)
        self.loop = asyncio.new_event_loop()
        self.gate = asyncio.Event()
        self.gate.set()
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()
        self.ready.wait(5)

    def _serve(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.server = self.loop.run_until_complete(asyncio.start_server(self._handle, "127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}"
        self.ready.set()
        self.loop.run_forever()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.read(65536)
        if b"upgrade: websocket" in head.lower():
            await self.gate.wait()
        upstream_reader, upstream_writer = await asyncio.open_connection(*self.target)
        upstream_writer.write(head)

        async def pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            try:
                while data := await source.read(65536):
                    sink.write(data)
                    await sink.drain()
            except ConnectionError:
                pass
            finally:
                sink.close()

        await asyncio.gather(pipe(reader, upstream_writer), pipe(upstream_reader, writer))

    def hold(self) -> None:
        self.loop.call_soon_threadsafe(self.gate.clear)

    def release(self) -> None:
        self.loop.call_soon_threadsafe(self.gate.set)

    def close(self) -> None:
        async def shut() -> None:
            self.server.close()
            tasks = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(shut(), self.loop).result(5)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        self.loop.close()


def test_a_card_played_before_the_socket_opens_goes_out_when_it_opens(open_page, jass_server):
    # Just after a reload the page shows the hand before its websocket is open. A card played in
    # that moment shows as sending and is sent once the socket opens: no "not connected" refusal.
    proxy = HeldHandshakes(jass_server)
    try:
        page = open_page(base_url=proxy.url)
        become_guest(page, "Seppi")
        open_table(page, "Slow network table", target=5000)
        add_bots(page, [0, 1, 3])
        start_game(page)
        play_to_our_second_card(page)

        proxy.hold()
        page.reload()
        code = page.locator(LEGAL_CARDS).first.get_attribute("data-card")
        seq = shown_seq(page)
        assert page.get_by_test_id("table-app").get_attribute("data-socket") is None  # not open yet
        page.locator(f"{HAND_CARDS}[data-card='{code}']").click()
        expect(page.get_by_test_id("hand-note")).to_contain_text("Sending")
        expect(page.locator(f"{HAND_CARDS}[data-card='{code}']")).to_have_count(0)

        proxy.release()
        wait_for_seq_after(page, seq)
        expect(trick_card(page, code)).to_be_visible()
        expect(page.get_by_test_id("toast")).to_have_count(0)
    finally:
        proxy.close()


def test_a_socket_that_goes_silent_is_noticed_within_seconds_and_opened_anew(open_page):
    """Issue 23, finding 7: a network that stops delivering (the socket still open) showed nothing for long."""
    page = open_page()
    become_guest(page, "Stille")
    silent = {"on": False}
    opened = []

    def relay(ws):
        # The real server behind it; while "silent", nothing gets through either way (the socket stays open).
        server = ws.connect_to_server()
        opened.append(ws)
        ws.on_message(lambda message: None if silent["on"] else server.send(message))
        server.on_message(lambda message: None if silent["on"] else ws.send(message))

    page.route_web_socket(re.compile(r"/ws/tables/\d+/$"), relay)
    open_table(page, "Quiet line")
    app = page.get_by_test_id("table-app")
    expect(app).to_have_attribute("data-socket", "open")
    page.evaluate(
        """() => {
            window.__socketStates = [];
            const app = document.querySelector('[data-testid=table-app]');
            new MutationObserver(() => window.__socketStates.push(app.dataset.socket))
                .observe(app, { attributes: true, attributeFilter: ['data-socket'] });
        }"""
    )
    silent["on"] = True
    # The heartbeat notices: the table says it is reconnecting (the old ping came every 25 s and heard nothing).
    page.wait_for_function("() => window.__socketStates.includes('reconnecting')", timeout=8_000)
    silent["on"] = False
    expect(app).to_have_attribute("data-socket", "open", timeout=15_000)
    assert len(opened) >= 2, "a new connection was opened"
    # It works again: a seat change goes through and comes back.
    add_bots(page, [0])
