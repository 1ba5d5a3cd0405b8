"""The analysis in the replay: a deliberately bad card is marked with its loss and the better card, the
evaluation graph is drawn, every player's accuracy shown; a game that ends at a live table is analysed in
the background with a progress bar, never before it is over."""

from __future__ import annotations

import json
import math
import random
import subprocess
import sys
import time

import numpy as np
import pytest
from playwright.sync_api import expect

from bots.rule_based import RuleBot
from games.engine import (
    CARD_CODES,
    FAIR,
    OBE_ABE,
    SOUTH,
    Action,
    GameConfig,
    GamePlan,
    RoundState,
    hand_weis,
    iter_cards,
    next_seat,
)
from games.engine.fair import random_deal
from games.hslu import encode_round
from tests.browser_helpers import (
    add_bots,
    become_guest,
    shown_seq,
    start_game,
    take_turn,
    wait_for_seq_after,
    wait_for_turn,
)
from tests.server_helpers import HTTP, ROOT, _server_env, running_server
from tests.test_browser_replay import open_fair_table, play_to_the_end
from tests.test_browser_weis import in_server

pytest_plugins = ["tests.browser_helpers"]


@pytest.fixture(scope="module")
def jass_server(tmp_path_factory: pytest.TempPathFactory):
    """The project with analysis on (the other browser tests turn it off), over its own SQLite database.

    Its analysis worker keeps the server's priority: at its usual niceness 15 a machine busy with the
    other test worker's searches starved it past the five minutes a test may take."""
    database = tmp_path_factory.mktemp("analysis") / "db.sqlite3"
    env = {
        "JASSWEB_SQLITE_PATH": str(database),
        "JASSWEB_BOT_DELAY_MS": "0",
        "JASSWEB_ANALYSIS": "1",
        "JASSWEB_ANALYSIS_NICENESS": "0",
    }
    with running_server(env) as base:
        yield base, env


@pytest.fixture
def open_page(browser, jass_server):
    base, _ = jass_server
    contexts = []

    def factory(**options):
        options.setdefault("reduced_motion", "reduce")  # as every browser test (tests/browser_helpers.py)
        context = browser.new_context(base_url=base, viewport={"width": 1366, "height": 900}, **options)
        context.set_default_timeout(60_000)
        contexts.append(context)
        return context.new_page()

    yield factory
    for context in contexts:
        context.close()


def _blunder_round(seed: int) -> tuple[RoundState, int, int] | None:
    """An Obe-Abe round of rule bots in which one seat, last to a trick the opponents hold and void in the
    led suit, throws an Ace (the top of its suit: a sure trick later) instead of a card worth nothing.

    Returns the finished round, the number of the bad card (1-based) and its seat, or None for this seed.
    """
    rng = random.Random(seed)
    bot = RuleBot()
    generator = np.random.default_rng(seed)
    state = RoundState.deal(random_deal(rng), 0).apply(Action.trump(OBE_ABE))
    blunder = None
    while not state.is_over:
        action = bot.act(state.observation(state.player), generator)
        if blunder is None and len(state.trick) == 3 and state.cards_played >= 8:
            seat = state.player
            led = state.trick[0] // 9
            hand = state.hands[seat]
            winner_seat = (state.leader - state.trick.index(state.top)) % 4
            aces = [c for c in iter_cards(state.legal_mask()) if c % 9 == 0 and c // 9 != led]
            blanks = [c for c in iter_cards(state.legal_mask()) if c % 9 in (5, 7, 8)]  # 9, 7, 6: nothing in Obe
            void = not any(c // 9 == led for c in iter_cards(hand))
            if void and winner_seat % 2 != seat % 2 and aces and blanks:
                action = Action.card(aces[0])
                blunder = (state.cards_played + 1, seat)
        state = state.apply(action, state.player)
    return (state, *blunder) if blunder else None


def _record() -> tuple[list[dict], int, int, str]:
    """Two rounds as HSLU logs (what ``importgame`` reads): the first holds the scripted blunder."""
    for seed in range(200):
        found = _blunder_round(seed)
        if found:
            break
    else:
        raise AssertionError("no seed gave a blunder position")
    first, card_number, seat = found
    bad_card = first.actions()[card_number].value  # actions()[0] is the trump
    rng = random.Random(seed + 1000)
    bot = RuleBot()
    generator = np.random.default_rng(seed)
    second = RoundState.deal(random_deal(rng), next_seat(0))
    while not second.is_over:
        second = second.apply(bot.act(second.observation(second.player), generator), second.player)
    return [encode_round(first), encode_round(second)], card_number, seat, CARD_CODES[bad_card]


def _manage(env: dict[str, str], *args: str, stdin: str | None = None) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=_server_env(env),
        input=stdin,
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    return done.stdout


def test_a_thrown_ace_is_marked_with_its_loss_and_the_better_card(open_page, jass_server):
    _, env = jass_server
    logs, card_number, seat, ace = _record()
    game_id = json.loads(_manage(env, "importgame", "-", "--name", "Blunder", stdin=json.dumps(logs)))["game"]
    output = _manage(env, "analyse", str(game_id))
    assert "accuracy North" in output, output

    page = open_page()
    page.goto(f"/games/{game_id}/replay?round=1&card={card_number}")
    panel = page.get_by_test_id("analysis-panel")
    verdict = panel.get_by_test_id("analysis-card")
    assert verdict.get_attribute("data-mark") in ("?", "??"), verdict.inner_text()
    loss = float(verdict.get_attribute("data-loss"))
    assert loss >= 10, verdict.inner_text()
    expect(panel.get_by_test_id("analysis-view")).to_contain_text(
        f"Lost {math.floor(loss + 0.5)} pts"
    )  # as JavaScript rounds: 16.5 is 17
    better = panel.get_by_test_id("analysis-best")
    expect(better).to_be_visible()
    assert better.inner_text().strip() != "", "the better card is named"
    # The card itself is the Ace that was thrown, and the slider carries its mark.
    expect(verdict.locator(".an-head")).to_contain_text("A by ")
    assert verdict.locator(".an-head .rp-code").first.get_attribute("title"), ace
    mark = page.locator(f"[data-testid=slider-analysis-mark][data-card='{card_number}']")
    expect(mark).to_have_count(1)
    # The evaluation graph: two lines of 37 points (before the first card and after each card).
    graph = panel.get_by_test_id("eval-graph")
    expect(graph).to_be_visible()
    lines = graph.locator("polyline")
    expect(lines).to_have_count(2)
    assert len(lines.first.get_attribute("points").split()) == 37
    # Accuracy for all four players, each a percentage.
    shown = panel.get_by_test_id("accuracy-seat")
    expect(shown).to_have_count(4)
    for text in shown.all_inner_texts():
        assert text.strip().endswith("%"), text
    blunderer = panel.locator(f"[data-testid=accuracy-seat][data-seat='{seat}']")
    expect(blunderer).to_be_visible()
    # On a laptop, read down to the analysis' end: the felt stays wholly in view above the step buttons, so the
    # card and what is said of it are seen together.
    page.set_viewport_size({"width": 1366, "height": 768})
    page.evaluate("window.scrollTo(0, document.scrollingElement.scrollHeight)")
    expect(page.locator("footer").first).to_be_in_viewport()
    felt, buttons = (
        page.locator(selector).evaluate("e => { const r = e.getBoundingClientRect(); return [r.top, r.bottom]; }")
        for selector in ("#replay-felt", "#replay-controls")
    )
    assert felt[0] >= 0 and felt[1] <= buttons[0], (felt, buttons)


def test_a_game_that_ends_is_analysed_in_the_background_with_a_progress_bar(open_page, jass_server):
    base, _ = jass_server
    page = open_page()
    page.goto("/")
    become_guest(page, "Analyst")
    open_fair_table(page, "Analysed", 2)
    add_bots(page, [0, 1, 3], bot="rules")
    start_game(page)
    play_to_the_end(page)
    replay = page.get_by_test_id("replay-link").first.get_attribute("href")
    game_id = int(replay.split("/")[2])
    page.goto(replay)
    panel = page.get_by_test_id("analysis-panel")
    seen_progress = False
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if panel.get_by_test_id("analysis-progress").count():
            seen_progress = True
        if panel.get_by_test_id("eval-graph").count():
            break
        page.wait_for_timeout(500)
    else:
        raise AssertionError("the analysis did not finish in 5 minutes")
    assert seen_progress, "a progress bar shows while the analysis runs"
    expect(panel.get_by_test_id("accuracy-seat")).to_have_count(4)
    analysis = HTTP.get(f"{base}/games/{game_id}/analysis.json").json()
    assert analysis["status"] == "done" and analysis["done"] == analysis["total"] == 2


# -- Weis & Stöck, and asking for an analysis (issue 23, findings 1 and 17) ----------------------------------

WEIS_START = """
import json, os, sys
os.environ["DJANGO_SETTINGS_MODULE"] = "jassweb.settings"
import django
django.setup()
from games.live import service
from games.models import Player
name, seed = sys.argv[1], int(sys.argv[2])
player = Player.objects.get(name=name)
table = service.create_table(
    player, name="Weis analysed", mode="fair", round_count=2, weis=True, bot_delay_ms=0, round_pause_s=0
)
service.take_seat(table.pk, 2, player)
for seat in (0, 1, 3):
    service.set_bot(table.pk, seat, "rules", service.SYSTEM)
game = service.start_game(table.pk, service.SYSTEM, seed=seed)
print(json.dumps({"table": table.pk, "game": game.pk}))
"""


def _south_weis_seed() -> int:
    """A seed of a fair 2-round Weis game whose first deal gives South (the person) a Weis to declare."""
    for seed in range(1, 2000):
        hands = GamePlan(GameConfig(mode=FAIR, round_count=2, seed=seed, weis=True)).deal(0).hands
        if hand_weis(hands[SOUTH]):
            return seed
    raise AssertionError("no seed deals South a Weis")


def _play_declaring_everything(page) -> int:
    """Play to the end: trump and the first legal card, every Weis and Stöck offered said; return how many."""
    said = 0
    for _ in range(400):
        _, state = wait_for_turn([page])
        if state == "over":
            return said
        announce = page.locator("[data-testid=declare-all-weis], [data-testid=announce-stoeck]")
        if state == "card" and announce.count():
            seq = shown_seq(page)
            announce.first.click()
            wait_for_seq_after(page, seq)
            said += 1
            continue
        take_turn(page, state)
    raise AssertionError("a two-round game should be over by now")


def _wait_for_the_analysis(page, panel) -> None:
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if panel.get_by_test_id("eval-graph").count():
            return
        assert not panel.get_by_test_id("analysis-failed").count(), panel.inner_text()
        page.wait_for_timeout(500)
    raise AssertionError("the analysis did not finish in 5 minutes")


def test_a_weis_game_played_in_the_browser_with_declarations_is_analysed_and_shown(open_page, jass_server):
    base, env = jass_server
    page = open_page()
    page.goto("/")
    become_guest(page, "Vreni")
    started = in_server(env, WEIS_START, "Vreni", str(_south_weis_seed()))
    page.goto(f"/tables/{started['table']}/")
    assert _play_declaring_everything(page) >= 1, "South declared its Weis"
    game_id = started["game"]
    page.goto(f"/games/{game_id}/replay?round=1&card=36")
    panel = page.get_by_test_id("analysis-panel")
    _wait_for_the_analysis(page, panel)
    expect(panel.get_by_test_id("accuracy-seat")).to_have_count(4)
    analysis = HTTP.get(f"{base}/games/{game_id}/analysis.json").json()
    assert analysis["status"] == "done" and analysis["done"] == analysis["total"] == 2
    record = HTTP.get(f"{base}/games/{game_id}/record.json").json()
    assert record["weis"] and any(entry["weis"] for entry in record["weis_rounds"]), "Weis were declared"


def test_a_game_nobody_analysed_is_analysed_on_request_with_its_progress(open_page, jass_server):
    base, env = jass_server
    seats = ["--seat", "rules"] * 4
    played = _manage(env, "playgame", *seats, "--mode", "fair", "--rounds", "2", "--weis", "--seed", "70049")
    game_id = json.loads(played.strip().splitlines()[-1])["game"]  # headless games are not analysed on their own
    page = open_page(locale="de-CH", extra_http_headers={"Accept-Language": "de-CH,de;q=0.9"})
    page.goto(f"/games/{game_id}/replay")
    panel = page.get_by_test_id("analysis-panel")
    expect(panel).to_contain_text("Dieses Spiel ist nicht analysiert.")
    button = panel.get_by_test_id("analyse-button")
    expect(button).to_have_text("Dieses Spiel analysieren")
    button.click()
    # The answer is the queued job: its progress shows at once, then the poll follows it to the end.
    expect(panel.get_by_test_id("analysis-progress").or_(panel.get_by_test_id("eval-graph"))).to_be_visible()
    _wait_for_the_analysis(page, panel)
    analysis = HTTP.get(f"{base}/games/{game_id}/analysis.json").json()
    assert analysis["status"] == "done" and analysis["done"] == analysis["total"] == 2
    # Asking again changes nothing: the analysis is done.
    again = page.request.post(
        f"/games/{game_id}/analyse",
        headers={"X-CSRFToken": page.locator("meta[name=csrf-token]").get_attribute("content")},
    )
    assert again.status == 202 and again.json()["status"] == "done"
