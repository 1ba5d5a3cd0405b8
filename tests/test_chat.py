"""Table chat over the table's websocket: rooms, the text as typed, mutes, reports, moderation and limits."""

from __future__ import annotations

from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from django.utils import timezone

from games.live import chat, service
from games.models import ChatMessage, ChatReport, Game, Player
from games.records import game_record
from tests.table_helpers import make_players, make_table, start
from tests.ws_helpers import Client

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio, pytest.mark.usefixtures("redis_layer")]

EVIL = '<img src=x onerror="alert(1)"> & <b>bold</b>'


async def people_at_a_table() -> tuple[list[Player], int, Player]:
    """Nora and Emil play (with two bots), Vreni watches; returns (players, table id, spectator)."""
    nora, emil, vreni = await sync_to_async(make_players)(("Nora", "Emil", "Vreni"))
    table = await sync_to_async(make_table)(nora, [nora, "random", emil, "random"], mode="fair", round_count=2)
    return [nora, emil], table.pk, vreni


async def next_chat(client: Client, timeout: float = 5) -> dict:
    return await client.frame_of("chat", timeout)


async def test_people_at_a_table_read_each_others_words_exactly_as_typed(stop_runner):
    (nora, emil), table_id, _ = await people_at_a_table()
    a, b = await Client.open(table_id, nora, "Nora"), await Client.open(table_id, emil, "Emil")
    await a.send({"type": "chat", "text": EVIL})
    for client in (a, b):
        said = await next_chat(client)
        assert (said["from"], said["room"], said["text"], said["player"]) == ("Nora", "players", EVIL, nora.pk)
    await b.send({"type": "chat", "phrase": "well_played"})
    phrase = await next_chat(a)
    assert (phrase["phrase"], phrase["text"]) == ("well_played", "Well played!")  # each page shows it in its words
    await a.send({"type": "chat_history"})
    history = await a.frame_of("chat_history")
    assert [m["text"] for m in history["messages"]] == [EVIL, "Well played!"] and history["room"] == "players"


async def test_a_spectators_words_never_reach_the_players_but_they_read_the_players(stop_runner):
    (nora, _), table_id, vreni = await people_at_a_table()
    await sync_to_async(start)(await sync_to_async(service.Table.objects.get)(pk=table_id), nora)
    player, watcher = await Client.open(table_id, nora, "Nora"), await Client.open(table_id, vreni, "Vreni")
    await watcher.send({"type": "chat", "text": "Nora, play the ace!"})
    assert (await next_chat(watcher))["room"] == "spectators"
    await player.send({"type": "chat", "text": "Hopp Schwiiz"})
    assert (await next_chat(watcher))["text"] == "Hopp Schwiiz"
    assert (await next_chat(player))["text"] == "Hopp Schwiiz"  # the spectator's message came first, and not here
    await player.send({"type": "chat_history"})
    assert [m["text"] for m in (await player.frame_of("chat_history"))["messages"]] == ["Hopp Schwiiz"]
    await watcher.send({"type": "chat_history"})
    seen = [m["text"] for m in (await watcher.frame_of("chat_history"))["messages"]]
    assert seen == ["Nora, play the ace!", "Hopp Schwiiz"]


async def test_a_muted_persons_words_disappear_for_the_muter_only(stop_runner):
    (nora, emil), table_id, vreni = await people_at_a_table()
    a, b, c = [await Client.open(table_id, person, person.name) for person in (nora, emil, vreni)]
    await a.send({"type": "mute", "player": emil.pk, "muted": True})
    assert (await a.frame_of("muted"))["players"] == [emil.pk]
    await b.send({"type": "chat", "text": "you are slow"})
    assert (await next_chat(c))["text"] == "you are slow"
    await a.send({"type": "chat", "text": "anyone?"})
    assert (await next_chat(a))["text"] == "anyone?"  # Emil's message was not sent to Nora
    await a.send({"type": "chat_history"})
    assert [m["text"] for m in (await a.frame_of("chat_history"))["messages"]] == ["anyone?"]
    await a.send({"type": "mute", "player": emil.pk, "muted": False})
    assert (await a.frame_of("muted"))["players"] == []


async def test_a_reported_message_reaches_the_moderators_who_hide_it_everywhere(stop_runner):
    (nora, emil), table_id, _ = await people_at_a_table()
    a, b = await Client.open(table_id, nora, "Nora"), await Client.open(table_id, emil, "Emil")
    await b.send({"type": "chat", "text": "something rude"})
    said = await next_chat(a)
    await a.send({"type": "report", "message": said["id"]})
    assert (await a.frame_of("reported"))["message"] == said["id"]
    assert await sync_to_async(ChatReport.objects.filter(message_id=said["id"], reporter=nora).exists)()
    message = await sync_to_async(ChatMessage.objects.get)(pk=said["id"])
    await sync_to_async(chat.hide)([message])
    assert (await a.frame_of("chat_hidden"))["message"] == said["id"]
    await a.send({"type": "chat_history"})
    assert (await a.frame_of("chat_history"))["messages"] == []
    error = await a.error({"type": "report", "message": 999999})
    assert error["code"] == "bad_message"


async def test_the_chat_refuses_with_a_reason_and_stores_nothing(stop_runner, settings):
    (nora, _), table_id, _ = await people_at_a_table()
    a = await Client.open(table_id, nora, "Nora")
    settings.JASSWEB_CHAT_BLOCKED_WORDS = ["Tschumpel"]
    for frame, words in (
        ({"type": "chat", "text": "x" * 201}, "at most 200 characters"),
        ({"type": "chat", "text": "  \n\t "}, "say something"),
        ({"type": "chat", "text": "du TSCHUMPEL!"}, "does not allow the word 'Tschumpel'"),
        ({"type": "chat", "phrase": "insult"}, "'phrase' is one of"),
        ({"type": "chat", "text": 5}, "needs the words"),
        ({"type": "chat", "text": "a", "phrase": "sorry"}, "not both"),
        ({"type": "mute", "player": "Emil", "muted": True}, "needs a person's id"),
    ):
        assert words in (await a.error(frame))["message"]
    await sync_to_async(Player.objects.filter(pk=nora.pk).update)(chat_muted_until=timezone.now() + timedelta(hours=1))
    assert "muted you in the chat until" in (await a.error({"type": "chat", "text": "hello"}))["message"]
    assert not await sync_to_async(ChatMessage.objects.exists)()
    spectator = await Client.open(table_id, None, "nobody")
    assert (await spectator.error({"type": "chat", "text": "hi"}))["code"] == "no_identity"


async def test_the_chat_limit_answers_with_its_message(stop_runner):
    (nora, _), table_id, _ = await people_at_a_table()
    a = await Client.open(table_id, nora, "Nora")
    # The limit counts in fixed 30-s windows, 10 in each: a window may end between two messages, so the
    # refusal comes after 10 to 20 of them.
    said = 0
    while said <= 20:
        await a.send({"type": "chat", "text": f"message {said}"})
        reply = await a.frame_of(("chat", "error"))
        if reply["type"] == "error":
            break
        said += 1
    assert reply["type"] == "error" and reply["code"] == "rate_limited" and "chat messages" in reply["message"], reply
    assert 10 <= said <= 20


async def test_guests_may_be_kept_to_the_quick_phrases(stop_runner, settings):
    settings.JASSWEB_CHAT_GUESTS_PHRASES_ONLY = True
    (nora, _), table_id, _ = await people_at_a_table()
    a = await Client.open(table_id, nora, "Nora")
    assert (await a.error({"type": "chat", "text": "hello"}))["code"] == "not_allowed"
    await a.send({"type": "chat", "phrase": "thanks"})
    assert (await next_chat(a))["phrase"] == "thanks"


async def test_chat_is_stored_with_the_game_and_never_in_its_record(stop_runner):
    (nora, _), table_id, _ = await people_at_a_table()
    table = await sync_to_async(service.Table.objects.get)(pk=table_id)
    game = await sync_to_async(start)(table, nora)
    a = await Client.open(table_id, nora, "Nora")
    await a.send({"type": "chat", "text": "Viel Glück"})
    said = await next_chat(a)
    assert said["game"] == game.pk and said["seq"] is not None
    record = await sync_to_async(game_record)(game)
    assert "Viel Glück" not in str(record)
    assert [m["text"] for m in await sync_to_async(chat.replay_track)(game)] == ["Viel Glück"]


async def test_the_replay_shows_the_chat_at_the_card_it_came_after(stop_runner):
    from bots.runner import play_bot_turns
    from games.pages.replay import replay_data

    nora, emil = await sync_to_async(make_players)(("Nora", "Emil"))
    table = await sync_to_async(make_table)(nora, ["random"] * 4, mode="fair", round_count=2)
    game = await sync_to_async(start)(table, nora)
    watcher = await Client.open(table.pk, emil, "Emil")
    await watcher.send({"type": "chat", "phrase": "sorry"})
    await next_chat(watcher)
    await sync_to_async(play_bot_turns)(game.pk)
    await watcher.send({"type": "chat", "text": "gg"})
    await next_chat(watcher)
    game = await sync_to_async(Game.objects.get)(pk=game.pk)
    track = (await sync_to_async(replay_data)(game))["chat"]
    assert [(m["text"], m["room"], m["round"], m["card"]) for m in track] == [
        ("Sorry", "spectators", 0, 0),
        ("gg", "spectators", 1, 36),  # after the last card of the last round
    ]
