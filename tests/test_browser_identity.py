"""A guest keeps what they did: plays a game, signs up, and finds it (and a record they import) in My games."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.browser_helpers import (
    HAND_CARDS,
    PHONE,
    RESULT,
    add_bots,
    become_guest,
    my_seat,
    open_table,
    screenshot,
    start_game,
    take_turn,
    wait_for_turn,
)

pytest_plugins = ["tests.browser_helpers"]

PASSWORD = "correct-horse-battery-9"


def rename(page: Page, name: str) -> None:
    """Rename the guest with the header's menu."""
    menu = page.get_by_test_id("guest-menu")
    menu.locator("summary").click()
    menu.get_by_label("Your name at the tables").fill(name)
    menu.get_by_role("button", name="Rename").click()
    expect(page.get_by_test_id("identity")).to_contain_text(name)


def play_to_the_end(page: Page) -> int:
    """Play the running game to its end; the game's id from the result dialog."""
    for _ in range(9 * 30):
        _, state = wait_for_turn([page])
        if state == "over":
            break
        take_turn(page, state)
    result = page.locator(RESULT)
    expect(result).to_be_visible()
    href = result.get_by_test_id("game-link").get_attribute("href")
    found = re.search(r"/games/(\d+)/", href or "")
    assert found, href
    return int(found.group(1))


def my_games_row(page: Page, game_id: int):
    page.get_by_test_id("nav-my-games").click()
    page.wait_for_url("**/games/mine/")
    return page.locator(f"[data-testid=game-row][data-game-id='{game_id}']")


def test_a_guest_plays_signs_up_and_finds_the_game_and_an_import_in_my_games(open_page):
    page = open_page()
    become_guest(page, "Gusti")
    table_id = open_table(page, "Before signing up", target=150)
    rename(page, "Gusti B")  # the header menu brings the guest back to the table
    assert page.url.rstrip("/").endswith(f"/tables/{table_id}")
    expect(page.locator("[data-testid=seat-bottom]")).to_contain_text("Gusti B")
    add_bots(page, [0, 1, 3])
    start_game(page)
    game_id = play_to_the_end(page)

    # On to the game's result page, and sign up from the header there.
    page.locator(RESULT).get_by_test_id("game-link").click()
    page.wait_for_url(f"**/games/{game_id}/")
    page.get_by_test_id("nav-signup").click()
    page.wait_for_url("**/accounts/signup/**")
    expect(page.get_by_test_id("signup-keeps")).to_contain_text("Gusti B")
    screenshot(page, "sign-up-as-guest")
    page.get_by_label("Username").fill("gusti")
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Password confirmation").fill(PASSWORD)
    page.get_by_role("button", name="Create account").click()
    page.wait_for_url(f"**/games/{game_id}/")  # back where they were
    expect(page.get_by_test_id("identity")).to_contain_text("gusti")
    expect(page.get_by_test_id("identity").get_by_role("button", name="Log out")).to_be_visible()
    expect(page.get_by_role("status")).to_contain_text("Your 1 game as guest Gusti B is now in your account.")

    row = my_games_row(page, game_id)
    expect(row).to_be_visible()
    expect(row).to_contain_text(re.compile(r"Won|Lost"))  # from the account's side: it sat there
    expect(page.get_by_test_id("my-games")).not_to_contain_text("You have not played a game yet")

    # Import the game's record: it shows in the importer's My games, labelled as imported.
    record = page.request.get(f"/games/{game_id}/record.json").text()
    page.goto("/games/import/")
    form = page.get_by_test_id("import-form")
    form.get_by_label("…or paste it").fill(record)
    form.get_by_label("Name (optional)").fill("My imported copy")
    form.get_by_role("button", name="Import and replay").click()
    page.wait_for_url(re.compile(r"/games/\d+/replay$"))
    imported_id = int(re.search(r"/games/(\d+)/replay", page.url).group(1))
    row = my_games_row(page, imported_id)
    expect(row).to_contain_text("My imported copy")
    expect(row).to_contain_text("imported")
    expect(row).to_contain_text("Gusti B")  # the record's players, as they were named
    expect(page.locator("[data-testid=game-row]")).to_have_count(2)
    screenshot(page, "my-games-after-sign-up")


def test_the_guest_menu_fits_a_phone_and_refuses_a_bad_name(open_page):
    page = open_page(viewport=PHONE)
    become_guest(page, "Vreni")
    expect(page.get_by_test_id("nav-signup")).to_be_visible()
    menu = page.get_by_test_id("guest-menu")
    menu.locator("summary").click()
    field = menu.get_by_label("Your name at the tables")
    expect(field).to_be_visible()
    screenshot(page, "guest-menu-phone")
    box = menu.get_by_test_id("rename-form").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box
    overflow = page.evaluate("() => document.documentElement.scrollWidth")
    assert overflow <= PHONE["width"], f"the page is {overflow} px wide on a {PHONE['width']} px phone"
    # Too long: the browser stops at 24; a name of spaces only is refused by the server.
    field.evaluate("el => { el.removeAttribute('required'); el.value = '   '; }")
    menu.get_by_role("button", name="Rename").click()
    expect(page.get_by_role("status")).to_contain_text("A nickname has 1 to 24 characters.")
    expect(page.get_by_test_id("identity")).to_contain_text("Vreni")


def test_signing_up_in_the_middle_of_a_game_keeps_the_seat_and_the_hand(open_page):
    page = open_page()
    become_guest(page, "Mitten")
    table_id = open_table(page, "Mid-game sign-up", target=2500)
    add_bots(page, [0, 1, 3])
    start_game(page)
    _, state = wait_for_turn([page])
    take_turn(page, state)
    _, state = wait_for_turn([page])  # our turn again: the sign-up happens while the game waits for us
    hand_before = sorted(page.locator(HAND_CARDS).evaluate_all("cards => cards.map(c => c.dataset.card)"))

    page.get_by_test_id("nav-signup").click()
    page.get_by_label("Username").fill("mitten")
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Password confirmation").fill(PASSWORD)
    page.get_by_role("button", name="Create account").click()

    page.wait_for_url(f"**/tables/{table_id}/")  # back at the table, reconnected as the account
    expect(page.get_by_test_id("table-app")).to_have_attribute("data-socket", "open")
    expect(page.get_by_test_id("identity")).to_contain_text("mitten")
    assert my_seat(page) == 2
    expect(page.locator("[data-testid=seat-bottom]")).to_contain_text("mitten")
    _, state = wait_for_turn([page])
    assert state in ("trump", "card")
    hand_after = sorted(page.locator(HAND_CARDS).evaluate_all("cards => cards.map(c => c.dataset.card)"))
    assert hand_after == hand_before
    take_turn(page, state)  # and the account plays the seat
