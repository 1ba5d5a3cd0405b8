"""Every table state at every size: no two texts over each other, nothing that matters covered, cut off or off the
screen, and text on the table readable (WCAG AA contrast) — the layout checker (tests/layout_check.js).

One person (Vreni, South) plays a private fair Weis table of two rounds with Anna (North, a second person) and
two rule bots, in three browser windows at once: a 1366x800 laptop, a 1366x768 laptop and a 375x667 phone,
all in her session, so that the three follow the same game. The walk passes every state a table can be in:
waiting for players, trump choice, the first card with a Weis offer, a trick, toasts showing, the Stöck offer,
the round's summary, a stand-in playing for her, back from the stand-in, an abandon vote, game over, an
abandoned game, the invitation landing and the private notice. Then the replay with its analysis, the lobby
and the result page. Every problem of the whole walk is listed at the end (issue 23).
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, BrowserContext, Locator, Page, ViewportSize, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from games.engine import FAIR, SOUTH, WEST, GameConfig, GamePlan, codes_of, hand_weis, stoeck_cards
from games.engine.weis import scoring_team
from tests.browser_helpers import (
    HAND_CARDS,
    LEGAL_CARDS,
    TRUMP_CHOOSER,
    on_move,
    refused,
    shown_seq,
    wait_for_seq_after,
)
from tests.layout_helpers import MY_NAME, SIZES, check
from tests.server_helpers import ROOT, _server_env
from tests.test_browser_weis import in_server, served  # noqa: F401 - its server (a fixture)

pytest_plugins = ["tests.browser_helpers"]

CLOCK_S = 25  # a person's turn clock: long enough for the checks of three windows on a busy machine (12 s was
# not: the stand-in chose the trump while the checks ran), short enough to wait out once
if os.environ.get("JASSWEB_CSS_BASELINE"):
    CLOCK_S = 120  # every state is also laid out under the baseline's sheets and compared (tests/css_helpers.py)

START = """
import json, os, sys
os.environ["DJANGO_SETTINGS_MODULE"] = "jassweb.settings"
import django
django.setup()
from games.live import service
from games.models import Player
seed, clock = int(sys.argv[1]), int(sys.argv[2])
vreni, anna = Player.objects.get(name="Vreni"), Player.objects.get(name="Anna")
table = service.create_table(vreni, name="Donnerstagsjass im Sternen", mode="fair", round_count=2, weis=True,
                             private=True, bot_delay_ms=120, round_pause_s=10, turn_clock_s=clock)
service.take_seat(table.pk, 2, vreni)
service.take_seat(table.pk, 0, anna)
for seat in (1, 3):
    service.set_bot(table.pk, seat, "rules", service.SYSTEM)
print(json.dumps({"table": table.pk, "seed": seed, "invite": f"/tables/{table.pk}/invite/{table.invite_token}/"}))
"""

START_GAME = """
import json, os, sys
os.environ["DJANGO_SETTINGS_MODULE"] = "jassweb.settings"
import django
django.setup()
from games.live import service
from games.models import Player
vreni = Player.objects.get(name="Vreni")
game = service.start_game(int(sys.argv[1]), service.Actor(player_id=vreni.pk), seed=int(sys.argv[2]))
print(json.dumps({"game": game.pk}))
"""


NICKNAME_WIDTH = """() => {
    const field = document.querySelector('input[name=nickname]');
    return field ? field.getBoundingClientRect().width : 0;
}"""
NICKNAME_WIDE = """(least) => {
    const field = document.querySelector('input[name=nickname]');
    return !!field && field.getBoundingClientRect().width >= least;
}"""


def weis_seed() -> tuple[int, int]:
    """A seed of a fair two-round Weis game whose first deal makes South forehand, with Stöck in a suit, a Weis
    and the better Weis at that trump (good news after the first trick); and that suit."""
    for seed in range(1, 5000):
        plan = GamePlan(GameConfig(mode=FAIR, round_count=2, seed=seed, weis=True))
        if plan.dealer(0) != WEST:
            continue
        hands = plan.deal(0).hands
        suits = [s for s in range(4) if hands[SOUTH] & stoeck_cards(s) == stoeck_cards(s)]
        declared = [hand_weis(h) for h in hands]
        if suits and declared[SOUTH] and scoring_team(declared, suits[0], SOUTH) == 0:
            return seed, suits[0]
    raise AssertionError("no such deal")


class Walk:
    """Vreni's three windows and Anna's one; the problems found so far."""

    def __init__(self, browser: Browser, base: str) -> None:
        self.browser, self.base = browser, base
        self.contexts: list[BrowserContext] = []
        self.problems: list[str] = []
        self.errors: list[str] = []
        first = self.window(SIZES["laptop-800"])
        join(first, "Vreni")
        state = first.context.storage_state()
        self.pages = [first] + [self.window(SIZES[size], storage_state=state) for size in ("laptop-768", "phone")]
        self.anna = self.window({"width": 1280, "height": 860})
        join(self.anna, "Anna")

    def window(self, viewport: ViewportSize, **options: Any) -> Page:
        # Less motion, as in every browser test (tests/browser_helpers.py, REDUCED_MOTION): each state is checked
        # as it stands, and four windows do not repaint the glow of the seat to move on every frame.
        options.setdefault("reduced_motion", "reduce")
        context = self.browser.new_context(base_url=self.base, viewport=viewport, **options)
        context.set_default_timeout(30_000)
        self.contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: self.errors.append(f"{page.url}: {error}"))
        page.on("console", lambda message: refused(page, message.text, self.errors))
        return page

    def look(self, state: str, ready: Callable[[Page], Locator], important: list[str]) -> None:
        """Check every window of Vreni's once it shows ``state`` (``ready(page)`` is visible there)."""
        for page in self.pages:
            expect(ready(page)).to_be_visible(timeout=(CLOCK_S + 30) * 1000)  # the stand-in comes after a clock
            self.problems += check(page, state, important=important)
            size = page.viewport_size or {"width": 0, "height": 0}
            shot(page, f"layout-{state.replace(' ', '-')}-{size['width']}x{size['height']}")

    def close(self) -> None:
        for context in self.contexts:
            context.close()


def shot(page: Page, name: str) -> None:
    """What the window shows (not the whole page: the fold matters), when JASSWEB_SCREENSHOT_DIR is set."""
    folder = os.environ.get("JASSWEB_SCREENSHOT_DIR")
    if folder:
        page.screenshot(path=str(Path(folder) / f"{name}.png"))


def join(page: Page, name: str) -> None:
    page.goto("/")
    page.get_by_label("Nickname").fill(name)
    page.get_by_role("button", name="Play as guest").click()
    expect(page.get_by_test_id("identity")).to_contain_text(name)


def moment(page: Page) -> str:
    """What ``page`` (a player's) may do now: trump, card, summary, over, or wait."""
    return page.evaluate(
        """() => {
            const q = (s) => document.querySelector(s);
            if (q('[data-testid=result]') && !q('[data-testid=result]').hidden) return 'over';
            if (q('[data-testid=round-summary]') && !q('[data-testid=round-summary]').hidden
                && q('[data-testid=summary-continue]')) return 'summary';
            if (q('[data-testid=trump-chooser]')) return 'trump';
            if (q('[data-testid=hand] [data-legal=true]')) return 'card';
            return 'wait';
        }"""
    )


def act(page: Page, what: str, card: str | None = None) -> None:
    """Take the move ``what`` on ``page``: the first trump, the given or first legal card, or Continue."""
    if what == "summary":
        # The summary may close by itself meanwhile (its pause ran out): then there is nothing to press.
        with contextlib.suppress(PlaywrightTimeoutError):
            page.get_by_test_id("summary-continue").click(timeout=2_000)
        return
    seq = shown_seq(page)
    if what == "trump":
        target = page.locator(f"{on_move(seq)} {TRUMP_CHOOSER} button[data-trump]:not([data-trump='10'])").first
    else:
        legal = [c.get_attribute("data-card") for c in page.locator(LEGAL_CARDS).all()]
        if not legal:
            return  # the moment passed while we looked (the hand was drawn anew): look again
        target = page.locator(f"{on_move(seq)} [data-testid=hand] [data-card='{card if card in legal else legal[0]}']")
    # Through on_move: the click lands only while the page still shows the move it was read from. Should the
    # table have moved on meanwhile (a card read from the next state, the moment gone), look again.
    try:
        target.click(timeout=10_000)
    except PlaywrightTimeoutError:
        if shown_seq(page) == seq:
            raise
        return
    wait_for_seq_after(page, seq)


def until(walk: Walk, done: Callable[[], bool], *, vreni_plays: bool = True, seconds: float = 90.0) -> None:
    """Play Anna's moves (and Vreni's, with her first window) until ``done()``."""
    deadline = time.monotonic() + seconds
    trail: list[str] = []
    while time.monotonic() < deadline:
        if done():
            return
        anna = moment(walk.anna)
        if anna not in ("wait", "over"):
            trail.append(f"anna {anna}")
            act(walk.anna, anna)
            continue
        mine = moment(walk.pages[0])
        if vreni_plays and mine not in ("wait", "over"):
            if done():  # the state came between the first look and this one (a summary: Continue would close it)
                return
            trail.append(f"vreni {mine} seq {shown_seq(walk.pages[0])}")
            act(walk.pages[0], mine)
            continue
        walk.pages[0].wait_for_timeout(50)
    seen = {name: moment(page) for name, page in (("vreni", walk.pages[0]), ("anna", walk.anna))}
    raise AssertionError(f"the walk did not reach its next state: {seen}; last moves {trail[-20:]}")


# The replay's small print: the graph's words at least 10 px high, a trump's name on one line.
REPLAY_READABLE = """() => {
    const problems = [];
    for (const text of document.querySelectorAll('[data-testid=eval-graph] text')) {
        const height = text.getBoundingClientRect().height;
        if (height < 10) problems.push(`the graph's label "${text.textContent}" is ${height.toFixed(1)} px high`);
    }
    for (const label of document.querySelectorAll('#replay .trump-label')) {
        const range = document.createRange();
        range.selectNodeContents(label);
        // Two lines: boxes whose middles lie more than half a line apart (a suit's picture sits a little lower).
        const middles = [...range.getClientRects()].map((r) => r.top + r.height / 2);
        const size = parseFloat(getComputedStyle(label).fontSize);
        if (Math.max(...middles) - Math.min(...middles) > size * 0.6) {
            problems.push(`the trump "${label.textContent}" wraps`);
        }
    }
    return problems;
}"""


def replay_readable(page: Page) -> list[str]:
    size = page.viewport_size or {"width": 0, "height": 0}
    return [f"replay @ {size['width']}x{size['height']}: {p}" for p in page.evaluate(REPLAY_READABLE)]


def test_every_table_state_fits_every_screen(served, browser: Browser):  # noqa: F811 - the fixture imported above
    base, env = served
    seed, trump = weis_seed()
    walk = Walk(browser, base)
    try:
        walk_the_table(walk, env, seed, trump)
    finally:
        walk.close()
    assert walk.errors == [], walk.errors
    assert walk.problems == [], "\n" + "\n".join(walk.problems)


def walk_the_table(walk: Walk, env: dict[str, str], seed: int, trump: int) -> None:
    made = in_server(env, START, str(seed), str(CLOCK_S))
    table = f"/tables/{made['table']}/"
    for page in [*walk.pages, walk.anna]:
        page.goto(table)
    first = walk.pages[0]
    king, _queen = codes_of(stoeck_cards(trump))

    # Waiting for players: two people seated, two bots, the Start button. The game is started from the
    # server's side with a chosen deal (then the windows open the table again).
    walk.look("waiting", lambda p: p.get_by_test_id("start"), [MY_NAME, "[data-testid=start]"])
    in_server(env, START_GAME, str(made["table"]), str(seed))
    for page in [*walk.pages, walk.anna]:
        page.goto(table)

    # Trump choice: Vreni is forehand; her own name stays in view beside the chooser.
    walk.look(
        "trump choice",
        lambda p: p.locator(TRUMP_CHOOSER),
        [MY_NAME, f"{TRUMP_CHOOSER} button", HAND_CARDS],
    )
    # The keyboard: arrow keys move between the trump buttons (issue 23, finding 15).
    buttons = first.locator(f"{TRUMP_CHOOSER} button[data-trump]")
    buttons.first.focus()
    first.keyboard.press("ArrowRight")
    expect(buttons.nth(1)).to_be_focused()
    seq = shown_seq(first)
    first.locator(f"{TRUMP_CHOOSER} button[data-trump='{trump}']").click()
    wait_for_seq_after(first, seq)

    # The first card, with the Weis offer: the bar in view, its label readable.
    walk.look(
        "weis offer",
        lambda p: p.get_by_test_id("declare-all-weis"),
        [MY_NAME, "[data-testid=declare-all-weis]", HAND_CARDS],
    )
    seq = shown_seq(first)
    first.get_by_test_id("declare-all-weis").click()
    first.wait_for_function(
        "seq => Number(document.querySelector('[data-testid=table-app]').dataset.seq) > seq", arg=seq
    )
    walk.look("weis declared", lambda p: p.get_by_test_id("my-weis"), [MY_NAME, HAND_CARDS])
    act(first, "card", king)

    # A trick under way; then a card that may not be played, and its toast (the Weis news may show too).
    # (Her turn in a trick others led: it stays so until she plays, however long the windows are looked at.)
    def her_turn_in_a_trick_others_led() -> bool:
        if moment(first) != "card":
            return False
        # Her turn may come while the last trick still lingers (the bots play at once): her turn stays, so wait
        # for it to be swept away and look at the trick under way. (Playing on instead, a fast machine never
        # saw such a trick: she was always quicker than the linger.)
        expect(first.get_by_test_id("trick")).to_have_attribute("data-lingering", "false")
        return first.locator("[data-testid=trick] .card").count() >= 1

    until(walk, her_turn_in_a_trick_others_led)
    walk.look(
        "trick",
        lambda p: p.locator("[data-testid=trick][data-lingering=false] .card").first,
        [MY_NAME, HAND_CARDS, "[data-testid=trick] .card"],
    )
    greyed = [page.locator("[data-testid=hand] [data-legal=false]") for page in walk.pages]
    if greyed[0].count():
        # Each of her windows shows the same hand once its state has come: wait for it there before the click
        # (a window not there yet got no click and no toast, and the look waited for one while the clocks ran
        # out and the stand-ins played the round to its end).
        for cards in greyed:
            expect(cards.first).to_be_visible()
            cards.first.click(force=True)
        walk.look("toasts", lambda p: p.get_by_test_id("toast").first, [MY_NAME, HAND_CARDS, "[data-testid=toast]"])

    # The Stöck offer comes with the Queen of trump.
    until(
        walk,
        lambda: first.get_by_test_id("announce-stoeck").count() > 0 or moment(first) == "summary",
        vreni_plays=True,
    )
    if first.get_by_test_id("announce-stoeck").count():
        walk.look(
            "stoeck offer", lambda p: p.get_by_test_id("announce-stoeck"), [MY_NAME, "[data-testid=announce-stoeck]"]
        )
        seq = shown_seq(first)
        first.get_by_test_id("announce-stoeck").click()
        wait_for_seq_after(first, seq)

    # The round's summary.
    until(walk, lambda: moment(first) == "summary")
    walk.look(
        "round summary",
        lambda p: p.get_by_test_id("summary-continue"),
        ["[data-testid=summary-continue]", "[data-testid=round-summary]"],
    )
    expect(first.get_by_test_id("summary-continue")).to_be_focused()  # Enter goes on (issue 23, finding 15)
    first.get_by_test_id("summary-continue").click()  # her other windows close theirs with it

    # A stand-in plays for Vreni when her clock runs out; then she is back.
    until(walk, lambda: moment(first) in ("card", "trump"))
    walk.look("stand-in", lambda p: p.get_by_test_id("back"), [MY_NAME, "[data-testid=back]"])
    first.get_by_test_id("back").click()
    until(walk, lambda: moment(first) in ("card", "trump"), vreni_plays=False)
    walk.look("back from the stand-in", lambda p: p.locator(LEGAL_CARDS).first.or_(p.locator(TRUMP_CHOOSER)), [MY_NAME])

    # Anna asks to abandon; Vreni refuses and they play on.
    walk.anna.once("dialog", lambda dialog: dialog.accept())
    walk.anna.get_by_test_id("abandon").click()
    walk.look(
        "abandon vote",
        lambda p: p.get_by_test_id("abandon-refuse"),
        [MY_NAME, "[data-testid=abandon-refuse]", "[data-testid=abandon-agree]"],
    )
    first.get_by_test_id("abandon-refuse").click()

    # Game over.
    until(walk, lambda: moment(first) == "over")
    walk.look(
        "game over", lambda p: p.get_by_test_id("result"), ["[data-testid=result] button, [data-testid=result] a"]
    )
    link = re.search(r"/games/(\d+)/", first.get_by_test_id("replay-link").get_attribute("href") or "")
    assert link, "the result links the game's replay"
    game_id = int(link[1])

    # A new game, which Anna asks to abandon and Vreni agrees to: the table says why it ended.
    first.get_by_test_id("close-result").click()
    first.get_by_test_id("start").click()
    expect(first.locator("[data-testid=hand] .card").first).to_be_visible()
    walk.anna.once("dialog", lambda dialog: dialog.accept())
    walk.anna.get_by_test_id("abandon").click()
    first.get_by_test_id("abandon-agree").click()
    walk.look("abandoned", lambda p: p.get_by_test_id("abandoned-note"), [MY_NAME, "[data-testid=abandoned-note]"])

    # The invitation link on a phone, by someone new; after joining, the private table's notice.
    beat = walk.window(SIZES["phone"])
    beat.goto(made["invite"])
    expect(beat.locator("input[name=nickname]")).to_be_visible()
    walk.problems += check(
        beat, "invitation landing", important=["input[name=nickname]", "[data-testid=center-panel] button[type=submit]"]
    )
    landing = beat.get_by_test_id("center-panel").inner_text()
    if "take a seat" in landing:
        walk.problems.append(f"invitation landing: every seat is taken, yet it says {landing!r}")
    # The table's script renders the panel again as the socket's states arrive (the field is a new element each
    # time): wait for the field to be wide enough, and report the width it has if it never gets there.
    try:
        beat.wait_for_function(NICKNAME_WIDE, arg=160, timeout=15_000)
    except PlaywrightTimeoutError:
        width = beat.evaluate(NICKNAME_WIDTH)
        walk.problems.append(f"invitation landing @ 375x667: the nickname field is {width:.0f} px wide")
    beat.locator("input[name=nickname]").fill("Beat")
    beat.locator("[data-testid=center-panel] button[type=submit]").click()
    expect(beat.get_by_test_id("private-note")).to_be_visible()
    walk.problems += check(beat, "private notice", important=["[data-testid=private-note]"])

    # The replay with its analysis, the result page and the lobby, at each size.
    subprocess.run(
        [sys.executable, "manage.py", "analyse", str(game_id)],
        cwd=ROOT,
        env=_server_env(env),
        check=True,
        capture_output=True,
        timeout=600,
    )
    for page in walk.pages:
        page.goto(f"/games/{game_id}/replay?round=1&card=6")
        expect(page.get_by_test_id("analysis-card")).to_be_visible()
        walk.problems += check(
            page, "replay", important=["[data-testid=position]", "#go-prev", "#go-next"], contrast=".replay-felt"
        )
        # Scrolled to the page's end: nothing of the analysis under the sticky step buttons.
        page.evaluate("() => window.scrollTo(0, document.documentElement.scrollHeight)")
        walk.problems += check(
            page, "replay analysis", important=["[data-testid=accuracy]", "[data-testid=eval-graph]"], contrast=None
        )
        walk.problems += replay_readable(page)
        # Scrolled just so far that the accuracy list shows at the window's bottom edge: not under the buttons.
        page.get_by_test_id("accuracy").evaluate("(list) => list.scrollIntoView({ block: 'end' })")
        walk.problems += check(
            page, "replay analysis, scrolled to it", important=["[data-testid=accuracy]"], contrast=None
        )
        page.goto(f"/games/{game_id}/")
        walk.problems += check(page, "result page", contrast=None)
        page.goto("/")
        walk.problems += check(page, "lobby", contrast=None)
