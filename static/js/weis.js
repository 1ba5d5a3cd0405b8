// Weis and Stöck at the table: what you may announce, what was declared and who scored it.
// Pure rendering from the view the server sends (games/snapshot.py: game.weis, game.announce).

import { cardElement, cardName } from "./cards.js";
import { h } from "./dom.js";

const AUTO_STOECK_KEY = "jassweb:auto-stoeck";

/** Whether the viewer wants their Stöck announced without a tap (remembered in this browser). */
export function autoStoeck() {
  try {
    return window.localStorage.getItem(AUTO_STOECK_KEY) === "on";
  } catch {
    return false;
  }
}

function setAutoStoeck(on) {
  try {
    window.localStorage.setItem(AUTO_STOECK_KEY, on ? "on" : "off");
  } catch {
    // private mode: the choice lasts this page
  }
}

/** "Vierblatt" or "four Jacks": what a Weis is called, without its card codes. */
export function weisKind(entry) {
  return entry.name.startsWith("four ") ? entry.name : entry.name.split(" ")[0];
}

function weisCards(entry) {
  return h("span", { class: "weis-cards", "aria-label": entry.cards.map(cardName).join(", ") },
    entry.cards.map((code) => cardElement(code, { className: "card-mini" })));
}

function total(entries) {
  return entries.reduce((sum, entry) => sum + entry.points, 0);
}

/**
 * The bar under your hand: the Weis your hand holds, to declare with one tap before your first card,
 * and Stöck when the card that completes them is playable. `act(message, card)` sends a move.
 */
export function weisBar(g, act, myTurn) {
  const offer = g.announce;
  if (!offer) return [];
  const parts = [];
  if (myTurn && offer.weis.length) {
    const codes = offer.weis.map((entry) => entry.code);
    parts.push(h("span", { class: "weis-bar-title" }, "Weis"),
      ...offer.weis.map((entry) => h("button", {
        type: "button", class: "button weis-button", "data-testid": "declare-weis", "data-code": entry.code,
        "data-key": `weis-${entry.code}`, onclick: () => act({ type: "declare_weis", weis: [entry.code] }),
        "aria-label": `Declare ${weisKind(entry)} (${entry.points}): ${entry.cards.map(cardName).join(", ")}`,
      }, weisCards(entry), h("span", {}, `${weisKind(entry)} · ${entry.points}`))));
    if (codes.length > 1) {
      parts.push(h("button", { type: "button", class: "button button-primary weis-button", "data-testid": "declare-all-weis",
        "data-key": "weis-all", onclick: () => act({ type: "declare_weis", weis: codes }) }, `Declare all · ${total(offer.weis)}`));
    }
    parts.push(h("span", { class: "hint weis-bar-hint" }, "Declare with your first card, or just play: declaring is optional."));
  }
  if (offer.declared.length) {
    parts.push(h("span", { class: "weis-bar-declared", "data-testid": "my-weis" },
      `You declared ${offer.declared.map((entry) => `${weisKind(entry)} (${entry.points})`).join(", ")}.`));
  }
  if (myTurn && offer.stoeck) {
    parts.push(h("button", { type: "button", class: "button button-primary weis-button", "data-testid": "announce-stoeck",
      "data-key": "stoeck", onclick: () => act({ type: "play_card", card: offer.stoeck, stoeck: true }, offer.stoeck),
      "aria-label": `Stöck: play the ${cardName(offer.stoeck)} and score 20` },
    cardElement(offer.stoeck, { className: "card-mini" }), h("span", {}, "Stöck! · 20")));
  }
  if (offer.stoeck_pending) parts.push(h("span", { class: "weis-bar-declared" }, "Stöck announced: play the card."));
  return parts;
}

/** The side panel: this round's Weis (points for all; cards of those that scored) and Stöck. */
export function weisPanel(g, who, teamLabel) {
  const weis = g.weis;
  const declared = weis ? weis.declared.flatMap((entries, seat) => entries.map((entry) => ({ seat, entry }))) : [];
  const rows = declared.map(({ seat, entry }) => {
    const decided = weis.team >= 0;
    const scored = decided && seat % 2 === weis.team;
    const status = !decided ? "declared" : scored ? "scored" : "not scored";
    return h("li", { class: `weis-entry${scored ? " weis-scored" : ""}`, "data-testid": "weis-entry", "data-seat": seat,
      "data-status": status },
    h("span", { class: "weis-who" }, who(seat)), " ",
    entry.cards ? h("span", { class: "weis-name" }, `${weisKind(entry)} `) : null,
    h("strong", {}, entry.points), entry.cards ? weisCards(entry) : null,
    h("span", { class: "weis-status" }, scored ? " ✓ scored" : decided ? " · not scored" : " · declared"));
  });
  if (weis && weis.stoeck >= 0) {
    rows.push(h("li", { class: "weis-entry weis-scored", "data-testid": "stoeck-entry", "data-seat": weis.stoeck },
      h("span", { class: "weis-who" }, who(weis.stoeck)), " ", h("span", { class: "weis-name" }, "Stöck "),
      h("strong", {}, 20), h("span", { class: "weis-status" }, " ✓")));
  }
  const factor = weis && weis.factor > 1 ? ` ×${weis.factor}` : "";
  const verdict = weis && weis.team >= 0
    ? h("p", { class: "weis-verdict", "data-testid": "weis-team" }, `${teamLabel(weis.team)} score ${weis.points[weis.team]}${factor} in Weis`)
    : null;
  return [
    h("h2", { class: "panel-title", id: "weis-title" }, "Weis & Stöck"),
    rows.length ? h("ul", { class: "weis-list" }, rows) : h("p", { class: "muted" }, "Nothing declared this round yet."),
    verdict,
    h("label", { class: "check weis-auto" },
      h("input", { type: "checkbox", "data-testid": "auto-stoeck", checked: autoStoeck() ? "" : null,
        onchange: (event) => setAutoStoeck(event.target.checked) }),
      " Announce my Stöck by themselves"),
  ].filter(Boolean); // replaceChildren would write a null out as text
}

/** Lines for the round's summary: the Weis that scored and the Stöck. */
export function weisSummaryLines(r, who, teamLabel) {
  const weis = r.weis;
  if (!weis) return [];
  const lines = [];
  if (weis.team >= 0) {
    const scored = weis.declared.flatMap((entries, seat) => (seat % 2 === weis.team ? entries.map((e) => ({ seat, e })) : []));
    const kinds = scored.map(({ seat, e }) => `${who(seat)}: ${e.name ? weisKind(e) : "Weis"} ${e.points}`).join(", ");
    lines.push(h("p", { class: "summary-weis", "data-testid": "summary-weis" },
      `Weis: ${teamLabel(weis.team)} ${weis.points[weis.team]}`, kinds ? ` (${kinds})` : ""));
  }
  if (weis.stoeck >= 0) {
    lines.push(h("p", { class: "summary-weis", "data-testid": "summary-stoeck" }, `Stöck: ${who(weis.stoeck)} 20`));
  }
  return lines;
}

/** What changed in Weis and Stöck from one view to the next, in words (for a toast and the screen reader). */
export function weisNews(before, after, who, teamLabel) {
  if (!after || !before) return [];
  const news = [];
  after.declared.forEach((entries, seat) => {
    const earlier = before.declared[seat] || [];
    if (entries.length > earlier.length) {
      news.push(`${who(seat)} ${entries.length - earlier.length > 1 ? "declare" : "declares"} Weis: ${entries.slice(earlier.length).map((e) => e.points).join(" + ")}`);
    }
  });
  if (after.stoeck >= 0 && before.stoeck < 0) news.push(`${who(after.stoeck)}: Stöck! +20`);
  if (after.team >= 0 && before.team < 0) news.push(`${teamLabel(after.team)} score ${after.points[after.team]} in Weis`);
  return news;
}
