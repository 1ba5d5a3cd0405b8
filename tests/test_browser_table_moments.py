"""The table explains itself: a greyed card says why, the keyboard goes to the trump buttons when
it is your turn to declare, and the centre never shows two captions over each other."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.browser_helpers import (
    HAND_CARDS,
    add_bots,
    become_guest,
    on_move,
    open_table,
    play_card,
    shown_seq,
    start_game,
    wait_for_seq_after,
    wait_for_turn,
)

pytest_plugins = ["tests.browser_helpers"]

# Records, on every animation frame, whether the trick's caption and the centre panel (trump
# chooser, "… is choosing trump") are both shown with overlapping boxes.
WATCH_OVERLAP = """() => {
    window.__overlaps = [];
    const caption = document.querySelector('[data-testid=trick-caption]');
    const center = document.querySelector('[data-testid=center-panel]');
    const shown = (el) => !el.hidden && el.textContent.trim() !== '' && el.getClientRects().length > 0;
    const check = () => {
        if (shown(caption) && shown(center)) {
            const a = caption.getBoundingClientRect(), b = center.getBoundingClientRect();
            if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) {
                window.__overlaps.push(caption.textContent + ' | ' + center.textContent);
            }
        }
        requestAnimationFrame(check);
    };
    requestAnimationFrame(check);
}"""

REASON = re.compile(
    r"^(You must follow [♦♥♠♣]|Trump [♦♥♠♣] was led: you must follow it"
    r"|No under-trumping: the [♦♥♠♣]\S+ in the trick is higher)\."
)


def greyed_card(page: Page, seq: int) -> str | None:
    """A card the hand holds but may not play now, at move ``seq``."""
    card = page.locator(f"{on_move(seq)} {HAND_CARDS}[data-legal=false]").first
    return card.get_attribute("data-card") if card.count() else None


def test_greyed_cards_explain_themselves_trump_gets_the_focus_and_captions_never_overlap(open_page):
    page = open_page()
    become_guest(page, "Fränzi")
    open_table(page, "Explained table", target=5000)
    add_bots(page, [0, 1, 3], bot="rules")
    page.evaluate(WATCH_OVERLAP)
    start_game(page)

    explained = trump_by_keyboard = rounds_seen = 0
    while rounds_seen < 3 or not explained or not trump_by_keyboard:
        assert rounds_seen < 16, "in 16 rounds no greyed card or no trump turn came"
        _, state = wait_for_turn([page])
        if state == "trump":
            # The focus is on the first trump button already: Enter chooses it, no Tab needed.
            focused = page.evaluate("() => document.activeElement.dataset.trump ?? null")
            assert focused is not None and focused != "10", f"focus is on {focused!r}, not a trump"
            seq = shown_seq(page)
            page.keyboard.press("Enter")
            wait_for_seq_after(page, seq)
            trump_by_keyboard += 1
            continue
        seq = shown_seq(page)
        code = greyed_card(page, seq)
        if code is not None and explained < 2:
            # aria-disabled, still clickable
            page.locator(f"{on_move(seq)} {HAND_CARDS}[data-card='{code}']").click(force=True)
            toast = page.get_by_test_id("toast").last
            expect(toast).to_have_text(REASON)
            title = page.locator(f"{HAND_CARDS}[data-card='{code}']").get_attribute("title")
            assert title and toast.inner_text().startswith(title), (title, toast.inner_text())
            assert shown_seq(page) == seq and page.locator(f"{HAND_CARDS}[data-card='{code}']").count() == 1
            explained += 1
        hand_before = page.locator(HAND_CARDS).count()
        play_card(page)
        if hand_before == 1:
            rounds_seen += 1
    # The round's last trick lingers over the new deal, then the next round's trump choice follows:
    # watch (every frame) until the trick is swept away and a frame after that has been drawn.
    page.wait_for_function(
        """() => document.querySelectorAll('[data-testid=hand] .card').length === 9
            && document.querySelector('[data-testid=trick]').dataset.lingering === 'false'"""
    )
    page.evaluate("() => new Promise((drawn) => requestAnimationFrame(() => requestAnimationFrame(drawn)))")
    overlaps = page.evaluate("() => window.__overlaps")
    assert not overlaps, f"captions drawn over each other: {overlaps[:3]}"
