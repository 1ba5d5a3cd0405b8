"""A people's Swiss tournament in the browser: registration through the pages, every round's table, the standings.

Four teams — Anna and Beat together, Carla with a bot partner, and two teams of
bots — register through the pages. Three rounds of the Swiss system: at each
round every person is told on the tournament page, live, that their table is
ready, goes there and plays their cards. At the end the standings shown equal
the standings recomputed from the games' records.
"""

from __future__ import annotations

import json
import re
import time

from playwright.sync_api import Page, expect

from games import records
from tests.browser_helpers import PHONE, become_guest, my_turn, screenshot, take_turn
from tests.server_helpers import HTTP
from tournaments import pairing

pytest_plugins = ["tests.browser_helpers"]

GAME_OVER = 240.0  # seconds for the whole tournament: three rounds of two-round fair games, people at cards


def register_me(page: Page, *, bot: str | None = None) -> None:
    form = page.get_by_test_id("register-me")
    if bot is not None:
        form.get_by_label("A bot").check()
        form.get_by_label("Bot partner").select_option(bot)
    form.get_by_test_id("register-me-submit").click()
    page.wait_for_load_state()


def register_bots(page: Page, bot: str, name: str) -> None:
    form = page.get_by_test_id("register-bot")
    form.get_by_label("Team name (optional)").fill(name)
    form.get_by_label("Built-in bot on both seats").select_option(bot)
    form.get_by_test_id("register-bot-submit").click()
    expect(page.locator(f"[data-testid=team][data-team='{name}']")).to_be_visible()


def step(page: Page, seen: set[int]) -> bool:
    """Do what this person can do now; True once their tournament is over."""
    if "/tables/" in page.url:
        state = my_turn(page)
        if state == "over":
            page.get_by_test_id("tournament-link").click()
            page.wait_for_url(re.compile(r"/tournaments/\d+/$"))
        elif state is not None:
            take_turn(page, state)
        return False
    tournament = page.get_by_test_id("tournament")
    if tournament.get_attribute("data-status") == "finished":
        return True
    ready = page.locator("[data-testid=your-table]:visible")
    if ready.count():
        seen.add(int(ready.first.get_attribute("data-round") or 0))
        ready.first.get_by_test_id("your-table-link").click()
        page.wait_for_url(re.compile(r"/tables/\d+/$"))
        expect(page.get_by_test_id("table-app")).to_have_attribute("data-socket", "open")
    return False


def standings_from_records(base: str, tournament_id: int, order: list[str]) -> list[tuple[str, int, int]]:
    """The standings recomputed from each game's record (downloaded, read back and replayed by the import's checks)."""
    data = HTTP.get(f"{base}/tournaments/{tournament_id}/standings.json").json()
    teams_of = {g["game"]: g["teams"] for g in data["games"]}
    results = []
    for match in data["matches"]:
        a, b = match["teams"]
        if b is None:
            results.append(pairing.MatchResult(order.index(a), None))
            continue
        points = {a: 0, b: 0}
        for game_id in match["games"]:
            record = HTTP.get(f"{base}/games/{game_id}/record.json").text
            scores = records.check_record(records.parse_record(record)).state.scores
            for team, score in zip(teams_of[game_id], scores, strict=True):
                points[team] += score
        results.append(pairing.MatchResult(order.index(a), order.index(b), points=(points[a], points[b])))
    lines = pairing.standings(range(len(order)), results, buchholz=True)
    return [(order[line.team], line.match_points, line.point_advantage) for line in lines]


def test_four_teams_register_through_the_pages_and_play_a_three_round_swiss_tournament(open_page, jass_server):
    anna, beat, carla = open_page(), open_page(viewport=PHONE), open_page()
    become_guest(anna, "Anna")
    anna.goto("/tournaments/")
    anna.get_by_test_id("new-tournament").click()
    form = anna.get_by_test_id("tournament-form")
    form.get_by_label("Name").fill("Jass evening")
    form.get_by_role("radio", name="Swiss system").check()
    form.get_by_label("Rounds (Swiss system)").fill("3")
    form.get_by_label("Rounds of the fair game (even)").fill("2")
    form.get_by_test_id("create-tournament").click()
    anna.wait_for_url(re.compile(r"/tournaments/\d+/$"))
    tournament_id = int(anna.url.rstrip("/").rsplit("/", 1)[1])

    register_me(anna)  # with a person to invite
    invitation = anna.get_by_test_id("invite-link").input_value()
    register_bots(anna, "random", "Zufall")

    beat.goto(invitation)  # a phone: the landing page asks for a nickname first
    beat.get_by_label("Your nickname").fill("Beat")
    beat.get_by_role("button", name="Continue").click()
    beat.get_by_test_id("join-team").click()
    beat.wait_for_url(re.compile(rf"/tournaments/{tournament_id}/$"))

    become_guest(carla, "Carla")
    carla.goto(f"/tournaments/{tournament_id}/")
    register_me(carla, bot="rules")
    register_bots(carla, "rules", "Regeln")

    # Beat's page heard every registration live (his page was opened before the last three).
    expect(beat.get_by_test_id("tournament-status")).to_contain_text("4 teams")
    expect(beat.locator("[data-testid=team]")).to_have_count(4)
    order = [t.get_attribute("data-team") or "" for t in beat.locator("[data-testid=team]").all()]
    assert order == ["Anna & Beat", "Zufall", "Carla & Rule-based", "Regeln"], order
    screenshot(beat, "tournament-registration-phone")

    anna.get_by_test_id("start-tournament").click()
    for page in (anna, beat, carla):  # every page reloads itself when play starts
        expect(page.get_by_test_id("tournament")).to_have_attribute("data-status", "running", timeout=15_000)

    seen: dict[str, set[int]] = {"Anna": set(), "Beat": set(), "Carla": set()}
    pages = {"Anna": anna, "Beat": beat, "Carla": carla}
    done: set[str] = set()
    deadline = time.monotonic() + GAME_OVER
    while len(done) < 3:
        assert time.monotonic() < deadline, f"the tournament did not end in time; rounds seen: {seen}"
        for name, page in pages.items():
            if name not in done and step(page, seen[name]):
                done.add(name)
        # A look at the three pages is three to six round trips through the Playwright driver (CPU in three
        # processes each): every 50 ms rather than 20 leaves more of the cores to the tournament it watches.
        anna.wait_for_timeout(50)

    assert seen == {"Anna": {1, 2, 3}, "Beat": {1, 2, 3}, "Carla": {1, 2, 3}}  # told of every round's table
    screenshot(beat, "tournament-finished-phone")
    shown = [
        (row.get_attribute("data-team"), int(row.get_attribute("data-match-points") or ""),
         int(row.get_attribute("data-advantage") or ""))
        for row in anna.locator("[data-testid=standing]").all()
    ]  # fmt: skip
    assert shown == standings_from_records(jass_server, tournament_id, order)
    assert sum(points for _, points, _ in shown) == 6 * 2  # six matches, two match points each
    data = json.loads(HTTP.get(f"{jass_server}/tournaments/{tournament_id}/standings.json").text)
    assert len(data["games"]) == 6 and {g["status"] for g in data["games"]} == {"finished"}
    assert {frozenset(m["teams"]) for m in data["matches"]} == {
        frozenset(p) for p in (
            ("Anna & Beat", "Zufall"), ("Anna & Beat", "Carla & Rule-based"), ("Anna & Beat", "Regeln"),
            ("Zufall", "Carla & Rule-based"), ("Zufall", "Regeln"), ("Carla & Rule-based", "Regeln"),
        )
    }  # fmt: skip


FITS = """() => {
    const page = document.documentElement.scrollWidth <= window.innerWidth;
    const inner = [...document.querySelectorAll('.sheet-scroll')]
        .filter((box) => box.scrollWidth > box.clientWidth + 1);
    const outside = [...document.querySelectorAll('main *')].filter((el) => {
        const box = el.getBoundingClientRect();
        const out = box.right > window.innerWidth + 0.5 || box.left < -0.5;
        return box.width > 0 && out && !el.closest('.sheet-scroll');
    }).map((el) => el.tagName + '.' + el.className);
    return {page, inner: inner.length, outside: outside.slice(0, 5)};
}"""


def test_the_tournament_pages_fit_a_phone_in_every_language(open_page, jass_server):
    olga = open_page()
    become_guest(olga, "Olga")
    olga.goto("/tournaments/new/")
    form = olga.get_by_test_id("tournament-form")
    form.get_by_label("Name").fill("Grosses Turnier der Jassfreunde am Vierwaldstättersee")
    form.get_by_label("Rounds of the fair game (even)").fill("2")
    form.get_by_test_id("create-tournament").click()
    olga.wait_for_url(re.compile(r"/tournaments/\d+/$"))
    path = olga.url.removeprefix(jass_server)
    register_me(olga)  # waits for a partner: the invitation landing page exists
    invitation = olga.get_by_test_id("invite-link").input_value().removeprefix(jass_server)
    pages = ["/tournaments/", "/tournaments/new/", path, invitation]
    for language in ("en", "de", "fr", "it"):
        phone = open_page(viewport=PHONE, extra_http_headers={"Accept-Language": language})
        for url in pages:
            phone.goto(url)
            expect(phone.locator("html")).to_have_attribute("lang", language)
            assert phone.evaluate(FITS) == {"page": True, "inner": 0, "outside": []}, (language, url)
    for name, bot in (("Schellen-Under und Rosen-Ober", "rules"), ("Zufall", "random"), ("Regeln", "rules")):
        register_bots(olga, bot, name)
    olga.get_by_test_id("start-tournament").click()
    expect(olga.get_by_test_id("tournament")).to_have_attribute("data-status", "finished", timeout=60_000)
    for language in ("en", "de", "fr", "it"):
        phone = open_page(viewport=PHONE, extra_http_headers={"Accept-Language": language})
        for url in ("/tournaments/", path):
            phone.goto(url)
            assert phone.evaluate(FITS) == {"page": True, "inner": 0, "outside": []}, (language, url)
        screenshot(phone, f"tournament-finished-phone-{language}")
