"""The one writer of tournaments: registration, the start, pairings, games started within the limits, the end.

Every change locks the tournament's row, checks, writes and bumps its event
number; after commit the tournament's watchers hear of it (group
``tournament.<id>``). A tournament's games are ordinary games at tables it
arranges (``games.live.service``: ``create_table(managed_by=…)``, ``arrange_seats``,
``start_game``), driven like any other by the leased driver of whichever server
process holds them, their bots thinking in the bot workers.

Progress is driven by the games themselves: the transaction that ends a game
(``games.signals.game_ended``) also records what follows from it — the next
Swiss round paired, the next games started, the tournament finished — so a
game's end and its consequences commit together or not at all, and a server
killed in between loses nothing. ``advance`` is idempotent and derives
everything from the rows; every server's driver also calls it on its heartbeat
(``tick``), which starts tournaments whose time came and repairs any step a
failed receiver left undone. A game is started in the transaction that links it
to its ``MatchGame`` (one game per ``MatchGame``, whichever process starts it),
and every game's seed comes from the tournament's, so a tournament replays the
same wherever and however often its processes die.

Locks: a change that touches a running game's table locks the table before the
tournament (as a move that ends a game does); ``advance`` locks only the tables
it creates.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext

from games.catalogue import DIALECTS, BotUrlError, Dialect, builtin_bots, check_bot_url
from games.engine import FAIR, STANDARD, GameConfig, InvalidConfigError
from games.live import service as games
from games.live.events import publisher
from games.models import Action as ActionRow
from games.models import Connection, Game, GameSeat, Player, Table
from tournaments import pairing
from tournaments.models import Entrant, Match, MatchGame, Member, Tournament

log = logging.getLogger(__name__)

MAX_NAME = 80
MAX_TEAM_NAME = 60
MAX_ENTRANTS = 64
MAX_SWISS_ROUNDS = 20
MAX_FAIR_ROUNDS = 24
TICK_SECONDS = 3.0  # how often a server's heartbeat looks at the tournaments (start times, repairs)


class TournamentError(Exception):
    """A refused change: a stable ``code`` and a message for people (in the request's language)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def tournament_group(tournament_id: int) -> str:
    """The channel-layer group of everyone watching a tournament's page."""
    return f"tournament.{tournament_id}"


def page_path(tournament_id: int) -> str:
    return f"/tournaments/{tournament_id}/"


# -- who plays a seat ------------------------------------------------------------------------------


@dataclass(frozen=True)
class SeatSpec:
    """A team's seat as given: a person, a built-in bot by name, or an HSLU bot by URL."""

    player: Player | None = None
    bot: str = ""
    url: str = ""
    name: str = ""  # an HSLU bot's name
    dialect: str = Dialect.AUTO

    @property
    def is_person(self) -> bool:
        return self.player is not None


def bot_spec(text: str, dialect: str = Dialect.AUTO, name: str = "") -> SeatSpec:
    """A built-in bot's name or an HSLU bot's URL as a seat (refused with the reason when it is neither)."""
    text = (text or "").strip()
    if text.startswith(("http://", "https://")):
        try:
            url = check_bot_url(text)
        except BotUrlError as exc:
            raise TournamentError("bad_bot_url", exc.translated(gettext)) from None
        if dialect not in DIALECTS:
            raise TournamentError(
                "bad_bot_url", f"the path dialect is one of {', '.join(DIALECTS)}, got {dialect!r:.20}"
            )
        name = " ".join((name or "").split())[:40] or games.default_bot_name(url)
        return SeatSpec(url=url, name=name, dialect=dialect)
    if text not in builtin_bots():
        known = ", ".join(sorted(builtin_bots()))
        raise TournamentError(
            "unknown_bot",
            gettext("unknown bot {name}; the built-in bots are {known}").format(name=repr(text), known=known),
        )
    return SeatSpec(bot=text)


def spec_label(spec: SeatSpec) -> str:
    """A seat's name as a team name uses it: the person, the bot's label, or the HSLU bot's name."""
    if spec.player is not None:
        return spec.player.name
    if spec.bot:
        return builtin_bots()[spec.bot].label
    return spec.name


def default_team_name(labels: list[str], bots_only: bool) -> str:
    """The name a team gets when it is given none: its seats' labels joined ("Random & Rule-based"); two bots
    of one label (one bot on both seats) are named once."""
    if bots_only and len(labels) == 2 and labels[0] == labels[1]:
        return labels[0]
    return " & ".join(labels)


# -- options ---------------------------------------------------------------------------------------


@dataclass
class Options:
    """A tournament's options as a creation form or a command gives them (checked by ``create``)."""

    name: str
    format: str = Tournament.ROUND_ROBIN
    rounds: int = 3  # Swiss
    match_mode: str = Tournament.FAIR_MATCH
    round_count: int = 4
    target: int = 1000
    weis: bool = False
    rated: bool = False
    seed: int | None = None
    max_games: int = 8
    max_games_per_url: int = 2
    turn_clock_s: int = 60
    bot_timeout_s: int = 5
    starts_at: datetime | None = None


def _bad(message: str) -> TournamentError:
    return TournamentError("bad_options", message)


def _check(options: Options) -> None:
    name = options.name.strip()
    if not name or len(name) > MAX_NAME:
        raise _bad(gettext("a tournament name has 1 to {count} characters").format(count=MAX_NAME))
    if options.format not in (Tournament.ROUND_ROBIN, Tournament.SWISS):
        raise _bad(gettext("the format is a round robin or the Swiss system"))
    if options.format == Tournament.SWISS and not 1 <= options.rounds <= MAX_SWISS_ROUNDS:
        raise _bad(gettext("a Swiss tournament has 1 to {count} rounds").format(count=MAX_SWISS_ROUNDS))
    if options.match_mode not in (Tournament.FAIR_MATCH, Tournament.STANDARD_MATCH):
        raise _bad(gettext("a match is one fair game or two standard games"))
    if options.match_mode == Tournament.FAIR_MATCH and not (
        2 <= options.round_count <= MAX_FAIR_ROUNDS and options.round_count % 2 == 0
    ):
        raise _bad(gettext("a fair match has an even number of rounds, 2 to {count}").format(count=MAX_FAIR_ROUNDS))
    try:
        GameConfig(
            mode=FAIR if options.match_mode == Tournament.FAIR_MATCH else STANDARD,
            target=options.target,
            round_count=options.round_count if options.match_mode == Tournament.FAIR_MATCH else 12,
            weis=options.weis,
        )
    except InvalidConfigError as exc:
        raise _bad(str(exc)) from None
    if not 1 <= options.max_games <= 200:
        raise _bad(gettext("games at once: 1 to 200"))
    if not 1 <= options.max_games_per_url <= 50:
        raise _bad(gettext("games at once per bot URL: 1 to 50"))
    if not 0 <= options.turn_clock_s <= games.MAX_TURN_CLOCK:
        raise _bad(gettext("the turn clock is 0 to {count} seconds").format(count=games.MAX_TURN_CLOCK))
    if not 1 <= options.bot_timeout_s <= games.MAX_BOT_TIMEOUT:
        raise _bad(gettext("the bot timeout is 1 to {count} seconds").format(count=games.MAX_BOT_TIMEOUT))
    if options.seed is not None and not 0 <= options.seed < 2**62:
        raise _bad("the seed is 0 to 2**62 - 1")


def create(owner: Player | None, options: Options) -> Tournament:
    """Open a tournament for registration (``owner`` None: made by the operator, e.g. ``manage.py tournament``)."""
    _check(options)
    with transaction.atomic():
        tournament = Tournament.objects.create(
            owner=owner,
            name=options.name.strip(),
            format=options.format,
            rounds=options.rounds if options.format == Tournament.SWISS else 0,
            match_mode=options.match_mode,
            round_count=options.round_count,
            target=options.target,
            weis=options.weis,
            rated=options.rated,
            seed=secrets.randbits(62) if options.seed is None else options.seed,
            max_games=options.max_games,
            max_games_per_url=options.max_games_per_url,
            turn_clock_s=options.turn_clock_s,
            bot_timeout_s=options.bot_timeout_s,
            starts_at=options.starts_at,
        )
        _changed(tournament, "created")
    return tournament


# -- locking and events ----------------------------------------------------------------------------


def _lock(tournament_id: int) -> Tournament:
    try:
        return Tournament.objects.select_for_update().get(pk=tournament_id)
    except Tournament.DoesNotExist:
        raise TournamentError(
            "no_tournament", gettext("there is no tournament {number}").format(number=tournament_id)
        ) from None


def _changed(tournament: Tournament, reason: str) -> None:
    """Bump the tournament's event number; after commit, tell its watchers (they render it again)."""
    Tournament.objects.filter(pk=tournament.pk).update(version=F("version") + 1)
    tournament.version = Tournament.objects.filter(pk=tournament.pk).values_list("version", flat=True).get()
    message = {"type": "tournament.event", "tournament": tournament.pk, "version": tournament.version, "reason": reason}
    group = tournament_group(tournament.pk)
    transaction.on_commit(lambda: publisher.publish([("group", group, message)]))


def _lock_running_tables(tournament_id: int, entrant_id: int | None = None) -> None:
    """Lock the tables of a tournament's running games (of one team, if given) before the tournament: the
    order a move that ends a game takes them in."""
    games_of = MatchGame.objects.filter(match__tournament_id=tournament_id, game__status=Game.RUNNING)
    if entrant_id is not None:
        games_of = games_of.filter(Q(match__a_id=entrant_id) | Q(match__b_id=entrant_id))
    table_ids = sorted(games_of.values_list("game__table_id", flat=True))
    list(Table.objects.select_for_update().filter(pk__in=table_ids).order_by("pk").values_list("pk", flat=True))


def _may_organise(tournament: Tournament, actor: Player | None) -> bool:
    """The owner organises; ``actor`` None is the operator (management commands)."""
    return actor is None or (tournament.owner_id is not None and tournament.owner_id == actor.pk)


# -- registration ----------------------------------------------------------------------------------


def _check_registration(tournament: Tournament) -> None:
    if tournament.status != Tournament.REGISTRATION:
        raise TournamentError("registration_closed", gettext("registration for this tournament is closed"))


def _team_name(tournament: Tournament, name: str, default: str) -> str:
    name = " ".join((name or "").split()) or default
    if len(name) > MAX_TEAM_NAME:
        raise TournamentError(
            "bad_team", gettext("a team name has at most {count} characters").format(count=MAX_TEAM_NAME)
        )
    if tournament.entrants.filter(name=name).exists():
        raise TournamentError("bad_team", gettext("a team called {name} is registered already").format(name=name))
    return name


def _check_person_free(tournament: Tournament, player: Player) -> None:
    active = tournament.entrants.exclude(status__in=(Entrant.WITHDRAWN, Entrant.DROPPED))
    if Member.objects.filter(entrant__in=active, player=player).exists():
        raise TournamentError("already_registered", gettext("you play in a team of this tournament already"))


def add_team(tournament_id: int, actor: Player | None, name: str, seats: tuple[SeatSpec, SeatSpec | None]) -> Entrant:
    """Register a team of two seats; ``seats[1]`` None: a person's partner who will join by the invitation link.

    Anyone with a name may register a team of bots; a person registers themselves (with a
    bot partner or a person to invite), never someone else.
    """
    first, second = seats
    people = [s.player for s in seats if s is not None and s.player is not None]
    if any(p != actor for p in people):
        raise TournamentError("not_allowed", gettext("you can register yourself, not other people"))
    if second is None and not (first.is_person and first.player == actor):
        raise TournamentError("bad_team", gettext("only a person waits for a partner to join"))
    bots_only = second is not None and not first.is_person and not second.is_person
    default = default_team_name([spec_label(s) for s in seats if s is not None], bots_only)
    with transaction.atomic():
        tournament = _lock(tournament_id)
        _check_registration(tournament)
        if tournament.entrants.exclude(status=Entrant.DROPPED).count() >= MAX_ENTRANTS:
            raise TournamentError(
                "full", gettext("this tournament has its {count} teams already").format(count=MAX_ENTRANTS)
            )
        for person in people:
            _check_person_free(tournament, person)
        order = (tournament.entrants.order_by("-order").values_list("order", flat=True).first() or 0) + 1
        entrant = Entrant.objects.create(
            tournament=tournament,
            order=order,
            name=_team_name(tournament, name, default),
            status=Entrant.READY if second is not None else Entrant.PENDING,
            registered_by=actor,
        )
        for slot, spec in enumerate(seats):
            Member.objects.create(
                entrant=entrant,
                slot=slot,
                player=spec.player if spec else None,
                bot=spec.bot if spec else "",
                remote_url=spec.url if spec else "",
                remote_name=spec.name if spec else "",
                remote_dialect=spec.dialect if spec and spec.url else "",
            )
        _changed(tournament, "entrants")
    return entrant


def join_team(tournament_id: int, token: str, player: Player) -> Entrant:
    """A person accepts a team's invitation link: they take its second seat and the team is ready."""
    with transaction.atomic():
        tournament = _lock(tournament_id)
        entrant = tournament.entrants.filter(invite_token=token).first() if token else None
        if entrant is None or not secrets.compare_digest(entrant.invite_token, token):
            raise TournamentError("bad_invitation", gettext("this invitation link is not valid"))
        _check_registration(tournament)
        if entrant.status != Entrant.PENDING:
            raise TournamentError("bad_invitation", gettext("this team has its two players already"))
        _check_person_free(tournament, player)
        Member.objects.filter(entrant=entrant, slot=1).update(player=player)
        entrant.status = Entrant.READY
        inviter = entrant.members.filter(slot=0).values_list("player__name", flat=True).first()
        paired = f"{inviter} & {player.name}"[:MAX_TEAM_NAME]
        if entrant.name == inviter and not tournament.entrants.filter(name=paired).exists():
            entrant.name = paired  # the name given by default grows with the partner
        entrant.save(update_fields=["status", "name"])
        _changed(tournament, "entrants")
    return entrant


def _may_manage_team(tournament: Tournament, entrant: Entrant, actor: Player | None) -> bool:
    if _may_organise(tournament, actor):
        return True
    assert actor is not None
    return entrant.registered_by_id == actor.pk or entrant.members.filter(player=actor).exists()


def remove_team(tournament_id: int, entrant_id: int, actor: Player | None) -> None:
    """Take a team off the list before the start (the owner, whoever registered it, or a member)."""
    with transaction.atomic():
        tournament = _lock(tournament_id)
        _check_registration(tournament)
        entrant = tournament.entrants.filter(pk=entrant_id).first()
        if entrant is None:
            raise TournamentError("no_team", gettext("there is no such team in this tournament"))
        if not _may_manage_team(tournament, entrant, actor):
            raise TournamentError("not_allowed", gettext("only the organiser or the team itself can do that"))
        entrant.delete()
        _changed(tournament, "entrants")


def withdraw(tournament_id: int, entrant_id: int, actor: Player | None) -> None:
    """A team leaves a running tournament: its game in play is lost by forfeit, and it is not paired again
    (a round robin's matches still to come are lost by forfeit too)."""
    with transaction.atomic():
        _lock_running_tables(tournament_id, entrant_id)
        tournament = _lock(tournament_id)
        if tournament.status != Tournament.RUNNING:
            raise TournamentError("not_running", gettext("only a running tournament's teams withdraw"))
        entrant = tournament.entrants.filter(pk=entrant_id).first()
        if entrant is None or entrant.status != Entrant.READY:
            raise TournamentError("no_team", gettext("there is no such team playing in this tournament"))
        if not _may_manage_team(tournament, entrant, actor):
            raise TournamentError("not_allowed", gettext("only the organiser or the team itself can do that"))
        entrant.status = Entrant.WITHDRAWN
        entrant.save(update_fields=["status"])
        for mg in MatchGame.objects.filter(
            Q(match__a=entrant) | Q(match__b=entrant), match__tournament=tournament, game__status=Game.RUNNING
        ).select_related("match", "game"):
            _forfeit(mg.match, {"a" if mg.match.a_id == entrant.pk else "b"})
            assert mg.game is not None
            games.abandon_game(mg.game.table_id, games.SYSTEM, f"forfeit: {entrant.name} withdrew")
        _advance(_lock(tournament_id), "withdrawn")  # read again: the abandoned game moved it on already


def _forfeit(match: Match, sides: Iterable[str]) -> None:
    match.forfeit = "".join(sorted(set(match.forfeit) | set(sides)))
    match.save(update_fields=["forfeit"])


# -- start, cancel ---------------------------------------------------------------------------------


def start(tournament_id: int, actor: Player | None) -> Tournament:
    """Close registration and play: teams still waiting for a partner are dropped, round 1 is paired (a
    round robin's every round), and the first games start."""
    with transaction.atomic():
        tournament = _lock(tournament_id)
        if not _may_organise(tournament, actor):
            raise TournamentError("not_allowed", gettext("only the organiser can start the tournament"))
        _check_registration(tournament)
        tournament.entrants.filter(status=Entrant.PENDING).update(status=Entrant.DROPPED)
        teams = list(tournament.entrants.filter(status=Entrant.READY).order_by("order"))
        if len(teams) < 2:
            raise TournamentError("too_few", gettext("a tournament needs two teams at least"))
        tournament.status, tournament.started_at = Tournament.RUNNING, timezone.now()
        if tournament.format == Tournament.ROUND_ROBIN:
            schedule = pairing.round_robin([t.order for t in teams])
            tournament.rounds = len(schedule)
            by_order = {t.order: t for t in teams}
            for number, pairs in enumerate(schedule, start=1):
                _create_matches(tournament, number, pairs, by_order)
            tournament.current_round = tournament.rounds
        tournament.save(update_fields=["status", "started_at", "rounds", "current_round"])
        _advance(tournament, "started")
    return tournament


def cancel(tournament_id: int, actor: Player | None) -> None:
    """Stop a tournament: registration or play ends, its running games are abandoned."""
    with transaction.atomic():
        _lock_running_tables(tournament_id)
        tournament = _lock(tournament_id)
        if not _may_organise(tournament, actor):
            raise TournamentError("not_allowed", gettext("only the organiser can cancel the tournament"))
        if tournament.is_over:
            raise TournamentError("over", gettext("this tournament is over"))
        tournament.status, tournament.finished_at = Tournament.CANCELLED, timezone.now()
        tournament.save(update_fields=["status", "finished_at"])
        for mg in MatchGame.objects.filter(match__tournament=tournament, game__status=Game.RUNNING).select_related(
            "game"
        ):
            assert mg.game is not None
            games.abandon_game(mg.game.table_id, games.SYSTEM, "the tournament was cancelled")
        _changed(tournament, "cancelled")


# -- how the tournament stands ---------------------------------------------------------------------


def game_seed(seed: int, round_number: int, index: int) -> int:
    """A match's deals from the tournament's seed and the match's place: the same wherever it is computed."""
    digest = hashlib.blake2b(f"{seed}:{round_number}:{index}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 2


def _create_matches(
    tournament: Tournament, number: int, pairs: list[pairing.Pairing], by_order: dict[int, Entrant]
) -> None:
    games_per_match = 2 if tournament.match_mode == Tournament.STANDARD_MATCH else 1
    for index, pair in enumerate(pairs):
        match = Match.objects.create(
            tournament=tournament,
            round_number=number,
            index=index,
            a=by_order[pair.a],
            b=by_order[pair.b] if pair.b is not None else None,
        )
        if pair.b is None:
            continue
        seed = game_seed(tournament.seed, number, index)
        MatchGame.objects.bulk_create(
            [MatchGame(match=match, index=i, seed=seed, a_side=i % 2) for i in range(games_per_match)]
        )


@dataclass
class GameRow:
    """A match's game as the tournament sees it."""

    match_game: MatchGame
    game_id: int | None = None
    status: str = ""  # "" not started, else the game's status
    points: tuple[int, int] = (0, 0)  # (team a, team b)
    table_id: int | None = None


@dataclass
class MatchRow:
    match: Match
    games: list[GameRow] = field(default_factory=list)

    @property
    def is_bye(self) -> bool:
        return self.match.b_id is None

    @property
    def complete(self) -> bool:
        if self.is_bye or self.match.forfeit:
            return True
        return bool(self.games) and all(g.status in (Game.FINISHED, Game.ABANDONED) for g in self.games)

    @property
    def running(self) -> GameRow | None:
        return next((g for g in self.games if g.status == Game.RUNNING), None)

    @property
    def next_game(self) -> GameRow | None:
        """The match's next game to start, once the one before it is over."""
        if self.complete or self.running is not None:
            return None
        return next((g for g in self.games if not g.status), None)

    def result(self, order: dict[int, int]) -> pairing.MatchResult | None:
        """The match's result as ``pairing`` counts it (teams by registration order); None while it plays."""
        match = self.match
        a = order[match.a_id]
        if self.is_bye:
            return pairing.MatchResult(a, None)
        assert match.b_id is not None
        b = order[match.b_id]
        if match.forfeit:
            lost = frozenset(team for side, team in (("a", a), ("b", b)) if side in match.forfeit)
            return pairing.MatchResult(a, b, forfeited=lost)
        if not self.complete:
            return None
        if any(g.status == Game.ABANDONED for g in self.games):
            return pairing.MatchResult(a, b, agreed_draw=True)
        points = (sum(g.points[0] for g in self.games), sum(g.points[1] for g in self.games))
        return pairing.MatchResult(a, b, points=points)


@dataclass
class Progress:
    """A tournament read from its rows: teams, matches with their games, results."""

    tournament: Tournament
    entrants: list[Entrant]
    matches: list[MatchRow]

    @property
    def order(self) -> dict[int, int]:
        return {e.pk: e.order for e in self.entrants}

    def results(self) -> list[pairing.MatchResult]:
        order = self.order
        return [r for r in (m.result(order) for m in self.matches) if r is not None]

    def standings(self) -> list[pairing.Standing]:
        teams = [e.order for e in self.entrants if e.status in (Entrant.READY, Entrant.WITHDRAWN)]
        return pairing.standings(teams, self.results(), buchholz=self.tournament.format == Tournament.SWISS)

    def round_matches(self, number: int) -> list[MatchRow]:
        return [m for m in self.matches if m.match.round_number == number]


def load(tournament: Tournament) -> Progress:
    """Read a tournament's teams, matches and games (three queries, whatever its size)."""
    entrants = list(tournament.entrants.order_by("order"))
    matches = {m.pk: MatchRow(m) for m in tournament.matches.order_by("round_number", "index")}
    columns = ("pk", "match_id", "index", "seed", "a_side", "game_id", "game__status", "game__points", "game__table_id")
    rows = MatchGame.objects.filter(match__tournament=tournament).order_by("match_id", "index").values_list(*columns)
    for pk, match_id, index, seed, a_side, game_id, status, points, table_id in rows:
        mg = MatchGame(pk=pk, match_id=match_id, index=index, seed=seed, a_side=a_side, game_id=game_id)
        row = GameRow(mg, game_id, status or "", table_id=table_id)
        if game_id is not None:
            pts = points or [0, 0]
            row.points = (pts[a_side], pts[1 - a_side])
        matches[match_id].games.append(row)
    return Progress(tournament, entrants, list(matches.values()))


# -- moving on -------------------------------------------------------------------------------------


def _advance(tournament: Tournament, reason: str, quiet: bool = False) -> None:
    """Everything that follows from the rows, once (call with the tournament locked): forfeits of withdrawn
    teams, the next Swiss round, the end, and the games that may start now. An event for the watchers,
    unless ``quiet`` and nothing changed."""
    changed = not quiet
    if tournament.status == Tournament.RUNNING:
        progress = load(tournament)
        withdrawn = {e.pk for e in progress.entrants if e.status == Entrant.WITHDRAWN}
        for row in progress.matches:
            match = row.match
            sides = {side for side, team in (("a", match.a_id), ("b", match.b_id)) if team in withdrawn}
            if sides and not row.complete and row.running is None:
                _forfeit(match, sides)
                changed = True
        if changed:
            progress = load(tournament)
        if all(m.complete for m in progress.round_matches(tournament.current_round)):
            if tournament.format == Tournament.SWISS and tournament.current_round < tournament.rounds:
                _pair_swiss_round(tournament, progress)
                progress, changed = load(tournament), True
            elif all(m.complete for m in progress.matches):
                tournament.status, tournament.finished_at = Tournament.FINISHED, timezone.now()
                tournament.save(update_fields=["status", "finished_at"])
                _changed(tournament, "finished")
                return
        changed = _dispatch(tournament, progress) or changed
    if changed:
        _changed(tournament, reason)


def _pair_swiss_round(tournament: Tournament, progress: Progress) -> None:
    playing = [e for e in progress.entrants if e.status == Entrant.READY]
    by_order = {e.order: e for e in playing}
    if tournament.current_round == 0:
        ranking = pairing.first_order(sorted(by_order), tournament.seed)
    else:
        ranking = [s.team for s in progress.standings() if s.team in by_order]
    order = progress.order
    met: set[frozenset[int]] = set()
    byes: set[int] = set()
    for row in progress.matches:
        a = order[row.match.a_id]
        if row.match.b_id is None:
            byes.add(a)
        else:
            met.add(frozenset((a, order[row.match.b_id])))
    tournament.current_round += 1
    tournament.save(update_fields=["current_round"])
    if ranking:
        _create_matches(tournament, tournament.current_round, pairing.swiss_round(ranking, met, byes), by_order)


def _people(members: list[Member]) -> list[int]:
    return [m.player_id for m in members if m.player_id is not None]


def _dispatch(tournament: Tournament, progress: Progress) -> bool:
    """Start the games that may start now: in match order, while the tournament's and every bot URL's limits
    allow (the next game of a match once the one before it is over). A team with people plays one game at a
    time; a team of bots as many as the limits allow. True if any started."""
    running = [g for m in progress.matches for g in m.games if g.status == Game.RUNNING]
    room = tournament.max_games - len(running)
    started = False
    if room <= 0:
        return started
    members: dict[int, list[Member]] = {}
    for member in Member.objects.filter(entrant__tournament=tournament).order_by("slot"):
        members.setdefault(member.entrant_id, []).append(member)
    people = {team for team, group in members.items() if _people(group)}
    busy = {team for m in progress.matches if m.running is not None for team in (m.match.a_id, m.match.b_id)} & people
    urls = {m.remote_url for group in members.values() for m in group if m.remote_url}
    per_url = _running_games_per_url(urls)
    for row in progress.matches:
        if room <= 0:
            break
        if tournament.format == Tournament.SWISS and row.match.round_number != tournament.current_round:
            continue
        upcoming = row.next_game
        match = row.match
        if upcoming is None or match.a_id in busy or match.b_id in busy:
            continue
        assert match.b_id is not None
        mine = {m.remote_url for team in (match.a_id, match.b_id) for m in members[team] if m.remote_url}
        if any(per_url.get(url, 0) >= tournament.max_games_per_url for url in mine):
            continue
        _start_game(tournament, match, upcoming.match_game, members[match.a_id], members[match.b_id])
        room -= 1
        started = True
        busy |= {match.a_id, match.b_id} & people
        for url in mine:
            per_url[url] = per_url.get(url, 0) + 1
    return started


def _running_games_per_url(urls: set[str]) -> dict[str, int]:
    """How many running games (anywhere on the site) each of these HSLU bot URLs plays in."""
    if not urls:
        return {}
    pairs = set(
        GameSeat.objects.filter(game__status=Game.RUNNING, remote_url__in=urls).values_list("remote_url", "game_id")
    )
    counts: dict[str, int] = {}
    for url, _ in pairs:
        counts[url] = counts.get(url, 0) + 1
    return counts


def _seat(member: Member) -> dict[str, Any]:
    if member.player_id is not None:
        return {"player": member.player}
    if member.bot:
        return {"bot": member.bot}
    return {"remote_url": member.remote_url, "remote_name": member.remote_name, "remote_dialect": member.remote_dialect}


def _start_game(tournament: Tournament, match: Match, mg: MatchGame, a: list[Member], b: list[Member]) -> None:
    """Start one game of a match at a table of its own: team ``a`` sits North/South when ``a_side`` is 0."""
    people = bool(_people(a) or _people(b))
    fair = tournament.match_mode == Tournament.FAIR_MATCH
    # Stored, so in no one language: "A - B (2.3)" is round 2's third match (", game 2/2" for the second game).
    place = f"{match.round_number}.{match.index + 1}" + ("" if fair else f", {mg.index + 1}/2")
    names = f"{match.a.name} \u2013 {match.b.name if match.b else ''}"
    table = games.create_table(
        None,
        name=f"{names[: games.MAX_TABLE_NAME - len(place) - 3]} ({place})",
        mode=FAIR if fair else STANDARD,
        target=tournament.target,
        round_count=tournament.round_count if fair else 12,
        weis=tournament.weis,
        bot_delay_ms=None if people else 0,
        bot_timeout_s=tournament.bot_timeout_s,
        turn_clock_s=tournament.turn_clock_s if people else 0,
        round_pause_s=None if people else 0,
        rated=tournament.rated,
        managed_by=page_path(tournament.pk),
    )
    north_south, east_west = (a, b) if mg.a_side == 0 else (b, a)
    seats = [north_south[0], east_west[0], north_south[1], east_west[1]]
    games.arrange_seats(table.pk, [_seat(m) for m in seats], games.SYSTEM)
    game = games.start_game(table.pk, games.SYSTEM, seed=mg.seed)
    updated = MatchGame.objects.filter(pk=mg.pk, game__isnull=True).update(game=game)
    if updated != 1:  # another process started this game meanwhile: never play a game twice
        raise RuntimeError(f"match game {mg.pk} was started twice")


# -- what the games tell -----------------------------------------------------------------------------


def _tournament_of(game_id: int) -> int | None:
    return MatchGame.objects.filter(game_id=game_id).values_list("match__tournament_id", flat=True).first()


def game_ended(game: Game) -> None:
    """A tournament game ended (inside the transaction that ended it): what follows commits with it."""
    tournament_id = _tournament_of(game.pk)
    if tournament_id is None:
        return
    try:
        with transaction.atomic():
            _advance(_lock(tournament_id), "game_ended")
    except Exception:  # never undo the move that ended the game: the next heartbeat's ``tick`` repairs
        log.exception("tournament %s: moving on after game %s failed", tournament_id, game.pk)


def clock_ran_out(game: Game, seat: int) -> None:
    """A person's turn clock ran out in a tournament game: a team none of whose people has moved in the game or
    has its table open now did not show, and loses by forfeit (both teams, if neither showed)."""
    tournament_id = _tournament_of(game.pk)
    if tournament_id is None:
        return
    try:
        with transaction.atomic():
            _lock(tournament_id)
            mg = MatchGame.objects.select_related("match__a", "match__b").get(game_id=game.pk)
            seats = {s.position: s.player_id for s in GameSeat.objects.filter(game_id=game.pk)}
            absent = []
            for side, team_side in (("a", mg.a_side), ("b", 1 - mg.a_side)):
                people = {seats[p]: p for p in (team_side, team_side + 2) if seats[p] is not None}
                if not people:
                    continue
                moved = ActionRow.objects.filter(game_id=game.pk, seat__in=people.values(), standin=False).exists()
                online = Connection.objects.filter(table_id=game.table_id, player_id__in=people).exists()
                if not moved and not online:
                    absent.append(side)
            if not absent:
                return
            _forfeit(mg.match, absent)
            names = ", ".join(getattr(mg.match, side).name for side in absent)
            games.abandon_game(game.table_id, games.SYSTEM, f"forfeit: {names} did not show")
    except Exception:
        log.exception("tournament %s: the forfeit check of game %s failed", tournament_id, game.pk)


_last_tick = 0.0


def tick(force: bool = False) -> None:
    """On a server's heartbeat: start the tournaments whose time came, and move the running ones on."""
    global _last_tick
    now = time.monotonic()
    if not force and now - _last_tick < TICK_SECONDS:
        return
    _last_tick = now
    due = Tournament.objects.filter(status=Tournament.REGISTRATION, starts_at__lte=timezone.now())
    for tournament_id in due.values_list("pk", flat=True):
        try:
            start(tournament_id, None)
        except TournamentError as exc:  # too few teams: it waits for more, or for its organiser
            log.info("tournament %s did not start at its time: %s", tournament_id, exc.message)
            Tournament.objects.filter(pk=tournament_id).update(starts_at=None)
    for tournament_id in Tournament.objects.filter(status=Tournament.RUNNING).values_list("pk", flat=True):
        try:
            with transaction.atomic():
                _advance(_lock(tournament_id), "repaired", quiet=True)
        except Exception:
            log.exception("tournament %s: the heartbeat's look failed", tournament_id)
