"""Persistence as an event log: tables, seats, games, their deals and their actions.

A game's state is never stored: it is rebuilt by replaying its ``Action`` rows
over its stored deals with the engine (``Game.plan`` + ``GameState.replay``).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Sequence
from typing import Protocol

from django.conf import settings
from django.db import models

from games.catalogue import SeatKind
from games.decks import DECK_CHOICES, FRENCH
from games.engine import (
    CARD_CODES,
    FAIR,
    STANDARD,
    Deal,
    GameConfig,
    GamePlan,
    InvalidConfigError,
    codes_of,
    four,
    mask_from_codes,
)
from games.engine import (
    Action as EngineAction,
)


class Player(models.Model):
    """A person: a signed-in user, or a guest known by a nickname kept in their session."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE)
    name = models.CharField(max_length=40)
    created_at = models.DateTimeField(auto_now_add=True)
    # The cards this person sees (games/decks.py): how cards look and are named, never the game.
    deck = models.CharField(max_length=10, choices=DECK_CHOICES, default=FRENCH)
    # A moderator's site-wide chat mute (games/live/chat.py): the person may play but not talk until then.
    chat_muted_until = models.DateTimeField(null=True, blank=True)

    @property
    def is_guest(self) -> bool:
        return self.user_id is None

    def __str__(self) -> str:
        return self.name


def new_invite_token() -> str:
    """An unguessable token for a private table's invitation link (128 bits)."""
    return secrets.token_urlsafe(16)


ROUND_PAUSES = (0, 3, 5, 10)  # seconds a round's summary may stay before the next deal's bots move


LOBBY_GROUP = "lobby"  # the channel-layer group of everyone watching the lobby


def table_group(table_id: int) -> str:
    """The channel-layer group of everyone watching a table."""
    return f"table.{table_id}"


class Table(models.Model):
    """A table with its options; it hosts one game at a time, and new games after that."""

    MODES = [(STANDARD, "Standard"), (FAIR, "Fair")]

    name = models.CharField(max_length=60)
    mode = models.CharField(max_length=10, choices=MODES, default=STANDARD)
    target = models.PositiveIntegerField(default=1000)
    round_count = models.PositiveSmallIntegerField(default=12)
    multipliers = models.BooleanField(default=False)
    weis = models.BooleanField(default=False)  # Weis and Stöck (docs/rules.md): off keeps the HSLU game
    bot_delay_ms = models.PositiveIntegerField(default=800)
    bot_timeout_s = models.PositiveSmallIntegerField(default=5)  # remote bots: seconds per answer (1..30)
    created_by = models.ForeignKey(Player, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    version = models.PositiveIntegerField(default=0)  # bumped by every change; numbers the table's events
    # A private table's games (live, history, replay, record) are shown only to those who sat in them;
    # the table itself is reached by its link and listed in the lobby only for its creator and players.
    private = models.BooleanField(default=False)
    imported = models.BooleanField(default=False)  # holds games read from records, never plays new ones
    # A private table is entered by its invitation link, /tables/<id>/invite/<token>/ (games/access.py).
    invite_token = models.CharField(max_length=32, default=new_invite_token)
    # Seconds a person has for a move before a stand-in bot plays for them (0: no clock).
    turn_clock_s = models.PositiveSmallIntegerField(default=0)
    standin_bot = models.CharField(max_length=40, default="rules")  # the built-in bot that stands in
    # Seconds the round's summary stays before the next deal's first bot move (people may go on sooner),
    # one of ROUND_PAUSES.
    round_pause_s = models.PositiveSmallIntegerField(default=5)
    # Rated games move the players' ratings (games.summaries.ratings); casual ones do not. Fair tables are
    # rated by default, standard ones casual; a private table's games are never rated (ratings are public).
    rated = models.BooleanField(default=False)
    # The page of whatever arranges this table's seats and starts its games (a tournament's, "/tournaments/3/"):
    # people may play and leave their game here, but not change seats, start or abandon games.
    managed_by = models.CharField(max_length=200, blank=True)
    # *Play again* after a game (games/live/service.py, ``offer_rematch``): {"game": the last game's id,
    # "by": player id, "by_name", "voters": [the people seated], "accepted": [player ids], "refused_by":
    # player id or null, "until": epoch ms}; the next game starts when every voter accepted before ``until``.
    rematch = models.JSONField(null=True, blank=True)
    # Play now (games/live/service.py, ``play_now``): a table that waits for people until then, when bots
    # (``play_now_bot``) fill its empty seats and the game starts; null for any other table.
    open_until = models.DateTimeField(null=True, blank=True, db_index=True)
    play_now_bot = models.CharField(max_length=40, blank=True)

    class Meta:
        ordering = ["-updated_at"]

    def config(self, seed: int) -> GameConfig:
        return GameConfig(
            mode=self.mode,
            target=self.target,
            round_count=self.round_count,
            multipliers=GameConfig.multipliers_from("classic" if self.multipliers else None),
            seed=seed,
            weis=self.weis,
        )

    def __str__(self) -> str:
        return f"{self.name} (#{self.pk})"


class Seat(models.Model):
    """Who occupies a position at a table now: a person, a built-in bot, or nobody."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    position = models.PositiveSmallIntegerField()  # 0 North, 1 East, 2 South, 3 West
    player = models.ForeignKey(Player, null=True, blank=True, on_delete=models.SET_NULL, related_name="seats")
    bot = models.CharField(max_length=40, blank=True)  # built-in bot name
    remote_url = models.CharField(max_length=300, blank=True)  # an HSLU bot's base URL
    remote_name = models.CharField(max_length=40, blank=True)
    remote_dialect = models.CharField(max_length=10, blank=True)  # auto, spec or jass-kit

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["table", "position"], name="one_seat_per_position"),
            models.CheckConstraint(condition=models.Q(position__lte=3), name="seat_position_0_to_3"),
        ]

    @property
    def kind(self) -> SeatKind:
        return seat_kind(self)


class Game(models.Model):
    """One game at a table: its configuration, deals, result, and (as rows) its actions."""

    RUNNING, FINISHED, ABANDONED = "running", "finished", "abandoned"
    STATUSES = [(RUNNING, "Running"), (FINISHED, "Finished"), (ABANDONED, "Abandoned")]

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="games")
    mode = models.CharField(max_length=10, choices=Table.MODES)
    target = models.PositiveIntegerField(null=True, blank=True)  # standard mode
    round_count = models.PositiveSmallIntegerField(null=True, blank=True)  # fair mode
    multipliers = models.JSONField(null=True, blank=True)  # six factors (D H S C O U), or null when off
    weis = models.BooleanField(default=False)  # played with Weis and Stöck
    seed = models.BigIntegerField()
    fair_schedule = models.JSONField(null=True, blank=True)  # the thesis' list d
    deals = models.JSONField(default=list)  # one entry per round dealt so far (see deal_to_json)
    status = models.CharField(max_length=10, choices=STATUSES, default=RUNNING)
    action_count = models.PositiveIntegerField(default=0)  # the next Action.seq
    points = models.JSONField(default=list)  # [team 0, team 1]
    winner = models.SmallIntegerField(null=True, blank=True)  # 0, 1, or null (running, draw)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    abandon_reason = models.CharField(max_length=200, blank=True)  # why an abandoned game ended
    turn_clock_s = models.PositiveSmallIntegerField(default=0)  # copied from the table at the start
    # Seconds a round's summary stays over the table before the next deal (copied from the table at the
    # start); it ends sooner once every person at the table has pressed *Continue* (GameSeat.ready_round).
    round_pause_s = models.PositiveSmallIntegerField(default=0)
    standin_bot = models.CharField(max_length=40, default="rules")
    # When the current turn began (the start, each move, a person back in their seat): the clock runs from it.
    turn_started_at = models.DateTimeField(null=True, blank=True)
    # The server process (``Worker``) that drives this game's bots, clock and end: one at a time.
    driver = models.CharField(max_length=40, blank=True, db_index=True)
    rated = models.BooleanField(default=False)  # copied from the table at the start (arena: --rated)
    # A person's request to abandon the game while other people play in it (games/live/service.py, ``request_abandon``):
    # {"by": player id, "seat": n, "voters": [player ids], "agreed": [player ids], "refused_by": seat or null,
    #  "until": epoch ms}; the game ends only when every voter agreed before ``until``.
    abandon_vote = models.JSONField(null=True, blank=True)
    # The game before this one when the same four played again (*Play again*): a series of games.
    previous = models.OneToOneField("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="next_game")

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["status", "table"])]

    def config(self) -> GameConfig:
        target = self.target if self.mode == STANDARD else 1000
        round_count = self.round_count if self.mode == FAIR else 12
        if target is None or round_count is None:  # only one of the two columns applies, by mode
            raise InvalidConfigError(f"game {self.pk}: a {self.mode} game without its target or round count")
        return GameConfig(
            mode=self.mode,
            target=target,
            round_count=round_count,
            multipliers=tuple(self.multipliers) if self.multipliers else None,
            seed=self.seed,
            weis=self.weis,
        )

    def plan(self) -> GamePlan:
        """The deals of this game: the stored ones, then (standard mode) more from the seed."""
        return GamePlan(
            self.config(),
            schedule=self.fair_schedule,
            known_deals=[deal_from_json(index, data) for index, data in enumerate(self.deals)],
        )

    def __str__(self) -> str:
        return f"Game {self.pk} at {self.table_id} ({self.mode}, {self.status})"


class GameSeat(models.Model):
    """Who played a position in a game (a snapshot: the table's seats may change later)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats")
    position = models.PositiveSmallIntegerField()
    player = models.ForeignKey(Player, null=True, blank=True, on_delete=models.SET_NULL, related_name="game_seats")
    bot = models.CharField(max_length=40, blank=True)
    remote_url = models.CharField(max_length=300, blank=True)
    remote_dialect = models.CharField(max_length=10, blank=True)  # "auto" until the first answer tells
    name = models.CharField(max_length=60)
    last_latency_ms = models.PositiveIntegerField(null=True, blank=True)  # a bot's last answer time
    fault_count = models.PositiveIntegerField(default=0)
    # A stand-in bot plays for this person: "clock" (their time ran out; *I'm back* ends it) or
    # "left" (they left the game for good); "" while they play themselves.
    standin = models.CharField(max_length=5, blank=True)
    # The last round (numbered from 1) whose summary this person has closed with *Continue*: when every
    # person at the table is ready, the next deal begins without waiting out the round pause.
    ready_round = models.PositiveSmallIntegerField(default=0)

    CLOCK, LEFT = "clock", "left"

    class Meta:
        ordering = ["position"]
        constraints = [models.UniqueConstraint(fields=["game", "position"], name="one_game_seat_per_position")]

    @property
    def kind(self) -> SeatKind:
        return seat_kind(self)


class RemoteBotSeat(GameSeat):
    """A game's seat played by an HSLU bot by URL: the admin's list of remote bots (no table of its own)."""

    class Meta:
        proxy = True
        verbose_name = "remote bot in a game"


class Action(models.Model):
    """One move of a game, in order: the event log the game is rebuilt from."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="actions")
    seq = models.PositiveIntegerField()
    seat = models.PositiveSmallIntegerField()
    # "trump" (0..5, 10 = push), "card" (0..35); at Weis tables "weis" (a Weis code) and "stoeck" (the card)
    kind = models.CharField(max_length=6)
    value = models.PositiveSmallIntegerField()
    latency_ms = models.PositiveIntegerField(null=True, blank=True)  # a bot's thinking or answer time
    standin = models.BooleanField(default=False)  # played by a stand-in bot for the seat's person
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "seq"]
        constraints = [models.UniqueConstraint(fields=["game", "seq"], name="one_action_per_seq")]

    def to_engine(self) -> EngineAction:
        return EngineAction(self.kind, self.value)

    def __str__(self) -> str:
        shown = CARD_CODES[self.value] if self.kind == EngineAction.CARD else self.value
        return f"#{self.seq} seat {self.seat} {self.kind} {shown}"


class Fault(models.Model):
    """A remote bot's failure: a timeout or a bad answer, replaced by a random legal move."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="faults")
    seat = models.PositiveSmallIntegerField()
    seq = models.PositiveIntegerField(null=True, blank=True)  # the move played in its stead (none for game_info)
    round = models.PositiveSmallIntegerField()  # 0-based
    trick = models.PositiveSmallIntegerField(null=True, blank=True)  # 0-based; null: after the round (game_info)
    kind = models.CharField(max_length=20)
    detail = models.CharField(max_length=300)  # for everyone
    hidden_detail = models.CharField(max_length=300, blank=True)  # shown once the game is over
    latency_ms = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "created_at", "pk"]


class Worker(models.Model):
    """A running server process (or headless driver) that drives games; alive while its heartbeat is fresh.

    A game's ``driver`` names one worker. A worker renews every lease it holds with
    one heartbeat; when it stops beating for ``LEASE_SECONDS`` another worker takes
    its games over, and its connections (presence) are dropped.
    """

    id = models.CharField(primary_key=True, max_length=40)
    host = models.CharField(max_length=100, blank=True)
    pid = models.PositiveIntegerField(default=0)
    started_at = models.DateTimeField(auto_now_add=True)
    heartbeat_at = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return f"worker {self.id} ({self.host}:{self.pid})"


class Connection(models.Model):
    """One open websocket of a known person at a table: who is online, across all server processes."""

    channel_name = models.CharField(primary_key=True, max_length=120)
    worker = models.ForeignKey(Worker, on_delete=models.CASCADE, related_name="connections")
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="connections")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="connections")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["table", "player"])]


class GameAnalysis(models.Model):
    """The analysis of a game that is over (``games/pages/stored_analyses.py``): every decision judged, round by round.

    Made by a background job on a bot worker when a game ends, or by
    ``manage.py analyse``; each round's result is stored as it comes, so a
    restart resumes where it stopped.
    """

    QUEUED, RUNNING, DONE, FAILED = "queued", "running", "done", "failed"
    STATUSES = [(QUEUED, "Queued"), (RUNNING, "Running"), (DONE, "Done"), (FAILED, "Failed")]

    game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="analysis")
    status = models.CharField(max_length=10, choices=STATUSES, default=QUEUED)
    rounds_total = models.PositiveSmallIntegerField(default=0)
    rounds = models.JSONField(default=list)  # one entry per analysed round (bots.analysis.analyse_round)
    accuracy = models.JSONField(null=True, blank=True)  # per seat 0..3: percent, or null without decisions
    worker = models.CharField(max_length=40, blank=True)  # the Worker running it (empty: none)
    error = models.CharField(max_length=300, blank=True)
    seconds = models.FloatField(default=0.0)  # CPU seconds the rounds took, summed
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    @property
    def rounds_done(self) -> int:
        return len(self.rounds)


class SeatFields(Protocol):
    """A game seat's columns: a ``GameSeat``, or the ``SeatRow`` the move path reads (``games/live/fastpath.py``)."""

    id: int
    position: int
    player_id: int | None
    bot: str
    remote_url: str
    remote_dialect: str
    name: str
    last_latency_ms: int | None
    fault_count: int
    standin: str
    ready_round: int

    @property
    def pk(self) -> int: ...

    @property
    def kind(self) -> SeatKind: ...


class Occupant(Protocol):
    """What tells who plays a seat: a table's ``Seat``, a game's, or a row the live path reads."""

    player_id: int | None
    bot: str
    remote_url: str


def seat_kind(seat: Occupant) -> SeatKind:
    """Who plays a seat: a person, a built-in bot, an HSLU bot, or nobody."""
    if seat.player_id:
        return SeatKind.HUMAN
    if seat.bot:
        return SeatKind.BOT
    if seat.remote_url:
        return SeatKind.REMOTE
    return SeatKind.EMPTY


def deal_to_json(deal: Deal) -> dict[str, object]:
    """A deal as stored in ``Game.deals``: dealer, hands as HSLU codes, fair-pair facts."""
    return {
        "dealer": deal.dealer,
        "hands": [codes_of(hand) for hand in deal.hands],
        "repeats": deal.repeats,
        "permutation": list(deal.permutation),
    }


def deal_from_json(index: int, data: dict) -> Deal:
    hands = tuple(mask_from_codes(hand) for hand in data["hands"])
    return Deal(index, data["dealer"], four(hands), data.get("repeats"), four(data.get("permutation", (0, 1, 2, 3))))


def new_table(name: str, config: GameConfig, **fields: object) -> Table:
    """Store a table for games of ``config`` with its four seats, empty (the one place a table is made:
    the service, imports); ``fields`` are the rest."""
    table = Table.objects.create(
        name=name,
        mode=config.mode,
        target=config.target,
        round_count=config.round_count,
        multipliers=config.multipliers is not None,
        weis=config.weis,
        **fields,
    )
    Seat.objects.bulk_create([Seat(table=table, position=position) for position in range(4)])
    return table


def new_game(
    table: Table,
    config: GameConfig,
    deals: Iterable[Deal],
    seats: Iterable[dict[str, object]],
    schedule: Sequence[int] | None = None,
    **fields: object,
) -> Game:
    """Store a game of ``config`` at ``table``: its options, deals and four ``GameSeat`` rows (from
    ``seats``, each the fields of one, North first). The one place a game is made: a new game
    (``service.start_game``) and an imported one (``records.store_record``); ``fields`` are the rest."""
    game = Game.objects.create(
        table=table,
        mode=config.mode,
        target=config.target if config.mode == STANDARD else None,
        round_count=config.round_count if config.mode == FAIR else None,
        multipliers=list(config.multipliers) if config.multipliers else None,
        weis=config.weis,
        seed=config.seed,
        fair_schedule=list(schedule) if schedule is not None else None,
        deals=[deal_to_json(deal) for deal in deals],
        **fields,
    )
    GameSeat.objects.bulk_create([GameSeat(game=game, **seat) for seat in seats])
    return game


# -- statistics and ratings: written once, in the transaction that ends a game (games.summaries) --------


class Competitor(models.Model):
    """Whoever plays and can be rated: a person, a built-in bot by name, or a remote bot (name + URL).

    A remote bot is the name its inviter gave it plus its URL: two names for one URL are two
    competitors (two people's bots behind one service), as are two URLs with one name.
    """

    PERSON, BOT, REMOTE = "person", "bot", "remote"
    KINDS = [(PERSON, "Person"), (BOT, "Built-in bot"), (REMOTE, "Remote bot")]

    key = models.CharField(max_length=80, unique=True)  # person:<player id>, bot:<name>, remote:<hash>
    kind = models.CharField(max_length=6, choices=KINDS)
    player = models.OneToOneField(Player, null=True, blank=True, on_delete=models.CASCADE, related_name="competitor")
    bot = models.CharField(max_length=40, blank=True)
    remote_url = models.CharField(max_length=300, blank=True)
    name = models.CharField(max_length=60)  # a person's name at their last game; a bot's label or given name
    # OpenSkill (Plackett-Luce): skill ``mu`` with uncertainty ``sigma``; ranked by ``ordinal`` = mu - 3 sigma.
    mu = models.FloatField()
    sigma = models.FloatField()
    ordinal = models.FloatField(db_index=True)
    rated_games = models.PositiveIntegerField(default=0)
    rated_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.name} ({self.kind})"


class RatingLedger(models.Model):
    """One row: locked by every rating update, so that all updates have one order (``seq``) to replay."""

    last_seq = models.PositiveBigIntegerField(default=0)


class GameSummary(models.Model):
    """A finished game in a few numbers, for the statistics page: who won and by how much."""

    TABLE, ARENA = "table", "arena"  # played at a table (live or headless), or by ``arena --store``

    game = models.OneToOneField(Game, primary_key=True, on_delete=models.CASCADE, related_name="summary")
    mode = models.CharField(max_length=10)
    source = models.CharField(max_length=5, default=TABLE)
    private = models.BooleanField(default=False)
    finished_at = models.DateTimeField(db_index=True)
    points = models.JSONField()  # [team 0, team 1]
    winner = models.SmallIntegerField(null=True, blank=True)  # null: a draw
    margin = models.PositiveIntegerField()  # the winner's point advantage (0 on a draw)
    rounds = models.PositiveSmallIntegerField()
    rated = models.BooleanField(default=False)
    rating_seq = models.PositiveBigIntegerField(null=True, blank=True, unique=True)  # the order of rating updates


class TypeResult(models.Model):
    """One player type's result in one game as one team (thesis Table 4.1).

    Types are "people", "bot:<name>" and "remote:<name>". A team of two types gives two
    rows (one per type, each with its partner's type); a team of one type gives one row.
    """

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="type_results")
    team = models.PositiveSmallIntegerField()
    player_type = models.CharField(max_length=70)
    partner_type = models.CharField(max_length=70)
    mode = models.CharField(max_length=10)
    source = models.CharField(max_length=5)
    private = models.BooleanField(default=False)
    finished_at = models.DateTimeField(db_index=True)
    won = models.BooleanField()
    drawn = models.BooleanField()
    advantage = models.IntegerField()  # the team's points minus the other team's


class TeamMember(models.Model):
    """One competitor's result in one game as one team: a profile's games (once per team, seats merged)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="team_members")
    team = models.PositiveSmallIntegerField()
    competitor = models.ForeignKey(Competitor, on_delete=models.CASCADE, related_name="results")
    seat = models.PositiveSmallIntegerField()  # the first seat it held on that team
    seats = models.PositiveSmallIntegerField(default=1)  # 2 when it held both seats of the team
    mode = models.CharField(max_length=10)
    private = models.BooleanField(default=False)
    finished_at = models.DateTimeField()
    won = models.BooleanField()
    drawn = models.BooleanField()
    advantage = models.IntegerField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "team", "competitor"], name="one_member_per_team")]
        indexes = [models.Index(fields=["competitor", "-finished_at"])]


class DecisiveRound(models.Model):
    """A round of a fair game's decisive pair (thesis def. 4.1), seen from its starting player (forehand)."""

    EQUAL, SHOVING, NOT_SHOVING, OTHER = "equal", "shoving", "not_shoving", "other"  # thesis Figure 4.1

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="decisive_rounds")
    round_index = models.PositiveSmallIntegerField()
    starter_type = models.CharField(max_length=70)
    mode = models.CharField(max_length=10)
    source = models.CharField(max_length=5)
    private = models.BooleanField(default=False)
    finished_at = models.DateTimeField(db_index=True)
    rpa = models.IntegerField()  # the round point advantage of the starting team (def. 3.3)
    call = models.PositiveSmallIntegerField()  # the starter's decision: a trump 0..5, or 10 (push)
    # On one row of each pair (the one with the higher RPA): the pair's comparison of the two calls,
    # and whether the team that won the pair won the game (null on a tied pair).
    primary = models.BooleanField(default=False)
    comparison = models.CharField(max_length=11, blank=True)
    pair_winner_won_game = models.BooleanField(null=True)


class RatingChange(models.Model):
    """One competitor's rating before and after one rated game: the rating history."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="rating_changes")
    competitor = models.ForeignKey(Competitor, on_delete=models.CASCADE, related_name="rating_changes")
    seq = models.PositiveBigIntegerField()  # the game's place in the order of rating updates
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    mu = models.FloatField()
    sigma = models.FloatField()
    at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "competitor"], name="one_rating_change_per_game")]
        indexes = [models.Index(fields=["competitor", "seq"])]


# -- table chat (games/live/chat.py): beside a game's actions, never in its record ------------------------


class ChatMessage(models.Model):
    """Something said at a table: by the people playing (``players``) or by those watching (``spectators``)."""

    PLAYERS, SPECTATORS = "players", "spectators"
    ROOMS = [(PLAYERS, "Players"), (SPECTATORS, "Spectators")]

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="chat")
    game = models.ForeignKey(Game, null=True, blank=True, on_delete=models.SET_NULL, related_name="chat")
    seq = models.PositiveIntegerField(null=True, blank=True)  # the game's moves when it was said (the replay's place)
    player = models.ForeignKey(Player, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    name = models.CharField(max_length=60)  # the speaker's name when they said it
    room = models.CharField(max_length=10, choices=ROOMS)
    text = models.CharField(max_length=200)  # as typed (a quick phrase: its English words)
    phrase = models.CharField(max_length=20, blank=True)  # a quick phrase's key: each reader sees it in their language
    hidden = models.BooleanField(default=False)  # hidden by a moderator: shown to nobody any more
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["table", "pk"]
        indexes = [models.Index(fields=["table", "-id"])]

    def __str__(self) -> str:
        return f"{self.name}: {self.text}"


class ChatReport(models.Model):
    """A person's report of a message to the moderators (once per person and message)."""

    message = models.ForeignKey(ChatMessage, on_delete=models.CASCADE, related_name="reports")
    reporter = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    resolved = models.BooleanField(default=False)

    class Meta:
        ordering = ["-created_at"]
        constraints = [models.UniqueConstraint(fields=["message", "reporter"], name="one_report_per_person")]


class ChatMute(models.Model):
    """A person who no longer sees another's messages (their own choice; the other never knows)."""

    muter = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    muted = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["muter", "muted"], name="one_mute_per_pair")]
