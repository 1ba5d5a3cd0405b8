// Talking to the server: the socket, what the viewer does (moves, choices, answers), and each state it sends.

import { reasonText } from "../cards.js";
import { ChatPanel } from "../chat.js";
import { SEAT_NAMES } from "../dom.js";
import { gettext, interpolate } from "../i18n.js";
import { InviteDialog } from "../invite.js";
import * as notify from "../notify.js";
import { ReconnectingSocket } from "../socket.js";
import { autoStoeck, weisNews } from "../weis.js";
import { announce, toast } from "./messages.js";
import { game, mySeat, running, teamLabel, who } from "./people.js";
import { store } from "./store.js";
import { app, ui } from "./ui.js";
import { humanize, summaryHeadline } from "./words.js";

const PENDING_TIMEOUT_MS = 6000;
const RESYNC_GAP_MS = 3000; // at most one resync for missed events in this time

export const socket = new ReconnectingSocket(app.dataset.socketPath, {
  heartbeat: true, // a table that stops hearing from the server says so within seconds
  pingFields: () => ({ version: store.version }), // an event lost on its way (a Redis outage) is sent again at the next ping
  onMessage: receive,
  onOpen: () => {
    chat.opened();
    if (store.pending && store.pending.held) {
      socket.send(store.pending.held);
      store.heldMoveSent();
    }
  },
  onStatus: (status) => {
    app.dataset.socket = status; // "open" | "reconnecting" | "closed" (tests wait on it)
    ui.connection.hidden = status === "open";
    ui.connection.lastChild.textContent = ` ${status === "closed" ? gettext("Disconnected") : gettext("Reconnecting…")}`;
  },
});

/** Send `message`, or say that the page is not connected right now (false). */
export function send(message) {
  if (!socket.send(message)) {
    toast(gettext("Not connected right now: reconnecting, try again in a moment."), "info");
    return false;
  }
  return true;
}

export const invite = new InviteDialog(ui.invite, {
  send: (message) => socket.send(message), // the dialog says itself when that fails
  timeoutSeconds: () => store.view.table.bot_timeout_s || 5,
  onSeated: (seat, name) => {
    announce(interpolate(gettext("%(name)s sits at %(seat)s."), { name, seat: SEAT_NAMES[seat] }, true));
    (app.querySelector(`[data-testid=remove-bot-${seat}]`) || app.querySelector("[data-testid=start]"))?.focus();
  },
});

export const chat = new ChatPanel(ui.chat, { send: (message) => socket.send(message), me: store.view.you.player_id ?? null });

/** A message from the server: a reply to the invite dialog or the chat, a state, or a refusal. */
function receive(message) {
  if (invite.receive(message)) return; // the reply to the invite dialog's test or seat request
  if (chat.receive(message)) return; // said at the table, or the chat's own refusals
  if (message.type === "state") {
    // Events are numbered: a gap means we missed one. This state is complete, but ask for a fresh
    // one anyway (at most every few seconds), as the server may have more to tell.
    const { news, gap } = store.stateArrived(message);
    if (!news) return; // an older state overtaken by a newer one
    applyView(message.view);
    chat.viewChanged(message.view);
    noticeRematch();
    if (gap && store.resyncAllowed(RESYNC_GAP_MS)) send({ type: "resync" });
  } else if (message.type === "error") {
    store.moveAnswered();
    if (message.code === "stale") send({ type: "resync" });
    toast(humanize(message.message));
    store.changed();
  }
}

/** Take a view the server sent: tell what happened since the last one, and show it. */
function applyView(next) {
  const before = store.viewReceived(next);
  const previousGame = before.view.game && before.view.game.id;
  const previousWeis = before.view.game ? before.view.game.weis : null;
  syncSummary();
  if (store.view.game && store.view.game.id === previousGame) {
    for (const news of weisNews(previousWeis, store.view.game.weis, who, teamLabel, mySeat())) {
      toast(`${news.text}.`, news.good ? "good" : "info");
      announce(`${news.text}.`);
    }
  }
  if (store.timeoutConfirmed()) {
    announce(interpolate(gettext("Bot timeout set to %(seconds)s seconds."), { seconds: store.view.table.bot_timeout_s }, true));
  }
  if (store.clockConfirmed()) {
    announce(store.view.table.turn_clock_s
      ? interpolate(gettext("Turn clock set to %(seconds)s seconds a move."), { seconds: store.view.table.turn_clock_s }, true)
      : gettext("Turn clock off."));
  }
  const completedKey = store.completedKey;
  if (store.pending && (!store.view.game || store.view.game.seq !== store.pending.seq)) store.moveAnswered();
  if (store.view.game && store.view.game.id === previousGame && completedKey && completedKey !== before.completedKey) {
    startLinger(store.view.game.previous_trick);
  } else if (store.linger && running() && store.view.game.player === mySeat() && store.view.game.trick.length) {
    // You must follow a card led meanwhile: show the new trick soon rather than the old one.
    store.lingerShortened();
  }
  store.changed();
  invite.update(store.view, running());
}

/** A move of the game (a card, a trump, a Weis): shown as sending until the server answers. */
export function move(message, card = null) {
  if (store.pending || !running()) return;
  const outgoing = { ...message, seq: store.view.game.seq };
  // The page shows the game before its socket is open (just after a reload): a move made in that
  // moment is shown as sending and goes out when the socket opens. The move number it carries
  // keeps it from landing on any later position; the server refuses it then.
  const held = socket.isConnecting ? outgoing : null;
  if (!held && !send(outgoing)) return;
  store.moveSent(store.view.game.seq, card, held, () => {
    send({ type: "resync" });
    store.changed();
  }, PENDING_TIMEOUT_MS);
  if (card) store.lingerEnded();
  store.changed();
}

export function playCard(code) {
  const g = game();
  if (!g || store.pending) return;
  if (g.player !== mySeat() || g.phase !== "play") {
    toast(g.phase === "trump" && g.player === mySeat() ? gettext("Choose trump first.")
      : interpolate(gettext("Not your turn: waiting for %(name)s."), { name: who(g.player) }, true));
    return;
  }
  if (!(g.legal || []).includes(code)) {
    toast(`${reasonText((g.why_not || {})[code])}.`);
    return;
  }
  const stoeck = g.announce && g.announce.stoeck === code && autoStoeck();
  move(stoeck ? { type: "play_card", card: code, stoeck: true } : { type: "play_card", card: code }, code);
}

export function chooseTrump(trump) {
  move({ type: "choose_trump", trump });
}

/** A trick was completed: it stays on the table a moment, and the screen reader says who took it. */
function startLinger(trick) {
  store.lingerStarted(trick);
  announce(trick.winner === mySeat()
    ? interpolate(gettext("You take the trick (%(points)s points)."), { points: trick.points }, true)
    : interpolate(gettext("%(name)s takes the trick (%(points)s points)."), { name: who(trick.winner), points: trick.points }, true));
}

/**
 * The server holds a new deal back while people read the last round's summary (`game.pause`): until
 * its time runs out or every person playing who has the table open pressed Continue (then it closes
 * for everyone at once), or someone makes the deal's first move.
 */
function syncSummary() {
  const g = store.view.game;
  const p = g && g.status === "running" ? g.pause : null;
  const left = p ? p.until - store.now() : 0;
  if (!p || left <= 0 || pauseOver(p)) {
    store.summaryEnded();
    return;
  }
  if (store.summaryHeld(g.id, p.round, left)) announce(summaryHeadline(g, g.rounds[p.round - 1]));
}

/** The same rule as the server's (`snapshot.pause_over`): every person playing who is online is ready. */
function pauseOver(p) {
  const online = p.people.filter((s) => store.view.online.includes(store.view.game.players[s].player_id));
  return online.length > 0 && online.every((s) => p.ready.includes(s));
}

/** Continue: a person playing tells the table they are ready; anyone else just closes it for themselves. */
export function continueSummary() {
  const p = game() && game().pause;
  const me = mySeat();
  if (store.summary && p && me !== null && p.people.includes(me)) {
    if (!p.ready.includes(me)) send({ type: "ready", round: p.round });
    return;
  }
  closeSummary();
}

function closeSummary() {
  if (!store.summary) return;
  store.summaryClosed();
  store.changed();
}

export function closeResult() {
  store.resultDismissed(game().id);
  store.changed();
  (app.querySelector("[data-testid=start]") || ui.hand).focus();
}

/** An offer to play again that waits for this person's answer: a background page tells them. */
function noticeRematch() {
  const offer = store.view.rematch;
  const me = store.view.you.player_id;
  if (!offer || offer.refused_by !== null || offer.accepted.includes(me) || !offer.voters.includes(me)) return;
  if (store.noticedRematch === offer.until) return;
  store.rematchNoticed(offer.until);
  notify.waiting(gettext("Play again?"), interpolate(gettext("%(name)s offers to play again."), { name: offer.by_name }, true),
    { tag: `rematch-${store.view.table.id}` });
}
