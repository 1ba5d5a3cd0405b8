// Who is who at the table, from the store's view: the viewer's seat, the seats around them, names and teams.

import { botLabel as localBotLabel, botName, playerName, SEAT_NAMES } from "../dom.js";
import { gettext } from "../i18n.js";
import { store } from "./store.js";

export function game() {
  return store.view.game;
}

export function running() {
  return store.view.game !== null && store.view.game.status === "running";
}

/** The seat the viewer plays (in the running game, else at the table), or null for a spectator. */
export function mySeat() {
  if (running()) return store.view.you.game_seat ?? null;
  return store.view.you.seat ?? null;
}

/** Seats relative to the viewer: you at the bottom, the next to play on the right, your partner on top. */
export function positions() {
  const me = mySeat() ?? 2;
  return { bottom: me, right: (me + 3) % 4, top: (me + 2) % 4, left: (me + 1) % 4 };
}

export function positionOf(seat) {
  const pos = positions();
  return Object.keys(pos).find((key) => pos[key] === seat);
}

/** Who sits at `seat`: the game's player while a game runs, else the table's seat. */
export function seatPlayer(seat) {
  return running() ? store.view.game.players[seat] : store.view.seats[seat];
}

/** The name of who played `seat` in the current (or last) game, "You" for the viewer. */
export function gameWho(seat) {
  if (seat === store.view.you.game_seat) return gettext("You");
  const players = store.view.game ? store.view.game.players : [];
  const name = players[seat] ? playerName(players[seat]) : SEAT_NAMES[seat];
  const twins = players.filter((p) => p.seat !== seat && playerName(p) === name);
  return twins.length ? `${name} (${SEAT_NAMES[seat]})` : name;
}

/** `gameWho` inside a sentence: "you" for the viewer ("Waiting for you & Anna"), never "You". */
export function whoInText(seat) {
  return seat === store.view.you.game_seat ? gettext("you") : gameWho(seat);
}

export function seatName(seat) {
  const player = seatPlayer(seat);
  return player && player.name ? playerName(player) : SEAT_NAMES[seat];
}

/** "You", or the seat's name, with its compass point when another seat has the same name (bots). */
export function who(seat) {
  if (seat === mySeat()) return gettext("You");
  const name = seatName(seat);
  const twins = [0, 1, 2, 3].filter((s) => s !== seat && seatName(s) === name);
  return twins.length ? `${name} (${SEAT_NAMES[seat]})` : name;
}

export function teamLabel(team) {
  const me = mySeat();
  if (me !== null) return team === me % 2 ? gettext("You & partner") : gettext("Opponents");
  return team === 0 ? gettext("North & South") : gettext("East & West");
}

/** A team's two names, short: a built-in bot by its label ("MCTS (strong)"), with its compass point
 * ("MCTS (strong) E") where the table has another seat of the same name (three strong bots). */
export function teamNames(team) {
  const players = store.view.game ? store.view.game.players : store.view.seats;
  const named = (p) => (p && p.name ? (p.kind === "bot" && p.bot ? localBotLabel(p.bot, p.name) : p.name) : "");
  const names = [0, 1, 2, 3].map((s) => named(players[s]));
  return [team, team + 2].map((s) => {
    if (!names[s]) return SEAT_NAMES[s];
    const twin = names.some((n, other) => other !== s && n === names[s]);
    return twin ? `${names[s]} ${SEAT_NAMES[s].charAt(0)}` : names[s];
  }).join(" & ");
}

/** The viewer's team: their seat's, or North & South for spectators. */
export function viewerTeam() {
  const me = mySeat();
  return me === null ? 0 : me % 2;
}

/** "clock" or "left" when a stand-in bot plays the viewer's seat in the running game, else null. */
export function myStandin() {
  const g = game();
  const me = store.view.you.game_seat;
  if (!running() || me === null || me === undefined) return null;
  return g.players[me].standin || null;
}

/** The stand-in bot playing for a person, by name in the page's language. */
export function standinName(player) {
  const g = game();
  return botName(g ? g.standin_bot : store.view.table.standin_bot, player.standin_label || gettext("bot"));
}

/** Whether the person at `seat` has the table open; null for bots and empty seats. */
export function isOnline(player) {
  if (!player || !player.player_id) return null;
  return (store.view.online || []).includes(player.player_id);
}

/** The strongest built-in bot when it is there, else the first one listed. */
export function defaultBot() {
  return (store.view.bots.find((b) => b.name === "rules") || store.view.bots[0]).name;
}

export function botLabel(name) {
  const bot = store.view.bots.find((b) => b.name === name);
  return localBotLabel(name, bot ? bot.label : name);
}

/** The other people still playing their seats in the running game (they vote on abandoning it). */
export function otherPeople() {
  const g = game();
  if (!running()) return [];
  return g.players.filter((p) => p.kind === "human" && p.standin !== "left" && p.seat !== store.view.you.game_seat)
    .map((p) => p.seat);
}
