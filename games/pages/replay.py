"""The data of a game's replay: every round as dealt and played, rebuilt from the event log.

``replay_data`` replays the stored actions through the engine (``load_state``)
and lays each round out for the viewer (``static/js/replay.js``): the four
starting hands, the cards in play order with who played them and how long a
bot thought, trick winners, running points after every card, who chose which
trump, fair-mode twins with their suit permutation and round point advantage
(also as each team's pair score, and whose side the viewer sees it from),
remote-bot faults on the card where they happened, and the moves a stand-in bot
made for a person whose turn clock ran out (or who left).

A position in a replay is ``(round, card)``: round 1..n, card 0..36 = how many
cards of that round have been played (0: the trump is chosen, nothing played).
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Any

from games.engine import (
    CARD_CODES,
    FAIR,
    MATCH_BONUS,
    STOECK_POINTS,
    SUIT_LETTERS,
    Action,
    GameState,
    RoundState,
    codes_of,
    team_of,
)
from games.live import chat
from games.live.snapshot import bot_label, weis_entry, weis_part
from games.live.states import load as load_state
from games.models import Game, GameSeat, Player
from games.pages.stored_analyses import analysis_view


def _cards_in_order(rnd: RoundState) -> list[tuple[int, int]]:
    """``(seat, card)`` for every card of the round in play order."""
    played = [(trick.seat_of(i), card) for trick in rnd.tricks for i, card in enumerate(trick.cards)]
    played += [((rnd.leader - i) % 4, card) for i, card in enumerate(rnd.trick)]
    return played


def _running_points(rnd: RoundState, factor: int) -> list[list[int]]:
    """The round's points credited to each team after 0, 1, … cards (multiplier and match bonus in; Weis
    with the first trick, Stöck with the card they were announced with)."""
    running = [[0, 0]]
    totals = [0, 0]
    stoeck_at = _stoeck_index(rnd)
    for number, trick in enumerate(rnd.tricks):
        for position in range(3):
            if 4 * number + position == stoeck_at:
                totals[team_of(rnd.stoeck)] += STOECK_POINTS * factor
            running.append(list(totals))
        if 4 * number + 3 == stoeck_at:
            totals[team_of(rnd.stoeck)] += STOECK_POINTS * factor
        if number == 0 and rnd.weis_team >= 0:
            totals[rnd.weis_team] += sum(rnd.weis_points()) * factor
        totals[team_of(trick.winner)] += trick.points * factor
        if number == 8 and rnd.is_match:
            totals[team_of(trick.winner)] += MATCH_BONUS * factor
        running.append(list(totals))
    for position in range(len(rnd.trick)):
        if 4 * len(rnd.tricks) + position == stoeck_at:
            totals[team_of(rnd.stoeck)] += STOECK_POINTS * factor
        running.append(list(totals))
    return running


def _stoeck_index(rnd: RoundState) -> int:
    """The 0-based index (in play order) of the card Stöck were announced with, or -1."""
    card = rnd.stoeck_card()
    if card < 0:
        return -1
    order = [c for _, c in _cards_in_order(rnd)]
    return order.index(card) if card in order else -1


def _announcements(rnd: RoundState) -> list[dict[str, Any]]:
    """The round's Weis and Stöck, each with the number of cards played before it (all shown: the game is over)."""
    result = []
    cards = 0
    for seat, action in rnd.seated_actions():
        if action.is_card:
            cards += 1
        elif action.kind == Action.WEIS:
            result.append({"before_card": cards, "seat": seat, "weis": weis_entry(action.value)})
        elif action.kind == Action.STOECK:
            result.append({"before_card": cards, "seat": seat, "stoeck": CARD_CODES[action.value]})
    return result


def _seat_map(forehand: int, other_forehand: int) -> list[int]:
    """For each seat of a round, the seat of its twin round holding the same (permuted) hand."""
    return [(other_forehand - (forehand - seat)) % 4 for seat in range(4)]


def _players(seats: list[GameSeat]) -> list[dict[str, Any]]:
    return [
        {
            "seat": s.position,
            "name": s.name,
            "kind": s.kind,
            "bot": s.bot or None,
            "remote_url": s.remote_url or None,
            "left": s.standin == GameSeat.LEFT,
        }
        for s in seats
    ]


def _pair_scores(state: GameState, rpa: dict[int, int], first: int) -> list[int] | None:
    """A fair pair's score for each team (North & South, East & West), or ``None`` while its repeat is unplayed.

    ``rpa[first]`` is the advantage of the team that started round ``first``; the other team's is its negative.
    """
    if first not in rpa:
        return None
    starting = team_of(state.rounds[first].forehand_seat)
    return [rpa[first] if team == starting else -rpa[first] for team in (0, 1)]


def _viewer(seats: list[GameSeat], viewer: Player | None) -> dict[str, Any]:
    """Whose side the replay takes: the viewer's own seat if they played the game, else North & South."""
    seat = next((s.position for s in seats if viewer is not None and s.player_id == viewer.pk), None)
    return {"seat": seat, "team": 0 if seat is None else team_of(seat)}


def replay_data(game: Game, state: GameState | None = None, viewer: Player | None = None) -> dict[str, Any]:
    """Everything the replay viewer shows of ``game`` (call it only for games that are over).

    ``viewer`` is the person looking: pair scores are given from their team's side if they played.
    """
    state = state or load_state(game)
    seats = list(game.seats.order_by("position"))
    rows = list(game.actions.order_by("seq").values_list("latency_ms", "standin"))
    latencies = [latency for latency, _ in rows]
    standins = [standin for _, standin in rows]
    round_scores = state.round_scores()
    rpa = state.round_point_advantages() if game.mode == FAIR else {}
    pairs = sorted(state.plan.pairs())  # numbered in play order: pair 1 is the one round 1 belongs to
    pair_of = {
        index: (number, first, second) for number, (first, second) in enumerate(pairs, 1) for index in (first, second)
    }
    faults_by_round: dict[int, list[Any]] = {}
    for fault in game.faults.all():
        faults_by_round.setdefault(fault.round, []).append(fault)

    shown = state.rounds
    if len(shown) > 1 and not shown[-1].actions():
        shown = shown[:-1]  # dealt when the previous round ended, never played (an abandoned or imported game)
    rounds = []
    seq = 0
    before = [0, 0]
    places: list[tuple[int, list[int]]] = []  # per round: its first move's number and its cards' move numbers
    for index, rnd in enumerate(shown):
        deal = state.plan.deal(index)
        factor = state.config.multiplier(rnd.trump) if rnd.trump >= 0 else 1
        seated = rnd.seated_actions()
        card_seqs = [seq + k for k, (_, action) in enumerate(seated) if action.is_card]
        decision_seqs = [seq + k for k, (_, action) in enumerate(seated) if action.kind == Action.TRUMP]
        first_card_seq = card_seqs[0] if card_seqs else seq + len(seated)
        played = _cards_in_order(rnd)
        entry: dict[str, Any] = {
            "round": index + 1,
            "dealer": rnd.dealer,
            "forehand": rnd.forehand_seat,
            "pushed": rnd.pushed,
            "declarer": rnd.declarer,
            "trump": rnd.trump,
            "multiplier": factor,
            "hands": [codes_of(hand) for hand in deal.hands],
            "cards": [
                {"seat": seat, "card": CARD_CODES[card], "ms": latencies[card_seqs[k]]}
                | ({"standin": True} if standins[card_seqs[k]] else {})
                for k, (seat, card) in enumerate(played)
            ],
            "decision_ms": [latencies[s] for s in decision_seqs],
            # Trump decisions a stand-in bot made for a person (by the decision's index in the round).
            "decision_standins": [k for k, s in enumerate(decision_seqs) if standins[s]],
            "tricks": [{"first": t.first, "winner": t.winner, "points": t.points * factor} for t in rnd.tricks],
            "running": _running_points(rnd, factor),
            "scores_before": list(before),
            "points": list(round_scores[index]),
            "match": team_of(rnd.tricks[0].winner) if rnd.is_match else None,
            "complete": rnd.is_over,
            "faults": [],
        }
        if rnd.declared is not None:
            entry["weis"] = weis_part(rnd, factor, True)
            entry["announcements"] = _announcements(rnd)
        for fault in faults_by_round.get(index, []):
            if fault.seq is None or fault.trick is None:
                card = len(played)  # a failed game_info after the round
            elif fault.seq < first_card_seq:
                card = 0  # in place of a trump decision
            else:
                card = bisect_right(card_seqs, fault.seq)  # the position right after the card played in its stead
            detail = fault.detail + (f" ({fault.hidden_detail})" if fault.hidden_detail else "")
            entry["faults"].append(
                {"card": card, "seat": fault.seat, "kind": fault.kind, "detail": detail, "latency_ms": fault.latency_ms}
            )
        if index in pair_of:
            number, first, second = pair_of[index]
            twin = second if index == first else first
            twin_deal = state.plan.deal(twin)
            permutation = (twin_deal if index == first else deal).permutation
            entry["pair"] = {
                "number": number,
                "twin": twin + 1,
                "twin_played": twin < len(shown),
                "original": index == first,
                # suit letter -> suit letter from the original to the repeat
                "suits": {SUIT_LETTERS[s]: SUIT_LETTERS[permutation[s]] for s in range(4)},
                "seat_map": _seat_map(deal.forehand, twin_deal.forehand),
                "rpa": rpa.get(index),
                "scores": _pair_scores(state, rpa, first),
            }
        rounds.append(entry)
        places.append((seq, card_seqs))
        seq += len(rnd.actions())
        before = [before[0] + round_scores[index][0], before[1] + round_scores[index][1]]

    return {
        "id": game.pk,
        "table": game.table.name,
        "mode": game.mode,
        "target": game.target,
        "round_count": game.round_count,
        "multipliers": game.multipliers,
        "weis": game.weis,
        "status": game.status,
        "points": list(state.scores),
        "winner": state.winner,
        "players": _players(seats),
        "standin_bot": game.standin_bot,
        "standin_label": bot_label(game.standin_bot),
        "abandon_reason": game.abandon_reason or None,
        "viewer": _viewer(seats, viewer),
        "pairs": [
            {"number": n, "rounds": [a + 1, b + 1], "rpa": rpa.get(a), "scores": _pair_scores(state, rpa, a)}
            for n, (a, b) in enumerate(pairs, 1)
        ],
        "rounds": rounds,
        "analysis": analysis_view(game),
        "chat": _chat_track(game, places),
    }


def _chat_track(game: Game, places: list[tuple[int, list[int]]]) -> list[dict[str, Any]]:
    """What was said at the table during the game, each message at the round and card it came after."""
    track = []
    for message in chat.replay_track(game):
        said = message["seq"] if message["seq"] is not None else 0
        index = max(0, bisect_right([start for start, _ in places], said) - 1) if places else 0
        cards = places[index][1] if places else []
        track.append({**message, "round": index, "card": bisect_right(cards, said - 1)})
    return track
