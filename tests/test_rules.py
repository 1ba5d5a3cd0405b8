"""Named tests for the rules that implementations most often get wrong (docs/rules.md)."""

from __future__ import annotations

import pytest

from games.engine import (
    CARD_POINTS,
    CLUBS,
    DIAMONDS,
    HEARTS,
    OBE_ABE,
    SPADES,
    UNE_UFE,
    InvalidActionError,
    card_from_code,
    legal_cards,
    trick_points,
    trick_winner,
)


def ids(codes: str) -> list[int]:
    return [card_from_code(code) for code in codes.split()]


def legal(hand: str, trick: str, trump: int) -> set[str]:
    from games.engine import CARD_CODES

    return {CARD_CODES[c] for c in legal_cards(ids(hand), ids(trick), trump)}


def test_first_card_of_a_trick_is_free():
    assert legal("DA HK S6 C9", "", SPADES) == {"DA", "HK", "S6", "C9"}


def test_must_follow_led_suit_or_may_trump():
    # Diamonds led, spades trump, no trump in the trick yet: follow or trump, not discard.
    assert legal("D6 S6 HA C9", "DK", SPADES) == {"D6", "S6"}


def test_void_in_led_suit_may_play_anything_when_no_trump_in_trick():
    assert legal("S6 HA C9", "DK", SPADES) == {"S6", "HA", "C9"}


def test_puur_exemption_when_trump_is_led():
    # Hearts trump and led; the Jack is our only trump: we need not play it.
    assert legal("HJ DA S7 C9", "H6", HEARTS) == {"HJ", "DA", "S7", "C9"}


def test_trump_led_with_jack_and_another_trump_must_follow_trump():
    assert legal("HJ H7 DA S7", "H6", HEARTS) == {"HJ", "H7"}


def test_trump_led_with_one_trump_that_is_not_the_jack_must_play_it():
    assert legal("H7 DA S7", "H6", HEARTS) == {"H7"}


def test_no_undertrump_after_overtrump():
    # Spades trump, diamonds led, S7 then the higher S9: only higher trumps (none) or diamonds.
    assert legal("S8 S6 SA H6 DA", "D8 S7 S9", SPADES) == {"DA"}


def test_overtrump_is_allowed_instead_of_following():
    assert legal("SJ S6 DA H6", "D8 S9", SPADES) == {"SJ", "DA"}


def test_only_trumps_left_may_undertrump():
    assert legal("S8 S6 SA", "D8 S7 S9", SPADES) == {"S8", "S6", "SA"}


def test_cannot_follow_and_holds_only_lower_trumps_plus_others():
    # Void in diamonds, S9 in the trick; S8 and S6 are lower trumps: play anything else.
    assert legal("S8 S6 HA C7", "DK S9", SPADES) == {"HA", "C7"}


def test_cannot_follow_with_a_higher_trump_may_play_it():
    assert legal("SJ S6 HA", "DK S9", SPADES) == {"SJ", "HA"}


def test_undertrump_ban_compares_by_trump_order_not_card_id():
    # Hearts trump, clubs led, H10 then HJ: the Jack is the highest trump, so HA and H9 are under-trumps.
    # (jass-kit 2.0.5 compares ids here and allows them: jass-kit-py issue 10.)
    assert legal("HA H9 C6 DA", "CK H10 HJ", HEARTS) == {"C6"}


def test_obe_abe_follow_suit_and_highest_wins():
    assert legal("DA D6 HK", "D9", OBE_ABE) == {"DA", "D6"}
    assert legal("HK SA", "D9", OBE_ABE) == {"HK", "SA"}
    assert trick_winner(ids("D9 DA D6 HK"), 0, OBE_ABE) == 3  # DA, second card, seat 0 -> 3


def test_une_ufe_follow_suit_and_lowest_wins():
    assert legal("DA D6 HK", "D9", UNE_UFE) == {"DA", "D6"}
    # Seats play 2, 1, 0, 3: D6 is the third card -> seat 0; the H6 does not follow suit.
    assert trick_winner(ids("D9 DA D6 H6"), 2, UNE_UFE) == 0


def test_obe_abe_and_une_ufe_have_no_trump():
    # A spade played on a diamond lead never wins under Obe-Abe.
    assert trick_winner(ids("D6 SA SJ S9"), 1, OBE_ABE) == 1


def test_trump_beats_led_suit_and_highest_trump_wins():
    assert trick_winner(ids("DA S6 DK DQ"), 0, SPADES) == 3
    assert trick_winner(ids("DA S6 S9 SJ"), 0, SPADES) == 1  # SJ, fourth card: seats 0,3,2,1
    assert trick_winner(ids("SA S9 SK SQ"), 2, SPADES) == 1  # S9 beats SA as trump


def test_highest_of_led_suit_wins_without_trump():
    assert trick_winner(ids("D6 DA HA CA"), 3, CLUBS) == 0  # CA is trump here: fourth card -> seat 0
    assert trick_winner(ids("D6 DA HA SA"), 3, CLUBS) == 2  # DA, second card: seats 3, 2


def test_card_points_per_trump():
    assert trick_points(ids("SJ S9 SA S10"), SPADES) == 20 + 14 + 11 + 10
    assert trick_points(ids("SJ S9 SA S10"), HEARTS) == 2 + 0 + 11 + 10
    assert trick_points(ids("D8 DA D6 DK"), OBE_ABE) == 8 + 11 + 0 + 4
    assert trick_points(ids("D8 DA D6 DK"), UNE_UFE) == 8 + 0 + 11 + 4
    assert trick_points(ids("D8 DA D6 DK"), UNE_UFE, last=True) == 8 + 0 + 11 + 4 + 5


@pytest.mark.parametrize("trump", range(6))
def test_every_trump_totals_152_card_points(trump):
    assert sum(CARD_POINTS[trump]) == 152


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: legal_cards([99], [], SPADES), "not a card id"),
        (lambda: legal_cards(ids("DA"), ids("DA"), SPADES), "share cards"),
        (lambda: legal_cards(ids("DA DA"), [], SPADES), "appears twice"),
        (lambda: legal_cards(ids("DA"), ids("DK HK SK CK"), SPADES), "0-3 cards"),
        (lambda: legal_cards(ids("DA"), [], 10), "not a trump"),
        (lambda: legal_cards([], [], DIAMONDS), "empty"),
        (lambda: trick_winner(ids("DA DK"), 0, SPADES), "4-4 cards"),
        (lambda: trick_winner(ids("DA DK DQ DJ"), 4, SPADES), "not a seat"),
        (lambda: trick_points(ids("DA"), 7), "not a trump"),
    ],
)
def test_public_functions_reject_malformed_input(call, match):
    with pytest.raises(InvalidActionError, match=match):
        call()


def test_docstring_examples_hold():
    import doctest

    from games.engine import rules

    assert doctest.testmod(rules).failed == 0


def why(hand: str, trick: str, trump: int) -> dict[str, str]:
    """The reason given for every card of ``hand`` that may not be played on ``trick``."""
    from games.engine import CARD_CODES, mask_of, why_not

    mask, allowed = mask_of(ids(hand)), legal(hand, trick, trump)
    return {CARD_CODES[c]: why_not(mask, ids(trick), trump, c) for c in ids(hand) if CARD_CODES[c] not in allowed}


def test_a_refused_card_says_why_in_a_players_words():
    assert why("HA S6 C7", "S9", HEARTS) == {"C7": "You must follow ♠"}
    assert why("HA H9 C6 DA", "CK H10 HJ", HEARTS) == {
        "HA": "No under-trumping: the ♥J in the trick is higher",
        "H9": "No under-trumping: the ♥J in the trick is higher",
        "DA": "You must follow ♣",
    }
    assert why("H9 S6", "H10", HEARTS) == {"S6": "Trump ♥ was led: you must follow it"}
    assert why("DA D6 SK", "D9", OBE_ABE) == {"SK": "You must follow ♦"}
    assert why("HJ S6", "H10", HEARTS) == {}  # the Puur alone need not follow trump


def test_every_refused_card_of_random_play_has_a_reason():
    import random

    from games.engine import CARD_CODES, mask_of, why_not
    from games.engine.cards import iter_cards
    from games.engine.rules import legal_mask

    rng = random.Random(3)
    for _ in range(300):
        cards = rng.sample(range(36), 12)
        hand, trick, trump = mask_of(cards[:9]), cards[9 : 9 + rng.randint(1, 3)], rng.randrange(6)
        for card in iter_cards(hand & ~legal_mask(hand, trick, trump)):
            reason = why_not(hand, trick, trump, card)
            assert reason.startswith(("You must follow", "Trump", "No under-trumping")), (CARD_CODES[card], reason)
