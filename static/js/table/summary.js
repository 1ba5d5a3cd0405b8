// The end of a round: its summary over the table while the server holds the next deal back.

import { trumpMark, TRUMPS } from "../cards.js";
import { h } from "../dom.js";
import { gettext, interpolate } from "../i18n.js";
import { weisSummaryLines } from "../weis.js";
import { continueSummary } from "./actions.js";
import { game, mySeat, teamLabel, viewerTeam, who } from "./people.js";
import { store } from "./store.js";
import { ui } from "./ui.js";
import { pairText, repeatText, waitingText } from "./words.js";

export function renderSummary() {
  const g = game();
  const show = store.summary && !store.summary.closed && g && g.id === store.summary.game && !g.over && g.pause;
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
  if (!store.summary.shown) {
    store.summaryShown();
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
