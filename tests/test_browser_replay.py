"""Replay in the browser: from "My games" into a fair game's replay, stepping, the slider, twins, shared URLs;
on a small phone the step buttons and the trick stay in view, and pair scores are told from the viewer's side."""

from __future__ import annotations

import itertools
import json
import random
import re
from urllib.parse import parse_qs, urlparse

from playwright.sync_api import Page, expect

from games.engine import GameConfig, GameState
from games.hslu import encode_round
from tests.browser_helpers import PHONE, add_bots, become_guest, screenshot, start_game, take_turn, wait_for_turn
from tests.engine_helpers import play_random_game

pytest_plugins = ["tests.browser_helpers"]

REPLAY = "[data-testid=replay]"
SMALL_PHONE = {"width": 375, "height": 667}
LAPTOPS = [{"width": 1366, "height": 768}, {"width": 1366, "height": 800}]
TEAM_NAMES = ["North & South", "East & West"]


def open_fair_table(page: Page, name: str, rounds: int, seat: str = "2") -> None:
    form = page.get_by_test_id("create-table")
    form.get_by_label("Name").fill(name)
    form.get_by_label("Fair", exact=True).check()
    form.get_by_label("Rounds (even)").fill(str(rounds))
    form.get_by_label("Your seat").select_option(seat)
    form.get_by_role("button", name="Open table").click()
    page.wait_for_url("**/tables/*/")
    # Seat controls act over the socket: a click before it is open only says "not connected".
    expect(page.get_by_test_id("table-app")).to_have_attribute("data-socket", "open")


def play_to_the_end(page: Page) -> None:
    for _ in range(200):
        _, state = wait_for_turn([page])
        if state == "over":
            return
        take_turn(page, state)
    raise AssertionError("a two-round game should be over by now")


def position(page: Page) -> tuple[int, int]:
    replay = page.locator(REPLAY)
    return int(replay.get_attribute("data-round") or ""), int(replay.get_attribute("data-card") or "")


def expect_position(page: Page, round_number: int, card: int) -> None:
    replay = page.locator(REPLAY)
    expect(replay).to_have_attribute("data-round", str(round_number))
    expect(replay).to_have_attribute("data-card", str(card))
    query = parse_qs(urlparse(page.url).query)
    assert query == {"round": [str(round_number)], "card": [str(card)]}, page.url


def hand(page: Page, seat: int) -> list[str]:
    return page.locator(f"[data-testid=hand-{seat}] .card").evaluate_all("cards => cards.map(c => c.dataset.card)")


def replay_json(page: Page) -> dict:
    return page.evaluate("() => JSON.parse(document.getElementById('replay-data').textContent)")


def cards_in_hands(page: Page) -> int:
    return sum(len(hand(page, seat)) for seat in range(4))


def pair_score(data: dict, pair: dict, team: int) -> int:
    """``team``'s score of a fair pair, from the engine's RPA of the pair's first round (its starting team's)."""
    first = data["rounds"][pair["rounds"][0] - 1]
    return first["pair"]["rpa"] if first["forehand"] % 2 == team else -first["pair"]["rpa"]


def phrased(side: str, score: int) -> str:
    return f"{side} {'±0' if score == 0 else f'{score:+d}'}"


def standard_record(seed: int = 4) -> dict:
    """A finished standard game of random legal moves, as a record to import, with long bot names."""
    state = play_random_game(GameState.new(GameConfig(target=400, seed=seed)), random.Random(seed))
    names = [("MCTS (strong) bot", "mcts-strong"), ("MCTS (fast) bot", "mcts-fast"), ("Rule-based bot", "rules")]
    seats = [{"position": i, "name": name, "kind": "bot", "bot": bot} for i, (name, bot) in enumerate(names)]
    seats.append({"position": 3, "name": "Hansruedi Zwahlen-Bürki", "kind": "human"})
    return {"mode": "standard", "target": 400, "seats": seats, "rounds": [encode_round(r) for r in state.rounds]}


def import_record(page: Page, record: dict) -> None:
    page.goto("/games/import/")
    if page.get_by_test_id("import-nickname").count():  # importing needs a nickname: pick one there
        page.get_by_label("Nickname").fill("Importer")
        page.get_by_role("button", name="Play as guest").click()
        expect(page.get_by_test_id("import-form")).to_be_visible()
    page.get_by_label("…or paste it").fill(json.dumps(record))
    page.get_by_role("button", name="Import and replay").click()
    page.wait_for_url(re.compile(r"/games/\d+/replay"))
    expect(page.locator(REPLAY)).to_have_attribute("data-ready", "true")


def texts_reading_null(page: Page) -> list[str]:
    """Every element of the page with a text of its own that reads "null" (a JavaScript null written out)."""
    return page.evaluate(
        """() => [...document.querySelectorAll('body *:not(script):not(style)')]
            .filter(e => [...e.childNodes].some(n => n.nodeType === Node.TEXT_NODE && /\\bnull\\b/.test(n.textContent)))
            .map(e => e.outerHTML.slice(0, 120))"""
    )


def horizontal_overflow(page: Page) -> int:
    return page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")


def box_in_view(page: Page, selector: str) -> dict:
    """The element's box in the viewport, and whether it lies wholly inside it."""
    return page.locator(selector).first.evaluate(
        """e => { const r = e.getBoundingClientRect();
            return {top: r.top, bottom: r.bottom, left: r.left, right: r.right,
                    inside: r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth}; }"""
    )


def clipped_names(page: Page) -> list[dict]:
    """Seat names and compass labels that overflow their box or break inside a word."""
    return page.evaluate(
        """() => [...document.querySelectorAll('.rp-name, .rp-compass')].flatMap(e => {
            const found = [];
            if (e.scrollWidth > e.clientWidth) {
                found.push({text: e.textContent, why: `${e.scrollWidth}px wide in ${e.clientWidth}px`});
            }
            // A line may end at a space or after a hyphen, never inside a word ("(stron g)").
            for (const match of e.textContent.matchAll(/[^\\s-]+/g)) {
                const range = document.createRange();
                range.setStart(e.firstChild, match.index);
                range.setEnd(e.firstChild, match.index + match[0].length);
                const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
                if (lines.size > 1) found.push({text: e.textContent, why: `"${match[0]}" broken over lines`});
            }
            return found;
        })"""
    )


def test_replay_a_fair_game_from_my_games(open_page):
    page = open_page()
    become_guest(page, "Ruedi")
    open_fair_table(page, "Replay me", rounds=2)
    add_bots(page, [0, 1, 3], bot="rules")
    start_game(page)
    play_to_the_end(page)
    expect(page.get_by_test_id("replay-link")).to_be_visible()  # the result offers the replay at once
    page.get_by_test_id("close-result").click()

    page.get_by_test_id("nav-my-games").click()
    row = page.get_by_test_id("game-row").first
    expect(row).to_contain_text("Replay me")
    expect(row).to_contain_text(re.compile("Won|Lost|Draw"))
    row.get_by_test_id("replay-link").click()
    page.wait_for_url(re.compile(r"/games/\d+/replay\?round=1&card=0$"))
    expect(page.locator(REPLAY)).to_have_attribute("data-ready", "true")
    expect_position(page, 1, 0)
    data = replay_json(page)
    first = data["rounds"][0]
    assert [sorted(hand(page, seat)) for seat in range(4)] == [sorted(h) for h in first["hands"]]
    expect(page.get_by_test_id("decision")).to_contain_text("chose")

    # Step by buttons: the first card leaves its player's hand and lies in the trick.
    page.get_by_test_id("next").click()
    expect_position(page, 1, 1)
    leader, lead_card = first["cards"][0]["seat"], first["cards"][0]["card"]
    assert lead_card not in hand(page, leader) and len(hand(page, leader)) == 8
    expect(page.locator(f"[data-testid=trick] [data-card={lead_card}]")).to_be_visible()

    # …and by keys, across a trick's end: its winner is named.
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    expect_position(page, 1, 4)
    winner = first["tricks"][0]["winner"]
    expect(page.get_by_test_id("trick-caption")).to_contain_text(f"wins {first['tricks'][0]['points']}")
    expect(page.locator(f".rp-seat[data-pos] [data-testid=hand-{winner}]")).to_be_visible()
    assert cards_in_hands(page) == 32
    page.keyboard.press("ArrowLeft")
    expect_position(page, 1, 3)
    page.get_by_test_id("prev").click()
    expect_position(page, 1, 2)
    page.keyboard.press("End")
    expect_position(page, 1, 36)
    assert cards_in_hands(page) == 0
    expect(page.get_by_test_id("round-points")).to_contain_text(f"{first['points'][0]} : {first['points'][1]}")
    page.keyboard.press("Home")
    expect_position(page, 1, 0)
    assert cards_in_hands(page) == 36

    # Drag the slider to about the middle of the round.
    box = page.get_by_test_id("slider").bounding_box()
    page.mouse.move(box["x"] + 4, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] * 0.3, box["y"] + box["height"] / 2, steps=5)
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2, steps=5)
    page.mouse.up()
    _, card = position(page)
    assert 14 <= card <= 22, card
    expect_position(page, 1, card)
    assert cards_in_hands(page) == 36 - card

    # The twin round at the same card: each hand is the original's with the suits permuted, at the other team.
    pair = first["pair"]
    south = pair_score(data, data["pairs"][0], team=0)  # the player sat South
    expect(page.get_by_test_id("rpa")).to_have_text(f"Pair score {phrased('you', south)}")
    page.keyboard.press("Home")
    page.get_by_test_id("twin").click()
    expect_position(page, pair["twin"], 0)
    for seat in range(4):
        twin_seat = pair["seat_map"][seat]
        expected = sorted(pair["suits"][c[0]] + c[1:] for c in first["hands"][seat])
        assert sorted(hand(page, twin_seat)) == expected
        assert twin_seat % 2 != seat % 2
    twin_rpa = data["rounds"][pair["twin"] - 1]["pair"]["rpa"]
    assert twin_rpa == -pair["rpa"]
    expect(page.get_by_test_id("rpa")).to_have_text(f"Pair score {phrased('you', south)}")  # the same pair
    page.get_by_test_id("slider").fill("17")
    expect_position(page, pair["twin"], 17)
    page.get_by_test_id("twin").click()
    expect_position(page, 1, 17)
    page.get_by_test_id("twin").click()
    expect_position(page, pair["twin"], 17)
    screenshot(page, "replay-twin")

    # A shared URL lands on the same position, for somebody else too (the table is public).
    shared = page.url
    other = open_page()
    other.goto(shared)
    expect(other.locator(REPLAY)).to_have_attribute("data-ready", "true")
    expect_position(other, pair["twin"], 17)
    assert sorted(hand(other, 0)) == sorted(hand(page, 0))
    expect(other.get_by_test_id("position")).to_have_text(page.get_by_test_id("position").inner_text())
    other.reload()
    expect_position(other, pair["twin"], 17)

    # The same replay works on a phone-sized screen without sideways scrolling.
    phone = open_page(viewport=PHONE)
    phone.goto(shared)
    expect_position(phone, pair["twin"], 17)
    overflow = phone.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the replay is {overflow}px wider than a phone"
    screenshot(phone, "replay-phone")


def test_a_standard_games_replay_shows_no_null(open_page):
    page = open_page()
    import_record(page, standard_record())
    for seat in range(4):
        expect(page.get_by_test_id(f"hand-{seat}").locator(".card")).to_have_count(9)
    assert texts_reading_null(page) == []
    page.keyboard.press("End")
    assert texts_reading_null(page) == []


def test_on_a_small_phone_the_step_buttons_and_the_trick_stay_in_view(open_page):
    page = open_page(viewport=SMALL_PHONE, is_mobile=True, has_touch=True)
    import_record(page, standard_record())
    assert texts_reading_null(page) == []
    buttons_before = box_in_view(page, "[data-testid=next]")
    assert buttons_before["inside"], buttons_before
    for card in range(1, 11):
        page.get_by_test_id("next").click()
        expect(page.locator(REPLAY)).to_have_attribute("data-card", str(card))
    for testid in ("first", "prev", "next", "last", "slider", "trick"):
        box = box_in_view(page, f"[data-testid={testid}]")
        assert box["inside"], (testid, box)
    # The trick is not hidden behind the buttons stuck to the bottom of the screen.
    controls = box_in_view(page, "#replay-controls")
    assert box_in_view(page, "[data-testid=trick]")["bottom"] <= controls["top"] + 1
    for code in page.locator("[data-testid=trick] .card").evaluate_all("cs => cs.map(c => c.dataset.card)"):
        assert box_in_view(page, f"[data-testid=trick] [data-card='{code}']")["inside"], code
    screenshot(page, "replay-small-phone")

    # Side hands are one fanned row each, every card's index left showing; names are whole.
    for seat in (1, 3):
        cards = (
            page.get_by_test_id(f"hand-{seat}")
            .locator(".card")
            .evaluate_all("cs => cs.map(c => { const r = c.getBoundingClientRect(); return [r.left, r.top]; })")
        )
        assert len(cards) >= 6, cards
        assert len({round(top) for _, top in cards}) == 1, f"seat {seat}'s hand wraps: {cards}"
        steps = [b[0] - a[0] for a, b in itertools.pairwise(cards)]
        assert min(steps) >= 12, f"seat {seat}'s cards overlap too far to read: {steps}"
    assert clipped_names(page) == []
    assert horizontal_overflow(page) <= 0


def test_the_replay_fits_laptop_screens(open_page):
    record = standard_record(seed=6)
    for viewport in LAPTOPS:
        page = open_page(viewport=viewport)
        import_record(page, record)
        for card in range(1, 11):
            page.get_by_test_id("next").click()
            expect(page.locator(REPLAY)).to_have_attribute("data-card", str(card))
        assert horizontal_overflow(page) <= 0, viewport
        for testid in ("next", "trick"):
            assert box_in_view(page, f"[data-testid={testid}]")["inside"], (viewport, testid)
        assert clipped_names(page) == [], viewport


def test_pair_scores_are_told_from_the_viewers_side(open_page):
    page = open_page(viewport=SMALL_PHONE, is_mobile=True, has_touch=True)
    become_guest(page, "Beat")
    open_fair_table(page, "Our side", rounds=2, seat="1")  # East: the East & West team
    add_bots(page, [0, 2, 3], bot="random")
    start_game(page)
    play_to_the_end(page)
    page.get_by_test_id("replay-link").click()
    page.wait_for_url(re.compile(r"/games/\d+/replay"))
    expect(page.locator(REPLAY)).to_have_attribute("data-ready", "true")
    data = replay_json(page)
    [pair] = data["pairs"]
    assert pair["rounds"] == [1, 2] and pair["number"] == 1
    ours = pair_score(data, pair, team=1)
    expect(page.get_by_test_id("rpa")).to_have_text(f"Pair score {phrased('you', ours)}")
    row = page.get_by_test_id("pair-score")
    expect(row).to_have_count(1)
    expect(row).to_contain_text("Pair 1 · rounds 1 & 2")
    expect(row).to_contain_text(phrased("you", ours))
    assert texts_reading_null(page) == []
    assert horizontal_overflow(page) <= 0

    # Somebody who did not play sees the same pair from North & South: the other sign.
    other = open_page(viewport=SMALL_PHONE, is_mobile=True, has_touch=True)
    other.goto(page.url)
    expect(other.locator(REPLAY)).to_have_attribute("data-ready", "true")
    theirs = pair_score(data, pair, team=0)
    assert theirs == -ours
    expect(other.get_by_test_id("rpa")).to_have_text(f"Pair score {phrased(TEAM_NAMES[0], theirs)}")
    expect(other.get_by_test_id("pair-score")).to_contain_text(phrased(TEAM_NAMES[0], theirs))
