"""Tournament pages: the list, the creation form, a tournament's page in every state, registration, downloads."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from django.test import Client

from games.models import Player
from tests.tournament_helpers import bot_tournament, play_out
from tournaments import service
from tournaments.models import Entrant, Tournament

pytestmark = pytest.mark.django_db


def guest(nickname: str) -> tuple[Client, Player]:
    client = Client()
    client.post("/guest/", {"nickname": nickname})
    return client, Player.objects.get(name=nickname)


def test_a_guest_creates_a_tournament_and_registers_teams_of_every_kind_through_the_forms():
    anna, anna_player = guest("Anna")
    response = anna.post(
        "/tournaments/new/",
        {"name": "Friday evening", "format": "swiss", "rounds": "3", "match": "fair", "round_count": "2",
         "turn_clock": "60", "max_games": "8", "max_per_url": "2", "bot_timeout": "5"},
    )  # fmt: skip
    tournament = Tournament.objects.get(name="Friday evening")
    assert response.status_code == 302 and response["Location"] == f"/tournaments/{tournament.pk}/"
    assert (tournament.owner, tournament.format, tournament.rounds) == (anna_player, "swiss", 3)

    anna.post(f"/tournaments/{tournament.pk}/register/", {"kind": "people", "name": "Die Trümpfe"})
    team = Entrant.objects.get(tournament=tournament, name="Die Trümpfe")
    page = anna.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert f"/tournaments/{tournament.pk}/join/{team.invite_token}/" in page  # the link to send the partner

    beat = Client()
    landing = beat.get(f"/tournaments/{tournament.pk}/join/{team.invite_token}/").content.decode()
    assert "Anna invites you" in landing and 'name="nickname"' in landing
    beat.post("/guest/", {"nickname": "Beat", "next": f"/tournaments/{tournament.pk}/join/{team.invite_token}/"})
    joined = beat.post(f"/tournaments/{tournament.pk}/join/{team.invite_token}/")
    assert joined.status_code == 302
    team.refresh_from_db()
    assert team.status == Entrant.READY

    carla, _ = guest("Carla")
    carla.post(f"/tournaments/{tournament.pk}/register/", {"kind": "bot-partner", "bot": "mcts-fast"})
    carla.post(f"/tournaments/{tournament.pk}/register/", {"kind": "bots", "bot": "rules", "name": "Regeln"})
    carla.post(f"/tournaments/{tournament.pk}/register/", {"kind": "bots", "bot": "rules", "url": "http://127.0.0.1:5001/x",
               "dialect": "spec", "bot_name": "Student bot"})  # fmt: skip
    names = list(tournament.entrants.order_by("order").values_list("name", "status"))
    assert names == [
        ("Die Trümpfe", "ready"),
        ("Carla & MCTS (fast)", "ready"),
        ("Regeln", "ready"),
        ("Student bot", "ready"),
    ]
    remote = tournament.entrants.get(name="Student bot").members.get(slot=0)
    assert (remote.remote_url, remote.remote_dialect) == ("http://127.0.0.1:5001/x", "spec")

    refused = carla.post(f"/tournaments/{tournament.pk}/start/", follow=True)
    assert "only the organiser" in refused.content.decode()
    anna.post(f"/tournaments/{tournament.pk}/start/")
    assert Tournament.objects.get(pk=tournament.pk).status == Tournament.RUNNING


def test_the_creation_form_shows_what_is_wrong_and_keeps_what_was_typed():
    anna, _ = guest("Anna")
    response = anna.post(
        "/tournaments/new/", {"name": "Odd", "format": "round-robin", "match": "fair", "round_count": "3"}
    )
    page = response.content.decode()
    assert response.status_code == 400 and "even number of rounds" in page and 'value="Odd"' in page
    assert not Tournament.objects.exists()
    past = anna.post("/tournaments/new/", {"name": "Late", "starts_at": "2001-01-01T10:00"})
    assert past.status_code == 400 and "has passed" in past.content.decode()
    assert Client().post("/tournaments/new/", {"name": "Nobody"}).status_code == 302 and not Tournament.objects.exists()


@pytest.mark.parametrize("state", ["registration", "running", "finished", "cancelled"])
@pytest.mark.parametrize("fmt", ["round-robin", "swiss"])
@pytest.mark.parametrize("language", ["en", "de", "fr", "it"])
def test_every_page_of_a_tournament_renders_in_every_state_format_and_language(state, fmt, language):
    owner = Player.objects.create(name="Olga")
    tournament = bot_tournament({"A": "rules", "B": "random", "C": "rules"}, owner=owner, format=fmt, rounds=2)
    if state != "registration":
        service.start(tournament.pk, None)
    if state == "finished":
        play_out(tournament.pk)
    if state == "cancelled":
        service.cancel(tournament.pk, None)
    client = Client(headers={"accept-language": language})
    for path in ("/tournaments/", f"/tournaments/{tournament.pk}/", "/tournaments/new/"):
        response = client.get(path)
        assert response.status_code == 200, path
        assert f'lang="{language}"' in response.content.decode()
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    if state in ("running", "finished"):
        assert 'data-testid="standings"' in page
        assert ('data-testid="crosstable"' in page) == (fmt == "round-robin")
    words = {
        "registration": {"en": "Registration is open", "de": "Anmeldung offen", "fr": "Inscriptions ouvertes",
                         "it": "Iscrizioni aperte"},
        "running": {"en": "Standings", "de": "Rangliste", "fr": "Classement", "it": "Classifica"},
        "finished": {"en": "Finished", "de": "Beendet", "fr": "Terminé", "it": "Terminato"},
        "cancelled": {"en": "Cancelled", "de": "Abgesagt", "fr": "Annulé", "it": "Annullato"},
    }  # fmt: skip
    assert words[state][language] in page


def test_teams_of_built_in_bots_named_by_default_are_named_in_the_pages_language():
    """A German page said "Rule-based" and "Random" for teams the page names "Regelbasiert" and "Zufall" elsewhere;
    a name someone gave a team, and the downloads, stay as written."""
    tournament = bot_tournament({"Rule-based": "rules", "Random": "random", "Rule-based Zürich": "rules"})
    service.start(tournament.pk, None)
    play_out(tournament.pk)
    client = Client(headers={"accept-language": "de"})
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    standings = page.split('data-testid="standings"')[1].split("</table>")[0]
    crosstable = page.split('data-testid="crosstable"')[1].split("</table>")[0]
    for part in (standings, crosstable):
        assert ">Regelbasiert<" in part or ". Regelbasiert<" in part, part
        assert "Zufall" in part and "Rule-based Zürich" in part
        assert not re.search(r">(\d+\. )?(Rule-based|Random)<", part)
    assert 'data-team="Rule-based"' in standings  # what tests and scripts find a team by stays its stored name
    data = json.loads(client.get(f"/tournaments/{tournament.pk}/standings.json").content)
    assert {s["team"] for s in data["standings"]} == {"Rule-based", "Random", "Rule-based Zürich"}


def test_the_standings_download_as_json_and_as_a_csv_a_spreadsheet_opens():
    tournament = bot_tournament({"Zürich": "rules", "Genève": "random"})
    service.start(tournament.pk, None)
    play_out(tournament.pk)
    client = Client()
    data = json.loads(client.get(f"/tournaments/{tournament.pk}/standings.json").content)
    assert [s["team"] for s in data["standings"]] and data["tournament"] == tournament.pk
    response = client.get(f"/tournaments/{tournament.pk}/standings.csv")
    assert response["Content-Type"] == "text/csv; charset=utf-8" and "attachment" in response["Content-Disposition"]
    text = response.content.decode("utf-8")
    assert text.startswith("\ufeff")  # the byte-order mark: spreadsheets read the accents right
    rows = list(csv.reader(io.StringIO(text.lstrip("\ufeff"))))
    assert rows[0][:3] == ["rank", "team", "played"] and {r[1] for r in rows[1:]} == {"Zürich", "Genève"}


def test_unknown_tournaments_and_invitations_are_not_found():
    client = Client()
    assert client.get("/tournaments/999/").status_code == 404
    assert client.get("/tournaments/999/standings.json").status_code == 404
    tournament = bot_tournament({"A": "rules", "B": "random"})
    assert client.get(f"/tournaments/{tournament.pk}/join/forged/").status_code == 404


def test_team_names_and_tournament_names_are_escaped_everywhere():
    evil = '<img src=x onerror="alert(1)">'
    tournament = service.create(None, service.Options(name=evil))
    spec = service.bot_spec("rules")
    service.add_team(tournament.pk, None, evil[:60], (spec, spec))
    service.add_team(tournament.pk, None, "B", (spec, spec))
    for path in ("/tournaments/", f"/tournaments/{tournament.pk}/"):
        page = Client().get(path).content.decode()
        assert evil not in page and "&lt;img" in page
    service.start(tournament.pk, None)
    play_out(tournament.pk)
    page = Client().get(f"/tournaments/{tournament.pk}/").content.decode()
    assert evil not in page and not re.search(r"<img[^>]*onerror", page)
