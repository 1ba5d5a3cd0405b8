"""The operator's view (issue 15): Django's admin for tables, games, faults, remote bots, people and workers.

It shows and never edits game state (the service is the one writer); a running game's hands stay out of it.
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from games.live import service
from games.models import Game, GameSeat
from tests.table_helpers import actor, make_players, make_table, start

pytestmark = pytest.mark.django_db

BOT_URL = "http://127.0.0.1:9/mybot"


@pytest.fixture
def operator() -> Client:
    client = Client()
    client.force_login(User.objects.create_superuser("operator", "ops@example.org", "a-long-passphrase-17"))
    return client


def remote_game(owner, finished: bool) -> Game:
    """A game of four remote bots with one fault (an illegal card: its hidden detail shows the bot's hand)."""
    table = make_table(owner, [], name="Bots' night")
    for position in range(4):
        service.set_remote_bot(table.pk, position, BOT_URL, f"Bot {position}", "spec", actor(owner))
    game = start(table, owner, seed=987_654_321)
    state = service.load_state(game)
    move = state.observation(state.player).legal_actions()[0]
    report = service.BotReport(
        latency_ms=40, fault_kind="illegal_card", fault_detail="an illegal card", fault_hidden="it played ♠7"
    )
    service.submit(game.pk, state.player, move, actor=service.BOT_RUNNER, expected_seq=0, report=report)
    if finished:
        Game.objects.filter(pk=game.pk).update(status=Game.FINISHED)
    return Game.objects.get(pk=game.pk)


def test_the_operator_sees_every_list(operator):
    nora = make_players(("Nora",))[0]
    remote_game(nora, finished=False)
    for model in ("table", "game", "fault", "remotebotseat", "player", "worker"):
        response = operator.get(reverse(f"admin:games_{model}_changelist"))
        assert response.status_code == 200, model
    listed = operator.get(reverse("admin:games_remotebotseat_changelist")).content.decode()
    assert listed.count(BOT_URL) >= 4
    found = operator.get(reverse("admin:games_game_changelist"), {"q": BOT_URL}).content.decode()
    assert "Bots&#x27; night" in found or "Bots' night" in found
    assert operator.get(reverse("admin:auth_user_changelist")).status_code == 200


def test_a_finished_games_page_links_to_its_replay_and_record_and_shows_its_deals(operator):
    nora = make_players(("Nora",))[0]
    game = remote_game(nora, finished=True)
    page = operator.get(reverse("admin:games_game_change", args=[game.pk])).content.decode()
    assert f'href="{reverse("replay", args=[game.pk])}"' in page
    assert f'href="{reverse("record_json", args=[game.pk])}"' in page
    assert "Deals" in page and str(game.seed) in page
    assert "it played ♠7" in page  # the fault's hidden detail, now that the game is over


def test_a_running_games_page_keeps_its_hands_out(operator):
    nora = make_players(("Nora",))[0]
    game = remote_game(nora, finished=False)
    page = operator.get(reverse("admin:games_game_change", args=[game.pk])).content.decode()
    assert "Deals" not in page and str(game.seed) not in page
    assert "it played ♠7" not in page and "(shown when the game is over)" in page
    assert f'href="{reverse("table", args=[game.table_id])}"' in page  # watch it live instead of a replay
    faults = operator.get(reverse("admin:games_fault_changelist")).content.decode()
    assert "an illegal card" in faults and "it played ♠7" not in faults


def test_game_state_is_read_only_here(operator):
    nora = make_players(("Nora",))[0]
    game = remote_game(nora, finished=False)
    for model in ("game", "fault", "table", "remotebotseat", "worker"):
        assert operator.get(reverse(f"admin:games_{model}_add")).status_code == 403, model
    page = operator.get(reverse("admin:games_game_change", args=[game.pk])).content.decode()
    assert 'name="_save"' not in page
    before = Game.objects.values().get(pk=game.pk)
    operator.post(reverse("admin:games_game_change", args=[game.pk]), {"status": "finished", "points": "[1, 2]"})
    assert Game.objects.values().get(pk=game.pk) == before


def test_renaming_a_person_goes_through_the_service(operator):
    nora, emil = make_players(("Nora", "Emil"))
    table = make_table(nora, [nora, "rules", emil, "rules"])
    game = start(table, nora)
    response = operator.post(reverse("admin:games_player_change", args=[emil.pk]), {"name": "Emil B."})
    assert response.status_code == 302
    assert GameSeat.objects.get(game=game, position=2).name == "Emil B."  # the running game shows it at once
    table.refresh_from_db()
    assert table.version > 0


def test_a_table_is_deleted_only_without_a_running_game(operator):
    nora, emil = make_players(("Nora", "Emil"))
    table = make_table(nora, [nora, "rules", emil, "rules"])
    start(table, nora)
    url = reverse("admin:games_table_delete", args=[table.pk])
    assert operator.get(url).status_code == 403
    service.abandon_game(table.pk, service.SYSTEM)  # (a person's Abandon would ask Emil first)
    assert operator.post(url, {"post": "yes"}).status_code == 302
    assert not Game.objects.filter(table_id=table.pk).exists()


def test_names_people_typed_are_shown_as_text(operator):
    mallory = make_players(("<script>alert(1)</script>",))[0]
    make_table(mallory, [mallory], name="<img src=x onerror=alert(2)>")
    for model in ("table", "player"):
        page = operator.get(reverse(f"admin:games_{model}_changelist")).content.decode()
        assert "<script>alert(1)</script>" not in page and "<img src=x" not in page
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_only_staff_get_in():
    login = reverse("admin:login")
    assert Client().get(reverse("admin:games_game_changelist"))["Location"].startswith(login)
    person = Client()
    person.force_login(User.objects.create_user("anna", password="a-long-passphrase-17"))
    assert person.get(reverse("admin:games_game_changelist"))["Location"].startswith(login)


def test_the_operator_sees_tournaments_read_only_without_invitation_tokens(operator):
    from tests.tournament_helpers import bot_tournament
    from tournaments import service
    from tournaments.models import Entrant

    anna = make_players(("Anna",))[0]
    tournament = bot_tournament({"A": "rules", "B": "random"})
    team = service.add_team(tournament.pk, anna, "Waiting", (service.SeatSpec(player=anna), None))
    service.start(tournament.pk, None)
    for path in ("/admin/tournaments/tournament/", f"/admin/tournaments/tournament/{tournament.pk}/change/",
                 "/admin/tournaments/entrant/", f"/admin/tournaments/entrant/{team.pk}/change/",
                 "/admin/tournaments/match/"):  # fmt: skip
        page = operator.get(path)
        assert page.status_code == 200, path
        assert Entrant.objects.get(pk=team.pk).invite_token not in page.content.decode()
    assert operator.post(f"/admin/tournaments/tournament/{tournament.pk}/change/", {"name": "x"}).status_code == 403


def test_the_operator_sees_reported_messages_in_context_hides_them_and_mutes_or_bans_people(operator):
    from datetime import timedelta

    from django.contrib.auth.models import User
    from django.utils import timezone

    from games.models import ChatMessage, ChatReport, Player

    nora, emil = make_players(("Nora", "Emil"))
    table = make_table(nora, [nora, "random", emil, "random"])
    said = [
        ChatMessage.objects.create(table=table, player=p, name=p.name, room="players", text=text)
        for p, text in ((nora, "Grüezi"), (emil, "something rude"), (nora, "please don't"))
    ]
    ChatReport.objects.create(message=said[1], reporter=nora)
    listed = operator.get(reverse("admin:games_chatreport_changelist")).content.decode()
    assert "something rude" in listed
    page = operator.get(reverse("admin:games_chatmessage_change", args=[said[1].pk])).content.decode()
    assert "Grüezi" in page and "please don&#x27;t" in page  # the context around it
    operator.post(
        reverse("admin:games_chatmessage_changelist"),
        {"action": "hide_messages", "_selected_action": [said[1].pk]},
    )
    said[1].refresh_from_db()
    assert said[1].hidden and ChatReport.objects.get(message=said[1]).resolved
    operator.post(reverse("admin:games_player_changelist"), {"action": "mute_for_a_day", "_selected_action": [emil.pk]})
    emil.refresh_from_db()
    assert emil.chat_muted_until is not None and emil.chat_muted_until > timezone.now() + timedelta(hours=23)
    user = User.objects.create_user("emil-account", password="a-long-passphrase-17")
    Player.objects.filter(pk=emil.pk).update(user=user)
    operator.post(reverse("admin:games_player_changelist"), {"action": "ban_accounts", "_selected_action": [emil.pk]})
    user.refresh_from_db()
    assert not user.is_active
