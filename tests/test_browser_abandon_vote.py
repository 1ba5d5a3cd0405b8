"""Fair play in the browser: two people and two bots; one person's Abandon waits for the other's agreement."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser_helpers import add_bots, become_guest, open_table, start_game, take_turn, wait_for_turn

pytest_plugins = ["tests.browser_helpers"]


def test_abandon_ends_a_game_with_another_person_only_when_they_agree(open_page):
    anna, beat = open_page(), open_page()
    become_guest(anna, "Anna")
    table_id = open_table(anna, "Anna asks")
    become_guest(beat, "Beat")
    lobby_table = beat.locator(f"[data-testid=lobby-table][data-table-id='{table_id}']")
    lobby_table.get_by_role("button", name="Sit here: North at Anna asks").click()
    beat.wait_for_url(f"**/tables/{table_id}/")
    add_bots(anna, [1, 3])
    start_game(anna)

    # Anna asks; the game goes on, and Beat is asked.
    anna.once("dialog", lambda dialog: dialog.accept())
    anna.get_by_test_id("abandon").click()
    expect(anna.get_by_test_id("abandon-vote")).to_contain_text("You asked to abandon the game.")
    expect(anna.get_by_test_id("abandon-vote")).to_contain_text("Waiting for Beat")
    vote = beat.get_by_test_id("abandon-vote")
    expect(vote).to_contain_text("Anna asked to abandon the game.")
    expect(anna.get_by_test_id("abandoned-note")).to_have_count(0)

    # Beat refuses: they play on (a move goes through), and Anna sees the refusal.
    vote.get_by_role("button", name="Refuse: play on").click()
    expect(anna.get_by_test_id("abandon-vote")).to_contain_text("Beat refused to abandon the game: it goes on.")
    page, state = wait_for_turn([anna, beat])
    before = page.get_by_test_id("table-app").get_attribute("data-seq")
    take_turn(page, state)
    expect(page.get_by_test_id("table-app")).not_to_have_attribute("data-seq", before)
    expect(beat.get_by_test_id("abandoned-note")).to_have_count(0)

    # Anna asks again; only Beat's agreement ends the game, for both.
    anna.once("dialog", lambda dialog: dialog.accept())
    anna.get_by_test_id("abandon").click()
    expect(anna.get_by_test_id("abandon-vote")).to_contain_text("Waiting for Beat")
    expect(anna.get_by_test_id("abandoned-note")).to_have_count(0)
    beat.get_by_test_id("abandon-vote").get_by_role("button", name="Agree: abandon").click()
    for page in (anna, beat):
        expect(page.get_by_test_id("abandoned-note")).to_contain_text(
            "The last game was abandoned: Anna asked and the other players agreed."
        )
        expect(page.get_by_test_id("abandon-vote")).to_be_hidden()
