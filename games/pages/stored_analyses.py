"""Stored game analyses: what the replay shows and the profile's accuracy figure, and how a job records them.

The analysis itself (``bots/analysis.py``) runs on a bot worker, round by
round; ``bots/analysis_jobs.py`` schedules it when a game ends and
``manage.py analyse`` runs it at once. This module is the storage side: the
inputs of each round, storing a round's result as it comes (so a restart
resumes where it stopped), the accuracy of every player, and the analysis as
the replay page gets it. Only a game that is over is ever analysed or shown:
its hands are public by then, never before.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from games.engine import CARD_CODES, PUSH
from games.live.states import load as load_state
from games.models import Game, GameAnalysis, Worker

STALE_SECONDS = 120  # a running analysis whose worker has not stored a round for this long is taken over


@dataclass(frozen=True)
class RoundInput:
    """One round as ``bots.analysis.analyse_round`` takes it: plain ints."""

    hands: tuple[int, int, int, int]
    dealer: int
    actions: tuple[int, ...]  # Action.code of each decision and card, in order
    seed: int
    weis: bool = False  # played with Weis and Stöck: their announcements are among the actions


def round_inputs(game: Game) -> list[RoundInput]:
    """The rounds of ``game`` that were played (at least one decision), in order."""
    state = load_state(game)
    inputs = []
    for index, rnd in enumerate(state.rounds):
        actions = rnd.actions()
        if not actions:
            continue  # dealt when the previous round ended, never played
        deal = state.plan.deal(index)
        codes = tuple(a.code for a in actions)
        inputs.append(RoundInput(deal.hands, deal.dealer, codes, game.seed * 64 + index, rnd.weis_on))
    return inputs


def is_over(game: Game) -> bool:
    return game.status != Game.RUNNING


def claim(game: Game, worker: str, restart: bool = False) -> GameAnalysis | None:
    """Take the analysis of ``game`` for ``worker``; ``None`` if it is done or another live job runs it.

    ``restart`` starts it again from the first round (``manage.py analyse --again``).
    """
    if not is_over(game):
        raise ValueError(f"game {game.pk} is still running: only games that are over are analysed")
    with transaction.atomic():
        analysis, created = GameAnalysis.objects.select_for_update().get_or_create(game=game)
        if restart:
            analysis.rounds, analysis.accuracy, analysis.seconds, analysis.error = [], None, 0.0, ""
        elif not created:
            if analysis.status == GameAnalysis.DONE:
                return None
            if analysis.status == GameAnalysis.RUNNING and analysis.worker and analysis.worker != worker:
                fresh = (timezone.now() - analysis.updated_at).total_seconds() < STALE_SECONDS
                if fresh and Worker.objects.filter(id=analysis.worker).exists():
                    return None
        analysis.status = GameAnalysis.RUNNING
        analysis.worker = worker
        analysis.rounds_total = len(round_inputs(game))
        analysis.save()
    return analysis


def _live_job(analysis: GameAnalysis) -> bool:
    """Whether a job is on its way: queued, or run by a live worker that stored a round lately."""
    if analysis.status == GameAnalysis.QUEUED:
        return (timezone.now() - analysis.updated_at).total_seconds() < STALE_SECONDS
    if analysis.status != GameAnalysis.RUNNING or not analysis.worker:
        return False
    fresh = (timezone.now() - analysis.updated_at).total_seconds() < STALE_SECONDS
    return fresh and Worker.objects.filter(id=analysis.worker).exists()


def wanted(game: Game) -> bool:
    """Whether asking for ``game``'s analysis would start one: it is over, and not analysed nor on its way."""
    if not is_over(game):
        return False
    analysis = GameAnalysis.objects.filter(game=game).first()
    return analysis is None or (analysis.status != GameAnalysis.DONE and not _live_job(analysis))


def request(game: Game) -> bool:
    """Queue the analysis of a game that is over for a bot worker (the replay's *Analyse* button).

    True when a job was queued; False when it is done or already on its way. A
    failed one is queued again and resumes after its last stored round.
    """
    if not is_over(game):
        raise ValueError(f"game {game.pk} is still running: only games that are over are analysed")
    with transaction.atomic():
        analysis, created = GameAnalysis.objects.select_for_update().get_or_create(game=game)
        if not created and (analysis.status == GameAnalysis.DONE or _live_job(analysis)):
            return False
        analysis.status, analysis.worker, analysis.error = GameAnalysis.QUEUED, "", ""
        analysis.rounds_total = len(round_inputs(game))
        analysis.save()
    return True


def store_round(analysis_id: int, index: int, result: dict[str, Any], seconds: float) -> None:
    """Keep round ``index``'s result (rounds arrive in order; a repeated one replaces nothing)."""
    with transaction.atomic():
        analysis = GameAnalysis.objects.select_for_update().get(pk=analysis_id)
        if len(analysis.rounds) != index:
            return
        analysis.rounds = [*analysis.rounds, result]
        analysis.seconds += seconds
        analysis.save(update_fields=["rounds", "seconds", "updated_at"])


def finish(analysis_id: int, error: str = "") -> None:
    """Close a job: done with every player's accuracy, or failed with ``error``."""
    with transaction.atomic():
        analysis = GameAnalysis.objects.select_for_update().get(pk=analysis_id)
        analysis.worker = ""
        if error:
            analysis.status, analysis.error = GameAnalysis.FAILED, error[:300]
        else:
            analysis.status = GameAnalysis.DONE
            analysis.accuracy = accuracy_of_rounds(analysis.rounds)
        analysis.save()


def pending(worker: str) -> list[int]:
    """Games whose analysis waits or whose job died with its worker (to resume after a restart)."""
    alive = set(Worker.objects.values_list("id", flat=True)) - {worker}
    stale = timezone.now() - timedelta(seconds=STALE_SECONDS)
    ids = []
    for analysis in GameAnalysis.objects.filter(status__in=[GameAnalysis.QUEUED, GameAnalysis.RUNNING]):
        if analysis.worker not in alive or analysis.updated_at < stale:
            ids.append(analysis.game_id)
    return ids


def accuracy_of_rounds(rounds: list[dict[str, Any]]) -> list[float | None]:
    """Each seat's accuracy in percent: the share of the points at stake it kept, from its own view.

    Per card decision with a choice: (value of the card played - value of the
    worst card) / (best - worst), by the expected points of the player's-view
    search; a decision where every card is worth the same counts as 100%. The
    mean over the seat's decisions, ``None`` for a seat that never chose.
    """
    kept: list[list[float]] = [[], [], [], []]
    for rnd in rounds:
        for card in rnd["cards"]:
            if card["choices"] < 2:
                continue
            values = card["view"]["values"]
            best, worst = max(values.values()), min(values.values())
            played = values[str(card["card"])]
            kept[card["seat"]].append(1.0 if best - worst < 1e-9 else (played - worst) / (best - worst))
    return [round(100.0 * sum(k) / len(k), 1) if k else None for k in kept]


def accuracy_by_player(game: Game) -> dict[int, float] | None:
    """Seat -> accuracy in percent from the game's finished analysis (``None`` until it is done).

    For the profile page: the seat's ``GameSeat`` names the person or bot.
    """
    analysis = GameAnalysis.objects.filter(game=game, status=GameAnalysis.DONE).first()
    if analysis is None or analysis.accuracy is None:
        return None
    return {seat: value for seat, value in enumerate(analysis.accuracy) if value is not None}


def accuracies_by_seat(game_ids: list[int]) -> dict[tuple[int, int], float]:
    """(game id, seat) -> accuracy in percent for the games among ``game_ids`` whose analysis is done (one
    query: a profile page asks for a page of games at once); seats without a decision are left out."""
    finished = GameAnalysis.objects.filter(game_id__in=game_ids, status=GameAnalysis.DONE, accuracy__isnull=False)
    return {
        (game_id, seat): value
        for game_id, accuracy in finished.values_list("game_id", "accuracy")
        for seat, value in enumerate(accuracy or ())  # never null here (the filter), but typed as nullable
        if value is not None
    }


def _card_entry(card: dict[str, Any]) -> dict[str, Any]:
    """A card decision for the replay, cards as HSLU codes."""

    def codes(values: dict[str, Any]) -> dict[str, Any]:
        return {CARD_CODES[int(c)]: v for c, v in values.items()}

    view = card["view"]
    entry = {
        "seat": card["seat"],
        "card": CARD_CODES[card["card"]],
        "choices": card["choices"],
        "mark": card["mark"],
        "view": {"values": codes(view["values"]), "best": CARD_CODES[view["best"]], "loss": view["loss"]},
        "open": None,
    }
    if card["open"] is not None:
        solved = card["open"]
        entry["open"] = {"values": codes(solved["values"]), "best": CARD_CODES[solved["best"]], "loss": solved["loss"]}
    return entry


def _trump_entry(decision: dict[str, Any]) -> dict[str, Any]:
    def name(key: int | str) -> str:
        return "push" if int(key) == PUSH else str(key)

    return {
        "seat": decision["seat"],
        "chosen": name(decision["chosen"]),
        "best": name(decision["best"]),
        "loss": decision["loss"],
        "mark": decision["mark"],
        "values": {name(k): v for k, v in decision["values"].items()},
    }


def analysis_view(game: Game) -> dict[str, Any]:
    """The game's analysis as the replay shows it: progress while it runs, every round once it is done.

    Never for a running game (its hands are secret): ``{"status": "unavailable"}``.
    """
    if not is_over(game):
        return {"status": "unavailable"}
    analysis = GameAnalysis.objects.filter(game=game).first()
    # ``may_ask``: the page offers to analyse it (a worker analyses games on request here).
    if analysis is None:
        return {"status": "none", "may_ask": settings.JASSWEB_ANALYSIS}
    # A failure's text (``analysis.error``) is for the admin and the log, never the page: the replay says
    # in the reader's language that it failed.
    data: dict[str, Any] = {
        "status": analysis.status,
        "done": analysis.rounds_done,
        "total": analysis.rounds_total,
        "may_ask": settings.JASSWEB_ANALYSIS and analysis.status == GameAnalysis.FAILED,
    }
    if analysis.status == GameAnalysis.DONE:
        data["accuracy"] = analysis.accuracy
        data["seconds"] = round(analysis.seconds, 1)
        data["rounds"] = [
            {
                "trump": [_trump_entry(d) for d in rnd["trump"]],
                "cards": [_card_entry(c) for c in rnd["cards"]],
                "eval": rnd["eval"],
            }
            for rnd in analysis.rounds
        ]
    return data
