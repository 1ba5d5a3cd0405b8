"""History, replay and record pages over HTTP: who sees which game, and what a running game withholds."""

from __future__ import annotations

import json
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from bots.runner import play_bot_turns
from games import records
from games.live import service, snapshot
from games.models import Action, Game, Player
from games.records import game_record
from tests.table_helpers import actor, make_table, start

pytestmark = pytest.mark.django_db

CARD_CODE = re.compile(r'"[DHSC](?:[6-9]|10|[JQKA])"')


def guest(nickname: str) -> tuple[Client, Player]:
    client = Client()
    response = client.post("/guest/", {"nickname": nickname})
    assert response.status_code == 302
    return client, Player.objects.get(name=nickname)


def play_out(game: Game, humans: dict[int, Player]) -> Game:
    """Play the game to its end: bots through the runner, the humans' moves through the service."""
    while True:
        play_bot_turns(game.pk)
        game.refresh_from_db()
        if game.status != Game.RUNNING:
            return game
        state = service.load_state(game)
        seat = state.player
        move = min(state.current.legal_actions(), key=lambda a: (a.is_push, a.value))
        service.submit(game.pk, seat, move, actor=actor(humans[seat]), expected_seq=game.action_count)


def finished_game(owner: Player, *, private: bool, mode: str = "fair", seat: int = 2, **options) -> Game:
    seats: list[Player | str] = ["rules", "random", "rules", "random"]
    seats[seat] = owner
    if mode == "fair":
        options.setdefault("round_count", 2)
    else:
        options.setdefault("target", 300)
    table = make_table(owner, seats, mode=mode, private=private, **options)
    return play_out(start(table, owner), {seat: owner})


def test_a_private_game_exists_only_for_those_who_sat_there():
    nora_client, nora = guest("Nora")
    emil_client, _ = guest("Emil")
    game = finished_game(nora, private=True)
    pages = [f"/games/{game.pk}/", f"/games/{game.pk}/replay", f"/games/{game.pk}/record.json"]

    for url in pages:
        assert nora_client.get(url).status_code == 200, url
        assert emil_client.get(url).status_code == 404, url
        assert Client().get(url).status_code == 404, url

    assert f'data-game-id="{game.pk}"' in nora_client.get("/games/mine/").content.decode()
    assert f'data-game-id="{game.pk}"' not in emil_client.get("/games/").content.decode()
    assert f'data-game-id="{game.pk}"' not in Client().get("/games/").content.decode()
    # The lobby lists the private table for its creator only.
    assert [t["id"] for t in snapshot.lobby_tables(nora)] == [game.table_id]
    assert snapshot.lobby_tables(Player.objects.get(name="Emil")) == []


def test_a_private_tables_running_game_is_hidden_from_spectators():
    _, nora = guest("Nora")
    _, emil = guest("Emil")
    table = make_table(nora, [nora, "rules", "rules", "rules"], mode="fair", round_count=2, private=True)
    game = start(table, nora)
    seen = snapshot.table_view(table.pk, nora)
    assert seen["game"]["id"] == game.pk and "hand" in seen["game"]
    hidden = snapshot.table_view(table.pk, emil)
    assert hidden["game"] is None and hidden["hidden_game"] == "running"
    assert not CARD_CODE.search(json.dumps(hidden)), "a spectator of a private table sees no card at all"


def test_a_public_finished_game_is_listed_and_replayable_by_anyone():
    nora_client, nora = guest("Nora")
    game = finished_game(nora, private=False, mode="standard")
    anonymous = Client()

    recent = anonymous.get("/games/").content.decode()
    assert f'data-game-id="{game.pk}"' in recent
    assert f'href="/games/{game.pk}/replay"' in recent

    mine = nora_client.get("/games/mine/").content.decode()
    row = mine[mine.index(f'data-game-id="{game.pk}"') :]
    row = row[: row.index("</tr>")]
    my_team = 0  # Nora sits South
    expected = "Won" if game.winner == my_team else "Lost"
    assert expected in row
    assert f"{game.points[my_team]} : {game.points[1 - my_team]}" in row
    assert "Random bot" in row  # an opponent's name

    replay = anonymous.get(f"/games/{game.pk}/replay")
    assert replay.status_code == 200
    assert 'id="replay-data"' in replay.content.decode()
    assert replay["Server-Timing"].startswith("app;dur=")

    record = anonymous.get(f"/games/{game.pk}/record.json")
    assert record.status_code == 200 and record["Content-Type"] == "application/json"
    assert record.json() == json.loads(json.dumps(game_record(game)))  # the same document as exportgame
    download = anonymous.get(f"/games/{game.pk}/record.json?download=1")
    assert download["Content-Disposition"] == f'attachment; filename="jassweb-game-{game.pk}.json"'


def test_my_games_are_newest_first_and_only_mine():
    nora_client, nora = guest("Nora")
    _, emil = guest("Emil")
    first = finished_game(nora, private=False, seat=0)
    second = finished_game(nora, private=False, seat=1)
    other = finished_game(emil, private=False)
    page = nora_client.get("/games/mine/").content.decode()
    ids = [int(x) for x in re.findall(r'data-game-id="(\d+)"', page)]
    assert ids == [second.pk, first.pk]
    assert other.pk not in ids
    assert "Choose a nickname" in Client().get("/games/mine/").content.decode()


def test_a_running_games_replay_and_record_wait_until_it_is_over():
    nora_client, nora = guest("Nora")
    table = make_table(nora, [nora, "rules", "rules", "rules"], mode="fair", round_count=2)
    game = start(table, nora)
    page = nora_client.get(f"/games/{game.pk}/replay")
    assert page.status_code == 200
    text = page.content.decode()
    assert "still running" in text and "replay-data" not in text
    assert not CARD_CODE.search(text)
    record = nora_client.get(f"/games/{game.pk}/record.json")
    assert record.status_code == 409 and record.json()["error"] == "running"


def test_an_abandoned_game_can_be_replayed():
    nora_client, nora = guest("Nora")
    table = make_table(nora, [nora, "rules", "rules", "rules"], mode="fair", round_count=2)
    game = start(table, nora)
    play_bot_turns(game.pk)
    state = service.load_state(Game.objects.get(pk=game.pk))
    if state.player == 0:
        legal = state.current.legal_actions()
        service.submit(game.pk, 0, legal[0], actor=actor(nora), expected_seq=Game.objects.get(pk=game.pk).action_count)
    service.abandon_game(table.pk, actor(nora))
    response = nora_client.get(f"/games/{game.pk}/replay")
    assert response.status_code == 200 and 'id="replay-data"' in response.content.decode()
    listed = nora_client.get("/games/mine/").content.decode()
    assert "Abandoned" in listed


def test_unknown_games_are_404():
    client = Client()
    for url in ("/games/999999/", "/games/999999/replay", "/games/999999/record.json"):
        assert client.get(url).status_code == 404


def test_nothing_on_the_lists_shows_a_hand_of_a_running_game():
    nora_client, nora = guest("Nora")
    table = make_table(nora, [nora, "rules", "rules", "rules"])
    start(table, nora)
    for url in ("/games/", "/games/mine/"):
        assert not CARD_CODE.search(nora_client.get(url).content.decode())


def test_an_uploaded_record_becomes_a_replayable_game():
    nora_client, nora = guest("Nora")
    original = finished_game(nora, private=False)
    record = nora_client.get(f"/games/{original.pk}/record.json").content
    upload = SimpleUploadedFile("game.json", record, content_type="application/json")
    response = nora_client.post("/games/import/", {"record": upload, "name": "From a file"})
    imported = Game.objects.order_by("-pk").first()
    assert imported.pk != original.pk and imported.table.imported and imported.table.name == "From a file"
    assert response.status_code == 302 and response["Location"] == f"/games/{imported.pk}/replay"
    assert [(a.seat, a.kind, a.value) for a in imported.actions.all()] == [
        (a.seat, a.kind, a.value) for a in original.actions.all()
    ]
    assert imported.points == original.points
    replay = nora_client.get(response["Location"])
    assert replay.status_code == 200 and 'id="replay-data"' in replay.content.decode()
    # An imported game's table plays no new games: its page shows the game, the lobby does not list it.
    assert nora_client.get(f"/tables/{imported.table_id}/")["Location"] == f"/games/{imported.pk}/replay"
    assert imported.table_id not in [t["id"] for t in snapshot.lobby_tables(nora)]
    with pytest.raises(service.ServiceError, match="imported"):
        service.start_game(imported.table_id, actor(nora))


def test_a_pasted_illegal_record_is_refused_with_the_reason_and_stores_nothing():
    nora_client, nora = guest("Nora")
    game = finished_game(nora, private=False, mode="standard")
    record = nora_client.get(f"/games/{game.pk}/record.json").json()
    trick = record["rounds"][0]["tricks"][0]
    trick["cards"][0], trick["cards"][1] = trick["cards"][1], trick["cards"][0]  # played by the wrong seats
    counts = Game.objects.count(), Action.objects.count()
    response = nora_client.post("/games/import/", {"text": json.dumps(record)})
    assert response.status_code == 400
    error = re.search(r'data-testid="import-error">([^<]*)<', response.content.decode()).group(1)
    assert error.startswith("round 1, trick 1"), error
    assert (Game.objects.count(), Action.objects.count()) == counts
    not_json = nora_client.post("/games/import/", {"text": "{not json"})
    assert not_json.status_code == 400 and "the record is not JSON" in not_json.content.decode()
    assert (Game.objects.count(), Action.objects.count()) == counts


def test_an_import_is_private_to_its_importer_unless_they_make_it_public():
    nora_client, nora = guest("Nora")
    emil_client, _ = guest("Emil")
    game = finished_game(nora, private=False)
    record = nora_client.get(f"/games/{game.pk}/record.json").content.decode()
    nora_client.post("/games/import/", {"text": record, "name": "Nora's secret"})
    imported = Game.objects.order_by("-pk").first()
    assert imported.table.private and imported.table.created_by_id == nora.pk
    assert nora_client.get(f"/games/{imported.pk}/replay").status_code == 200
    assert "Nora&#x27;s secret" in nora_client.get("/games/mine/").content.decode()
    for url in (f"/games/{imported.pk}/", f"/games/{imported.pk}/replay", f"/games/{imported.pk}/record.json"):
        assert emil_client.get(url).status_code == 404
        assert Client().get(url).status_code == 404
    assert "Nora&#x27;s secret" not in Client().get("/games/").content.decode()

    nora_client.post("/games/import/", {"text": record, "name": "For everyone", "public": "on"})
    shared = Game.objects.order_by("-pk").first()
    assert not shared.table.private
    assert emil_client.get(f"/games/{shared.pk}/replay").status_code == 200
    assert "For everyone" in Client().get("/games/").content.decode()


def test_importing_needs_a_nickname_or_an_account():
    nora_client, nora = guest("Nora")
    record = nora_client.get(f"/games/{finished_game(nora, private=False).pk}/record.json").content.decode()
    visitor = Client()
    page = visitor.get("/games/import/").content.decode()
    assert 'data-testid="import-nickname"' in page and 'data-testid="import-form"' not in page
    games = Game.objects.count()
    response = visitor.post("/games/import/", {"text": record})
    assert response.status_code == 403
    assert "Choose a nickname (or log in) first" in response.content.decode()
    assert Game.objects.count() == games


def test_an_empty_or_oversized_import_is_refused_with_its_reason_and_stores_nothing():
    nora_client, _ = guest("Nora")
    counts = Game.objects.count(), Action.objects.count()
    empty = nora_client.post("/games/import/", {"text": "   "})
    assert empty.status_code == 400 and "choose a record file or paste a record" in empty.content.decode()
    size = records.MAX_RECORD_BYTES + 1
    upload = SimpleUploadedFile("huge.json", b" " * size, content_type="application/json")
    huge = nora_client.post("/games/import/", {"record": upload})
    assert huge.status_code == 400
    assert f"the file has {size} bytes; at most {records.MAX_RECORD_BYTES} are accepted" in huge.content.decode()
    assert (Game.objects.count(), Action.objects.count()) == counts
