// The table page's state, in one place: the view the server sent and what this page does with it
// (a move on its way, a trick still shown, the round's summary, drafts typed in the table's panel).
// Views read it through the getters; it changes only through the named transitions below, and
// every timer of the page runs here, by name, so that none is left behind in a view.

import { jsonFromScript } from "../dom.js";
import { game } from "./people.js";

const LINGER_MS = 1300; // how long a completed trick stays on the table before it is swept away
const MIN_LINGER_MS = 600; // ...at least, even when it is your turn to follow a card already led

/** What identifies the last completed trick ("game:round:cards"), to notice a new one. */
function trickKey(view) {
  const prev = view.game && view.game.previous_trick;
  return prev ? `${view.game.id}:${prev.round}:${prev.cards.map((c) => c.card).join(",")}` : null;
}

/** Timeouts and intervals by name: starting one cancels the one of the same name. */
class Timers {
  #handles = new Map();

  /** Run `fn` once after `ms`. */
  later(name, fn, ms) {
    this.cancel(name);
    this.#handles.set(name, { id: setTimeout(() => { this.#handles.delete(name); fn(); }, ms), repeat: false });
  }

  /** Run `fn` every `ms` until cancelled. */
  every(name, fn, ms) {
    this.cancel(name);
    this.#handles.set(name, { id: setInterval(fn, ms), repeat: true });
  }

  active(name) {
    return this.#handles.has(name);
  }

  cancel(name) {
    const handle = this.#handles.get(name);
    if (!handle) return;
    if (handle.repeat) clearInterval(handle.id);
    else clearTimeout(handle.id);
    this.#handles.delete(name);
  }
}

class TableStore {
  #view;
  #version;
  #completedKey;
  #clockOffset = 0; // the server's clock minus ours (ms), for the turn clock and the pauses
  #lastResync = 0;
  #pending = null; // {seq, card, held}: a move sent and not yet answered
  #linger = null; // {trick, started}: a completed trick still shown
  #summary = null; // {game, round, closed, shown}: the round just ended, over the table while its pause holds
  #dismissedResult = null; // the game whose result panel was closed
  #botChoice = {}; // seat -> bot name picked in a select, kept across renders
  #timeoutDraft = null; // a bot timeout typed and not yet saved
  #timeoutSaving = null; // a bot timeout sent and not yet confirmed
  #clockDraft = null; // {seconds, bot, pause}: a turn clock chosen and not yet saved (kept across renders)
  #clockSaving = null; // the clock sent, until the table shows it
  // What the views last did, so that they do it once: announce a turn, focus it, scroll to it...
  #announcedTurn = null;
  #focusedTurn = null;
  #shownTrickCards = new Set();
  #infoSignature = null; // the table panel is rebuilt only when what it shows changes
  #scrolledForGame = null;
  #weisBarShown = false;
  #noticedRematch = null; // the offer to play again this person was told of (its end time)
  #listeners = [];
  timers = new Timers();

  constructor(view) {
    this.#view = view;
    this.#version = view.version;
    this.#completedKey = trickKey(view);
  }

  get view() { return this.#view; }
  get version() { return this.#version; }
  get clockOffset() { return this.#clockOffset; }
  get pending() { return this.#pending; }
  get linger() { return this.#linger; }
  get summary() { return this.#summary; }
  get dismissedResult() { return this.#dismissedResult; }
  get timeoutDraft() { return this.#timeoutDraft; }
  get clockDraft() { return this.#clockDraft; }
  get announcedTurn() { return this.#announcedTurn; }
  get focusedTurn() { return this.#focusedTurn; }
  get shownTrickCards() { return this.#shownTrickCards; }
  get infoSignature() { return this.#infoSignature; }
  get scrolledForGame() { return this.#scrolledForGame; }
  get weisBarShown() { return this.#weisBarShown; }
  get noticedRematch() { return this.#noticedRematch; }

  /** The bot picked for an empty seat's select, if any. */
  botChoice(seat) {
    return this.#botChoice[seat];
  }

  /** The server's time now, by our clock (ms). */
  now() {
    return Date.now() + this.#clockOffset;
  }

  // -- rendering -----------------------------------------------------------------------

  /** Call `listener` (the page's render) after each change that shows. */
  subscribe(listener) {
    this.#listeners.push(listener);
  }

  /** Something shown changed: render. */
  changed() {
    for (const listener of this.#listeners) listener();
  }

  // -- the server's view -------------------------------------------------------------------

  /**
   * A state event: whether it is news (not overtaken by a newer one), and whether one was missed
   * before it (events are numbered). The view itself is taken by `viewReceived`.
   */
  stateArrived(message) {
    if (message.version < this.#version) return { news: false, gap: false };
    const gap = this.#version >= 0 && message.version > this.#version + 1;
    this.#version = message.version;
    if (typeof message.now === "number") this.#clockOffset = message.now - Date.now();
    return { news: true, gap };
  }

  /** Take the server's new view; what it replaced, to tell what happened in between. */
  viewReceived(next) {
    const before = { view: this.#view, completedKey: this.#completedKey };
    this.#view = next;
    this.#completedKey = trickKey(next);
    return before;
  }

  get completedKey() { return this.#completedKey; }

  /** A resync may be asked for at most every `gapMs`: whether now is such a time (and it is asked). */
  resyncAllowed(gapMs) {
    if (Date.now() - this.#lastResync <= gapMs) return false;
    this.#lastResync = Date.now();
    return true;
  }

  // -- a move on its way -----------------------------------------------------------------

  /** A move went out (or is `held` until the socket opens); `onTimeout` runs if no answer comes in `ms`. */
  moveSent(seq, card, held, onTimeout, ms) {
    this.#pending = { seq, card, held };
    this.timers.later("pending", () => {
      this.moveAnswered();
      onTimeout();
    }, ms);
  }

  /** The held move went out now that the socket is open. */
  heldMoveSent() {
    if (this.#pending) this.#pending.held = null;
  }

  moveAnswered() {
    this.timers.cancel("pending");
    this.#pending = null;
  }

  // -- the completed trick, shown a moment before it is swept away -----------------------

  lingerStarted(trick) {
    this.lingerEnded();
    this.#linger = { trick, started: Date.now() };
    this.lingerShortened(LINGER_MS);
  }

  /** End the lingering trick `ms` after it appeared (or now, if that is past); `MIN_LINGER_MS` without `ms`. */
  lingerShortened(ms = MIN_LINGER_MS) {
    this.timers.later("linger", () => {
      this.#linger = null;
      this.changed();
    }, Math.max(0, this.#linger.started + ms - Date.now()));
  }

  lingerEnded() {
    this.timers.cancel("linger");
    this.#linger = null;
  }

  // -- the end of a round: its summary over the table -------------------------------------

  /** A summary for `round` of `gameId` shows until `left` ms from now; whether it is a new one. */
  summaryHeld(gameId, round, left) {
    const fresh = !this.#summary || this.#summary.game !== gameId || this.#summary.round !== round;
    if (fresh) this.#summary = { game: gameId, round, closed: false, shown: false };
    this.timers.later("summary", () => {
      this.#summary = null;
      this.changed();
    }, left);
    return fresh;
  }

  summaryEnded() {
    this.timers.cancel("summary");
    this.#summary = null;
  }

  /** This person closed the summary for themselves (until the next one). */
  summaryClosed() {
    this.timers.cancel("summary");
    this.#summary.closed = true;
  }

  /** The summary was put in front of the viewer (it takes the focus once). */
  summaryShown() {
    this.#summary.shown = true;
  }

  resultDismissed(gameId) {
    this.#dismissedResult = gameId;
  }

  // -- the table's settings, typed and saved --------------------------------------------------

  botChosen(seat, name) {
    this.#botChoice[seat] = name;
  }

  timeoutDrafted(seconds) {
    this.#timeoutDraft = seconds;
  }

  timeoutSent(seconds) {
    this.#timeoutSaving = seconds;
  }

  /** Whether the view shows the timeout sent (then the draft is done with). */
  timeoutConfirmed() {
    if (this.#timeoutSaving === null || this.#timeoutSaving !== this.#view.table.bot_timeout_s) return false;
    this.#timeoutSaving = null;
    this.#timeoutDraft = null;
    return true;
  }

  clockDrafted(clock) {
    this.#clockDraft = clock;
  }

  clockSent(clock) {
    this.#clockSaving = clock;
  }

  /** Whether the view shows the clock sent (then the draft is done with). */
  clockConfirmed() {
    const saving = this.#clockSaving;
    const t = this.#view.table;
    if (!saving || saving.seconds !== t.turn_clock_s || saving.bot !== t.standin_bot || saving.pause !== t.round_pause_s) {
      return false;
    }
    this.#clockSaving = null;
    this.#clockDraft = null;
    return true;
  }

  // -- what the views did once -----------------------------------------------------------------

  turnAnnounced(key) {
    this.#announcedTurn = key;
  }

  turnFocused(key) {
    this.#focusedTurn = key;
  }

  trickShown(cards) {
    this.#shownTrickCards = cards;
  }

  infoBuilt(signature) {
    this.#infoSignature = signature;
  }

  scrolledFor(gameId) {
    this.#scrolledForGame = gameId;
  }

  weisBarSeen(shown) {
    this.#weisBarShown = shown;
  }

  rematchNoticed(until) {
    this.#noticedRematch = until;
  }
}

/** The page's one store, from the view the page was rendered with. */
export const store = new TableStore(jsonFromScript("initial-view"));
