"""Tournaments as rows: the tournament, its entrants (teams of two seats), its matches and their games.

A tournament's games are ordinary games (``games.Game``) at tables the tournament
arranges; nothing here stores a result. A match's result is read from its games
(their points and status) and from the forfeits recorded here, and the standings
from the matches (``tournaments.pairing``), so the standings always agree with
the games' records.
"""

from __future__ import annotations

import secrets

from django.db import models

from games.models import Game, Player


def new_token() -> str:
    """An unguessable token for a team's invitation link (128 bits)."""
    return secrets.token_urlsafe(16)


class Tournament(models.Model):
    """A tournament: its owner, format, match format, options, and where it stands."""

    REGISTRATION, RUNNING, FINISHED, CANCELLED = "registration", "running", "finished", "cancelled"
    STATUSES = [
        (REGISTRATION, "Registration"),
        (RUNNING, "Running"),
        (FINISHED, "Finished"),
        (CANCELLED, "Cancelled"),
    ]
    ROUND_ROBIN, SWISS = "round-robin", "swiss"
    FORMATS = [(ROUND_ROBIN, "Round robin"), (SWISS, "Swiss system")]
    FAIR_MATCH, STANDARD_MATCH = "fair", "standard"
    # A match is one fair game of ``round_count`` rounds (every deal played by both teams), or two standard
    # games to ``target`` with the same deals and the teams' seats swapped.
    MATCH_MODES = [(FAIR_MATCH, "One fair game"), (STANDARD_MATCH, "Two standard games, seats swapped")]

    owner = models.ForeignKey(Player, null=True, blank=True, on_delete=models.SET_NULL, related_name="tournaments")
    name = models.CharField(max_length=80)
    format = models.CharField(max_length=12, choices=FORMATS, default=ROUND_ROBIN)
    rounds = models.PositiveSmallIntegerField(default=0)  # Swiss: the number of rounds; round robin: set at start
    match_mode = models.CharField(max_length=10, choices=MATCH_MODES, default=FAIR_MATCH)
    round_count = models.PositiveSmallIntegerField(default=4)  # a fair match's rounds (even)
    target = models.PositiveIntegerField(default=1000)  # a standard match's games are played to this
    weis = models.BooleanField(default=False)
    rated = models.BooleanField(default=False)  # the games move the OpenSkill ratings
    seed = models.BigIntegerField()  # pairs the first Swiss round and deals every game
    max_games = models.PositiveSmallIntegerField(default=8)  # games at once in this tournament
    max_games_per_url = models.PositiveSmallIntegerField(default=2)  # games at once per HSLU bot URL (site-wide)
    turn_clock_s = models.PositiveSmallIntegerField(default=60)  # people's tables; a team absent this long forfeits
    bot_timeout_s = models.PositiveSmallIntegerField(default=5)  # HSLU bots: seconds per answer
    starts_at = models.DateTimeField(null=True, blank=True)  # registration closes and play starts (or by hand)
    status = models.CharField(max_length=12, choices=STATUSES, default=REGISTRATION, db_index=True)
    current_round = models.PositiveSmallIntegerField(default=0)  # the last round paired (0: none yet)
    version = models.PositiveIntegerField(default=0)  # bumped by every change: numbers the page's updates
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} (#{self.pk})"

    @property
    def is_over(self) -> bool:
        return self.status in (self.FINISHED, self.CANCELLED)


class Entrant(models.Model):
    """A team of two seats: two people, a person and a bot partner, or a bot on both seats."""

    PENDING, READY, WITHDRAWN, DROPPED = "pending", "ready", "withdrawn", "dropped"
    # pending: a person waits for their partner to accept the invitation; dropped: still pending at the start.
    STATUSES = [(PENDING, "Waiting for a partner"), (READY, "Ready"), (WITHDRAWN, "Withdrawn"), (DROPPED, "Dropped")]

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entrants")
    order = models.PositiveSmallIntegerField()  # registration order: the last tie-break
    name = models.CharField(max_length=60)
    status = models.CharField(max_length=10, choices=STATUSES, default=READY)
    registered_by = models.ForeignKey(Player, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    invite_token = models.CharField(max_length=32, default=new_token)  # the partner's invitation link
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["tournament", "order"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "order"], name="one_entrant_per_order"),
            models.UniqueConstraint(fields=["tournament", "name"], name="one_team_name_per_tournament"),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def plays(self) -> bool:
        return self.status == self.READY


class Member(models.Model):
    """One of a team's two seats: a person, a built-in bot, or an HSLU bot by URL (``slot`` 0 or 1)."""

    entrant = models.ForeignKey(Entrant, on_delete=models.CASCADE, related_name="members")
    slot = models.PositiveSmallIntegerField()  # 0 sits North or East, 1 South or West
    player = models.ForeignKey(Player, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    bot = models.CharField(max_length=40, blank=True)
    remote_url = models.CharField(max_length=300, blank=True)
    remote_name = models.CharField(max_length=40, blank=True)
    remote_dialect = models.CharField(max_length=10, blank=True)

    class Meta:
        ordering = ["entrant", "slot"]
        constraints = [models.UniqueConstraint(fields=["entrant", "slot"], name="one_member_per_slot")]

    @property
    def is_person(self) -> bool:
        return self.player_id is not None

    @property
    def is_empty(self) -> bool:
        return not (self.player_id or self.bot or self.remote_url)


class Match(models.Model):
    """Two teams that meet in a round (``b`` empty: ``a``'s bye); each of its games has a table of its own."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="matches")
    round_number = models.PositiveSmallIntegerField()  # from 1
    index = models.PositiveSmallIntegerField()  # within the round
    a = models.ForeignKey(Entrant, on_delete=models.CASCADE, related_name="+")
    b = models.ForeignKey(Entrant, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    # The teams that did not show (or withdrew) and so lost: "" none, "a", "b" or "ab".
    forfeit = models.CharField(max_length=2, blank=True)

    class Meta:
        ordering = ["tournament", "round_number", "index"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "round_number", "index"], name="one_match_per_place")
        ]

    def __str__(self) -> str:
        return f"round {self.round_number} match {self.index} of {self.tournament_id}"


class MatchGame(models.Model):
    """One game of a match: its seed and seats (``a_side`` 0: team ``a`` sits North/South), then its game."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="games")
    index = models.PositiveSmallIntegerField()
    seed = models.BigIntegerField()
    a_side = models.PositiveSmallIntegerField()
    # Set in the transaction that starts the game: a game is started once, whichever process starts it.
    game = models.OneToOneField(Game, null=True, blank=True, on_delete=models.SET_NULL, related_name="tournament_game")

    class Meta:
        ordering = ["match", "index"]
        constraints = [models.UniqueConstraint(fields=["match", "index"], name="one_match_game_per_index")]
