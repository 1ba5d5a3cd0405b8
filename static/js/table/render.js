// Rendering the whole table from the store, in order, and what follows it (the keyboard's focus, the phone's scroll).

import { renderCenter, renderTrick } from "./centre.js";
import { tickClock } from "./clock.js";
import { renderHand, renderWeis } from "./hand.js";
import { announceTurn } from "./messages.js";
import { game, mySeat, myStandin, running } from "./people.js";
import { renderResult } from "./result.js";
import { renderScores, renderTrump } from "./scoreboard.js";
import { renderSeats } from "./seats.js";
import { renderInfo } from "./settings.js";
import { renderFaults, renderLastTrick, renderSheet } from "./sheet.js";
import { store } from "./store.js";
import { renderSummary } from "./summary.js";
import { PHONE, app, ui } from "./ui.js";
import { renderVote } from "./vote.js";

/** Render the whole table from the store, keeping the keyboard's focus where it was. */
export function render() {
  const focusKey = document.activeElement && document.activeElement.dataset
    ? document.activeElement.dataset.key : null;
  const focusInHand = ui.hand.contains(document.activeElement);
  app.dataset.seq = store.view.game ? String(store.view.game.seq) : ""; // the move number shown (tests wait on it)
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
function keepTableInView() {
  const barShown = !ui.weisBar.hidden;
  const barAppeared = barShown && !store.weisBarShown;
  store.weisBarSeen(barShown);
  if (!PHONE.matches || !running() || mySeat() === null) return;
  if (store.scrolledForGame !== store.view.game.id) {
    store.scrolledFor(store.view.game.id);
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
  if (!running() || g.player !== mySeat() || store.pending || myStandin() || !ui.summary.hidden) return;
  const trump = ui.center.querySelector(".trump-button");
  const key = `${g.id}:${g.seq}:${trump ? "trump" : g.phase}`;
  if (key === store.focusedTurn || (g.phase === "trump" && !trump)) return;
  store.turnFocused(key);
  const active = document.activeElement;
  const typing = (active && active.matches("input, select, textarea")) || document.querySelector("dialog[open]");
  if (typing) return;
  if (trump) trump.focus({ preventScroll: true });
  else if (!active || active === document.body) ui.hand.querySelector("[data-legal=true]")?.focus({ preventScroll: true });
}
