"""Identity that keeps what you did: a guest who signs up or logs in keeps their games, seats and imports."""

from __future__ import annotations

import json
import re

import pytest
from django.contrib.auth.models import User
from django.test import Client

from bots.runner import play_bot_turns
from games.live import service, snapshot
from games.live.identity import player_for_user
from games.models import Connection, Game, GameSeat, Player, Seat, Table, Worker
from tests.table_helpers import actor, make_table, start
from tests.test_history import finished_game, guest

pytestmark = pytest.mark.django_db

PASSWORD = "correct-horse-battery-9"


def my_game_ids(client: Client) -> list[int]:
    page = client.get("/games/mine/").content.decode()
    return [int(x) for x in re.findall(r'data-game-id="(\d+)"', page)]


def sign_up(client: Client, username: str) -> None:
    response = client.post("/accounts/signup/", {"username": username, "password1": PASSWORD, "password2": PASSWORD})
    assert response.status_code == 302, response.content.decode()


def log_in(client: Client, username: str) -> None:
    response = client.post("/accounts/login/", {"username": username, "password": PASSWORD})
    assert response.status_code == 302, response.content.decode()


def account(username: str) -> tuple[User, Player]:
    user = User.objects.create_user(username, password=PASSWORD)
    return user, player_for_user(user)


def import_copy(client: Client, game: Game, **fields: str) -> Game:
    """Import ``game``'s record through the import page; the new game."""
    record = client.get(f"/games/{game.pk}/record.json").content.decode()
    response = client.post("/games/import/", {"text": record, **fields})
    assert response.status_code == 302, response.content.decode()
    return Game.objects.filter(table__imported=True).latest("pk")


def table_page_view(client: Client, table_id: int) -> dict:
    page = client.get(f"/tables/{table_id}/").content.decode()
    found = re.search(r'<script id="initial-view" type="application/json">(.*?)</script>', page, re.S)
    assert found, "the table page hands its view to the script"
    return json.loads(found.group(1))


def running_table(owner: Player, seat: int = 2) -> tuple[Table, Game]:
    seats: list[Player | str] = ["rules", "rules", "rules", "rules"]
    seats[seat] = owner
    table = make_table(owner, seats, target=1000)
    return table, start(table, owner)


def play_until_my_turn(game: Game) -> None:
    play_bot_turns(game.pk)
    game.refresh_from_db()
    assert game.status == Game.RUNNING


# -- sign-up -------------------------------------------------------------------------


def test_signing_up_keeps_the_guests_finished_game_in_my_games():
    client, vreni = guest("Vreni")
    game = finished_game(vreni, private=True)
    assert my_game_ids(client) == [game.pk]

    sign_up(client, "vreni")

    assert "Your 1 game as guest Vreni is now in your account." in client.get("/").content.decode()
    assert my_game_ids(client) == [game.pk]
    vreni.refresh_from_db()
    assert vreni.user.username == "vreni" and vreni.name == "vreni"
    assert Player.objects.filter(user__username="vreni").count() == 1
    # A private game stays visible to its player.
    assert client.get(f"/games/{game.pk}/replay").status_code == 200
    # The record of the game keeps the name it was played under.
    assert GameSeat.objects.get(game=game, position=2).name == "Vreni"


def test_signing_up_while_seated_at_a_running_table_keeps_the_seat_and_the_hand():
    client, ruedi = guest("Ruedi")
    table, game = running_table(ruedi)
    play_until_my_turn(game)
    before = table_page_view(client, table.pk)
    assert before["you"]["game_seat"] == 2 and len(before["game"]["hand"]) == 9

    sign_up(client, "ruedi")

    assert client.session.get("_auth_user_id")
    after = table_page_view(client, table.pk)
    assert after["you"]["player_id"] == ruedi.pk
    assert after["you"]["seat"] == 2 and after["you"]["game_seat"] == 2
    assert after["game"]["hand"] == before["game"]["hand"]
    assert after["seats"][2]["name"] == "ruedi"
    assert GameSeat.objects.get(game=game, position=2).name == "ruedi"  # the running game shows the new name
    # The account moves for the seat.
    state = service.load_state(game)
    move = min(state.current.legal_actions(), key=lambda a: (a.is_push, a.value))
    seq = game.action_count
    service.submit(game.pk, 2, move, actor=actor(player_for_user(User.objects.get(username="ruedi"))), expected_seq=seq)
    game.refresh_from_db()
    assert game.action_count == seq + 1


def test_signing_up_keeps_the_records_the_guest_imported():
    client, anna = guest("Anna")
    game = finished_game(anna, private=False)
    imported = import_copy(client, game, private="on")

    sign_up(client, "anna")

    assert my_game_ids(client) == [imported.pk, game.pk]
    assert client.get(f"/games/{imported.pk}/replay").status_code == 200  # still its importer's private game


def test_signing_up_without_a_guest_session_makes_a_fresh_player():
    client = Client()
    sign_up(client, "newcomer")
    assert my_game_ids(client) == []
    assert Player.objects.get(user__username="newcomer").name == "newcomer"


def test_a_bad_sign_up_changes_nothing():
    client, vreni = guest("Vreni")
    finished_game(vreni, private=False)
    response = client.post("/accounts/signup/", {"username": "vreni", "password1": PASSWORD, "password2": "other"})
    assert response.status_code == 200
    assert "didn" in response.content.decode()  # Django's "The two password fields didn't match."
    vreni.refresh_from_db()
    assert vreni.is_guest and vreni.name == "Vreni"
    assert not User.objects.exists()


def test_a_sign_up_whose_move_fails_creates_no_account_and_keeps_the_guest(monkeypatch):
    client, vreni = guest("Vreni")
    game = finished_game(vreni, private=False)

    def broken(guest, user):
        raise RuntimeError("the database went away")

    monkeypatch.setattr(service, "adopt_guest", broken)
    with pytest.raises(RuntimeError):
        sign_up(client, "vreni")

    assert not User.objects.exists()
    vreni.refresh_from_db()
    assert vreni.is_guest
    assert my_game_ids(client) == [game.pk]  # the browser is still the guest


# -- log-in to an account that has games of its own -----------------------------------------


def test_logging_in_moves_the_guests_games_seats_and_imports_to_the_account():
    _, sepp = account("sepp")
    own = finished_game(sepp, private=False)
    client, guest_sepp = guest("Seppli")
    as_guest = finished_game(guest_sepp, private=True)
    imported = import_copy(client, as_guest, private="on")
    waiting = make_table(guest_sepp, [guest_sepp, "", "", ""], name="Waiting")

    log_in(client, "sepp")

    assert "Your 2 games as guest Seppli are now in your account." in client.get("/").content.decode()
    assert sorted(my_game_ids(client)) == sorted([own.pk, as_guest.pk, imported.pk])
    assert GameSeat.objects.get(game=as_guest, position=2).player_id == sepp.pk
    assert Seat.objects.get(table=waiting, position=0).player_id == sepp.pk
    assert Table.objects.get(pk=waiting.pk).created_by_id == sepp.pk
    assert client.get(f"/games/{imported.pk}/replay").status_code == 200
    assert client.get(f"/games/{as_guest.pk}/record.json").status_code == 200
    assert not GameSeat.objects.filter(player=guest_sepp).exists()


def test_a_game_played_under_both_names_stays_with_the_guest():
    """One person never gets two seats of one game: that would show them two hands."""
    _, sepp = account("sepp")
    client, guest_sepp = guest("Seppli")
    table = make_table(sepp, [sepp, "rules", guest_sepp, "rules"], target=1000)
    game = start(table, sepp)

    log_in(client, "sepp")

    assert f"Game #{game.pk} stayed with the guest" in client.get("/").content.decode()
    assert GameSeat.objects.get(game=game, position=0).player_id == sepp.pk
    assert GameSeat.objects.get(game=game, position=2).player_id == guest_sepp.pk
    assert Seat.objects.get(table=table, position=2).player_id == guest_sepp.pk
    view = table_page_view(client, table.pk)
    assert view["you"]["game_seat"] == 0 and len(view["game"]["hand"]) == 9  # one hand, the account's


def test_logging_in_while_seated_at_a_running_table_hands_the_seat_to_the_account():
    _, sepp = account("sepp")
    client, guest_sepp = guest("Seppli")
    table, game = running_table(guest_sepp, seat=1)
    play_until_my_turn(game)
    worker = Worker.objects.create(id="w-test", heartbeat_at=game.created_at)
    Connection.objects.create(channel_name="chan-1", worker=worker, table=table, player=guest_sepp)

    log_in(client, "sepp")

    view = table_page_view(client, table.pk)
    assert view["you"]["seat"] == 1 and view["you"]["game_seat"] == 1 and len(view["game"]["hand"]) == 9
    assert view["seats"][1]["name"] == "sepp"
    assert sepp.pk in view["online"]  # the open socket is the same person's
    state = service.load_state(game)
    move = min(state.current.legal_actions(), key=lambda a: (a.is_push, a.value))
    with pytest.raises(service.ServiceError):
        service.submit(game.pk, 1, move, actor=actor(guest_sepp), expected_seq=game.action_count)
    seq = game.action_count
    service.submit(game.pk, 1, move, actor=actor(sepp), expected_seq=seq)
    game.refresh_from_db()
    assert game.action_count == seq + 1
    # A guest session seated elsewhere is nobody's now: the guest's view shows no hand.
    assert snapshot.table_view(table.pk, guest_sepp)["you"]["game_seat"] is None


def test_logging_in_without_a_guest_session_moves_nothing():
    account("sepp")
    _, other = guest("Other")
    game = finished_game(other, private=False)
    client = Client()
    log_in(client, "sepp")
    assert my_game_ids(client) == []
    assert GameSeat.objects.get(game=game, position=2).player_id == other.pk


# -- imported records and the header ----------------------------------------------------------


def test_an_imported_record_shows_in_its_importers_my_games():
    client, _ = guest("Nora")
    _, emil = guest("Emil")
    game = finished_game(emil, private=False)
    imported = import_copy(client, game, name="Emil's game")
    page = client.get("/games/mine/").content.decode()
    assert my_game_ids(client) == [imported.pk]
    row = page[page.index(f'data-game-id="{imported.pk}"') :]
    row = row[: row.index("</tr>")]
    assert "imported" in row and "Emil&#x27;s game" in row
    assert "Emil" in row  # the players of the record
    # Not in someone else's list.
    assert imported.pk not in my_game_ids(Client())


def test_guests_are_offered_sign_up_next_to_log_in():
    client, _ = guest("Vreni")
    for url in ("/", "/games/mine/", "/games/"):
        header = client.get(url).content.decode().split("</header>")[0]
        assert "/accounts/login/" in header and "/accounts/signup/" in header, url


# -- nickname ----------------------------------------------------------------------------------


def test_a_guest_renames_themselves_at_their_tables_and_running_game():
    client, vreni = guest("Vreni")
    done = finished_game(vreni, private=False)
    table, game = running_table(vreni)
    response = client.post("/guest/", {"nickname": "  Vreni   B ", "next": f"/tables/{table.pk}/"})
    assert response.status_code == 302 and response["Location"] == f"/tables/{table.pk}/"
    vreni.refresh_from_db()
    assert vreni.name == "Vreni B"
    view = table_page_view(client, table.pk)
    assert view["seats"][2]["name"] == "Vreni B"
    assert GameSeat.objects.get(game=game, position=2).name == "Vreni B"
    assert GameSeat.objects.get(game=done, position=2).name == "Vreni"  # a finished game is a record
    assert "Vreni B" in client.get("/").content.decode().split("</header>")[0]


@pytest.mark.parametrize("nickname", ["", "   ", "x" * 25])
def test_a_bad_nickname_is_refused_and_changes_nothing(nickname):
    client, vreni = guest("Vreni")
    response = client.post("/guest/", {"nickname": nickname}, follow=True)
    assert "A nickname has 1 to 24 characters." in response.content.decode()
    vreni.refresh_from_db()
    assert vreni.name == "Vreni"
    assert Player.objects.count() == 1


def test_a_signed_in_person_does_not_become_a_guest():
    _, sepp = account("sepp")
    client = Client()
    log_in(client, "sepp")
    response = client.post("/guest/", {"nickname": "Sneaky"}, follow=True)
    assert "log out to play as a guest" in response.content.decode()
    assert not Player.objects.filter(name="Sneaky").exists()
    sepp.refresh_from_db()
    assert sepp.name == "sepp"
