// Sentences about the game shown in more than one place (the score bar, the round's summary, the result).

import { suitTag } from "../cards.js";
import { h } from "../dom.js";
import { gettext, interpolate, ngettext } from "../i18n.js";
import { mySeat, teamLabel, viewerTeam, whoInText } from "./people.js";
import { store } from "./store.js";

/** A refusal from the server as a sentence: a capital first, a full stop last. */
export function humanize(text) {
  return text ? text[0].toUpperCase() + text.slice(1) + (/[.!?]$/.test(text) ? "" : ".") : gettext("Refused.");
}

/** The table's kind of game in a line: "Fair · 8 rounds · Weis & Stöck". */
export function lengthText() {
  const t = store.view.table;
  const length = t.mode === "fair"
    ? interpolate(ngettext("Fair · %(count)s round", "Fair · %(count)s rounds", t.round_count), { count: t.round_count }, true)
    : interpolate(gettext("Standard · to %(target)s"), { target: t.target }, true);
  const weis = t.weis ? `${length} · ${gettext("Weis & Stöck")}` : length;
  return t.multipliers ? `${weis} · ${gettext("multipliers")}` : weis;
}

/** The round being played: "Round 3 of 8", and whose hands it deals again. */
export function roundText(g) {
  const text = g.mode === "fair"
    ? interpolate(gettext("Round %(round)s of %(count)s"), { round: g.round, count: g.round_count }, true)
    : interpolate(gettext("Round %(round)s"), { round: g.round }, true);
  const current = g.rounds[g.round - 1];
  return current && current.repeats && !g.over
    ? `${text} · ${interpolate(gettext("round %(round)s's hands again"), { round: current.repeats }, true)}` : text;
}

/** Who the summary still waits for, in words: "Waiting for Anna · 4 s". */
export function waitingText(p) {
  const online = p.people.filter((s) => store.view.online.includes(store.view.game.players[s].player_id));
  const names = online.filter((s) => !p.ready.includes(s)).map(whoInText);
  const left = Math.max(0, Math.ceil((p.until - store.now()) / 1000));
  return interpolate(gettext("Waiting for %(names)s · %(seconds)s s"), { names: names.join(" & ") || gettext("the others"), seconds: left }, true);
}

function signed(value) {
  return value > 0 ? `+${value}` : value < 0 ? `−${-value}` : "±0";
}

export function summaryHeadline(g, r) {
  const mine = viewerTeam();
  const made = r.points[mine];
  const ours = mySeat() === null ? teamLabel(mine) : gettext("You & partner");
  const theirs = mySeat() === null ? teamLabel(1 - mine) : gettext("opponents");
  return interpolate(gettext("Round %(round)s: %(ours)s %(made)s, %(theirs)s %(their_points)s"),
    { round: r.round, ours, made, theirs, their_points: r.points[1 - mine] }, true)
    + (r.match ? ` · ${gettext("Match!")}` : "");
}

/** "Round 3 deals round 2's hands again, suits swapped ♦→♠ ♠→♦: the other team holds them now." (suits in the deck's symbols) */
export function repeatText(r) {
  const suits = "DHSC";
  const swaps = (r.permutation || []).map((to, from) => (to === from ? null
    : h("span", { class: "suit-swap" }, " ", suitTag(suits[from]), "→", suitTag(suits[to])))).filter(Boolean);
  return [interpolate(gettext("Round %(round)s deals round %(repeats)s's hands again"), { round: r.round, repeats: r.repeats }, true),
    swaps.length ? [`, ${gettext("suits swapped")}`, swaps] : null,
    `: ${gettext("the other team holds them now.")}`];
}

/** A fair pair's result from the viewer's side: "you +23" (or "North & South +23" for spectators). */
export function pairText(p) {
  const mine = viewerTeam();
  const advantage = p.advantage ? p.advantage[mine] : null;
  const whose = mySeat() === null ? teamLabel(mine) : gettext("you");
  return {
    label: interpolate(gettext("Pair %(number)s (rounds %(first)s & %(second)s)"), { number: p.number, first: p.rounds[0], second: p.rounds[1] }, true),
    value: advantage === null ? gettext("still to play") : `${whose} ${signed(advantage)}`,
    advantage,
  };
}

export function resultHeadline(g) {
  if (g.winner === null || g.winner === undefined) return gettext("It's a draw!");
  const me = mySeat();
  if (me !== null && store.view.you.game_seat !== undefined && store.view.you.game_seat !== null) {
    return g.winner === store.view.you.game_seat % 2 ? gettext("You won!") : gettext("You lost.");
  }
  return g.winner === 0 ? gettext("North & South win!") : gettext("East & West win!");
}

/** Why a game was abandoned, in the page's language (the parts of games/catalogue.py: abandon_parts). */
export function abandonText(parts) {
  if (!parts) return "";
  if (parts.kind === "player") return gettext("a player ended it");
  if (parts.kind === "vote") return interpolate(gettext("%(name)s asked and the other players agreed"), { name: parts.name }, true);
  if (parts.kind === "away") {
    if (parts.seconds < 60) return interpolate(gettext("nobody was at the table for %(count)s seconds"), { count: parts.seconds }, true);
    const minutes = Math.round(parts.seconds / 60);
    return interpolate(ngettext("nobody was at the table for %(count)s minute", "nobody was at the table for %(count)s minutes", minutes), { count: minutes }, true);
  }
  return parts.text || "";
}
