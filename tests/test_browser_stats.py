"""Statistics, ratings and profiles in Chromium: reached from the header, charts drawn, nothing wider than a phone."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from tests.browser_helpers import PHONE, screenshot
from tests.server_helpers import ROOT, _server_env, migrate, running_server

pytest_plugins = ["tests.browser_helpers"]


def manage(env: dict[str, str], *args: str) -> None:
    subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=_server_env(env), check=True, capture_output=True
    )


@pytest.fixture(scope="module")
def jass_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server whose database holds rated arena games (fair) and a casual standard game."""
    env = {"JASSWEB_SQLITE_PATH": str(tmp_path_factory.mktemp("stats") / "db.sqlite3"), "JASSWEB_BOT_DELAY_MS": "0"}
    migrate(env)
    arena = ("arena", "--team", "rules", "--team", "random", "--rounds", "2", "--workers", "1", "--rated")
    manage(env, *arena, "--games", "3", "--seed", "4")
    manage(
        env,
        "playgame",
        "--seat",
        "rules",
        "--seat",
        "random",
        "--seat",
        "random",
        "--seat",
        "rules",
        "--target",
        "150",
        "--seed",
        "5",
    )
    with running_server(env, timeout=90) as base:
        yield base


def fits(page, width: int) -> None:
    assert page.evaluate("document.scrollingElement.scrollWidth") <= width, page.url
    for box in page.evaluate("[...document.querySelectorAll('svg.chart')].map(s => s.getBoundingClientRect().right)"):
        assert box <= width, page.url


def test_header_leads_to_statistics_ratings_and_a_profile(open_page):
    page = open_page()
    page.goto("/")
    page.get_by_test_id("nav-stats").click()
    expect(page.get_by_test_id("stats-total")).to_contain_text("4 finished games at public tables: 3 fair, 1 standard")
    for part in ("part-overall", "part-decisive", "fig-comparisons", "fig-calls", "fig-margins"):
        expect(page.get_by_test_id(part)).to_be_visible()
    expect(page.locator("svg.chart")).to_have_count(3)
    page.get_by_label("Mode").select_option("standard")
    page.get_by_role("button", name="Show").click()
    expect(page.get_by_test_id("stats-total")).to_contain_text("1 finished game at public tables: 0 fair, 1 standard")
    expect(page.get_by_test_id("part-decisive")).to_have_count(0)

    page.get_by_test_id("nav-ratings").click()
    rows = page.get_by_test_id("leaderboard-row")
    expect(rows).to_have_count(2)
    expect(rows.first).to_contain_text("Rule-based bot")
    expect(rows.first).to_contain_text("±")
    rows.first.get_by_role("link").click()
    expect(page.get_by_test_id("profile")).to_contain_text("Rule-based bot")
    expect(page.get_by_test_id("rating-history").locator("svg polyline")).to_be_visible()
    expect(page.get_by_test_id("profile-accuracy")).to_have_text("not analysed yet")
    # Four games; in the standard one it sat on both teams (North & South and East & West): one row per team.
    expect(page.get_by_test_id("profile-game")).to_have_count(5)


def test_statistics_ratings_and_profiles_fit_a_phone(open_page):
    page = open_page(viewport=PHONE, is_mobile=True, has_touch=True, device_scale_factor=2)
    page.goto("/stats/")
    expect(page.get_by_test_id("fig-margins").locator("svg")).to_be_visible()
    fits(page, PHONE["width"])
    screenshot(page, "stats-phone")
    page.goto("/ratings/")
    expect(page.get_by_test_id("leaderboard-row")).to_have_count(2)
    fits(page, PHONE["width"])
    page.get_by_test_id("leaderboard-row").first.get_by_role("link").click()
    expect(page.get_by_test_id("rating-history").locator("svg")).to_be_visible()
    fits(page, PHONE["width"])
    # The profile's games are cards on a phone, as the game lists: who played takes the card's width, not a
    # column a word wide.
    games = page.get_by_test_id("profile-game")
    expect(games).to_have_count(5)
    for row in range(5):  # waits for the page's style sheets, which the click's navigation may still be loading
        expect(games.nth(row)).to_have_css("display", "grid")
    teams = games.evaluate_all("rows => rows.map(r => r.querySelector('.game-team').getBoundingClientRect().width)")
    assert min(teams) > PHONE["width"] * 0.6, teams
    expect(games.first.locator(".game-score")).to_be_visible()
    screenshot(page, "profile-phone")
