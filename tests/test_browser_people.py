"""Several people at one table: they see each other's cards, and a spectator sees no hand."""

from __future__ import annotations

import json

from playwright.sync_api import expect

from tests.browser_helpers import (
    HAND_CARDS,
    FrameRecorder,
    add_bots,
    become_guest,
    hands_in,
    my_seat,
    open_table,
    screenshot,
    start_game,
    take_turn,
    wait_for_trick_card,
    wait_for_turn,
)

pytest_plugins = ["tests.browser_helpers"]


def test_two_people_see_each_others_cards_land_in_the_trick(open_page):
    anna, beat = open_page(), open_page()
    become_guest(anna, "Anna")
    table_id = open_table(anna, "Anna and Beat")
    assert my_seat(anna) == 2

    # Beat finds the table in the lobby and sits down East, next to play after Anna.
    become_guest(beat, "Beat")
    lobby_table = beat.locator(f"[data-testid=lobby-table][data-table-id='{table_id}']")
    lobby_table.get_by_role("button", name="Sit here: East at Anna and Beat").click()
    beat.wait_for_url(f"**/tables/{table_id}/")
    assert my_seat(beat) == 1
    expect(anna.locator("[data-testid=seat-right] [data-seat='1']")).to_contain_text("Beat")

    add_bots(anna, [0, 3])
    start_game(anna)
    expect(beat.locator("[data-testid=seat-left] [data-testid=backs]")).to_be_visible()

    seen = {"Anna": 0, "Beat": 0}
    names = {id(anna): "Anna", id(beat): "Beat"}
    while min(seen.values()) < 3:
        page, state = wait_for_turn([anna, beat])
        assert state != "over"
        card = take_turn(page, state)
        if card is None:
            continue
        other = beat if page is anna else anna
        # The other person sees the card land in front of the seat that played it.
        wait_for_trick_card(other, card, my_seat(page))
        seen[names[id(page)]] += 1
    screenshot(anna, "two-people")


def test_a_spectator_sees_no_hand_in_the_page_or_on_the_wire(open_page):
    player = open_page()
    become_guest(player, "Trudi")
    open_table(player, "Watched table")
    add_bots(player, [0, 1, 3])

    spectator = open_page()
    frames = FrameRecorder(spectator)
    become_guest(spectator, "Watcher")
    spectator.goto(player.url)
    expect(spectator.locator("[data-testid=seat-bottom] [data-seat='2']")).to_contain_text("Trudi")
    expect(spectator.locator("[data-you=true]")).to_have_count(0)

    start_game(player)
    cards = []
    while len(cards) < 4:
        _, state = wait_for_turn([player])
        card = take_turn(player, state)
        if card:
            cards.append(card)
            wait_for_trick_card(spectator, card)
        # The spectator sees four hands of card backs, never a face-up hand.
        expect(spectator.locator(HAND_CARDS)).to_have_count(0)
        expect(spectator.locator("[data-testid=felt] .seat .card")).to_have_count(0)
        expect(spectator.locator("[data-testid=backs]")).to_have_count(4)
    expect(spectator.get_by_test_id("hand-note")).to_contain_text("watching")
    screenshot(spectator, "spectator")

    # Nor does the page itself carry a hand when it is loaded mid-game.
    spectator.reload()
    initial = json.loads(spectator.locator("#initial-view").text_content())
    assert initial["game"]["status"] == "running"
    assert hands_in(initial) == [], f"the spectator's page holds cards: {hands_in(initial)}"
    expect(spectator.locator("[data-testid=backs]")).to_have_count(4)

    states = frames.states()
    assert len(states) >= 8, f"expected a stream of states, got {len(states)}"
    assert any(s["view"]["game"] and s["view"]["game"]["trick"] for s in states)
    for frame in frames.frames:
        assert hands_in(frame) == [], f"a spectator received cards: {hands_in(frame)}"
    # The player, by contrast, does see a hand: the spectator's empty one is not for lack of data.
    assert player.locator(HAND_CARDS).count() > 0
