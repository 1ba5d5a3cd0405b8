"""While you play, the whole table fits the screen: your hand, whose turn it is and the trick are in
view without scrolling, on a 1366x768 and a 1366x800 laptop and on a 375x667 phone, and no name is
cut short."""

from __future__ import annotations

import pytest

from tests.browser_helpers import (
    HAND_CARDS,
    add_bots,
    become_guest,
    open_table,
    play_card,
    screenshot,
    start_game,
    take_turn,
    wait_for_turn,
)

pytest_plugins = ["tests.browser_helpers"]

VIEWPORTS = {"laptop-768": (1366, 768), "laptop-800": (1366, 800), "phone": (375, 667)}

# Boxes of what a player must see while playing, and the names drawn cut short (text wider than its box).
MEASURE = """() => {
    const box = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
    const all = (sel) => [...document.querySelectorAll(sel)].filter((el) => el.getClientRects().length);
    const clipped = all('.seat-name, .seat-meta, .seat-bot-facts, .turn-flag').filter((el) => {
        // Wider than its own box, or reaching out of the box of the nameplate that clips it.
        const plate = el.closest('.nameplate-text') || el.parentElement;
        const a = el.getBoundingClientRect(), b = plate.getBoundingClientRect();
        return el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1
            || a.left < b.left - 1 || a.right > b.right + 1;
    }).map((el) => el.textContent.trim());
    return {
        viewport: [innerWidth, innerHeight],
        scroll: [document.documentElement.scrollWidth, document.documentElement.scrollHeight, scrollX, scrollY],
        hand: all('[data-testid=hand] .card').map(box),
        turn: all('[data-testid=turn-flag]').map(box),
        trick: all('[data-testid=trick]').map(box),
        clipped,
    };
}"""


def inside(box: list[float], width: int, height: int) -> bool:
    left, top, right, bottom = box
    return left >= -0.5 and top >= -0.5 and right <= width + 0.5 and bottom <= height + 0.5


@pytest.mark.parametrize("name", list(VIEWPORTS))
def test_while_playing_the_hand_the_turn_and_the_trick_are_in_view(open_page, name):
    width, height = VIEWPORTS[name]
    page = open_page(viewport={"width": width, "height": height})
    become_guest(page, "Seraina")
    open_table(page, f"Fits {name}", target=5000)
    add_bots(page, [0, 1], bot="rules")
    add_bots(page, [3], bot="mcts-fast")
    start_game(page)

    for _ in range(6):
        _, state = wait_for_turn([page])
        if state == "card":
            page.evaluate("() => window.scrollTo(0, 0)")  # where the page is after a move: not scrolled by us
            seen = page.evaluate(MEASURE)
            screenshot(page, f"table-{name}")
            assert seen["scroll"][0] <= width, f"the page is {seen['scroll'][0]} px wide"
            assert seen["hand"], "no hand shown"
            for what in ("hand", "turn", "trick"):
                outside = [b for b in seen[what] if not inside(b, width, height)]
                assert not outside, f"{what} not in the {width}x{height} view: {outside} (page {seen['scroll']})"
            assert not seen["clipped"], f"names cut short: {seen['clipped']}"
            assert page.locator(HAND_CARDS).count()
            play_card(page)
        else:
            take_turn(page, state)
