"""Weis and Stöck in the browser: the lobby's option, a person declaring two Weis with one tap and
seeing them scored (cards shown to the table), announcing Stöck with the second of King and Queen
of trump, the round's summary, and the replay listing every Weis.

The game is dealt from a seed chosen here with the engine (South, the person, is forehand, holds
King and Queen of hearts and two Dreiblatts that beat every other Weis at hearts), in the
server's own database, as the table's creator would start it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from games.engine import (
    SOUTH,
    WEST,
    GameConfig,
    GamePlan,
    codes_of,
    hand_weis,
    stoeck_cards,
)
from games.engine.weis import scoring_team, team_weis_points
from tests.browser_helpers import TRUMP_CHOOSER, FrameRecorder, become_guest, next_moment, on_move, wait_for_seq_after
from tests.server_helpers import ROOT, _server_env, running_server

pytest_plugins = ["tests.browser_helpers"]

TARGET = 5000

START = """
import json, os, sys
os.environ["DJANGO_SETTINGS_MODULE"] = "jassweb.settings"
import django
django.setup()
from games.live import service
from games.models import Player
name, seed, target = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
player = Player.objects.get(name=name)
table = service.create_table(player, name="Weis table", weis=True, target=target, bot_delay_ms=50, round_pause_s=10)
service.take_seat(table.pk, 2, player)
for seat in (0, 1, 3):
    service.set_bot(table.pk, seat, "rules", service.SYSTEM)
game = service.start_game(table.pk, service.SYSTEM, seed=seed)
print(json.dumps({"table": table.pk, "game": game.pk}))
"""

ABANDON = """
import json, os, sys
os.environ["DJANGO_SETTINGS_MODULE"] = "jassweb.settings"
import django
django.setup()
from games.live import service
game = service.abandon_game(int(sys.argv[1]), service.SYSTEM, "the test is over")
print(json.dumps({"game": game.pk}))
"""


def weis_deal() -> tuple[int, int, list[int], int]:
    """A seed whose first deal has South forehand with Stöck in a suit, two Weis, and the best Weis there;
    with that suit, the Weis South may declare, and what North & South score in Weis when all declare."""
    for seed in range(1, 5000):
        plan = GamePlan(GameConfig(target=TARGET, seed=seed, weis=True))
        if plan.dealer(0) != WEST:
            continue
        hands = plan.deal(0).hands
        south = hands[SOUTH]
        suits = [s for s in range(4) if south & stoeck_cards(s) == stoeck_cards(s)]
        declared = [hand_weis(h) for h in hands]
        if suits and len(declared[SOUTH]) == 2 and scoring_team(declared, suits[0], SOUTH) == 0:
            return seed, suits[0], list(declared[SOUTH]), team_weis_points(declared, 0)
    raise AssertionError("no such deal")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, str]]]:
    database = tmp_path_factory.mktemp("weis") / "db.sqlite3"
    env = {"JASSWEB_SQLITE_PATH": str(database), "JASSWEB_BOT_DELAY_MS": "50"}
    with running_server(env) as base:
        yield base, env


@pytest.fixture(scope="module")
def jass_server(served: tuple[str, dict[str, str]]) -> str:
    return served[0]


def in_server(env: dict[str, str], script: str, *args: str) -> dict:
    """Run ``script`` in the server's database; return what it printed last (JSON)."""
    done = subprocess.run(
        [sys.executable, "-c", script, *args],
        cwd=ROOT,
        env=_server_env(env),
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def start_seeded_game(env: dict[str, str], name: str, seed: int) -> dict:
    return in_server(env, START, name, str(seed), str(TARGET))


def test_the_lobby_offers_weis_and_stoeck_with_one_click(open_page):
    page = open_page()
    become_guest(page, "Heiri")
    form = page.get_by_test_id("create-table")
    form.get_by_label("Name").fill("Weis from the lobby")
    form.get_by_label("Weis & Stöck").check()
    form.get_by_role("button", name="Open table").click()
    page.wait_for_url("**/tables/*/")
    expect(page.get_by_test_id("table-sub")).to_contain_text("Weis & Stöck")


# Watches the Weis panel through every state the page draws: whether it showed South's Stöck, and any
# "null" in it. Our Stöck may come with the round's last card, and the panel moves on to the next round
# as soon as the bots finish the trick: a look after the click could come too late.
WATCH_PANEL = """() => {
    const panel = document.querySelector('[data-testid=weis-panel]');
    const seen = window.__weisPanel = { stoeck: false, nulls: [] };
    const look = () => {
        const entry = panel.querySelector("[data-testid=stoeck-entry][data-seat='2']");
        if (entry && entry.checkVisibility()) seen.stoeck = true;
        if (panel.textContent.includes('null')) seen.nulls.push(panel.textContent);
    };
    new MutationObserver(look).observe(panel, { subtree: true, childList: true, characterData: true });
    look();
}"""


def test_a_person_declares_two_weis_with_one_tap_sees_them_scored_and_announces_stoeck(served, open_page):
    seed, trump, codes, weis_points = weis_deal()
    page = open_page()
    frames = FrameRecorder(page)
    become_guest(page, "Vreni")
    started = start_seeded_game(served[1], "Vreni", seed)
    page.goto(f"/tables/{started['table']}/")
    expect(page.get_by_test_id("table-sub")).to_contain_text("Weis & Stöck")
    expect(page.get_by_test_id("weis-panel")).to_be_visible()
    page.evaluate(WATCH_PANEL)

    moment = next_moment(page)
    assert moment.kind == "trump"
    page.locator(f"{on_move(moment.seq)} {TRUMP_CHOOSER} button[data-trump='{trump}']").click()
    wait_for_seq_after(page, moment.seq)

    # Our lead in the first trick: the table offers our two Weis, and declaring all is one tap
    # (two moves: the next step waits for the second).
    moment = next_moment(page)
    assert moment.kind == "card"
    assert sorted(moment.weis) == sorted(codes)
    bar = page.get_by_test_id("weis-bar")
    page.locator(f"{on_move(moment.seq)} [data-testid=declare-all-weis]").click()
    wait_for_seq_after(page, moment.seq, moves=len(codes))
    expect(bar.get_by_test_id("my-weis")).to_contain_text("You declared")
    expect(bar.get_by_test_id("declare-weis")).to_have_count(0)
    mine = page.locator("[data-testid=weis-entry][data-seat='2']")
    expect(mine).to_have_count(2)
    expect(mine.first).to_have_attribute("data-status", "declared")

    king, queen = codes_of(stoeck_cards(trump))
    stoeck_announced = False
    first_card = True
    while True:
        moment = next_moment(page)
        if moment.kind in ("summary", "over"):
            break
        assert moment.kind == "card"
        if moment.stoeck:
            assert not stoeck_announced
            # Stöck with the Queen: two moves, announcing and playing; the page shows both in turn.
            page.locator(f"{on_move(moment.seq)} [data-testid=announce-stoeck]").click()
            wait_for_seq_after(page, moment.seq, moves=2)
            stoeck_announced = True
        else:
            legal = moment.legal
            # Play the King of trump first (the Queen comes with Stöck later); else the first legal card.
            card = king if king in legal else next((c for c in legal if c != queen), legal[0])
            page.locator(f"{on_move(moment.seq)} [data-testid=hand] [data-legal=true][data-card='{card}']").click()
            wait_for_seq_after(page, moment.seq)
        if first_card:
            first_card = False
            # The first trick decides the Weis: ours scored, and their cards are shown to the table.
            expect(mine.first).to_have_attribute("data-status", "scored", timeout=15_000)
            expect(mine.nth(1)).to_have_attribute("data-status", "scored")
            expect(mine.locator(".weis-cards .card")).to_have_count(6)
            expect(page.get_by_test_id("weis-team")).to_contain_text(f"{weis_points} in Weis")
            expect(page.locator("[data-testid=weis-entry][data-status='not scored'] .card")).to_have_count(0)
    assert stoeck_announced, "the Stöck button came with the second of King and Queen"
    panel = page.evaluate("() => window.__weisPanel")
    assert panel["stoeck"], "the Weis panel never showed our Stöck"
    assert panel["nulls"] == [], panel["nulls"][:1]
    # Every click acted on the state the page showed: the server refused none as made on an older one.
    assert [f for f in frames.frames if f.get("type") == "error"] == []

    # The round's summary lists our Weis and the Stöck.
    summary = page.get_by_test_id("round-summary")
    expect(summary.get_by_test_id("summary-weis")).to_contain_text(str(weis_points))
    expect(summary.get_by_test_id("summary-stoeck")).to_contain_text("20")
    points = [int(summary.get_by_test_id(f"summary-points-{team}").inner_text()) for team in (0, 1)]
    assert sum(points) in (157 + weis_points + 20, 257 + weis_points + 20)  # cards, our Weis and Stöck
    summary.get_by_test_id("summary-continue").click()

    # The result page lists the Weis and who scored them.
    page.goto(f"/games/{started['game']}/")
    panel = page.get_by_test_id("weis-panel")
    first = panel.locator("[data-testid=weis-round][data-round='1']")
    expect(first).to_contain_text("Dreiblatt")
    expect(first).to_contain_text("North & South")
    expect(first).to_contain_text("Vreni")

    # Abandoned now (as the table's creator could), the game's replay shows the Weis as they were said and scored.
    in_server(served[1], ABANDON, str(started["table"]))
    page.goto(f"/games/{started['game']}/replay?round=1&card=1")
    weis = page.get_by_test_id("replay-weis")
    expect(weis.locator("[data-testid=replay-weis-entry][data-seat='2']")).to_have_count(2)
    expect(weis.locator("[data-testid=replay-weis-entry][data-seat='2']").first).to_have_attribute(
        "data-status", "declared"
    )
    page.goto(f"/games/{started['game']}/replay?round=1&card=36")
    expect(weis.locator("[data-testid=replay-weis-entry][data-seat='2'][data-status='scored']")).to_have_count(2)
    expect(weis.get_by_test_id("replay-stoeck")).to_contain_text("Stöck +20")
