// Messages for the user: a toast at the top of the window, the screen reader's announcer, the turn in the title.

import { h } from "../dom.js";
import { gettext } from "../i18n.js";
import * as notify from "../notify.js";
import { game, mySeat, running } from "./people.js";
import { store } from "./store.js";
import { ui } from "./ui.js";

// A message by kind: an error (a refusal, a lost connection), information (a Weis said), good news (your
// team scores). One at a time, at the top of the window: it never covers the hand or the Weis/Stöck bar.
// (Each kind's mark is the stylesheet's: .toast-error::before and so on.)
const TOAST_MS = { error: 6000, info: 4000, good: 4000 };

export function toast(message, kind = "error") {
  const item = h("div", { class: `toast toast-${kind}`, "data-testid": "toast", "data-kind": kind },
    h("span", { class: "toast-text" }, message),
    h("button", { type: "button", class: "toast-close", "aria-label": gettext("Dismiss"), onclick: () => item.remove() }, "×"));
  ui.toasts.replaceChildren(item);
  setTimeout(() => item.remove(), TOAST_MS[kind]);
}

export function announce(text) {
  ui.announcer.textContent = text;
}

export function announceTurn() {
  const g = game();
  const key = running() && g.player === mySeat() ? `${g.id}:${g.seq}` : null;
  if (key && key !== store.announcedTurn) {
    const said = g.phase === "trump" ? gettext("Your turn: choose trump.") : gettext("Your turn.");
    announce(said);
    document.title = `● ${gettext("Your turn")} · ${store.view.table.name}`;
    notify.waiting(gettext("Your turn"), `${store.view.table.name}: ${said}`, { tag: `turn-${store.view.table.id}`, sound: true });
  } else if (!key) {
    document.title = `${store.view.table.name} · Jassweb`;
    notify.settled();
  }
  store.turnAnnounced(key);
}
