// The middle of the table: the trick, and beside it what comes next (the trump choice, a note, the lobby's start).

import { cardElement, cardName, trumpMark, TRUMPS } from "../cards.js";
import { h } from "../dom.js";
import { gettext, interpolate } from "../i18n.js";
import { chooseTrump, send } from "./actions.js";
import { game, mySeat, myStandin, positionOf, running, standinName, who } from "./people.js";
import { store } from "./store.js";
import { PHONE, app, ui } from "./ui.js";
import { abandonText, resultHeadline } from "./words.js";

export function renderTrick() {
  const g = game();
  const slots = {};
  for (const where of ["top", "left", "right", "bottom"]) {
    slots[where] = ui.trick.querySelector(`.trick-${where}`);
    slots[where].replaceChildren();
  }
  ui.trick.dataset.lingering = store.linger ? "true" : "false";
  let cards = [];
  let winner = null;
  if (store.linger) {
    cards = store.linger.trick.cards;
    winner = store.linger.trick.winner;
    ui.trickCaption.textContent = winner === mySeat()
      ? interpolate(gettext("You take the trick · %(points)s points"), { points: store.linger.trick.points }, true)
      : interpolate(gettext("%(name)s takes the trick · %(points)s points"), { name: who(winner), points: store.linger.trick.points }, true);
  } else if (g && (running() || g.over)) {
    cards = [...g.trick];
    if (store.pending && store.pending.card) cards.push({ seat: mySeat(), card: store.pending.card });
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
      className: `card-trick${seat === winner ? " card-winner" : ""}${store.shownTrickCards.has(key) ? "" : " card-enter"}`,
      attrs: { "data-seat": seat, "aria-label": `${who(seat)}: ${cardName(card)}`, style: `z-index:${index + 1}` },
    }));
  });
  store.trickShown(next);
}

export function renderCenter() {
  const g = game();
  const parts = [];
  if (!running()) {
    parts.push(...lobbyCenter());
  } else if (myStandin() && !PHONE.matches) {
    parts.push(awayPanel(myStandin())); // a phone has no room beside the trick: the hand's note says it
  } else if (store.linger) {
    // The last trick of the round is still on the table, with its caption: the new round's
    // trump choice comes once it is swept away (the two never share the centre).
  } else if (g.phase === "trump") {
    const choices = g.legal_trumps || [];
    if (choices.length && !store.pending) {
      parts.push(trumpChooser(choices));
    } else if (!store.pending) {
      const chooser = g.player;
      parts.push(h("p", { class: "center-note" }, chooser === mySeat() ? gettext("You choose trump")
        : interpolate(gettext("%(name)s is choosing trump"), { name: who(chooser) }, true),
      g.forehand === chooser ? "" : ` (${g.forehand === mySeat() ? gettext("you pushed")
        : interpolate(gettext("%(name)s pushed"), { name: who(g.forehand) }, true)})`, "…"));
    }
  } else if (g.trick.length === 0 && !store.linger && !store.pending && g.player === mySeat()) {
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
  if (store.view.you.player_id === null) {
    parts.push(h("form", { method: "post", action: "/guest/", class: "nickname-inline" },
      h("input", { type: "hidden", name: "csrfmiddlewaretoken", value: document.querySelector('meta[name="csrf-token"]').content }),
      h("input", { type: "hidden", name: "next", value: app.dataset.tableUrl }),
      h("label", { for: "table-nickname" }, store.view.seats.some((s) => s.kind === "empty")
        ? gettext("Choose a nickname to take a seat")
        : gettext("Every seat is taken: choose a nickname to watch, and sit down when one is free")),
      h("span", { class: "input-row" },
        h("input", { id: "table-nickname", name: "nickname", maxlength: 24, required: true, placeholder: gettext("Nickname") }),
        h("button", { type: "submit", class: "button" }, gettext("Join as guest")))));
    return parts;
  }
  const filled = store.view.seats.filter((s) => s.kind !== "empty").length;
  if (store.view.hidden_game) {
    parts.push(h("p", { class: "center-note", "data-testid": "private-note" }, store.view.hidden_game === "running"
      ? gettext("A private game is being played here: only its players see it.")
      : gettext("This table is private: its games are shown only to those who played them.")));
  }
  if (g && g.status === "abandoned") {
    const why = abandonText(g.abandon);
    parts.push(h("p", { class: "center-note", "data-testid": "abandoned-note" }, gettext("The last game was abandoned"),
      why ? `: ${why}.` : "."));
  }
  if (g && g.status === "finished") parts.push(h("p", { class: "center-note" }, resultHeadline(g)));
  if (store.view.you.can_manage) {
    parts.push(h("button", {
      type: "button", class: "button button-primary button-large", "data-testid": "start", "data-key": "start",
      disabled: filled < 4, onclick: () => send({ type: "start" }),
    }, g ? gettext("New game") : gettext("Start game")));
    parts.push(h("p", { class: "center-hint" }, filled < 4
      ? interpolate(gettext("%(count)s of 4 seats filled: sit down or add bots."), { count: filled }, true)
      : gettext("Everyone is seated.")));
  } else {
    parts.push(h("p", { class: "center-note" }, store.view.you.seat === null
      ? gettext("Take an empty seat, or watch.")
      : gettext("Waiting for the game to start…")));
  }
  return parts;
}

function awayPanel(kind) {
  const g = game();
  const bot = standinName(g.players[store.view.you.game_seat]);
  if (kind === "left") {
    return h("div", { class: "away-panel", "data-testid": "away-panel", role: "status" },
      h("p", { class: "center-note" }, interpolate(gettext("You left this game: the %(bot)s plays your seat to the end."), { bot }, true)));
  }
  return h("div", { class: "away-panel", "data-testid": "away-panel", role: "status" },
    h("p", { class: "center-note" }, interpolate(gettext("Your time ran out, so the %(bot)s is playing for you."), { bot }, true)),
    h("button", { type: "button", class: "button button-primary button-large", "data-testid": "back", "data-key": "back",
      onclick: () => send({ type: "back" }) }, gettext("I'm back")));
}
