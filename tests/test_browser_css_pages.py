"""A stylesheet per page (issue 26): every page loads the base (static/css/jassweb.css) and its own sheet, no
other; every rule of a page's own sheet matches something on that page; and, with JASSWEB_CSS_BASELINE=<git ref>
set, every element looks as it did under that ref's stylesheets (tests/css_helpers.py), on a laptop and a phone.

The table's states (the trump chooser, the round's summary, the dialogs…) are walked by tests/test_browser_layout.py,
whose checks compare too; here the table is seen waiting and in play.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests import css_helpers
from tests.browser_helpers import HAND_CARDS, add_bots, become_guest, open_table, start_game
from tests.test_browser_replay import import_record, standard_record

pytest_plugins = ["tests.browser_helpers"]

SIZES = {"laptop": {"width": 1366, "height": 800}, "phone": {"width": 375, "height": 667}}
# Each page's own sheets, after jassweb.css.
OWN = {
    "lobby": ["lobby.css"],
    "table": ["table.css", "table-panels.css"],
    "invitation": [],
    "games": ["games.css"],
    "import": [],
    "result": ["result.css"],
    "replay": ["replay.css"],
    "rules": ["rules.css"],
    "settings": ["settings.css"],
    "stats": ["stats.css"],
    "ratings": ["stats.css"],
    "profile": ["stats.css"],
    "login": ["auth.css"],
    "signup": ["auth.css"],
    "tournaments": ["tournaments.css"],
}
# Sheets whose every rule shows on the pages visited here (others need states of a game, errors, filters…).
COMPLETE = ["games.css", "rules.css", "settings.css"]

# The style rules of the page's own sheets (not the base) that match some element now, and those that match none;
# a rule's pseudo-classes and pseudo-elements are left out (":hover" matches what it would match at rest).
RULES = """() => {
    const used = [], unused = [];
    const walk = (rules, sheet) => {
        for (const rule of rules) {
            if (rule.cssRules && !rule.selectorText) { walk(rule.cssRules, sheet); continue; }
            if (!rule.selectorText) continue;
            for (const selector of rule.selectorText.split(',')) {
                const keep = (m) => (m.startsWith(':has') || m.startsWith(':not') ? m : '');
                const bare = selector.replace(/::?[a-z-]+(\\([^)]*\\))?/g, keep).trim() || '*';
                const key = `${sheet} ${selector.trim()}`;
                (document.querySelector(bare) ? used : unused).push(key);
            }
        }
    };
    for (const link of document.querySelectorAll('link[rel=stylesheet]:not([data-css-baseline])')) {
        const name = link.getAttribute('href').split('/').pop().replace(/\\.[0-9a-f]{12}\\.css$/, '.css');
        if (name !== 'jassweb.css') walk(link.sheet.cssRules, name);
    }
    return { used, unused };
}"""


def pages(base: Page, game: int, table: int) -> list[tuple[str, str]]:
    return [
        ("lobby", "/"),
        ("table", f"/tables/{table}/"),
        ("invitation", f"/tables/{table}/invite/"),
        ("games", "/games/"),
        ("games", "/games/mine/"),
        ("import", "/games/import/"),
        ("result", f"/games/{game}/"),
        ("replay", f"/games/{game}/replay?round=1&card=6"),
        ("rules", "/rules/"),
        ("settings", "/settings/"),
        ("stats", "/stats/"),
        ("ratings", "/ratings/"),
        ("profile", "/players/me/"),
        ("tournaments", "/tournaments/"),
    ]


@pytest.fixture(scope="module")
def made(browser, jass_server):
    """A finished game (imported) and a table in play with three bots, by the guest Vreni."""
    context = browser.new_context(base_url=jass_server, viewport=SIZES["laptop"])
    page = context.new_page()
    become_guest(page, "Vreni")
    import_record(page, standard_record())
    game = int(re.search(r"/games/(\d+)/", page.url)[1])
    page.goto("/")
    table = open_table(page, "Donnerstagsjass im Sternen", seat="2")
    add_bots(page, [0, 1, 3], "rules")
    start_game(page)
    state = context.storage_state()
    context.close()
    return {"game": game, "table": table, "state": state}


def test_every_page_loads_the_base_and_its_own_sheet_and_looks_as_before(open_page, made):
    problems: list[str] = []
    used: set[str] = set()
    unused: set[str] = set()
    for size, viewport in SIZES.items():
        page = open_page(viewport=viewport, storage_state=made["state"])
        visits = pages(page, made["game"], made["table"])
        for kind, url in visits:
            page.goto(url)
            if kind == "table":
                expect(page.locator(HAND_CARDS).first).to_be_visible()
            if kind == "replay":
                expect(page.locator("#replay")).to_have_attribute("data-ready", "true")
            loaded = css_helpers.sheets(page)
            if loaded != ["jassweb.css", *OWN[kind]]:
                problems.append(f"{kind} ({url}) @ {size}: loads {loaded}")
            found = page.evaluate(RULES)
            used |= set(found["used"])
            unused |= set(found["unused"])
            problems += css_helpers.compare(page, f"{kind} ({url})")
        for kind, url in [("login", "/accounts/login/"), ("signup", "/accounts/signup/")]:
            other = open_page(viewport=viewport)
            other.goto(url)
            if css_helpers.sheets(other) != ["jassweb.css", *OWN[kind]]:
                problems.append(f"{kind} @ {size}: loads {css_helpers.sheets(other)}")
            found = other.evaluate(RULES)
            used |= set(found["used"])
            unused |= set(found["unused"])
            problems += css_helpers.compare(other, kind)
    assert not problems, "\n".join(problems)
    dead = sorted(rule for rule in unused - used if rule.split()[0] in COMPLETE)
    assert not dead, "rules of a page's own sheet that match nothing on the page:\n" + "\n".join(dead)
