"""axe-core finds no serious or critical accessibility violation on the lobby, table, replay, result, stats and rules
pages (issue 23, finding 15). axe-core is vendored for this test only (tests/vendor/axe-core-4.14.1)."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page, expect

from tests.browser_helpers import add_bots, become_guest, open_table, start_game

pytest_plugins = ["tests.browser_helpers"]

AXE = (Path(__file__).parent / "vendor" / "axe-core-4.14.1" / "axe.min.js").read_text()


def serious_violations(page: Page, where: str) -> list[str]:
    """The serious and critical violations axe-core finds on ``page`` now, one line each."""
    if not page.evaluate("typeof axe !== 'undefined'"):
        page.evaluate(AXE)  # not a <script> of the page's: its Content-Security-Policy admits none inline
    found = page.evaluate(
        """async () => {
            // Colours are judged as they settle: a chooser fading in is not yet low contrast.
            const running = document.getAnimations().filter((a) => a.effect?.getTiming().iterations !== Infinity);
            await Promise.all(running.map((a) => a.finished.catch(() => null)));
            const result = await axe.run(document, { resultTypes: ['violations'] });
            return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
                .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
        }"""
    )
    return [f"{where}: {line}" for line in found]


def test_the_pages_have_no_serious_accessibility_violation(open_page):
    page = open_page()
    become_guest(page, "Zora")
    problems = serious_violations(page, "lobby")
    open_table(page, "Accessible table")
    add_bots(page, [0, 1, 3], bot="rules")
    start_game(page)
    expect(page.locator("[data-testid=hand] .card").first).to_be_visible()
    problems += serious_violations(page, "table")
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_test_id("abandon").click()
    expect(page.get_by_test_id("abandoned-note")).to_be_visible()
    game = page.get_by_role("link", name="Last game's details").get_attribute("href") or ""
    for path, name in ((game, "result"), (f"{game}replay", "replay"), ("/stats/", "stats"), ("/rules/", "rules")):
        page.goto(path)
        page.wait_for_load_state("load")
        problems += serious_violations(page, name)
    assert problems == [], "\n" + "\n".join(problems)
