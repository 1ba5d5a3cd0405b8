"""Ratings (OpenSkill): rated and casual tables, one transaction with the game's end, rerate, leaderboard, profiles."""

from __future__ import annotations

import io
from unittest import mock

import pytest
from django.core.management import call_command
from django.db import IntegrityError
from django.test import Client

from games.live import service
from games.models import (
    Competitor,
    Game,
    GameAnalysis,
    GameSummary,
    Player,
    RatingChange,
    RatingLedger,
    Table,
    TeamMember,
)
from games.pages import profiles
from games.summaries import ratings
from tests.stats_helpers import finished_game, is_last_move, play_out
from tests.table_helpers import make_players, make_table, start

pytestmark = pytest.mark.django_db


def ratings_now() -> dict[str, tuple[float, float, float, int]]:
    return {c.key: (c.mu, c.sigma, c.ordinal, c.rated_games) for c in Competitor.objects.all()}


def history_now() -> list[tuple]:
    return list(
        RatingChange.objects.order_by("seq", "competitor__key").values_list(
            "game_id", "competitor__key", "seq", "mu_before", "sigma_before", "mu", "sigma"
        )
    )


def guest(nickname: str) -> tuple[Client, Player]:
    client = Client()
    assert client.post("/guest/", {"nickname": nickname}).status_code == 302
    return client, Player.objects.get(name=nickname)


def test_fair_tables_are_rated_and_standard_ones_casual_by_default():
    client, _nora = guest("Nora")
    for fields, rated in (
        ({"mode": "fair"}, True),
        ({"mode": "standard"}, False),
        ({"mode": "standard", "rated": "rated"}, True),
        ({"mode": "fair", "rated": "casual"}, False),
        ({"mode": "fair", "private": "on"}, False),  # ratings are public: a private table is casual
        ({"mode": "fair", "rated": "rated", "private": "on"}, False),
    ):
        response = client.post("/tables/new/", {"name": "T", "seat": "2", **fields})
        assert response.status_code == 302
        table = Table.objects.latest("pk")
        assert table.rated is rated, fields
    assert "Fair rated, standard casual" in client.get("/").content.decode()


def ledger_seq() -> int:
    """The number of the last rating update (another test module's games may have moved it already)."""
    return RatingLedger.objects.filter(pk=1).values_list("last_seq", flat=True).first() or 0


def test_a_rated_game_moves_its_players_ratings_and_a_casual_one_does_not():
    nora, emil = make_players(("Nora", "Emil"))
    seq = ledger_seq()
    casual = finished_game(nora, [nora, "random", "rules", "random"], mode="standard", target=150, seed=3)
    assert not casual.rated and not RatingChange.objects.exists()
    assert set(Competitor.objects.values_list("rated_games", flat=True)) == {0}  # known, unrated

    rated = finished_game(nora, [nora, "random", emil, "rules"], seed=4, round_count=2)
    assert rated.rated and GameSummary.objects.get(pk=rated.pk).rating_seq == seq + 1 == ledger_seq()
    changes = {c.competitor.key: c for c in RatingChange.objects.select_related("competitor")}
    assert set(changes) == {f"person:{nora.pk}", f"person:{emil.pk}", "bot:random", "bot:rules"}
    winners = {f"person:{nora.pk}", f"person:{emil.pk}"} if rated.winner == 0 else {"bot:random", "bot:rules"}
    for key, change in changes.items():
        assert (change.mu > change.mu_before) == (key in winners), key
        assert change.sigma < change.sigma_before
        assert change.mu_before == ratings.DEFAULT_MU
    competitor = Competitor.objects.get(key=f"person:{nora.pk}")
    assert (competitor.mu, competitor.rated_games) == (changes[competitor.key].mu, 1)
    # The result pages say it: the rated game's moves of every rating, the casual game none.
    rated_page = Client().get(f"/games/{rated.pk}/").content.decode()
    assert 'data-testid="rating-changes"' in rated_page and f"{competitor.mu:.1f}" in rated_page
    assert 'data-testid="casual-note"' in Client().get(f"/games/{casual.pk}/").content.decode()
    assert competitor.ordinal == pytest.approx(competitor.mu - 3 * competitor.sigma)


def test_the_game_end_and_the_rating_rows_commit_together_or_not_at_all():
    (nora,) = make_players(("Nora",))
    table = make_table(nora, ["rules", "random", "rules", "random"], mode="fair", round_count=2)
    game = play_out(start(table, nora, seed=5), {}, stop_before_end=True)
    state = service.load_state(game)
    assert is_last_move(state)
    last = state.current.legal_actions()[0]
    before = ratings_now()
    seq = ledger_seq()

    # The rating write fails (the database refuses it): the last move and the game's end go with it.
    refused = mock.patch.object(RatingChange.objects, "bulk_create", side_effect=IntegrityError("refused"))
    with refused, pytest.raises(IntegrityError):
        service.submit(game.pk, state.player, last, actor=service.BOT_RUNNER, expected_seq=game.action_count)
    game.refresh_from_db()
    assert (game.status, game.action_count, game.winner) == (Game.RUNNING, state_moves(state), None)
    assert not GameSummary.objects.filter(pk=game.pk).exists() and not TeamMember.objects.exists()
    assert not RatingChange.objects.exists() and ratings_now() == before

    # Without the fault the same move ends the game, and its ratings are there at once.
    service.forget_cached_states()
    service.submit(game.pk, state.player, last, actor=service.BOT_RUNNER, expected_seq=game.action_count)
    game.refresh_from_db()
    assert game.status == Game.FINISHED
    assert RatingChange.objects.filter(game=game).count() == 2  # the two bots, each holding both seats of a team
    assert GameSummary.objects.get(pk=game.pk).rating_seq == seq + 1 == ledger_seq()


def state_moves(state) -> int:
    return len(state.actions())


def test_rerate_recomputes_the_same_numbers_from_scratch():
    nora, emil, sara = make_players(("Nora", "Emil", "Sara"))
    finished_game(nora, [nora, "random", "rules", "random"], seed=6, round_count=2)
    finished_game(nora, ["rules", emil, "random", sara], seed=7, round_count=2)
    finished_game(nora, [nora, emil, "rules", "rules"], seed=8, round_count=2)
    finished_game(nora, ["random", "random", "rules", "random"], seed=9, round_count=2)  # random on both teams
    finished_game(nora, [sara, "rules", nora, "random"], mode="standard", target=150, seed=10, rated=True)
    finished_game(nora, [sara, "rules", nora, "random"], mode="standard", target=150, seed=11)  # casual
    expected_ratings, expected_history = ratings_now(), history_now()
    assert len({seq for _, _, seq, *_ in expected_history}) == 5

    out = io.StringIO()
    call_command("rerate", stdout=out)
    assert "from 5 rated games" in out.getvalue()
    assert ratings_now() == expected_ratings  # exactly: the same floats
    assert history_now() == expected_history


def test_a_bot_on_both_teams_keeps_its_rating_and_one_on_both_seats_is_updated_once():
    def competitor(pk: int, mu: float = 25.0) -> Competitor:
        return Competitor(pk=pk, key=f"bot:{pk}", mu=mu, sigma=8.0, ordinal=mu - 24, rated_games=0)

    rules, random, nora = competitor(1), competitor(2), competitor(3)
    updates = ratings.apply_result([[rules, random], [nora, random]], winner=0)
    assert {u.competitor.pk for u in updates} == {1, 3}
    assert (random.mu, random.rated_games) == (25.0, 0)
    assert rules.mu > 25 > nora.mu

    alone, pair_a, pair_b = competitor(4), competitor(5), competitor(6)
    updates = ratings.apply_result([[alone, alone], [pair_a, pair_b]], winner=1)
    assert [u.competitor.pk for u in updates].count(4) == 1 and alone.rated_games == 1
    assert alone.mu < 25 < pair_a.mu


def test_arena_rated_games_rank_the_stronger_bot_first():
    out = io.StringIO()
    call_command(
        "arena",
        "--team",
        "rules",
        "--team",
        "random",
        "--games",
        "4",
        "--rounds",
        "4",
        "--workers",
        "1",
        "--seed",
        "3",
        "--rated",
        stdout=out,
    )
    assert "--rated" in out.getvalue()
    assert Game.objects.filter(rated=True, status=Game.FINISHED).count() == 4
    assert GameSummary.objects.filter(source="arena", rated=True).count() == 4
    page = Client().get("/ratings/?who=bots").content.decode()
    assert page.index('data-key="bot:rules"') < page.index('data-key="bot:random"')
    best, worst = profiles.leaderboard("bots")
    assert (best["competitor"].key, worst["competitor"].key) == ("bot:rules", "bot:random")
    assert best["games"] == worst["games"] == 4
    assert best["ordinal"] > worst["ordinal"]


def test_leaderboard_shows_people_and_bots_apart_and_together():
    nora, emil = make_players(("Nora", "Emil"))
    finished_game(nora, [nora, "random", emil, "random"], seed=12, round_count=2)
    keys = lambda who: [r["competitor"].key for r in profiles.leaderboard(who)]  # noqa: E731
    assert sorted(keys("people")) == sorted([f"person:{nora.pk}", f"person:{emil.pk}"])
    assert keys("bots") == ["bot:random"]
    assert sorted(keys("all")) == sorted(keys("people") + keys("bots"))
    page = Client().get("/ratings/?who=people").content.decode()
    assert "Nora" in page and "Random bot" not in page
    assert "±" in page  # the uncertainty is shown with every rating


def test_profile_shows_rating_history_games_and_accuracy_when_analysed():
    client, nora = guest("Nora")
    game = finished_game(nora, [nora, "random", "rules", "random"], seed=13, round_count=2)
    competitor = Competitor.objects.get(player=nora)
    page = client.get(f"/players/{competitor.pk}/").content.decode()
    assert 'data-testid="rating-history"' in page and "<svg" in page and "<polyline" in page
    assert f'data-game-id="{game.pk}"' in page
    assert page.count("not analysed yet") == 2  # the profile's figure and the game's
    assert client.get("/players/me/").url == f"/players/{competitor.pk}/"

    # Once the game's analysis is done, the profile shows Nora's seat's accuracy from it.
    GameAnalysis.objects.create(
        game=game, status=GameAnalysis.DONE, rounds_total=2, rounds=[{}, {}], accuracy=[87.5, 60.0, None, 71.25]
    )
    page = client.get(f"/players/{competitor.pk}/").content.decode()
    assert "87.5%" in page and "not analysed yet" not in page


@pytest.mark.parametrize(
    ("language", "words"),
    [("en", "No rated games yet. Play a fair game at a public table."), ("de", "Noch keine gewerteten Spiele.")],
)
def test_a_profile_without_rated_games_says_so_in_the_pages_language_and_draws_no_chart(language, words):
    client, nora = guest("Nora")
    game = finished_game(nora, [nora, "random", "rules", "random"], seed=16, mode="standard", target=150)
    assert not game.rated
    client.cookies["django_language"] = language
    page = client.get(f"/players/{Competitor.objects.get(player=nora).pk}/").content.decode()
    assert f'data-game-id="{game.pk}"' in page
    history = page.split('data-testid="rating-history"')[1].split("</section>")[0]
    assert words in history and "<svg" not in history
    assert "0 rated games" not in page and "0 gewerteten" not in page


def test_a_profile_names_the_built_in_bots_in_the_pages_language():
    """A German profile of the rule bot said "Wertung von Rule-based bot", "mit itself" and "gegen Random bot"."""
    _client, nora = guest("Nora")
    finished_game(nora, [nora, "random", "rules", "random"], seed=17, round_count=2)  # the random bot on both seats
    client = Client()
    client.cookies["django_language"] = "de"
    page = client.get(f"/players/{Competitor.objects.get(bot='random').pk}/").content.decode()
    assert 'aria-label="Wertung von Bot «Zufall» nach jedem gewerteten Spiel"' in page
    assert "auf beiden Plätzen seines Teams" in page and "gegen Nora, Bot «Regelbasiert»" in page
    for english in ("itself", "Random bot", "Rule-based bot"):
        assert english not in page, english


def test_the_empty_rating_chart_speaks_the_pages_language():
    from django.utils import translation

    from games.pages import charts

    with translation.override("fr"):
        assert "Pas encore de partie classée" in charts.line_with_band([], "history")


def test_a_private_game_shows_on_a_profile_only_to_those_who_may_see_it():
    nora_client, nora = guest("Nora")
    emil_client, _ = guest("Emil")
    public = finished_game(nora, [nora, "random", "rules", "random"], seed=14, round_count=2)
    hidden = finished_game(nora, [nora, "rules", "random", "rules"], seed=15, round_count=2, private=True)
    assert not hidden.rated
    url = f"/players/{Competitor.objects.get(player=nora).pk}/"
    for client, sees_private in ((nora_client, True), (emil_client, False), (Client(), False)):
        page = client.get(url).content.decode()
        assert f'data-game-id="{public.pk}"' in page
        assert (f'data-game-id="{hidden.pk}"' in page) is sees_private
        games = page.split('data-testid="profile-games">')[1].split("<")[0]
        assert games == ("2" if sees_private else "1")
