"""The table on a 375-pixel-wide phone: the whole hand fits, nothing scrolls sideways."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser_helpers import (
    HAND_CARDS,
    PHONE,
    add_bots,
    become_guest,
    open_table,
    screenshot,
    start_game,
)

pytest_plugins = ["tests.browser_helpers"]


def test_phone_shows_the_whole_hand_without_horizontal_scrolling(open_page):
    page = open_page(viewport=PHONE, is_mobile=True, has_touch=True, device_scale_factor=2)
    become_guest(page, "Mobile Marie")
    assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"]
    open_table(page, "Pocket table")
    add_bots(page, [0, 1, 3])
    start_game(page)
    expect(page.locator(HAND_CARDS)).to_have_count(9)

    assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"]
    # Measured in one go in the page, so that a re-render between two steps cannot interfere.
    cards = page.evaluate(
        """() => [...document.querySelectorAll('[data-testid=hand] .card')].map((card) => {
            const box = card.getBoundingClientRect();
            const hit = document.elementFromPoint(box.left + 6, box.top + box.height / 2);
            return {left: box.left, right: box.right, reachable: hit !== null && hit.closest('.card') === card};
        })"""
    )
    assert len(cards) == 9
    for card in cards:
        assert card["left"] >= 0 and card["right"] <= PHONE["width"], card
        # Overlapped, yet every card shows a strip that a finger can reach.
        assert card["reachable"], card
    for seat in ("top", "left", "right", "bottom"):
        box = page.get_by_test_id(f"seat-{seat}").bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], (seat, box)
    screenshot(page, "phone-table")
