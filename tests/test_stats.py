"""The statistics page (/stats/): the thesis' Table 4.1 and Figures 4.1-4.3 from this server's finished games.

The expected numbers are computed here from the games themselves — their seats,
their final points and their moves replayed on the engine — not by the code
that writes the summary rows.
"""

from __future__ import annotations

import math
import re
import statistics
from collections import defaultdict
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from games.engine import PUSH, SUITS, GameState
from games.models import DecisiveRound, Game, GameSummary, Player, TeamMember, TypeResult
from games.pages import stats
from games.summaries import rows as summaries
from tests.stats_helpers import finished_game
from tests.table_helpers import make_players

pytestmark = pytest.mark.django_db


# -- the expected numbers, straight from the games ------------------------------------------------


def kind_of(seat) -> str:
    return "people" if seat.player_id else f"bot:{seat.bot}"


def replayed(game: Game) -> GameState:
    moves = [(a.seat, a.to_engine()) for a in game.actions.order_by("seq")]
    return GameState.replay(game.config(), moves, game.plan())


def expected_parts(games: list[Game]) -> dict[str, dict[str, list[tuple[bool, int]]]]:
    """Per type, per part of Table 4.1: the (won, point advantage) of each of its team appearances."""
    result: dict[str, dict[str, list[tuple[bool, int]]]] = defaultdict(lambda: defaultdict(list))
    for game in games:
        seats = {s.position: s for s in game.seats.all()}
        for team in (0, 1):
            one, two = kind_of(seats[team]), kind_of(seats[team + 2])
            outcome = (game.winner == team, game.points[team] - game.points[1 - team])
            for mine, partner in {(one, two), (two, one)}:
                result[mine]["overall"].append(outcome)
                if partner == mine:
                    result[mine]["team"].append(outcome)
                if partner == "people" and mine != "people":
                    result[mine]["with_person"].append(outcome)
                if game.mode == "fair":
                    result[mine]["fair"].append(outcome)
    return result


def expected_decisive(games: list[Game]):
    """Per fair game: the decisive pair's two rounds as (starter type, RPA, call), and the pair's comparison."""
    rounds, comparisons, pair_won_game = [], defaultdict[str, int](int), []
    for game in games:
        if game.mode != "fair":
            continue
        state = replayed(game)
        assert state.scores == tuple(game.points)
        seats = {s.position: s for s in game.seats.all()}
        team_points = [
            (r.score()[0], r.score()[1])[r.forehand_seat % 2] * game.config().multiplier(r.trump) for r in state.rounds
        ]
        pairs = [(x - 1, i) for i, x in enumerate(game.fair_schedule or ()) if x]
        rpa = {}
        for first, second in pairs:
            rpa[first] = team_points[first] - team_points[second]
            rpa[second] = -rpa[first]
        best = max(rpa.values())
        top = min(index for index, value in rpa.items() if value == best)
        pair = next(p for p in pairs if top in p)
        calls = {}
        for index in pair:
            rnd = state.rounds[index]
            calls[index] = PUSH if rnd.forehand == 0 else rnd.trump
            rounds.append((kind_of(seats[rnd.forehand_seat]), rpa[index], calls[index]))
        first, second = pair
        permutation = game.deals[second]["permutation"]
        if calls[first] == calls[second] == PUSH:
            comparisons["equal"] += 1
        elif PUSH in (calls[first], calls[second]):
            pusher = first if calls[first] == PUSH else second
            comparisons["shoving" if rpa[pusher] > 0 else "not_shoving"] += 1
        else:
            mapped = permutation[calls[first]] if calls[first] in SUITS else calls[first]
            comparisons["equal" if mapped == calls[second] else "other"] += 1
        if best > 0:
            pair_won_game.append(game.winner == state.rounds[top].forehand_seat % 2)
    return rounds, comparisons, pair_won_game


@pytest.fixture
def people():
    return make_players(("Nora", "Emil", "Sara", "Wim"))


@pytest.fixture(scope="module")
def known_games(django_db_setup, django_db_blocker):
    """A handful of games, played once for the module: people and bots, fair and standard, one private.

    Each test runs in a transaction that is rolled back, so the games stay as they are here.
    """
    with django_db_blocker.unblock():
        nora, emil = make_players(("Nora", "Emil"))
        public = [
            finished_game(nora, [nora, "random", "rules", "random"], seed=11),
            finished_game(nora, ["rules", "random", "rules", "random"], seed=12, round_count=2),
            finished_game(nora, ["rules", "rules", "random", "random"], seed=13, round_count=6),
            finished_game(nora, [nora, "rules", emil, "random"], mode="standard", seed=14, target=200),
            finished_game(nora, ["random", "rules", "random", "rules"], mode="standard", seed=15, target=150),
        ]
        private = finished_game(nora, [nora, "rules", "random", "rules"], seed=16, private=True, round_count=2)
        assert all(g.status == Game.FINISHED for g in [*public, private])
        yield public, private
        delete_everything()


def delete_everything() -> None:
    """Remove what a module-scoped fixture stored outside the tests' transactions."""
    from games.models import Competitor, RatingLedger, Table, Worker

    for model in (Table, Competitor, Player, Worker, RatingLedger):
        model.objects.all().delete()


def test_table_4_1_agrees_with_the_games(known_games):
    public, _ = known_games
    expected = expected_parts(public)
    table = stats.type_table(stats.Filters())

    assert set(table) == set(expected) == {"people", "bot:rules", "bot:random"}
    for kind, parts in expected.items():
        for part in ("overall", "team", "with_person", "fair"):
            outcomes = parts.get(part, [])
            cell = table[kind][part]
            assert cell.games == len(outcomes), (kind, part)
            assert cell.wins == sum(won for won, _ in outcomes), (kind, part)
            assert cell.total == sum(advantage for _, advantage in outcomes), (kind, part)
            if outcomes:
                assert cell.mean == pytest.approx(statistics.mean(a for _, a in outcomes)), (kind, part)
                low, high = cell.interval
                assert low <= cell.win_rate <= high
            if len(outcomes) > 1:
                half = 1.959964 * statistics.stdev(a for _, a in outcomes) / math.sqrt(len(outcomes))
                assert cell.mean_half_width == pytest.approx(half), (kind, part)
    # People played in one game as a team (Nora & Emil), never "with a person" (that is for bots).
    assert table["people"]["team"].games == 1
    assert table["people"]["with_person"].games == 0
    assert table["bot:rules"]["with_person"].games == 1 and table["bot:random"]["with_person"].games == 0


def test_decisive_rounds_and_calls_agree_with_a_replay_of_the_games(known_games):
    public, _ = known_games
    rounds, comparisons, pair_won_game = expected_decisive(public)
    assert len(rounds) == 2 * 3  # three public fair games, two decisive rounds each

    cells, calls = stats.decisive_table(stats.Filters())
    by_type: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for kind, rpa, call in rounds:
        by_type[kind].append((rpa, call))
    assert set(cells) == set(by_type)
    for kind, entries in by_type.items():
        assert cells[kind].games == len(entries)
        assert cells[kind].wins == sum(1 for rpa, _ in entries if rpa > 0)
        assert cells[kind].total == sum(rpa for rpa, _ in entries)
        for outcome, keep in (("won", lambda r: r > 0), ("lost", lambda r: r < 0)):
            groups: dict[str, int] = defaultdict(int)
            for rpa, call in entries:
                if keep(rpa):
                    groups[stats.call_group(call)] += 1
            assert {g: n for g, n in calls[kind][outcome].items() if n} == dict(groups), (kind, outcome)

    counted, (won_game, decided) = stats.pair_comparisons(stats.Filters())
    assert counted == dict(comparisons)
    assert (won_game, decided) == (sum(pair_won_game), len(pair_won_game))


def test_winning_margins_agree_with_the_final_points(known_games):
    public, _ = known_games
    by_mode = stats.margins(stats.Filters())
    for mode in ("fair", "standard"):
        margins = [abs(g.points[0] - g.points[1]) for g in public if g.mode == mode and g.winner is not None]
        assert sorted(m for m, n in by_mode[mode].items() for _ in range(n) if m >= 0) == sorted(margins)
        assert stats.median_of_counts(by_mode[mode]) == statistics.median(margins)


def test_the_page_shows_the_tables_and_the_charts(known_games):
    _public, _private = known_games
    page = Client().get("/stats/").content.decode()
    assert "5 finished games at public tables: 3 fair, 2 standard" in page
    for part in ("part-overall", "part-team", "part-with_person", "part-fair", "part-decisive"):
        assert f'data-testid="{part}"' in page, part
    for figure in ("fig-comparisons", "fig-calls", "fig-margins"):
        assert f'data-testid="{figure}"' in page, figure
    assert page.count('<svg class="chart') == 3  # the three figures (the header's deck switch draws suits too)
    overall = stats.type_table(stats.Filters())["bot:rules"]["overall"]
    assert f'<td class="num" data-label="Games">{overall.games}</td>' in page


@pytest.mark.parametrize(
    ("language", "rules_bot", "random_bot"),
    [("en", "Rule-based bot", "Random bot"), ("de", "Bot «Regelbasiert»", "Bot «Zufall»")],
)
def test_the_page_names_the_built_in_bots_in_its_language(known_games, language, rules_bot, random_bot):
    """As the ratings, the game lists and the tables do: "Rule-based bot" was left in English on a German page."""
    client = Client()
    client.cookies["django_language"] = language
    page = client.get("/stats/").content.decode()
    for name in (rules_bot, random_bot):
        assert f'scope="row">{name}</th>' in page  # Table 4.1
        assert f">{name}</text>" in page  # the charts
    if language != "en":
        assert "Rule-based bot" not in page and "Random bot" not in page


def test_private_games_stay_out_of_the_public_statistics(known_games):
    public, private = known_games
    assert GameSummary.objects.get(pk=private.pk).private
    assert sum(c["overall"].games for c in stats.type_table(stats.Filters()).values()) == sum(
        len(v["overall"]) for v in expected_parts(public).values()
    )
    assert sum(sum(m.values()) for m in stats.margins(stats.Filters()).values()) == len(public)


def test_filters_by_mode_and_date(known_games):
    public, _ = known_games
    old = datetime(2025, 3, 1, 12, tzinfo=UTC)
    moved = public[0]
    for model in (GameSummary, TypeResult, TeamMember, DecisiveRound):
        model.objects.filter(game=moved).update(finished_at=old)

    fair_only = stats.page_data(stats.Filters(mode="fair"))
    assert fair_only["games"] == 3 and fair_only["games_by_mode"]["standard"] == 0
    before = stats.page_data(stats.Filters(date_to=old.date()))
    assert before["games"] == 1
    since = stats.page_data(stats.Filters(date_from=old.date() + timedelta(days=1)))
    assert since["games"] == 4
    page = Client().get("/stats/", {"mode": "standard", "from": "2025-03-02"}).content.decode()
    assert "2 finished games at public tables: 0 fair, 2 standard" in page
    # A malformed filter is ignored rather than refused.
    assert "5 finished games" in Client().get("/stats/", {"from": "yesterday", "mode": "x"}).content.decode()


def test_the_page_costs_the_same_queries_for_more_games(people):
    nora = people[0]
    client = Client()
    before = GameSummary.objects.count()  # the module's games, if they were played already
    finished_game(nora, ["rules", "random", "rules", "random"], seed=21, round_count=2)
    finished_game(nora, [nora, "random", "rules", "random"], seed=22, round_count=2)
    client.get("/stats/")
    with CaptureQueriesContext(connection) as few:
        assert client.get("/stats/").status_code == 200
    for seed in range(23, 29):
        finished_game(nora, ["random", "rules", nora, "rules"], seed=seed, round_count=2)
    finished_game(nora, [nora, "rules", people[1], "random"], mode="standard", seed=30, target=150)
    with CaptureQueriesContext(connection) as many:
        assert client.get("/stats/").status_code == 200
    assert GameSummary.objects.count() == before + 9
    assert len(many) == len(few) <= 6, [q["sql"] for q in many.captured_queries]


def test_compare_calls_reads_suits_through_the_pairs_permutation():
    swap = (2, 1, 0, 3)  # diamonds <-> spades
    assert summaries.compare_calls(0, 2, swap, 40) == DecisiveRound.EQUAL
    assert summaries.compare_calls(0, 0, swap, 40) == DecisiveRound.OTHER
    assert summaries.compare_calls(4, 4, swap, 40) == DecisiveRound.EQUAL  # Obe-Abe has no suit
    assert summaries.compare_calls(PUSH, PUSH, swap, 40) == DecisiveRound.EQUAL
    assert summaries.compare_calls(PUSH, 1, swap, 40) == DecisiveRound.SHOVING
    assert summaries.compare_calls(PUSH, 1, swap, -40) == DecisiveRound.NOT_SHOVING
    assert summaries.compare_calls(1, PUSH, swap, -40) == DecisiveRound.SHOVING
    assert summaries.compare_calls(1, PUSH, swap, 0) == DecisiveRound.NOT_SHOVING


def test_wilson_interval_matches_the_arena():
    low, high = stats.wilson(70, 100)
    assert (round(low, 3), round(high, 3)) == (0.604, 0.781)
    low, high = stats.wilson(100, 100)
    assert (round(low, 3), high) == (0.963, 1.0)
    assert stats.wilson(0, 0) == (0.0, 0.0)


def test_remote_bots_are_a_type_by_their_given_name():
    from games.models import GameSeat

    seat = GameSeat(position=1, remote_url="http://127.0.0.1:5000/bot", name="Jassbot")
    other_url = GameSeat(position=3, remote_url="http://127.0.0.1:6000/bot", name="Jassbot")
    assert summaries.player_type(seat) == summaries.player_type(other_url) == "remote:Jassbot"
    assert summaries.type_label("remote:Jassbot") == "Jassbot (remote)"
    # As competitors (ratings) the URL counts too: one name behind two URLs is two bots.
    assert summaries.competitor_key(seat) != summaries.competitor_key(other_url)


def test_summaries_of_older_games_can_be_rebuilt(known_games):
    public, _private = known_games
    before = sorted(TypeResult.objects.values_list("game_id", "team", "player_type", "won", "advantage"))
    GameSummary.objects.all().delete()
    for model in (TypeResult, TeamMember, DecisiveRound):
        model.objects.all().delete()
    assert summaries.rebuild_summaries() == len(public) + 1
    assert sorted(TypeResult.objects.values_list("game_id", "team", "player_type", "won", "advantage")) == before
    assert summaries.rebuild_summaries() == 0


def test_a_seat_a_stand_in_played_for_the_most_part_counts_as_the_stand_in_bot():
    """Issue 23: a game whose one person closed the tab and whose stand-in played it to the end is no game of
    people in the statistics; the person's profile and rating still count it (leaving dodges no loss)."""
    from bots.runner import play_bot_turns
    from games.models import GameSeat
    from tests.table_helpers import make_table, start

    def people_games() -> str | None:
        page = Client().get("/stats/").content.decode()
        found = re.search(r'scope="row">People</th><td class="num" data-label="Games">(\d+)<', page)
        return found.group(1) if found else None

    people_before = people_games()
    gone, stays = make_players(("Gone", "Stays"))
    table = make_table(gone, [gone, "random", "rules", "random"], mode="fair", round_count=2, standin_bot="rules")
    game = start(table, gone)
    # Her clock ran out at the first move and she never came back: the stand-in makes every move of hers.
    GameSeat.objects.filter(game=game, position=0).update(standin=GameSeat.CLOCK)
    play_bot_turns(game.pk)
    game.refresh_from_db()
    assert game.status == Game.FINISHED
    assert game.actions.filter(seat=0).exists() and not game.actions.filter(seat=0, standin=False).exists()
    types = set(TypeResult.objects.filter(game_id=game.pk).values_list("player_type", flat=True))
    assert types == {"bot:rules", "bot:random"}
    assert TeamMember.objects.filter(game_id=game.pk, competitor__player=gone).exists()
    assert people_games() == people_before
    # A person who played her own seat is people, as ever.
    finished_game(stays, [stays, "random", "rules", "random"])
    assert TypeResult.objects.filter(player_type=summaries.PEOPLE).exists()
