"""The Swiss-German deck in the browser: chosen in the header with one click, drawn and named at the table
(hand, trick, last trick, trump buttons, greyed cards' reasons) and in the replay, kept across reloads for a
guest and for an account."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from games.decks import DECKS, SWISS
from tests.browser_helpers import (
    HAND_CARDS,
    TRUMP_CHOOSER,
    add_bots,
    become_guest,
    open_table,
    start_game,
    take_turn,
    wait_for_turn,
)
from tests.test_browser_replay import REPLAY, import_record, standard_record

pytest_plugins = ["tests.browser_helpers"]

PASSWORD = "a-long-test-password-9"
SWISS_SUITS = ("Schellen", "Rosen", "Schilten", "Eicheln")
SWISS_CARD = re.compile(r"^(Schellen|Rosen|Schilten|Eicheln) (Ass|König|Ober|Under|Banner|[6-9])$")
FRENCH_WORDS = re.compile(r"[♦♥♠♣]|Hearts|Spades|Diamonds|Clubs|\bAce\b|King|Queen|Jack")
PICTURES = {"A", "K", "Q", "J", "10"}  # Ass, König, Ober, Under, Banner: drawn figures, not rows of symbols


def choose_deck(page: Page, deck: str) -> None:
    """One click on the header's deck switch; the page comes back in that deck."""
    page.get_by_test_id("deck-switch").locator(f"[data-deck-option={deck}]").click()
    expect(page.locator("html")).to_have_attribute("data-deck", deck)
    expect(page.get_by_test_id("deck-switch").locator(f"[data-deck-option={deck}]")).to_have_attribute(
        "aria-pressed", "true"
    )


def undrawn_pictures(page: Page, selector: str) -> list[str]:
    """The sprite pictures inside ``selector`` that drew nothing (an empty box: a missing sprite or symbol)."""
    return page.evaluate(
        """sel => [...document.querySelectorAll(sel + ' use')]
            .filter(u => { const b = u.getBBox(); return !(b.width > 1 && b.height > 1); })
            .map(u => u.getAttribute('href'))""",
        selector,
    )


def expect_swiss_cards(page: Page, selector: str) -> list[str]:
    """Every card in ``selector`` is a drawn Swiss card, named as one; returns their codes."""
    cards = page.locator(selector).evaluate_all(
        """cards => cards.map(c => ({
            code: c.dataset.card,
            // A card to play is named by hidden text, a card shown by its aria-label (static/js/cards.js).
            label: c.getAttribute('aria-label') || (c.querySelector('.visually-hidden') || {}).textContent,
            suits: [...c.querySelectorAll('.suit-mark use')].map(u => u.getAttribute('href').split('#')[1]),
            face: (c.querySelector('.card-figure-art use') || {getAttribute: () => null}).getAttribute('href'),
            text: c.textContent,
        }))"""
    )
    assert cards, f"no cards in {selector}"
    for card in cards:
        code, label = card["code"], card["label"]
        assert DECKS[SWISS].card_name(code) in label, (
            card
        )  # "Schilten 6", "Schilten 6, playable", "Anna (North): Schilten 6"
        assert card["suits"] and set(card["suits"]) == {f"suit-{code[0]}"}, card  # corners (and pips) in its suit
        if code[1:] in PICTURES:
            assert card["face"] and card["face"].endswith(f"#face-{code}"), card
        else:
            assert card["face"] is None, card
        assert not FRENCH_WORDS.search(card["text"]), card
    assert undrawn_pictures(page, selector) == []
    return [c["code"] for c in cards]


def test_a_guest_plays_with_swiss_cards_and_keeps_them_after_a_reload(open_page):
    page = open_page()
    become_guest(page, "Vreni")
    choose_deck(page, "swiss")
    open_table(page, "Swiss table", target=2500)  # long enough for this seat to be forehand (every 4th round)
    add_bots(page, [0, 1, 3], bot="random")
    start_game(page)

    saw = {"trump": False, "greyed": False, "trick": False, "last": False}
    for _ in range(120):
        _, state = wait_for_turn([page])
        if state == "over":
            break
        if state == "trump":
            chooser = page.locator(TRUMP_CHOOSER)
            for trump, name in enumerate(SWISS_SUITS):
                button = chooser.get_by_test_id(f"trump-{trump}")
                expect(button).to_contain_text(name)
                assert not FRENCH_WORDS.search(button.inner_text())
            assert undrawn_pictures(page, TRUMP_CHOOSER) == []
            expect_swiss_cards(page, HAND_CARDS)
            saw["trump"] = True
        if state == "card":
            expect_swiss_cards(page, HAND_CARDS)
            badge = page.get_by_test_id("trump")
            expect(badge).to_contain_text(re.compile("|".join(SWISS_SUITS + ("Obe-Abe", "Une-Ufe"))))
            assert not FRENCH_WORDS.search(badge.inner_text())
            greyed = page.locator(f"{HAND_CARDS}[data-legal=false]")
            if greyed.count() and not saw["greyed"]:
                # The reason of a greyed card names Swiss suits and cards, on hover and on a click.
                reason = greyed.first.get_attribute("title")
                assert reason and not FRENCH_WORDS.search(reason), reason
                assert re.match(r"^(You must follow|Trump \w+ was led|No under-trumping: the )", reason), reason
                greyed.first.click(force=True)  # aria-disabled, still clickable
                expect(page.get_by_test_id("toast").last).to_contain_text(f"{reason}.")
                saw["greyed"] = True
            if page.locator("[data-testid=trick] .card").count():
                expect_swiss_cards(page, "[data-testid=trick] .card")
                saw["trick"] = True
            if not saw["last"] and page.get_by_test_id("last-trick-toggle").is_enabled():
                page.get_by_test_id("last-trick-toggle").click()
                expect_swiss_cards(page, "[data-testid=last-trick] .card")
                page.get_by_test_id("last-trick-toggle").click()
                saw["last"] = True
        if saw["trump"] and saw["trick"] and saw["last"] and saw["greyed"]:
            break
        take_turn(page, state)
    assert saw["trump"] and saw["trick"] and saw["last"], saw

    # A reload keeps the Swiss cards: the guest's player holds the choice.
    page.reload()
    expect(page.get_by_test_id("table-app")).to_have_attribute("data-socket", "open")
    expect(page.locator("html")).to_have_attribute("data-deck", "swiss")
    expect(page.locator(HAND_CARDS).first).to_be_visible()
    expect_swiss_cards(page, HAND_CARDS)
    sheet = page.get_by_test_id("score-sheet")
    assert not FRENCH_WORDS.search(sheet.inner_text()), sheet.inner_text()


def test_the_replay_of_an_imported_record_shows_the_swiss_deck_and_a_click_brings_the_french_one_back(open_page):
    page = open_page()
    become_guest(page, "Ursle")
    choose_deck(page, "swiss")
    import_record(page, standard_record())
    replay = page.locator(REPLAY)
    for seat in range(4):
        assert len(expect_swiss_cards(page, f"[data-testid=hand-{seat}] .card")) == 9
    options = page.locator("#round-select option").all_inner_texts()
    assert options and not any(FRENCH_WORDS.search(o) for o in options), options
    assert any(re.search("|".join(SWISS_SUITS), o) for o in options), options
    for _ in range(6):
        page.get_by_test_id("next").click()
    expect(replay).to_have_attribute("data-card", "6")
    expect_swiss_cards(page, ".rp-trick .card")
    last = page.get_by_test_id("last-card").locator(".card-tag")
    assert SWISS_CARD.match(last.get_attribute("aria-label")), last.get_attribute("aria-label")
    assert undrawn_pictures(page, "[data-testid=last-card]") == []
    side = page.locator("#replay-side").inner_text()
    assert not FRENCH_WORDS.search(side), side

    # One click back to the French deck, on the same position.
    choose_deck(page, "french")
    expect(replay).to_have_attribute("data-card", "6")
    label = page.locator("[data-testid=hand-0] .card").first.get_attribute("aria-label")
    assert re.match(r"^(Ace|King|Queen|Jack|Ten|Nine|Eight|Seven|Six) of (Diamonds|Hearts|Spades|Clubs)$", label), label
    assert page.locator("[data-testid=hand-0] .card-figure-art").count() == 0


def test_an_account_keeps_its_deck_after_a_reload_and_on_another_device(open_page):
    laptop = open_page()
    laptop.goto("/accounts/signup/")
    laptop.get_by_label("Username").fill("hanna")
    laptop.get_by_label("Password", exact=True).fill(PASSWORD)
    laptop.get_by_label("Password confirmation").fill(PASSWORD)
    laptop.get_by_role("button", name="Create account").click()
    expect(laptop.get_by_test_id("identity")).to_contain_text("hanna")
    laptop.goto("/rules/")
    choose_deck(laptop, "swiss")
    assert laptop.url.endswith("/rules/")  # the switch brings you back where you were
    expect(laptop.get_by_test_id("rules")).to_contain_text("Rosen were led")
    expect_swiss_cards(laptop, "[data-testid=rules-suit] .card")
    laptop.reload()
    expect(laptop.locator("html")).to_have_attribute("data-deck", "swiss")

    phone = open_page(viewport={"width": 375, "height": 667})
    phone.goto("/accounts/login/")
    phone.get_by_label("Username").fill("hanna")
    phone.get_by_label("Password").fill(PASSWORD)
    phone.locator("main").get_by_role("button", name="Log in").click()
    expect(phone.get_by_test_id("identity")).to_contain_text("hanna")
    expect(phone.locator("html")).to_have_attribute("data-deck", "swiss")
    # On a phone the switch sits on the header's first line and still says what it does.
    switch = phone.get_by_role("button", name="Swiss-German cards")
    expect(switch).to_be_visible()
    expect(switch).to_have_attribute("aria-pressed", "true")
    phone.get_by_test_id("nav-settings").click()
    expect(phone.get_by_test_id("deck-option-swiss").locator("input")).to_be_checked()
    phone.get_by_test_id("deck-option-french").click()
    phone.get_by_test_id("settings-save").click()
    expect(phone.locator("html")).to_have_attribute("data-deck", "french")
    expect(phone.get_by_role("status")).to_contain_text("You now see French cards.")
    laptop.reload()
    expect(laptop.locator("html")).to_have_attribute("data-deck", "french")
