// Weis and Stöck at the table: what you may announce, what was declared and who scored it.
// Pure rendering from the view the server sends (games/live/snapshot.py: game.weis, game.announce).

import { cardElement, cardName, DECK } from "./cards.js";
import { h } from "./dom.js";
import { gettext, interpolate, pgettext } from "./i18n.js";

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

// A run of cards in one suit by its length: Swiss-German names, as English speakers at a Jass table say them too.
const RUN_NAMES = {
  3: pgettext("Weis", "Dreiblatt"), 4: pgettext("Weis", "Vierblatt"), 5: pgettext("Weis", "Fünfblatt"),
  6: pgettext("Weis", "Sechsblatt"), 7: pgettext("Weis", "Siebenblatt"), 8: pgettext("Weis", "Achtblatt"),
  9: pgettext("Weis", "Neunblatt"),
};

// Four of a kind by rank offset (games/engine/weis.py: 1000 + offset, A K Q J 10 9), named in the page's deck.
const FOUR_NAMES = DECK === "swiss"
  ? [pgettext("Weis", "four Aces"), pgettext("Weis", "four Kings"), pgettext("Weis", "four Ober"),
    pgettext("Weis", "four Under"), pgettext("Weis", "four Banner"), pgettext("Weis", "four Nines")]
  : [pgettext("Weis", "four Aces"), pgettext("Weis", "four Kings"), pgettext("Weis", "four Queens"),
    pgettext("Weis", "four Jacks"), pgettext("Weis", "four Tens"), pgettext("Weis", "four Nines")];

/** "Vierblatt" or "four Jacks": what a Weis is called, without its card codes, in the page's language and deck. */
export function weisKind(entry) {
  if (typeof entry.code === "number") {
    const name = entry.code >= 1000 ? FOUR_NAMES[entry.code - 1000] : RUN_NAMES[Math.floor(entry.code / 100)];
    if (name) return name;
  }
  return entry.name.startsWith("four ") ? entry.name : entry.name.split(" ")[0];
}

/** "Vierblatt (50)": a Weis and its points in running text. */
function weisWithPoints(entry) {
  return interpolate(gettext("%(weis)s (%(points)s)"), { weis: weisKind(entry), points: entry.points }, true);
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
    parts.push(h("span", { class: "weis-bar-title" }, pgettext("announcement", "Weis")),
      ...offer.weis.map((entry) => h("button", {
        type: "button", class: "button weis-button", "data-testid": "declare-weis", "data-code": entry.code,
        "data-key": `weis-${entry.code}`, onclick: () => act({ type: "declare_weis", weis: [entry.code] }),
        "aria-label": interpolate(gettext("Declare %(weis)s (%(points)s): %(cards)s"),
          { weis: weisKind(entry), points: entry.points, cards: entry.cards.map(cardName).join(", ") }, true),
      }, weisCards(entry), h("span", {}, `${weisKind(entry)} · ${entry.points}`))));
    if (codes.length > 1) {
      parts.push(h("button", { type: "button", class: "button button-primary weis-button", "data-testid": "declare-all-weis",
        "data-key": "weis-all", onclick: () => act({ type: "declare_weis", weis: codes }) }, interpolate(gettext("Declare all · %(points)s"), { points: total(offer.weis) }, true)));
    }
    parts.push(h("span", { class: "hint weis-bar-hint" }, gettext("Declare with your first card, or just play: declaring is optional.")));
  }
  if (offer.declared.length) {
    parts.push(h("span", { class: "weis-bar-declared", "data-testid": "my-weis" },
      interpolate(gettext("You declared %(weis)s."), { weis: offer.declared.map(weisWithPoints).join(", ") }, true)));
  }
  if (myTurn && offer.stoeck) {
    parts.push(h("button", { type: "button", class: "button button-primary weis-button", "data-testid": "announce-stoeck",
      "data-key": "stoeck", onclick: () => act({ type: "play_card", card: offer.stoeck, stoeck: true }, offer.stoeck),
      "aria-label": interpolate(gettext("Stöck: play the %(card)s and score 20"), { card: cardName(offer.stoeck) }, true) },
    cardElement(offer.stoeck, { className: "card-mini" }), h("span", {}, gettext("Stöck! · 20"))));
  }
  if (offer.stoeck_pending) parts.push(h("span", { class: "weis-bar-declared" }, gettext("Stöck announced: play the card.")));
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
    h("span", { class: "weis-status" }, scored ? ` ✓ ${gettext("scored")}` : decided ? ` · ${gettext("not scored")}` : ` · ${gettext("declared")}`));
  });
  if (weis && weis.stoeck >= 0) {
    rows.push(h("li", { class: "weis-entry weis-scored", "data-testid": "stoeck-entry", "data-seat": weis.stoeck },
      h("span", { class: "weis-who" }, who(weis.stoeck)), " ", h("span", { class: "weis-name" }, `${pgettext("announcement", "Stöck")} `),
      h("strong", {}, 20), h("span", { class: "weis-status" }, " ✓")));
  }
  const factor = weis && weis.factor > 1 ? ` ×${weis.factor}` : "";
  const verdict = weis && weis.team >= 0
    ? h("p", { class: "weis-verdict", "data-testid": "weis-team" }, interpolate(gettext("%(team)s score %(points)s in Weis"), { team: teamLabel(weis.team), points: `${weis.points[weis.team]}${factor}` }, true))
    : null;
  return [
    h("h2", { class: "panel-title", id: "weis-title" }, gettext("Weis & Stöck")),
    rows.length ? h("ul", { class: "weis-list" }, rows) : h("p", { class: "muted" }, gettext("Nothing declared this round yet.")),
    verdict,
    h("label", { class: "check weis-auto" },
      h("input", { type: "checkbox", "data-testid": "auto-stoeck", checked: autoStoeck() ? "" : null,
        onchange: (event) => setAutoStoeck(event.target.checked) }),
      ` ${gettext("Announce my Stöck by themselves")}`),
  ].filter(Boolean); // replaceChildren would write a null out as text
}

/** Lines for the round's summary: the Weis that scored and the Stöck. */
export function weisSummaryLines(r, who, teamLabel) {
  const weis = r.weis;
  if (!weis) return [];
  const lines = [];
  if (weis.team >= 0) {
    const scored = weis.declared.flatMap((entries, seat) => (seat % 2 === weis.team ? entries.map((e) => ({ seat, e })) : []));
    const kinds = scored.map(({ seat, e }) => `${who(seat)}: ${e.name ? weisKind(e) : pgettext("announcement", "Weis")} ${e.points}`).join(", ");
    lines.push(h("p", { class: "summary-weis", "data-testid": "summary-weis" },
      `${pgettext("announcement", "Weis")}: ${teamLabel(weis.team)} ${weis.points[weis.team]}`, kinds ? ` (${kinds})` : ""));
  }
  if (weis.stoeck >= 0) {
    lines.push(h("p", { class: "summary-weis", "data-testid": "summary-stoeck" }, `${pgettext("announcement", "Stöck")}: ${who(weis.stoeck)} 20`));
  }
  return lines;
}

/** What changed in Weis and Stöck from one view to the next, in words (for a toast and the screen reader):
 * `{ text, good }`, good news when the viewer's team scores its Weis. */
export function weisNews(before, after, who, teamLabel, youSeat = null) {
  if (!after || !before) return [];
  const news = [];
  after.declared.forEach((entries, seat) => {
    const earlier = before.declared[seat] || [];
    if (entries.length > earlier.length) {
      const points = entries.slice(earlier.length).map((e) => e.points).join(" + ");
      news.push({ good: false, text: seat === youSeat
        ? interpolate(gettext("You declare Weis: %(points)s"), { points }, true)
        : interpolate(gettext("%(name)s declares Weis: %(points)s"), { name: who(seat), points }, true) });
    }
  });
  if (after.stoeck >= 0 && before.stoeck < 0) {
    news.push({ good: youSeat !== null && after.stoeck % 2 === youSeat % 2, text: interpolate(gettext("%(name)s: Stöck! +20"), { name: who(after.stoeck) }, true) });
  }
  if (after.team >= 0 && before.team < 0) {
    const text = interpolate(gettext("%(team)s score %(points)s in Weis"), { team: teamLabel(after.team), points: after.points[after.team] }, true);
    news.push({ good: youSeat !== null && after.team === youSeat % 2, text });
  }
  return news;
}
