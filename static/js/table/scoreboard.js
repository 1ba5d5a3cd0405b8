// The score bar: each team's points (and share of the target), and the trump with who chose it.

import { trumpLabel } from "../cards.js";
import { h, replaceIfChanged, SEAT_NAMES } from "../dom.js";
import { gettext, interpolate } from "../i18n.js";
import { game, mySeat, running, teamLabel, teamNames, who } from "./people.js";
import { ui } from "./ui.js";
import { lengthText, roundText } from "./words.js";

export function renderScores() {
  const g = game();
  ui.sub.textContent = g ? `${lengthText()} · ${roundText(g)}` : lengthText();
  if (!g) {
    ui.scores.replaceChildren();
    return;
  }
  const me = mySeat();
  const teams = me !== null && me % 2 === 1 ? [1, 0] : [0, 1];
  replaceIfChanged(ui.scores, ...teams.map((team) => {
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

export function renderTrump() {
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
  replaceIfChanged(ui.scoreTrump, h("span", { class: "scorebar-trump-title" }, gettext("Trump")), " ",
    h("strong", {}, trumpLabel(g.trump), factor > 1 ? h("span", { class: "factor" }, ` ×${factor}`) : null), " ",
    h("span", { class: "scorebar-trump-by" }, byShort));
  ui.trump.hidden = false;
  replaceIfChanged(ui.trump,
    h("span", { class: "trump-badge-title" }, gettext("Trump")),
    h("span", { class: "trump-badge-value" }, trumpLabel(g.trump), factor > 1 ? h("span", { class: "factor" }, ` ×${factor}`) : null),
    h("span", { class: "trump-badge-by" }, by),
    h("span", { class: "trump-badge-by-short", "aria-hidden": "true" }, byShort));
}
