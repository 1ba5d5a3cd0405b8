// The side panels that look back: the last trick, the score sheet and the bots' faults.

import { cardElement, trumpLabel } from "../cards.js";
import { h, replaceIfChanged, SEAT_NAMES } from "../dom.js";
import { faultList } from "../faults.js";
import { gettext, interpolate } from "../i18n.js";
import { game, gameWho, mySeat, running, seatName, teamNames, who } from "./people.js";
import { ui } from "./ui.js";

export function renderLastTrick() {
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

/** The last trick's button opens and closes it. */
export function listenToLastTrickToggle() {
  ui.lastTrickToggle.addEventListener("click", () => {
    const open = ui.lastTrickToggle.getAttribute("aria-expanded") !== "true";
    ui.lastTrickToggle.setAttribute("aria-expanded", String(open));
    renderLastTrick();
  });
}

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

export function sheetTable(g, caption) {
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

export function renderSheet() {
  const g = game();
  if (!g || g.rounds.length === 0) {
    ui.sheet.replaceChildren(h("p", { class: "muted" }, gettext("No rounds played yet.")));
    return;
  }
  replaceIfChanged(ui.sheet, sheetTable(g, gettext("Points per round")));
}

export function renderFaults() {
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
