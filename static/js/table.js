// The table page: renders the view the server sends (initially via json_script, then over the socket)
// and turns clicks into the websocket messages of games/consumers.py.

import { cardBack, cardElement, cardName, reasonText, sortHand, suitTag, trumpLabel, trumpMark, TRUMPS } from "./cards.js";
import { botIcon, botLabel as localBotLabel, botName, clockIcon, h, jsonFromScript, playerName, SEAT_NAMES } from "./dom.js";
import { faultCountText, faultList, latencyText } from "./faults.js";
import { gettext, interpolate, ngettext, pgettext } from "./i18n.js";
import { ChatPanel } from "./chat.js";
import * as notify from "./notify.js";
import { InviteDialog } from "./invite.js";
import { ReconnectingSocket } from "./socket.js";
import { autoStoeck, weisBar, weisNews, weisPanel, weisSummaryLines } from "./weis.js";

const LINGER_MS = 1300; // how long a completed trick stays on the table before it is swept away
const MIN_LINGER_MS = 600; // ...at least, even when it is your turn to follow a card already led
const PENDING_TIMEOUT_MS = 6000;
const RESYNC_GAP_MS = 3000; // at most one resync for missed events in this time
const PHONE = window.matchMedia("(max-width: 640px)"); // as the stylesheet's phone layout

const app = document.getElementById("table-app");
const $ = (testid) => app.querySelector(`[data-testid="${testid}"]`);
const ui = {
  scores: $("scores"),
  sub: $("table-sub"),
  connection: $("connection"),
  trump: $("trump"),
  seats: { top: $("seat-top"), left: $("seat-left"), right: $("seat-right"), bottom: $("seat-bottom") },
  trick: $("trick"),
  trickCaption: $("trick-caption"),
  scoreTrump: $("scorebar-trump"),
  center: $("center-panel"),
  summary: $("round-summary"),
  hand: $("hand"),
  handNote: $("hand-note"),
  weisBar: $("weis-bar"),
  weisPanel: $("weis-panel"),
  lastTrickToggle: $("last-trick-toggle"),
  lastTrick: $("last-trick"),
  sheet: $("score-sheet"),
  info: $("table-info"),
  faults: $("faults-panel"),
  result: $("result"),
  toasts: $("toasts"),
  announcer: $("announcer"),
  vote: $("abandon-vote"),
};

let view = jsonFromScript("initial-view");
let version = view.version;
let pending = null; // {seq, card?, timer}: a move sent and not yet answered
let linger = null; // {trick, timer}: a completed trick still shown
let completedKey = trickKey(view);
let dismissedResult = null; // game id whose result panel was closed
const botChoice = {}; // seat -> bot name picked in a select, kept across renders
let lastAnnouncedTurn = null;
let shownTrickCards = new Set();
let infoSignature = null; // the table panel is rebuilt only when what it shows changes
let timeoutDraft = null; // a bot timeout typed and not yet saved
let focusedTurn = null; // the turn the keyboard focus was last brought to
let summary = null; // { game, round, timer, closed }: the round just ended, over the table while its pause holds
let clockDraft = null; // { seconds, bot }: a turn clock chosen and not yet saved (kept across renders)
let clockSaving = null; // the clock sent, until the table shows it
let timeoutSaving = null; // a bot timeout sent and not yet confirmed
let clockOffset = 0; // the server's clock minus ours (ms), for the turn clock
let rematchTimer = null; // redraws the result when an offer to play again lapses
let lastResync = 0;
let clockTimer = null;
let voteTimer = null; // hides a request to abandon the game when it lapses

// -- whose view is this ---------------------------------------------------------

function game() {
  return view.game;
}

function running() {
  return view.game !== null && view.game.status === "running";
}

/** The seat the viewer plays (in the running game, else at the table), or null for a spectator. */
function mySeat() {
  if (running()) return view.you.game_seat ?? null;
  return view.you.seat ?? null;
}

/** Seats relative to the viewer: you at the bottom, the next to play on the right, your partner on top. */
function positions() {
  const me = mySeat() ?? 2;
  return { bottom: me, right: (me + 3) % 4, top: (me + 2) % 4, left: (me + 1) % 4 };
}

function positionOf(seat) {
  const pos = positions();
  return Object.keys(pos).find((key) => pos[key] === seat);
}

/** Who sits at `seat`: the game's player while a game runs, else the table's seat. */
function seatPlayer(seat) {
  return running() ? view.game.players[seat] : view.seats[seat];
}

/** The name of who played `seat` in the current (or last) game, "You" for the viewer. */
function gameWho(seat) {
  if (seat === view.you.game_seat) return gettext("You");
  const players = view.game ? view.game.players : [];
  const name = players[seat] ? playerName(players[seat]) : SEAT_NAMES[seat];
  const twins = players.filter((p) => p.seat !== seat && playerName(p) === name);
  return twins.length ? `${name} (${SEAT_NAMES[seat]})` : name;
}

/** `gameWho` inside a sentence: "you" for the viewer ("Waiting for you & Anna"), never "You". */
function whoInText(seat) {
  return seat === view.you.game_seat ? gettext("you") : gameWho(seat);
}

function seatName(seat) {
  const player = seatPlayer(seat);
  return player && player.name ? playerName(player) : SEAT_NAMES[seat];
}

/** "You", or the seat's name, with its compass point when another seat has the same name (bots). */
function who(seat) {
  if (seat === mySeat()) return gettext("You");
  const name = seatName(seat);
  const twins = [0, 1, 2, 3].filter((s) => s !== seat && seatName(s) === name);
  return twins.length ? `${name} (${SEAT_NAMES[seat]})` : name;
}

function teamLabel(team) {
  const me = mySeat();
  if (me !== null) return team === me % 2 ? gettext("You & partner") : gettext("Opponents");
  return team === 0 ? gettext("North & South") : gettext("East & West");
}

/** A team's two names, short: a built-in bot by its label ("MCTS (strong)"), with its compass point
 * ("MCTS (strong) E") where the table has another seat of the same name (three strong bots). */
function teamNames(team) {
  const players = view.game ? view.game.players : view.seats;
  const named = (p) => (p && p.name ? (p.kind === "bot" && p.bot ? localBotLabel(p.bot, p.name) : p.name) : "");
  const names = [0, 1, 2, 3].map((s) => named(players[s]));
  return [team, team + 2].map((s) => {
    if (!names[s]) return SEAT_NAMES[s];
    const twin = names.some((n, other) => other !== s && n === names[s]);
    return twin ? `${names[s]} ${SEAT_NAMES[s].charAt(0)}` : names[s];
  }).join(" & ");
}

function trickKey(v) {
  const prev = v.game && v.game.previous_trick;
  return prev ? `${v.game.id}:${prev.round}:${prev.cards.map((c) => c.card).join(",")}` : null;
}

// -- talking to the server ------------------------------------------------------------

const socket = new ReconnectingSocket(app.dataset.socketPath, {
  heartbeat: true, // a table that stops hearing from the server says so within seconds
  pingFields: () => ({ version }), // an event lost on its way (a Redis outage) is sent again at the next ping
  onMessage: receive,
  onOpen: () => {
    chat.opened();
    if (pending && pending.held) {
      socket.send(pending.held);
      pending.held = null;
    }
  },
  onStatus: (status) => {
    app.dataset.socket = status; // "open" | "reconnecting" | "closed" (tests wait on it)
    ui.connection.hidden = status === "open";
    ui.connection.lastChild.textContent = ` ${status === "closed" ? gettext("Disconnected") : gettext("Reconnecting…")}`;
  },
});

function send(message) {
  if (!socket.send(message)) {
    toast(gettext("Not connected right now: reconnecting, try again in a moment."), "info");
    return false;
  }
  return true;
}

const invite = new InviteDialog($("invite-dialog"), {
  send: (message) => socket.send(message), // the dialog says itself when that fails
  timeoutSeconds: () => view.table.bot_timeout_s || 5,
  onSeated: (seat, name) => {
    announce(interpolate(gettext("%(name)s sits at %(seat)s."), { name, seat: SEAT_NAMES[seat] }, true));
    (app.querySelector(`[data-testid=remove-bot-${seat}]`) || app.querySelector("[data-testid=start]"))?.focus();
  },
});

const chat = new ChatPanel($("chat-panel"), { send: (message) => socket.send(message), me: view.you.player_id ?? null });

function receive(message) {
  if (invite.receive(message)) return; // the reply to the invite dialog's test or seat request
  if (chat.receive(message)) return; // said at the table, or the chat's own refusals
  if (message.type === "state") {
    if (message.version < version) return; // an older state overtaken by a newer one
    // Events are numbered: a gap means we missed one. This state is complete, but ask for a fresh
    // one anyway (at most every few seconds), as the server may have more to tell.
    const gap = version >= 0 && message.version > version + 1;
    version = message.version;
    if (typeof message.now === "number") clockOffset = message.now - Date.now();
    applyView(message.view);
    chat.viewChanged(message.view);
    noticeRematch();
    if (gap && Date.now() - lastResync > RESYNC_GAP_MS) {
      lastResync = Date.now();
      send({ type: "resync" });
    }
  } else if (message.type === "error") {
    clearPending();
    if (message.code === "stale") send({ type: "resync" });
    toast(humanize(message.message));
    render();
  }
}

function humanize(text) {
  return text ? text[0].toUpperCase() + text.slice(1) + (/[.!?]$/.test(text) ? "" : ".") : gettext("Refused.");
}

function applyView(next) {
  const previousKey = completedKey;
  const previousGame = view.game && view.game.id;
  const previousWeis = view.game ? view.game.weis : null;
  view = next;
  syncSummary();
  if (view.game && view.game.id === previousGame) {
    for (const news of weisNews(previousWeis, view.game.weis, who, teamLabel, mySeat())) {
      toast(`${news.text}.`, news.good ? "good" : "info");
      announce(`${news.text}.`);
    }
  }
  if (timeoutSaving !== null && timeoutSaving === view.table.bot_timeout_s) {
    timeoutSaving = null;
    timeoutDraft = null;
    announce(interpolate(gettext("Bot timeout set to %(seconds)s seconds."), { seconds: view.table.bot_timeout_s }, true));
  }
  if (clockSaving && clockSaving.seconds === view.table.turn_clock_s && clockSaving.bot === view.table.standin_bot
    && clockSaving.pause === view.table.round_pause_s) {
    clockSaving = null;
    clockDraft = null;
    announce(view.table.turn_clock_s
      ? interpolate(gettext("Turn clock set to %(seconds)s seconds a move."), { seconds: view.table.turn_clock_s }, true)
      : gettext("Turn clock off."));
  }
  completedKey = trickKey(view);
  if (pending && (!view.game || view.game.seq !== pending.seq)) clearPending();
  if (view.game && view.game.id === previousGame && completedKey && completedKey !== previousKey) {
    startLinger(view.game.previous_trick);
  } else if (linger && running() && view.game.player === mySeat() && view.game.trick.length) {
    // You must follow a card led meanwhile: show the new trick soon rather than the old one.
    shortenLinger(MIN_LINGER_MS);
  }
  render();
  invite.update(view, running());
}

function clearPending() {
  if (pending) clearTimeout(pending.timer);
  pending = null;
}

function move(message, card = null) {
  if (pending || !running()) return;
  const outgoing = { ...message, seq: view.game.seq };
  // The page shows the game before its socket is open (just after a reload): a move made in that
  // moment is shown as sending and goes out when the socket opens. The move number it carries
  // keeps it from landing on any later position; the server refuses it then.
  const held = socket.isConnecting ? outgoing : null;
  if (!held && !send(outgoing)) return;
  pending = { seq: view.game.seq, card, held, timer: setTimeout(() => {
    clearPending();
    send({ type: "resync" });
    render();
  }, PENDING_TIMEOUT_MS) };
  if (card) stopLinger();
  render();
}

function playCard(code) {
  const g = game();
  if (!g || pending) return;
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

function chooseTrump(trump) {
  move({ type: "choose_trump", trump });
}

// -- the completed trick, shown a moment before it is swept away -----------------------

function startLinger(trick) {
  stopLinger();
  linger = { trick, started: Date.now(), timer: null };
  shortenLinger(LINGER_MS);
  announce(trick.winner === mySeat()
    ? interpolate(gettext("You take the trick (%(points)s points)."), { points: trick.points }, true)
    : interpolate(gettext("%(name)s takes the trick (%(points)s points)."), { name: who(trick.winner), points: trick.points }, true));
}

/** End the lingering trick `ms` after it appeared (or now, if that is past). */
function shortenLinger(ms) {
  clearTimeout(linger.timer);
  linger.timer = setTimeout(() => {
    linger = null;
    render();
  }, Math.max(0, linger.started + ms - Date.now()));
}

function stopLinger() {
  if (linger) clearTimeout(linger.timer);
  linger = null;
}

// -- rendering ---------------------------------------------------------------------------

function render() {
  const focusKey = document.activeElement && document.activeElement.dataset
    ? document.activeElement.dataset.key : null;
  const focusInHand = ui.hand.contains(document.activeElement);
  app.dataset.seq = view.game ? String(view.game.seq) : ""; // the move number shown (tests wait on it)
  app.dataset.playing = String(running() && mySeat() !== null); // the layout keeps hand and table in view
  app.dataset.running = String(running());
  renderScores();
  renderTrump();
  renderSeats();
  renderTrick();
  renderCenter();
  renderSummary();
  renderHand();
  renderWeis();
  renderLastTrick();
  renderSheet();
  renderFaults();
  renderInfo();
  renderVote();
  renderResult();
  announceTurn();
  tickClock();
  if (focusKey) {
    const again = app.querySelector(`[data-key="${CSS.escape(focusKey)}"]`);
    if (again) again.focus();
    else if (focusInHand) (ui.hand.querySelector("[data-legal=true]") || ui.hand.querySelector(".card"))?.focus();
  }
  focusTurn();
  keepTableInView();
}

// A phone: while you play, the table takes the whole window (the site's header scrolls away above it) so that
// the hand and the Weis/Stöck bar are in view; once a game (you may scroll back up), and again when the
// Weis or Stöck bar shows below the window's edge.
let scrolledForGame = null;
let barWasShown = false;

function keepTableInView() {
  const barShown = !ui.weisBar.hidden;
  const barAppeared = barShown && !barWasShown;
  barWasShown = barShown;
  if (!PHONE.matches || !running() || mySeat() === null) return;
  if (scrolledForGame !== view.game.id) {
    scrolledForGame = view.game.id;
    app.scrollIntoView({ block: "start" });
  }
  if (barAppeared && ui.weisBar.getBoundingClientRect().bottom > window.innerHeight) {
    ui.weisBar.scrollIntoView({ block: "nearest" });
  }
}

/**
 * Your turn began: bring the keyboard to it, once a turn. The trump buttons take the focus when
 * they appear (unless you are typing somewhere); a card turn takes it only from nowhere (the
 * button you pressed went away).
 */
function focusTurn() {
  const g = game();
  if (!running() || g.player !== mySeat() || pending || myStandin() || !ui.summary.hidden) return;
  const trump = ui.center.querySelector(".trump-button");
  const key = `${g.id}:${g.seq}:${trump ? "trump" : g.phase}`;
  if (key === focusedTurn || (g.phase === "trump" && !trump)) return;
  focusedTurn = key;
  const active = document.activeElement;
  const typing = (active && active.matches("input, select, textarea")) || document.querySelector("dialog[open]");
  if (typing) return;
  if (trump) trump.focus({ preventScroll: true });
  else if (!active || active === document.body) ui.hand.querySelector("[data-legal=true]")?.focus({ preventScroll: true });
}

function lengthText() {
  const t = view.table;
  const length = t.mode === "fair"
    ? interpolate(ngettext("Fair · %(count)s round", "Fair · %(count)s rounds", t.round_count), { count: t.round_count }, true)
    : interpolate(gettext("Standard · to %(target)s"), { target: t.target }, true);
  const weis = t.weis ? `${length} · ${gettext("Weis & Stöck")}` : length;
  return t.multipliers ? `${weis} · ${gettext("multipliers")}` : weis;
}

function roundText(g) {
  const text = g.mode === "fair"
    ? interpolate(gettext("Round %(round)s of %(count)s"), { round: g.round, count: g.round_count }, true)
    : interpolate(gettext("Round %(round)s"), { round: g.round }, true);
  const current = g.rounds[g.round - 1];
  return current && current.repeats && !g.over
    ? `${text} · ${interpolate(gettext("round %(round)s's hands again"), { round: current.repeats }, true)}` : text;
}

// -- the end of a round: a moment over the table ------------------------------------------------

/**
 * The server holds a new deal back while people read the last round's summary (`game.pause`): until
 * its time runs out or every person playing who has the table open pressed Continue (then it closes
 * for everyone at once), or someone makes the deal's first move.
 */
function syncSummary() {
  const g = view.game;
  const p = g && g.status === "running" ? g.pause : null;
  const left = p ? p.until - (Date.now() + clockOffset) : 0;
  if (!p || left <= 0 || pauseOver(p)) {
    if (summary) clearTimeout(summary.timer);
    summary = null;
    return;
  }
  if (!summary || summary.game !== g.id || summary.round !== p.round) {
    if (summary) clearTimeout(summary.timer);
    summary = { game: g.id, round: p.round, timer: null, closed: false };
    announce(summaryHeadline(g, g.rounds[p.round - 1]));
  }
  clearTimeout(summary.timer);
  summary.timer = setTimeout(() => { summary = null; render(); }, left);
}

/** The same rule as the server's (`snapshot.pause_over`): every person playing who is online is ready. */
function pauseOver(p) {
  const online = p.people.filter((s) => view.online.includes(view.game.players[s].player_id));
  return online.length > 0 && online.every((s) => p.ready.includes(s));
}

/** Continue: a person playing tells the table they are ready; anyone else just closes it for themselves. */
function continueSummary() {
  const p = game() && game().pause;
  const me = mySeat();
  if (summary && p && me !== null && p.people.includes(me)) {
    if (!p.ready.includes(me)) send({ type: "ready", round: p.round });
    return;
  }
  closeSummary();
}

function closeSummary() {
  if (!summary) return;
  clearTimeout(summary.timer);
  summary.closed = true;
  render();
}

/** Who the summary still waits for, in words: "Waiting for Anna · 4 s". */
function waitingText(p) {
  const online = p.people.filter((s) => view.online.includes(view.game.players[s].player_id));
  const names = online.filter((s) => !p.ready.includes(s)).map(whoInText);
  const left = Math.max(0, Math.ceil((p.until - (Date.now() + clockOffset)) / 1000));
  return interpolate(gettext("Waiting for %(names)s · %(seconds)s s"), { names: names.join(" & ") || gettext("the others"), seconds: left }, true);
}

/** The viewer's team: their seat's, or North & South for spectators. */
function viewerTeam() {
  const me = mySeat();
  return me === null ? 0 : me % 2;
}

function signed(value) {
  return value > 0 ? `+${value}` : value < 0 ? `−${-value}` : "±0";
}

function summaryHeadline(g, r) {
  const mine = viewerTeam();
  const made = r.points[mine];
  const ours = mySeat() === null ? teamLabel(mine) : gettext("You & partner");
  const theirs = mySeat() === null ? teamLabel(1 - mine) : gettext("opponents");
  return interpolate(gettext("Round %(round)s: %(ours)s %(made)s, %(theirs)s %(their_points)s"),
    { round: r.round, ours, made, theirs, their_points: r.points[1 - mine] }, true)
    + (r.match ? ` · ${gettext("Match!")}` : "");
}

/** "Round 3 deals round 2's hands again, suits swapped ♦→♠ ♠→♦: the other team holds them now." (suits in the deck's symbols) */
function repeatText(r) {
  const suits = "DHSC";
  const swaps = (r.permutation || []).map((to, from) => (to === from ? null
    : h("span", { class: "suit-swap" }, " ", suitTag(suits[from]), "→", suitTag(suits[to])))).filter(Boolean);
  return [interpolate(gettext("Round %(round)s deals round %(repeats)s's hands again"), { round: r.round, repeats: r.repeats }, true),
    swaps.length ? [`, ${gettext("suits swapped")}`, swaps] : null,
    `: ${gettext("the other team holds them now.")}`];
}

/** A fair pair's result from the viewer's side: "you +23" (or "North & South +23" for spectators). */
function pairText(p) {
  const mine = viewerTeam();
  const advantage = p.advantage ? p.advantage[mine] : null;
  const whose = mySeat() === null ? teamLabel(mine) : gettext("you");
  return {
    label: interpolate(gettext("Pair %(number)s (rounds %(first)s & %(second)s)"), { number: p.number, first: p.rounds[0], second: p.rounds[1] }, true),
    value: advantage === null ? gettext("still to play") : `${whose} ${signed(advantage)}`,
    advantage,
  };
}

function renderSummary() {
  const g = game();
  const show = summary && !summary.closed && g && g.id === summary.game && !g.over && g.pause;
  ui.summary.hidden = !show;
  if (!show) {
    ui.summary.replaceChildren();
    return;
  }
  const p = g.pause;
  const r = g.rounds[p.round - 1];
  const mine = viewerTeam();
  const factor = g.multipliers && r.trump >= 0 && r.trump < 4 ? g.multipliers[r.trump] : 1;
  const teams = [mine, 1 - mine].map((team) => {
    const toGo = g.mode === "standard" ? Math.max(0, g.target - g.scores[team]) : null;
    return h("div", { class: `summary-team${team === mine ? " summary-mine" : ""}`, "data-testid": `summary-team-${team}` },
      h("span", { class: "summary-team-label" }, teamLabel(team)),
      h("strong", { class: "summary-points", "data-testid": `summary-points-${team}` }, r.points[team]),
      h("span", { class: "summary-total" }, interpolate(gettext("%(points)s in all"), { points: g.scores[team] }, true),
        toGo === null ? "" : ` · ${interpolate(gettext("%(points)s to go"), { points: toGo }, true)}`));
  });
  const trump = r.trump >= 0 ? TRUMPS[r.trump] : null;
  const lines = [];
  const pair = (g.pairs || []).find((p) => p.rounds[1] === r.round);
  if (pair) {
    const text = pairText(pair);
    lines.push(h("p", { class: "summary-pair", "data-testid": "summary-pair" }, `${text.label}: `, h("strong", {}, text.value)));
  }
  lines.push(...weisSummaryLines(r, who, teamLabel));
  const next = g.rounds[p.round];
  if (next && next.repeats) lines.push(h("p", { class: "summary-repeat", "data-testid": "repeat-note" }, repeatText(next)));
  ui.summary.replaceChildren(h("div", { class: "summary-card", role: "dialog", "aria-labelledby": "summary-title" },
    h("h2", { id: "summary-title", "data-testid": "summary-title" }, interpolate(gettext("Round %(round)s"), { round: r.round }, true),
      trump ? h("span", { class: `summary-trump suit-${trump.suit || ""}` }, " · ", trumpMark(r.trump), ` ${trump.name}`) : null,
      factor > 1 ? h("span", { class: "factor" }, ` ×${factor}`) : null),
    r.match ? h("p", { class: "summary-match", "data-testid": "summary-match" }, interpolate(gettext("Match! %(team)s took every trick."), { team: teamLabel(r.points[0] > r.points[1] ? 0 : 1) }, true)) : null,
    h("div", { class: "summary-teams" }, teams),
    ...lines,
    summaryAction(p)));
  if (!summary.shown) {
    summary.shown = true;
    ui.summary.firstChild.scrollIntoView({ block: "nearest" }); // in view on a phone scrolled to its hand
    // The keyboard goes to Continue: Enter or Space goes on, as a click does.
    ui.summary.querySelector("[data-testid=summary-continue]")?.focus({ preventScroll: true });
  }
}

/** Continue, or once you pressed it, whom the table still waits for (counting down). */
function summaryAction(p) {
  const me = mySeat();
  if (me === null || !p.people.includes(me) || !p.ready.includes(me)) {
    return h("button", { type: "button", class: "button button-primary", "data-testid": "summary-continue",
      "data-key": "summary-continue", onclick: continueSummary }, me !== null && p.people.includes(me) ? gettext("Continue") : gettext("Close"));
  }
  const wait = h("p", { class: "summary-wait", "data-testid": "summary-wait", role: "status" }, waitingText(p));
  const tick = setInterval(() => {
    if (!wait.isConnected) clearInterval(tick);
    else wait.textContent = waitingText(p);
  }, 1000);
  return wait;
}

function renderScores() {
  const g = game();
  ui.sub.textContent = g ? `${lengthText()} · ${roundText(g)}` : lengthText();
  if (!g) {
    ui.scores.replaceChildren();
    return;
  }
  const me = mySeat();
  const teams = me !== null && me % 2 === 1 ? [1, 0] : [0, 1];
  ui.scores.replaceChildren(...teams.map((team) => {
    const mine = me !== null && team === me % 2;
    const target = g.mode === "standard" ? g.target : null;
    const share = target ? Math.min(100, Math.round((100 * g.scores[team]) / target)) : null;
    return h("div", { class: `team-score${mine ? " team-score-mine" : ""}`, "data-testid": `score-team-${team}` },
      h("span", { class: "team-score-label" }, mine ? "★ " : "", teamLabel(team)),
      h("span", { class: "team-score-names" }, teamNames(team)),
      h("strong", { class: "team-score-points", "data-testid": `score-${team}` }, g.scores[team]),
      share === null ? null : h("span", { class: "team-score-bar", "aria-hidden": "true" },
        h("span", { style: `width:${share}%` })));
  }));
}

function renderTrump() {
  const g = game();
  if (!running() || g.trump < 0) {
    ui.trump.hidden = true;
    ui.scoreTrump.hidden = true;
    return;
  }
  const factor = g.multipliers ? g.multipliers[g.trump] : 1;
  // "You" is not a name in every language ("von dir", not "von Du"): the viewer's own moves have their own words.
  const me = mySeat();
  let by;
  if (!g.pushed) {
    by = g.declarer === me ? gettext("declared by you") : interpolate(gettext("declared by %(name)s"), { name: who(g.declarer) }, true);
  } else if (g.declarer === me) {
    by = interpolate(gettext("You chose after %(name)s pushed"), { name: who(g.forehand) }, true);
  } else if (g.forehand === me) {
    by = interpolate(gettext("%(name)s chose after you pushed"), { name: who(g.declarer) }, true);
  } else {
    by = interpolate(gettext("%(declarer)s chose after %(forehand)s pushed"), { declarer: who(g.declarer), forehand: who(g.forehand) }, true);
  }
  const byShort = g.declarer === me
    ? (g.pushed ? gettext("by you, pushed") : gettext("by you"))
    : interpolate(g.pushed ? gettext("by %(name)s, pushed") : gettext("by %(name)s"), { name: SEAT_NAMES[g.declarer] }, true);
  // On a phone the trump stands in the score bar (the table's title steps back there while you play).
  ui.scoreTrump.hidden = false;
  ui.scoreTrump.replaceChildren(h("span", { class: "scorebar-trump-title" }, gettext("Trump")), " ",
    h("strong", {}, trumpLabel(g.trump), factor > 1 ? h("span", { class: "factor" }, ` ×${factor}`) : null), " ",
    h("span", { class: "scorebar-trump-by" }, byShort));
  ui.trump.hidden = false;
  ui.trump.replaceChildren(
    h("span", { class: "trump-badge-title" }, gettext("Trump")),
    h("span", { class: "trump-badge-value" }, trumpLabel(g.trump), factor > 1 ? h("span", { class: "factor" }, ` ×${factor}`) : null),
    h("span", { class: "trump-badge-by" }, by),
    h("span", { class: "trump-badge-by-short", "aria-hidden": "true" }, byShort));
}

function renderSeats() {
  const pos = positions();
  for (const [where, seat] of Object.entries(pos)) {
    ui.seats[where].replaceChildren(seatElement(seat, where));
  }
}

function seatElement(seat, where) {
  const g = game();
  const me = mySeat();
  const isMe = seat === me;
  const player = seatPlayer(seat);
  const occupied = running() ? true : player && player.kind !== "empty";
  const toMove = running() && g.player === seat;
  const team = seat % 2;
  const relation = me === null ? (team === 0 ? gettext("N/S") : gettext("E/W"))
    : isMe ? gettext("you") : team === me % 2 ? gettext("partner") : gettext("opponent");
  const turnText = !toMove ? null : g.phase === "trump"
    ? (isMe ? gettext("Your turn: choose trump") : gettext("choosing trump"))
    : (isMe ? gettext("Your turn") : gettext("to play"));

  const el = h("div", {
    class: `seat team-${team}${isMe ? " seat-me" : ""}${toMove ? " seat-to-move" : ""}${occupied ? "" : " seat-empty"}`,
    "data-seat": seat,
    "data-you": isMe ? "true" : "false",
    "data-to-move": toMove ? "true" : "false",
    "aria-label": `${SEAT_NAMES[seat]}: ${occupied ? seatName(seat) : gettext("empty seat")}${isMe ? ` (${gettext("you")})` : ""}${botFacts(player)}${presenceFacts(player)}${toMove ? `, ${turnText}` : ""}`,
    role: "group",
  });
  const bot = player && player.bot;
  const remote = player && player.kind === "remote";
  const plate = h("div", { class: "nameplate" },
    h("span", { class: `avatar${bot || remote ? " avatar-bot" : ""}` },
      bot || remote ? botIcon() : h("span", { "aria-hidden": "true" }, avatarText(seat, occupied)),
      bot ? h("span", { class: "badge badge-bot avatar-badge", title: botLabel(bot) }, gettext("bot")) : null,
      remote ? h("span", { class: "badge badge-remote avatar-badge", "data-testid": "hslu-badge",
        title: gettext("A bot that speaks the HSLU Jass interface") }, "HSLU") : null),
    h("span", { class: "nameplate-text" },
      h("span", { class: "seat-name", "data-testid": "seat-name" }, occupied ? seatName(seat) : gettext("Empty seat"),
        isMe ? h("span", { class: "you-tag" }, ` (${gettext("you")})`) : null),
      h("span", { class: "seat-meta" },
        h("span", { class: `team-tag team-tag-${team}` }, h("span", { "aria-hidden": "true" }, team === 0 ? "◆ " : "● "), relation),
        h("span", { class: "seat-compass" }, ` · ${SEAT_NAMES[seat]}`))),
    running() && g.dealer === seat ? h("span", { class: "dealer-chip", title: gettext("Dealer"), "aria-label": gettext("Dealer") }, pgettext("the dealer's chip: one letter", "D")) : null);
  el.append(plate);
  const facts = botFactsLine(player);
  if (facts) el.append(facts);
  const presence = presenceLine(seat, player);
  if (presence) el.append(presence);
  if (turnText) {
    el.append(h("span", { class: "turn-flag", "data-testid": "turn-flag" }, turnText,
      clockSeat() === seat ? h("span", { class: "turn-clock", "data-testid": "turn-clock", "data-clock-seat": seat }, ` · ${clockText()}`) : null));
  }
  if (running() && !(isMe && where === "bottom")) {
    const count = g.hand_sizes[seat];
    el.append(h("span", { class: "backs", "data-testid": "backs", role: "img", "aria-label": interpolate(ngettext("%(count)s card in hand", "%(count)s cards in hand", count), { count }, true) },
      Array.from({ length: count }, () => cardBack("card-back-mini"))),
    h("span", { class: "backs-count", "aria-hidden": "true" }, interpolate(ngettext("%(count)s card", "%(count)s cards", count), { count }, true)));
  }
  if (!running()) el.append(...seatControls(seat, player));
  return el;
}

/** Whether the person at `seat` has the table open; null for bots and empty seats. */
function isOnline(player) {
  if (!player || !player.player_id) return null;
  return (view.online || []).includes(player.player_id);
}

/** A person's presence (online or offline, in words and a dot) and the stand-in bot playing for them. */
function presenceLine(seat, player) {
  const online = isOnline(player);
  if (online === null) return null;
  const parts = [h("span", { class: `presence ${online ? "presence-on" : "presence-off"}`, "data-testid": "presence",
    "data-online": String(online) }, h("span", { class: "presence-dot", "aria-hidden": "true" }, online ? "●" : "○"),
  ` ${online ? gettext("online") : gettext("offline")}`)];
  if (running() && player.standin) {
    parts.push(h("span", { class: "badge badge-standin", "data-testid": "standin-badge",
      title: player.standin === "left" ? gettext("Left the game: a bot took the seat") : gettext("Out of time: a bot plays until they are back") },
    interpolate(player.standin === "left" ? gettext("%(bot)s plays (left)") : gettext("%(bot)s plays"), { bot: standinName(player) }, true)));
  }
  return h("div", { class: "seat-presence" }, parts);
}

/** The seat whose turn clock runs now, or null. */
function clockSeat() {
  const g = game();
  return running() && g.clock && g.clock.seat !== null && g.clock.seat !== undefined ? g.clock.seat : null;
}

function clockRemaining() {
  const g = game();
  return Math.max(0, Math.ceil((g.clock.deadline - (Date.now() + clockOffset)) / 1000));
}

function clockText() {
  const left = clockRemaining();
  return interpolate(gettext("%(time)s left"), { time: `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}` }, true);
}

/** Tick the countdown once a second while a clock runs (only its text changes). */
function tickClock() {
  const running = clockSeat() !== null;
  if (running && clockTimer === null) {
    clockTimer = setInterval(() => {
      if (clockSeat() === null) {
        clearInterval(clockTimer);
        clockTimer = null;
        return;
      }
      for (const el of app.querySelectorAll("[data-testid=turn-clock]")) el.textContent = ` · ${clockText()}`;
      const mine = app.querySelector("[data-testid=my-clock]");
      if (mine) mine.textContent = clockText();
    }, 1000);
  } else if (!running && clockTimer !== null) {
    clearInterval(clockTimer);
    clockTimer = null;
  }
}

/** A remote bot's host (full URL in the tooltip), and in a game its last answer time and its faults. */
function botFactsLine(player) {
  if (!player || player.kind !== "remote") return null;
  const parts = [];
  if (player.remote_url) {
    const host = hostOf(player.remote_url);
    const colon = host.lastIndexOf(":");
    // A narrow seat breaks the host before its port rather than anywhere.
    const shown = colon > 0 && !host.endsWith("]") ? [host.slice(0, colon + 1), h("wbr"), host.slice(colon + 1)] : [host];
    parts.push(h("span", { class: "seat-host", "data-testid": "seat-host", title: player.remote_url }, shown));
  }
  if (running() && player.latency_ms !== null && player.latency_ms !== undefined) {
    parts.push(h("span", { class: "seat-latency", "data-testid": "seat-latency", title: gettext("Last answer time") },
      clockIcon(), latencyText(player.latency_ms)));
  }
  if (running() && player.faults > 0) {
    parts.push(h("span", { class: "badge badge-fault", "data-testid": "fault-badge",
      title: gettext("Answers replaced by a random legal move") }, faultCountText(player.faults)));
  }
  return parts.length ? h("div", { class: "seat-bot-facts", "aria-hidden": "true" }, parts) : null;
}

/** The same facts for the seat's aria-label (the line above is hidden from screen readers). */
function botFacts(player) {
  if (!player) return "";
  let text = "";
  if (player.kind === "remote") text += `, ${interpolate(gettext("HSLU bot at %(url)s"), { url: player.remote_url }, true)}`;
  else if (player.kind === "bot") text += `, ${gettext("bot")}`;
  if (running() && player.kind === "remote" && player.latency_ms !== null && player.latency_ms !== undefined) {
    text += `, ${interpolate(gettext("last answer %(time)s"), { time: latencyText(player.latency_ms) }, true)}`;
  }
  if (running() && player.faults > 0) {
    text += `, ${interpolate(ngettext("%(count)s fault", "%(count)s faults", player.faults), { count: player.faults }, true)}`;
  }
  return text;
}

/** Why a game was abandoned, in the page's language (the parts of games/catalogue.py: abandon_parts). */
function abandonText(parts) {
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

/** The stand-in bot playing for a person, by name in the page's language. */
function standinName(player) {
  const g = game();
  return botName(g ? g.standin_bot : view.table.standin_bot, player.standin_label || gettext("bot"));
}

function presenceFacts(player) {
  const online = isOnline(player);
  if (online === null) return "";
  let text = `, ${online ? gettext("online") : gettext("offline")}`;
  if (running() && player.standin) text += `, ${interpolate(gettext("%(bot)s plays for them"), { bot: standinName(player) }, true)}`;
  return text;
}

function hostOf(url) {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

function avatarText(seat, occupied) {
  if (!occupied) return "+";
  return seatName(seat).trim().charAt(0).toUpperCase() || "?";
}

/** The strongest built-in bot when it is there, else the first one listed. */
function defaultBot() {
  return (view.bots.find((b) => b.name === "rules") || view.bots[0]).name;
}

function botLabel(name) {
  const bot = view.bots.find((b) => b.name === name);
  return localBotLabel(name, bot ? bot.label : name);
}

function seatControls(seat, player) {
  const me = view.you;
  const label = SEAT_NAMES[seat];
  const controls = [];
  if (player.kind === "empty") {
    if (me.player_id !== null && me.seat === null) {
      controls.push(h("button", { type: "button", class: "button button-small button-primary", "data-key": `sit-${seat}`,
        "data-testid": `sit-${seat}`, "aria-label": interpolate(gettext("Sit here (%(seat)s)"), { seat: label }, true), onclick: () => send({ type: "join", seat }) }, gettext("Sit here")));
    }
    if (me.can_manage && view.bots.length) {
      const select = h("select", { "aria-label": interpolate(gettext("Bot for %(seat)s"), { seat: label }, true), "data-key": `bot-select-${seat}`, "data-testid": `bot-select-${seat}`,
        onchange: (e) => { botChoice[seat] = e.target.value; } },
      view.bots.map((b) => h("option", { value: b.name, title: b.description || null, selected: (botChoice[seat] || defaultBot()) === b.name }, botLabel(b.name))));
      controls.push(h("span", { class: "add-bot" }, select,
        h("button", { type: "button", class: "button button-small button-quiet", "data-key": `add-bot-${seat}`,
          "data-testid": `add-bot-${seat}`, "aria-label": interpolate(gettext("Add bot (%(seat)s)"), { seat: label }, true),
          onclick: () => send({ type: "add_bot", seat, bot: select.value }) }, gettext("Add bot"))));
    }
    if (me.can_manage) {
      controls.push(h("button", { type: "button", class: "button button-small button-quiet invite-open", "data-key": `invite-bot-${seat}`,
        "data-testid": `invite-bot-${seat}`, "aria-label": interpolate(gettext("Invite a bot by URL (%(seat)s)"), { seat: label }, true), "aria-haspopup": "dialog",
        onclick: () => invite.open(seat) },
      h("span", { class: "invite-open-long" }, gettext("Invite a bot by URL")),
      h("span", { class: "invite-open-short", "aria-hidden": "true" }, gettext("Bot by URL"))));
    }
  } else if ((player.kind === "bot" || player.kind === "remote") && me.can_manage) {
    controls.push(h("button", { type: "button", class: "button button-small button-quiet", "data-key": `remove-bot-${seat}`,
      "data-testid": `remove-bot-${seat}`, "aria-label": interpolate(gettext("Remove bot (%(seat)s)"), { seat: label }, true), onclick: () => send({ type: "remove_bot", seat }) }, gettext("Remove bot")));
  } else if (player.kind === "human" && seat === me.seat) {
    controls.push(h("button", { type: "button", class: "button button-small button-quiet", "data-key": "leave",
      "data-testid": "leave", onclick: () => send({ type: "leave" }) }, gettext("Leave seat")));
  }
  return controls.length ? [h("div", { class: "seat-controls" }, controls)] : [];
}

function renderTrick() {
  const g = game();
  const slots = {};
  for (const where of ["top", "left", "right", "bottom"]) {
    slots[where] = ui.trick.querySelector(`.trick-${where}`);
    slots[where].replaceChildren();
  }
  ui.trick.dataset.lingering = linger ? "true" : "false";
  let cards = [];
  let winner = null;
  if (linger) {
    cards = linger.trick.cards;
    winner = linger.trick.winner;
    ui.trickCaption.textContent = winner === mySeat()
      ? interpolate(gettext("You take the trick · %(points)s points"), { points: linger.trick.points }, true)
      : interpolate(gettext("%(name)s takes the trick · %(points)s points"), { name: who(winner), points: linger.trick.points }, true);
  } else if (g && (running() || g.over)) {
    cards = [...g.trick];
    if (pending && pending.card) cards.push({ seat: mySeat(), card: pending.card });
    ui.trickCaption.textContent = "";
  } else {
    ui.trickCaption.textContent = "";
  }
  const next = new Set();
  cards.forEach(({ seat, card }, index) => {
    const where = positionOf(seat);
    const key = `${g ? g.id : 0}:${card}`;
    next.add(key);
    slots[where].append(cardElement(card, {
      className: `card-trick${seat === winner ? " card-winner" : ""}${shownTrickCards.has(key) ? "" : " card-enter"}`,
      attrs: { "data-seat": seat, "aria-label": `${who(seat)}: ${cardName(card)}`, style: `z-index:${index + 1}` },
    }));
  });
  shownTrickCards = next;
}

function renderCenter() {
  const g = game();
  const parts = [];
  if (!running()) {
    parts.push(...lobbyCenter());
  } else if (myStandin() && !PHONE.matches) {
    parts.push(awayPanel(myStandin())); // a phone has no room beside the trick: the hand's note says it
  } else if (linger) {
    // The last trick of the round is still on the table, with its caption: the new round's
    // trump choice comes once it is swept away (the two never share the centre).
  } else if (g.phase === "trump") {
    const choices = g.legal_trumps || [];
    if (choices.length && !pending) {
      parts.push(trumpChooser(choices));
    } else if (!pending) {
      const chooser = g.player;
      parts.push(h("p", { class: "center-note" }, chooser === mySeat() ? gettext("You choose trump")
        : interpolate(gettext("%(name)s is choosing trump"), { name: who(chooser) }, true),
      g.forehand === chooser ? "" : ` (${g.forehand === mySeat() ? gettext("you pushed")
        : interpolate(gettext("%(name)s pushed"), { name: who(g.forehand) }, true)})`, "…"));
    }
  } else if (g.trick.length === 0 && !linger && !pending && g.player === mySeat()) {
    parts.push(h("p", { class: "center-note center-note-soft" }, gettext("Your lead")));
  }
  ui.center.replaceChildren(...parts);
  ui.center.hidden = parts.length === 0;
}

/** Arrow keys move between the trump buttons (as between the cards of the hand), wrapping round. */
function trumpArrows(event) {
  const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[event.key];
  if (!step) return;
  const buttons = [...event.currentTarget.querySelectorAll("button[data-trump]")];
  const index = buttons.indexOf(document.activeElement);
  if (index < 0) return;
  buttons[(index + step + buttons.length) % buttons.length].focus();
  event.preventDefault();
}

function trumpChooser(choices) {
  const g = game();
  const pushed = g.forehand !== g.player;
  return h("div", { class: "trump-chooser", role: "group", "aria-labelledby": "trump-chooser-title", "data-testid": "trump-chooser", onkeydown: trumpArrows },
    h("h2", { id: "trump-chooser-title", class: "trump-chooser-title" }, pushed ? gettext("Your partner pushed: choose trump") : gettext("Choose trump")),
    h("div", { class: "trump-buttons" },
      choices.filter((t) => t !== 10).map((t) => trumpButton(t)),
      choices.includes(10) ? trumpButton(10) : null));
}

function trumpButton(trump) {
  const t = TRUMPS[trump];
  const factor = game().multipliers && trump !== 10 ? game().multipliers[trump] : 1;
  return h("button", {
    type: "button",
    class: `trump-button${t.suit ? ` suit-${t.suit}` : ""}${trump === 10 ? " trump-push" : ""}`,
    "data-trump": trump,
    "data-key": `trump-${trump}`,
    "data-testid": `trump-${trump}`,
    title: t.hint || null,
    onclick: () => chooseTrump(trump),
  },
  h("span", { class: "trump-button-symbol", "aria-hidden": "true" }, trumpMark(trump)),
  h("span", { class: "trump-button-name" }, t.name),
  factor > 1 ? h("span", { class: "trump-button-factor" }, `×${factor}`) : null);
}

function lobbyCenter() {
  const g = game();
  const parts = [];
  if (view.you.player_id === null) {
    parts.push(h("form", { method: "post", action: "/guest/", class: "nickname-inline" },
      h("input", { type: "hidden", name: "csrfmiddlewaretoken", value: document.querySelector('meta[name="csrf-token"]').content }),
      h("input", { type: "hidden", name: "next", value: app.dataset.tableUrl }),
      h("label", { for: "table-nickname" }, view.seats.some((s) => s.kind === "empty")
        ? gettext("Choose a nickname to take a seat")
        : gettext("Every seat is taken: choose a nickname to watch, and sit down when one is free")),
      h("span", { class: "input-row" },
        h("input", { id: "table-nickname", name: "nickname", maxlength: 24, required: true, placeholder: gettext("Nickname") }),
        h("button", { type: "submit", class: "button" }, gettext("Join as guest")))));
    return parts;
  }
  const filled = view.seats.filter((s) => s.kind !== "empty").length;
  if (view.hidden_game) {
    parts.push(h("p", { class: "center-note", "data-testid": "private-note" }, view.hidden_game === "running"
      ? gettext("A private game is being played here: only its players see it.")
      : gettext("This table is private: its games are shown only to those who played them.")));
  }
  if (g && g.status === "abandoned") {
    const why = abandonText(g.abandon);
    parts.push(h("p", { class: "center-note", "data-testid": "abandoned-note" }, gettext("The last game was abandoned"),
      why ? `: ${why}.` : "."));
  }
  if (g && g.status === "finished") parts.push(h("p", { class: "center-note" }, resultHeadline(g)));
  if (view.you.can_manage) {
    parts.push(h("button", {
      type: "button", class: "button button-primary button-large", "data-testid": "start", "data-key": "start",
      disabled: filled < 4, onclick: () => send({ type: "start" }),
    }, g ? gettext("New game") : gettext("Start game")));
    parts.push(h("p", { class: "center-hint" }, filled < 4
      ? interpolate(gettext("%(count)s of 4 seats filled: sit down or add bots."), { count: filled }, true)
      : gettext("Everyone is seated.")));
  } else {
    parts.push(h("p", { class: "center-note" }, view.you.seat === null
      ? gettext("Take an empty seat, or watch.")
      : gettext("Waiting for the game to start…")));
  }
  return parts;
}

function renderHand() {
  const g = game();
  const me = mySeat();
  if (!running() || me === null || !g.hand) {
    ui.hand.replaceChildren();
    delete ui.hand.dataset.signature;
    ui.hand.hidden = true;
    ui.handNote.textContent = running() ? gettext("You are watching: only the players see their cards.") : "";
    ui.handNote.hidden = !ui.handNote.textContent;
    return;
  }
  ui.hand.hidden = false;
  const myTurn = g.player === me && g.phase === "play" && !pending && !myStandin();
  const legal = new Set(myTurn ? g.legal : []);
  const hand = sortHand(g.hand.filter((c) => !(pending && c === pending.card)), g.trump);
  renderHandNote(g, me, myTurn);
  // Rebuild the cards only when they change, so that hover, focus and a click in progress survive.
  const signature = JSON.stringify([hand, [...legal], myTurn]);
  if (signature === ui.hand.dataset.signature && ui.hand.children.length) return;
  ui.hand.dataset.signature = signature;
  ui.hand.replaceChildren();
  ui.hand.style.setProperty("--n", String(Math.max(hand.length, 1)));
  ui.hand.dataset.myTurn = String(myTurn);
  for (const code of hand) {
    const isLegal = legal.has(code);
    ui.hand.append(cardElement(code, {
      tag: "button",
      className: `card-hand${isLegal ? " card-legal" : ""}${myTurn && !isLegal ? " card-inactive" : ""}`,
      attrs: {
        type: "button",
        "data-legal": String(isLegal),
        "data-key": `hand-${code}`,
        "aria-disabled": String(!isLegal),
        "aria-label": `${cardName(code)}${isLegal ? `, ${gettext("playable")}` : myTurn && g.why_not && g.why_not[code] ? `: ${reasonText(g.why_not[code])}` : ""}`,
        title: myTurn && !isLegal && g.why_not && g.why_not[code] ? reasonText(g.why_not[code]) : null,
        onclick: () => playCard(code),
      },
    }));
  }
}

/** Weis and Stöck: the bar under your hand (what you may announce) and the round's side panel. */
function renderWeis() {
  const g = game();
  const on = running() && g.weis;
  ui.weisPanel.hidden = !on;
  if (!on) {
    ui.weisBar.hidden = true;
    ui.weisBar.replaceChildren();
    ui.weisPanel.replaceChildren();
    return;
  }
  ui.weisPanel.replaceChildren(...weisPanel(g, who, teamLabel));
  const myTurn = g.player === mySeat() && g.phase === "play" && !pending && !myStandin();
  const parts = mySeat() === null ? [] : weisBar(g, (message, card = null) => move(message, card), myTurn);
  ui.weisBar.hidden = parts.length === 0;
  ui.weisBar.replaceChildren(...parts);
}

function renderHandNote(g, me, myTurn) {
  let note = "";
  if (pending) note = gettext("Sending…");
  else if (myStandin()) note = myStandin() === "left" ? gettext("You left this game.") : gettext("A bot is playing for you.");
  else if (myTurn) note = gettext("Your turn: play one of the raised cards.");
  else if (g.player === me && g.phase === "trump") note = gettext("Look at your cards and choose trump.");
  else if (g.player >= 0 && g.player !== me) note = interpolate(gettext("Waiting for %(name)s…"), { name: who(g.player) }, true);
  const clocked = !pending && !myStandin() && clockSeat() === me;
  const back = myStandin() === "clock" && PHONE.matches
    ? h("button", { type: "button", class: "button button-primary button-small hand-note-back", "data-testid": "back", "data-key": "back",
      onclick: () => send({ type: "back" }) }, gettext("I'm back"))
    : "";
  ui.handNote.replaceChildren(note, clocked ? " · " : "",
    clocked ? h("strong", { class: "my-clock", "data-testid": "my-clock" }, clockText()) : "", back);
  ui.handNote.hidden = !note;
}

/** "clock" or "left" when a stand-in bot plays the viewer's seat in the running game, else null. */
function myStandin() {
  const g = game();
  const me = view.you.game_seat;
  if (!running() || me === null || me === undefined) return null;
  return g.players[me].standin || null;
}

function awayPanel(kind) {
  const g = game();
  const bot = standinName(g.players[view.you.game_seat]);
  if (kind === "left") {
    return h("div", { class: "away-panel", "data-testid": "away-panel", role: "status" },
      h("p", { class: "center-note" }, interpolate(gettext("You left this game: the %(bot)s plays your seat to the end."), { bot }, true)));
  }
  return h("div", { class: "away-panel", "data-testid": "away-panel", role: "status" },
    h("p", { class: "center-note" }, interpolate(gettext("Your time ran out, so the %(bot)s is playing for you."), { bot }, true)),
    h("button", { type: "button", class: "button button-primary button-large", "data-testid": "back", "data-key": "back",
      onclick: () => send({ type: "back" }) }, gettext("I'm back")));
}

function renderLastTrick() {
  const g = game();
  const trick = g && g.previous_trick;
  ui.lastTrickToggle.disabled = !trick;
  if (!trick) {
    ui.lastTrick.hidden = true;
    ui.lastTrickToggle.setAttribute("aria-expanded", "false");
    return;
  }
  const open = ui.lastTrickToggle.getAttribute("aria-expanded") === "true";
  ui.lastTrick.hidden = !open;
  const earlier = trick.round !== g.round ? ` (${interpolate(gettext("end of round %(round)s"), { round: trick.round }, true)})` : "";
  ui.lastTrick.replaceChildren(
    h("ol", { class: "last-trick-cards" }, trick.cards.map(({ seat, card }) =>
      h("li", { class: seat === trick.winner ? "last-trick-winner" : "" },
        cardElement(card, { className: "card-small" }),
        h("span", { class: "last-trick-seat", title: seatName(seat) }, seat === mySeat() ? gettext("You") : SEAT_NAMES[seat])))),
    h("p", { class: "last-trick-caption", "data-testid": "last-trick-caption" },
      (trick.winner === mySeat()
        ? interpolate(gettext("Won by you · %(points)s points"), { points: trick.points }, true)
        : interpolate(gettext("Won by %(name)s · %(points)s points"), { name: who(trick.winner), points: trick.points }, true)) + earlier));
}

ui.lastTrickToggle.addEventListener("click", () => {
  const open = ui.lastTrickToggle.getAttribute("aria-expanded") !== "true";
  ui.lastTrickToggle.setAttribute("aria-expanded", String(open));
  renderLastTrick();
});

function roundRows(g) {
  return g.rounds.map((r) => {
    const current = !r.complete;
    return h("tr", { class: current ? "sheet-current" : "" },
      h("th", { scope: "row" }, r.round),
      h("td", {}, r.trump >= 0 ? trumpLabel(r.trump) : h("span", { class: "muted" }, "…")),
      h("td", {}, r.declarer >= 0 ? gameWho(r.declarer) : "", r.pushed ? h("span", { class: "pushed-tag" }, `, ${gettext("after a push")}`) : "",
        r.match ? h("span", { class: "match-tag" }, ` ${gettext("Match!")}`) : ""),
      h("td", { class: "num" }, r.points[0]),
      h("td", { class: "num" }, r.points[1]));
  });
}

function sheetTable(g, caption) {
  const short = (team) => {
    const me = mySeat();
    if (me !== null) return team === me % 2 ? gettext("Us") : gettext("Them");
    return team === 0 ? gettext("N/S") : gettext("E/W");
  };
  return h("table", { class: "sheet" },
    caption ? h("caption", { class: "visually-hidden" }, caption) : null,
    h("thead", {}, h("tr", {},
      h("th", { scope: "col" }, "#"), h("th", { scope: "col" }, gettext("Trump")), h("th", { scope: "col" }, gettext("By")),
      h("th", { scope: "col", class: "num", title: teamNames(0) }, short(0)),
      h("th", { scope: "col", class: "num", title: teamNames(1) }, short(1)))),
    h("tbody", {}, roundRows(g)),
    h("tfoot", {}, h("tr", {},
      h("th", { scope: "row", colspan: 3 }, gettext("Total")),
      h("td", { class: "num" }, g.scores[0]), h("td", { class: "num" }, g.scores[1]))));
}

function renderSheet() {
  const g = game();
  if (!g || g.rounds.length === 0) {
    ui.sheet.replaceChildren(h("p", { class: "muted" }, gettext("No rounds played yet.")));
    return;
  }
  ui.sheet.replaceChildren(sheetTable(g, gettext("Points per round")));
}

function renderFaults() {
  const g = game();
  const faults = g ? g.faults || [] : [];
  ui.faults.hidden = faults.length === 0;
  const signature = faults.length ? JSON.stringify([g.id, running(), faults.length, g.players.map((p) => p.name)]) : "";
  if (ui.faults.dataset.signature === signature) return; // keeps the list's scroll position
  ui.faults.dataset.signature = signature;
  if (!faults.length) {
    ui.faults.replaceChildren();
    return;
  }
  ui.faults.replaceChildren(
    h("h2", { id: "faults-title", class: "panel-title" }, running() ? gettext("Bot faults") : gettext("Bot faults (last game)"),
      h("span", { class: "panel-count" }, ` · ${faults.length}`)),
    h("p", { class: "hint" }, gettext("Each time a bot's answer was missing or wrong, a random legal move was played for it.")),
    h("div", { class: "fault-scroll", tabindex: 0, role: "region", "aria-label": gettext("Bot faults, oldest first") },
      faultList(faults, g.players)));
  const scroller = ui.faults.querySelector(".fault-scroll");
  scroller.scrollTop = scroller.scrollHeight; // the newest at hand
}

function renderInfo() {
  const t = view.table;
  const editable = view.you.can_manage && !running();
  const g = game();
  const mine = running() ? view.you.game_seat : null;
  const standin = mine !== null && mine !== undefined ? g.players[mine].standin : null;
  const signature = JSON.stringify([t, editable, view.you.can_manage, running(), g && g.id, mine, standin]);
  if (signature === infoSignature && ui.info.children.length) return; // keeps a timeout being typed
  infoSignature = signature;
  const items = [h("h2", { class: "panel-title" }, pgettext("a Jass table", "Table"))];
  const multipliers = t.multipliers
    ? h("span", {}, suitTag("D"), " ", suitTag("H"), " ×1 · ", suitTag("S"), " ", suitTag("C"), ` ×2 · ${gettext("Obe/Une")} ×3`) : gettext("off");
  items.push(h("dl", { class: "facts" },
    h("dt", {}, gettext("Mode")), h("dd", {}, t.mode === "fair"
      ? interpolate(ngettext("Fair, %(count)s round", "Fair, %(count)s rounds", t.round_count), { count: t.round_count }, true)
      : interpolate(gettext("Standard, to %(target)s points"), { target: t.target }, true)),
    h("dt", {}, gettext("Multipliers")), h("dd", {}, multipliers),
    h("dt", {}, gettext("Bot timeout")), h("dd", { "data-testid": "bot-timeout" },
      interpolate(gettext("%(seconds)s s per answer"), { seconds: t.bot_timeout_s }, true)),
    h("dt", {}, gettext("Turn clock")), h("dd", { "data-testid": "turn-clock-option" }, t.turn_clock_s
      ? interpolate(gettext("%(seconds)s s a move, then the %(bot)s bot plays"), { seconds: t.turn_clock_s, bot: botLabel(t.standin_bot) }, true)
      : gettext("off")),
    h("dt", {}, gettext("Round summary")), h("dd", { "data-testid": "round-pause-option" }, t.round_pause_s
      ? interpolate(gettext("%(seconds)s s, then the next deal (Continue goes on sooner)"), { seconds: t.round_pause_s }, true)
      : gettext("off")),
    t.creator ? [h("dt", {}, gettext("Opened by")), h("dd", {}, t.creator)] : null));
  if (editable) items.push(timeoutForm(t), clockForm(t));
  if (mine !== null && mine !== undefined && g.players[mine].standin !== "left") {
    items.push(h("button", {
      type: "button", class: "button button-small button-quiet", "data-testid": "leave-game",
      onclick: () => {
        const question = interpolate(gettext("Leave this game? The %(bot)s bot takes your seat to its end."), { bot: botLabel(g.standin_bot) }, true);
        if (window.confirm(question)) send({ type: "leave" });
      },
    }, gettext("Leave game")));
  }
  if (running() && view.you.can_manage) {
    const others = otherPeople();
    const question = others.length
      ? interpolate(gettext("Ask %(names)s to abandon this game? It ends when they agree."), { names: others.map(gameWho).join(` ${gettext("and")} `) }, true)
      : gettext("Abandon this game for everyone at the table?");
    items.push(h("button", {
      type: "button", class: "button button-small button-danger", "data-testid": "abandon",
      onclick: () => {
        if (window.confirm(question)) send({ type: "abandon" });
      },
    }, gettext("Abandon game")));
  }
  if (g && !running()) items.push(h("p", {}, h("a", { href: `/games/${g.id}/` }, gettext("Last game's details"))));
  ui.info.replaceChildren(...items);
}

/** The other people still playing their seats in the running game (they vote on abandoning it). */
function otherPeople() {
  const g = game();
  if (!running()) return [];
  return g.players.filter((p) => p.kind === "human" && p.standin !== "left" && p.seat !== view.you.game_seat)
    .map((p) => p.seat);
}

/** A request to abandon the game: the others agree or refuse; everyone sees who answered. */
function renderVote() {
  const vote = running() ? game().abandon_vote : null;
  const left = vote ? vote.until - (Date.now() + clockOffset) : 0;
  clearTimeout(voteTimer);
  if (!vote || left <= 0) {
    ui.vote.hidden = true;
    ui.vote.replaceChildren();
    return;
  }
  voteTimer = setTimeout(renderVote, Math.min(left + 50, 2 ** 31 - 1));
  const me = view.you.game_seat;
  const waiting = vote.voters.filter((s) => !vote.agreed.includes(s));
  const parts = [];
  if (vote.refused_by !== null && vote.refused_by !== undefined) {
    parts.push(h("p", { class: "vote-text" },
      vote.refused_by === me ? gettext("You refused to abandon the game: it goes on.")
        : interpolate(gettext("%(name)s refused to abandon the game: it goes on."), { name: gameWho(vote.refused_by) }, true)));
  } else {
    parts.push(h("p", { class: "vote-text" }, vote.by === me ? gettext("You asked to abandon the game.")
      : interpolate(gettext("%(name)s asked to abandon the game."), { name: vote.by_name }, true),
      vote.agreed.length ? ` ${interpolate(gettext("Agreed: %(names)s."), { names: vote.agreed.map(gameWho).join(", ") }, true)}` : "",
      waiting.length ? ` ${interpolate(gettext("Waiting for %(names)s"), { names: waiting.map(whoInText).join(", ") }, true)}` : "",
      ` (${interpolate(gettext("lapses in %(seconds)s s"), { seconds: Math.ceil(left / 1000) }, true)}).`));
    if (me !== null && me !== undefined && waiting.includes(me)) {
      parts.push(h("div", { class: "vote-actions" },
        h("button", { type: "button", class: "button button-small button-danger", "data-testid": "abandon-agree",
          onclick: () => send({ type: "abandon_vote", agree: true }) }, gettext("Agree: abandon")),
        h("button", { type: "button", class: "button button-small", "data-testid": "abandon-refuse",
          onclick: () => send({ type: "abandon_vote", agree: false }) }, gettext("Refuse: play on"))));
    }
  }
  ui.vote.replaceChildren(...parts);
  // Asked to answer: a question (on a phone a dialog over the table); else a note.
  ui.vote.classList.toggle("abandon-vote-asking", parts.length > 1);
  ui.vote.hidden = false;
}

/** Change the table's bot timeout (between games): a number field and Save. */
function timeoutForm(t) {
  const input = h("input", {
    id: "bot-timeout-input", type: "number", min: 1, max: 30, step: 1, required: true, inputmode: "numeric",
    value: timeoutDraft ?? t.bot_timeout_s, "data-key": "bot-timeout-input", "data-testid": "bot-timeout-input",
    "aria-describedby": "bot-timeout-hint",
    oninput: (event) => {
      const typed = event.target.valueAsNumber;
      timeoutDraft = Number.isNaN(typed) ? null : typed;
    },
  });
  return h("form", {
    class: "timeout-form", "data-testid": "timeout-form",
    onsubmit: (event) => {
      event.preventDefault();
      if (!event.target.reportValidity()) return;
      const seconds = input.valueAsNumber;
      if (seconds === view.table.bot_timeout_s) {
        timeoutDraft = null;
        announce(interpolate(gettext("The bot timeout is already %(seconds)s seconds."), { seconds }, true));
        return;
      }
      if (send({ type: "set_bot_timeout", seconds })) timeoutSaving = seconds;
    },
  },
  h("label", { for: "bot-timeout-input" }, gettext("Bot timeout (s)")),
  h("span", { class: "input-row" }, input,
    h("button", { type: "submit", class: "button button-small", "data-key": "bot-timeout-save", "data-testid": "bot-timeout-save" }, gettext("Save"))),
  h("p", { id: "bot-timeout-hint", class: "hint" }, gettext("How long an HSLU bot may think per answer, 1 to 30 s; then a random legal move is played for it.")));
}

/** Change the table's turn clock and stand-in bot (between games). */
function clockForm(t) {
  const chosen = clockDraft || { seconds: t.turn_clock_s, bot: t.standin_bot, pause: t.round_pause_s };
  const remember = () => { clockDraft = { seconds: Number(seconds.value), bot: bot.value, pause: Number(pause.value) }; };
  const seconds = h("select", { id: "turn-clock-input", "data-testid": "turn-clock-input", "data-key": "turn-clock-input",
    onchange: remember },
  [...new Set([...(view.turn_clocks || [0, 30, 60, 120]), t.turn_clock_s])].map((s) =>
    h("option", { value: s, selected: s === chosen.seconds }, s ? `${s} s` : gettext("Off"))));
  const bot = h("select", { id: "standin-input", "data-testid": "standin-input", "data-key": "standin-input",
    "aria-label": gettext("Stand-in bot"), onchange: remember },
  view.bots.map((b) => h("option", { value: b.name, selected: b.name === chosen.bot }, botLabel(b.name))));
  const pause = h("select", { id: "round-pause-input", "data-testid": "round-pause-input", "data-key": "round-pause-input",
    "aria-label": gettext("Round summary"), onchange: remember },
  (view.round_pauses || [0, 3, 5, 10]).map((s) => h("option", { value: s, selected: s === chosen.pause }, s ? interpolate(gettext("Round summary %(seconds)s s"), { seconds: s }, true) : gettext("No round summary"))));
  return h("form", {
    class: "timeout-form", "data-testid": "clock-form",
    onsubmit: (event) => {
      event.preventDefault();
      const wanted = { seconds: Number(seconds.value), bot: bot.value, pause: Number(pause.value) };
      if (wanted.seconds === view.table.turn_clock_s && wanted.bot === view.table.standin_bot
        && wanted.pause === view.table.round_pause_s) {
        clockDraft = null;
        announce(gettext("The turn clock is already set so."));
        return;
      }
      if (send({ type: "set_turn_clock", seconds: wanted.seconds, bot: wanted.bot, round_pause: wanted.pause })) {
        clockSaving = wanted;
      }
    },
  },
  h("label", { for: "turn-clock-input" }, gettext("Turn clock")),
  h("span", { class: "input-row" }, seconds, bot, pause,
    h("button", { type: "submit", class: "button button-small", "data-testid": "clock-save" }, gettext("Save"))),
  h("p", { class: "hint" }, gettext("When a person's time for a move runs out, the stand-in bot plays for them until they are back.")));
}

function resultHeadline(g) {
  if (g.winner === null || g.winner === undefined) return gettext("It's a draw!");
  const me = mySeat();
  if (me !== null && view.you.game_seat !== undefined && view.you.game_seat !== null) {
    return g.winner === view.you.game_seat % 2 ? gettext("You won!") : gettext("You lost.");
  }
  return g.winner === 0 ? gettext("North & South win!") : gettext("East & West win!");
}

function closeResult() {
  dismissedResult = game().id;
  render();
  (app.querySelector("[data-testid=start]") || ui.hand).focus();
}

document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && !ui.result.hidden) closeResult();
});

function renderResult() {
  const g = game();
  const show = g && g.status === "finished" && dismissedResult !== g.id;
  const appearing = show && ui.result.hidden;
  ui.result.hidden = !show;
  if (!show) {
    ui.result.replaceChildren();
    return;
  }
  const teams = [0, 1].map((team) => h("div", { class: `result-team${g.winner === team ? " result-winner" : ""}` },
    h("span", { class: "result-team-label" }, g.winner === team ? "★ " : "", teamLabel(team)),
    h("span", { class: "result-team-names" }, teamNames(team)),
    h("strong", { class: "result-points", "data-testid": `result-score-${team}` }, g.scores[team])));
  const pairs = g.pairs && g.pairs.length
    ? h("section", { class: "result-pairs", "data-testid": "result-pairs" },
      h("h3", {}, gettext("Fair pairs: points made beyond the other team with the same cards")),
      h("ul", {}, g.pairs.map((p) => {
        const text = pairText(p);
        return h("li", { "data-testid": "result-pair", "data-advantage": text.advantage ?? "" },
          `${text.label}: `, h("strong", {}, text.value));
      })))
    : null;
  const faults = g.faults || [];
  const faultNote = faults.length
    ? h("p", { class: "result-faults", "data-testid": "result-faults" },
      h("span", { "aria-hidden": "true" }, "⚠ "),
      `${interpolate(ngettext("%(count)s bot fault: missing or wrong answers were replaced by random legal moves.",
        "%(count)s bot faults: missing or wrong answers were replaced by random legal moves.", faults.length), { count: faults.length }, true)} `,
      gettext("The game details list them."))
    : null;
  // With other people seated the next game is offered to them (Play again); alone with bots, it just starts.
  const others = view.seats.some((s) => s.kind === "human" && s.player_id !== view.you.player_id);
  const canStart = view.you.can_manage && !others && view.seats.every((s) => s.kind !== "empty");
  const rematch = others && !view.table.managed_by ? rematchPart() : { line: null, buttons: [] };
  ui.result.replaceChildren(h("div", { class: "result-card" },
    h("h2", { id: "result-title", "data-testid": "result-title", tabindex: -1 }, resultHeadline(g)),
    h("div", { class: "result-teams" }, teams),
    h("details", { class: "result-rounds", open: g.rounds.length <= 4 },
      h("summary", {}, interpolate(ngettext("%(count)s round", "%(count)s rounds", g.rounds.length), { count: g.rounds.length }, true)),
      sheetTable(g, gettext("Points per round"))),
    pairs,
    faultNote,
    rematch.line,
    h("div", { class: "result-actions" },
      ...rematch.buttons,
      view.table.managed_by ? h("a", { class: "button button-primary", href: view.table.managed_by,
        "data-testid": "tournament-link" }, gettext("Back to the tournament")) : null,
      canStart ? h("button", { type: "button", class: "button button-primary", "data-testid": "new-game",
        onclick: () => send({ type: "start" }) }, gettext("New game")) : null,
      h("a", { class: "button button-quiet", href: `/games/${g.id}/replay`, "data-testid": "replay-link" }, gettext("Replay")),
      h("a", { class: "button button-quiet", href: `/games/${g.id}/`, "data-testid": "game-link" }, gettext("Game details")),
      h("button", { type: "button", class: "button button-quiet", "data-testid": "close-result",
        onclick: closeResult }, gettext("Close")))));
  if (appearing) ui.result.querySelector("#result-title").focus();
}

let noticedRematch = null; // the offer to play again this person was told of (its end time)

/** An offer to play again that waits for this person's answer: a background page tells them. */
function noticeRematch() {
  const offer = view.rematch;
  const me = view.you.player_id;
  if (!offer || offer.refused_by !== null || offer.accepted.includes(me) || !offer.voters.includes(me)) return;
  if (noticedRematch === offer.until) return;
  noticedRematch = offer.until;
  notify.waiting(gettext("Play again?"), interpolate(gettext("%(name)s offers to play again."), { name: offer.by_name }, true),
    { tag: `rematch-${view.table.id}` });
}

/** *Play again*: offer the same four seats another game, or answer someone's offer ({line, buttons}). */
function rematchPart() {
  const me = view.you.player_id;
  const offer = view.rematch && view.rematch.until > Date.now() + clockOffset ? view.rematch : null;
  const seated = view.you.seat !== null && view.you.seat !== undefined;
  const button = (label, accept, testid, primary) => h("button", { type: "button", "data-testid": testid,
    class: `button ${primary ? "button-primary" : "button-quiet"}`, onclick: () => send({ type: "rematch", accept }) }, label);
  const nameOf = (id) => (view.seats.find((s) => s.player_id === id) || {}).name || "?";
  let line;
  let actions = [];
  if (offer && offer.refused_by !== null) {
    line = offer.refused_by === me ? gettext("You declined to play again.")
      : interpolate(gettext("%(name)s declined to play again."), { name: nameOf(offer.refused_by) }, true);
  } else if (offer) {
    clearTimeout(rematchTimer); // the offer leaves the page when it lapses
    rematchTimer = setTimeout(render, Math.max(0, offer.until - (Date.now() + clockOffset)) + 100);
    const waiting = offer.voters.filter((id) => !offer.accepted.includes(id) && view.seats.some((s) => s.player_id === id));
    line = offer.by === me ? gettext("You offered to play again.")
      : interpolate(gettext("%(name)s offers to play again."), { name: offer.by_name }, true);
    if (waiting.length) {
      line += ` ${interpolate(gettext("Waiting for %(names)s."), { names: waiting.map(nameOf).join(", ") }, true)}`;
    }
    if (seated && !offer.accepted.includes(me)) {
      actions = [button(gettext("Accept: play again"), true, "rematch-accept", true), button(gettext("Decline"), false, "rematch-decline")];
    }
  } else if (seated) {
    const again = button(gettext("Play again"), true, "rematch", true);
    again.title = gettext("The same four seats, the deal moving on: it starts when everyone seated accepts within a minute.");
    actions = [again];
  }
  return {
    line: line ? h("p", { class: "result-rematch", "data-testid": "rematch-text", role: "status" }, line) : null,
    buttons: actions,
  };
}

// -- messages for the user ------------------------------------------------------------------

// A message by kind: an error (a refusal, a lost connection), information (a Weis said), good news (your
// team scores). One at a time, at the top of the window: it never covers the hand or the Weis/Stöck bar.
// (Each kind's mark is the stylesheet's: .toast-error::before and so on.)
const TOAST_MS = { error: 6000, info: 4000, good: 4000 };

function toast(message, kind = "error") {
  const item = h("div", { class: `toast toast-${kind}`, "data-testid": "toast", "data-kind": kind },
    h("span", { class: "toast-text" }, message),
    h("button", { type: "button", class: "toast-close", "aria-label": gettext("Dismiss"), onclick: () => item.remove() }, "×"));
  ui.toasts.replaceChildren(item);
  setTimeout(() => item.remove(), TOAST_MS[kind]);
}

function announce(text) {
  ui.announcer.textContent = text;
}

function announceTurn() {
  const g = game();
  const key = running() && g.player === mySeat() ? `${g.id}:${g.seq}` : null;
  if (key && key !== lastAnnouncedTurn) {
    const said = g.phase === "trump" ? gettext("Your turn: choose trump.") : gettext("Your turn.");
    announce(said);
    document.title = `● ${gettext("Your turn")} · ${view.table.name}`;
    notify.waiting(gettext("Your turn"), `${view.table.name}: ${said}`, { tag: `turn-${view.table.id}`, sound: true });
  } else if (!key) {
    document.title = `${view.table.name} · Jassweb`;
    notify.settled();
  }
  lastAnnouncedTurn = key;
}

// Keyboard: arrow keys move between the cards of your hand.
ui.hand.addEventListener("keydown", (event) => {
  if (!["ArrowLeft", "ArrowRight"].includes(event.key)) return;
  const cards = [...ui.hand.querySelectorAll(".card")];
  const index = cards.indexOf(document.activeElement);
  if (index < 0) return;
  const next = cards[(index + (event.key === "ArrowRight" ? 1 : cards.length - 1)) % cards.length];
  next.focus();
  event.preventDefault();
});

// A private table's invitation link (its creator's panel): copy it with one click.
for (const button of app.querySelectorAll("[data-copy-from]")) {
  button.addEventListener("click", async () => {
    const field = document.getElementById(button.dataset.copyFrom);
    field.select();
    try {
      await navigator.clipboard.writeText(field.value);
      toast(gettext("Invitation link copied."), "good");
    } catch {
      toast(gettext("Copy the selected link (Ctrl+C): the browser did not allow copying here."), "info");
    }
  });
}

render();

notify.controls(app);
