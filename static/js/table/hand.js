// The viewer's hand, the note under it, and the Weis/Stöck bar and panel.

import { cardElement, cardName, reasonText, sortHand } from "../cards.js";
import { h } from "../dom.js";
import { gettext, interpolate } from "../i18n.js";
import { weisBar, weisPanel } from "../weis.js";
import { move, playCard, send } from "./actions.js";
import { clockSeat, clockText } from "./clock.js";
import { game, mySeat, myStandin, running, teamLabel, who } from "./people.js";
import { store } from "./store.js";
import { PHONE, ui } from "./ui.js";

export function renderHand() {
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
  const myTurn = g.player === me && g.phase === "play" && !store.pending && !myStandin();
  const legal = new Set(myTurn ? g.legal : []);
  const hand = sortHand(g.hand.filter((c) => !(store.pending && c === store.pending.card)), g.trump);
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

function renderHandNote(g, me, myTurn) {
  let note = "";
  if (store.pending) note = gettext("Sending…");
  else if (myStandin()) note = myStandin() === "left" ? gettext("You left this game.") : gettext("A bot is playing for you.");
  else if (myTurn) note = gettext("Your turn: play one of the raised cards.");
  else if (g.player === me && g.phase === "trump") note = gettext("Look at your cards and choose trump.");
  else if (g.player >= 0 && g.player !== me) note = interpolate(gettext("Waiting for %(name)s…"), { name: who(g.player) }, true);
  const clocked = !store.pending && !myStandin() && clockSeat() === me;
  const back = myStandin() === "clock" && PHONE.matches
    ? h("button", { type: "button", class: "button button-primary button-small hand-note-back", "data-testid": "back", "data-key": "back",
      onclick: () => send({ type: "back" }) }, gettext("I'm back"))
    : "";
  ui.handNote.replaceChildren(note, clocked ? " · " : "",
    clocked ? h("strong", { class: "my-clock", "data-testid": "my-clock" }, clockText()) : "", back);
  ui.handNote.hidden = !note;
}

/** Weis and Stöck: the bar under your hand (what you may announce) and the round's side panel. */
export function renderWeis() {
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
  const myTurn = g.player === mySeat() && g.phase === "play" && !store.pending && !myStandin();
  const parts = mySeat() === null ? [] : weisBar(g, (message, card = null) => move(message, card), myTurn);
  ui.weisBar.hidden = parts.length === 0;
  ui.weisBar.replaceChildren(...parts);
}

/** Keyboard: arrow keys move between the cards of your hand. */
export function listenToHandKeys() {
  ui.hand.addEventListener("keydown", handKeys);
}

function handKeys(event) {
  if (!["ArrowLeft", "ArrowRight"].includes(event.key)) return;
  const cards = [...ui.hand.querySelectorAll(".card")];
  const index = cards.indexOf(document.activeElement);
  if (index < 0) return;
  const next = cards[(index + (event.key === "ArrowRight" ? 1 : cards.length - 1)) % cards.length];
  next.focus();
  event.preventDefault();
}
