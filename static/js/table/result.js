// The end of a game: the result over the table, and the offer to play again.

import { h } from "../dom.js";
import { gettext, interpolate, ngettext } from "../i18n.js";
import { closeResult, send } from "./actions.js";
import { game, teamLabel, teamNames } from "./people.js";
import { sheetTable } from "./sheet.js";
import { store } from "./store.js";
import { ui } from "./ui.js";
import { pairText, resultHeadline } from "./words.js";

export function renderResult() {
  const g = game();
  const show = g && g.status === "finished" && store.dismissedResult !== g.id;
  const appearing = show && ui.result.hidden;
  ui.result.hidden = !show;
  if (!show) {
    ui.result.replaceChildren();
    return;
  }
  const teams = [0, 1].map((team) => h("div", { class: `result-team${g.winner === team ? " result-winner" : ""}` },
    h("span", { class: "result-team-label" }, g.winner === team ? "★ " : "", teamLabel(team)),
    h("span", { class: "result-team-names" }, teamNames(team)),
    h("strong", { class: "result-points", "data-testid": `result-score-${team}` }, g.scores[team])));
  const pairs = g.pairs && g.pairs.length
    ? h("section", { class: "result-pairs", "data-testid": "result-pairs" },
      h("h3", {}, gettext("Fair pairs: points made beyond the other team with the same cards")),
      h("ul", {}, g.pairs.map((p) => {
        const text = pairText(p);
        return h("li", { "data-testid": "result-pair", "data-advantage": text.advantage ?? "" },
          `${text.label}: `, h("strong", {}, text.value));
      })))
    : null;
  const faults = g.faults || [];
  const faultNote = faults.length
    ? h("p", { class: "result-faults", "data-testid": "result-faults" },
      h("span", { "aria-hidden": "true" }, "⚠ "),
      `${interpolate(ngettext("%(count)s bot fault: missing or wrong answers were replaced by random legal moves.",
        "%(count)s bot faults: missing or wrong answers were replaced by random legal moves.", faults.length), { count: faults.length }, true)} `,
      gettext("The game details list them."))
    : null;
  // With other people seated the next game is offered to them (Play again); alone with bots, it just starts.
  const others = store.view.seats.some((s) => s.kind === "human" && s.player_id !== store.view.you.player_id);
  const canStart = store.view.you.can_manage && !others && store.view.seats.every((s) => s.kind !== "empty");
  const rematch = others && !store.view.table.managed_by ? rematchPart() : { line: null, buttons: [] };
  ui.result.replaceChildren(h("div", { class: "result-card" },
    h("h2", { id: "result-title", "data-testid": "result-title", tabindex: -1 }, resultHeadline(g)),
    h("div", { class: "result-teams" }, teams),
    h("details", { class: "result-rounds", open: g.rounds.length <= 4 },
      h("summary", {}, interpolate(ngettext("%(count)s round", "%(count)s rounds", g.rounds.length), { count: g.rounds.length }, true)),
      sheetTable(g, gettext("Points per round"))),
    pairs,
    faultNote,
    rematch.line,
    h("div", { class: "result-actions" },
      ...rematch.buttons,
      store.view.table.managed_by ? h("a", { class: "button button-primary", href: store.view.table.managed_by,
        "data-testid": "tournament-link" }, gettext("Back to the tournament")) : null,
      canStart ? h("button", { type: "button", class: "button button-primary", "data-testid": "new-game",
        onclick: () => send({ type: "start" }) }, gettext("New game")) : null,
      h("a", { class: "button button-quiet", href: `/games/${g.id}/replay`, "data-testid": "replay-link" }, gettext("Replay")),
      h("a", { class: "button button-quiet", href: `/games/${g.id}/`, "data-testid": "game-link" }, gettext("Game details")),
      h("button", { type: "button", class: "button button-quiet", "data-testid": "close-result",
        onclick: closeResult }, gettext("Close")))));
  if (appearing) ui.result.querySelector("#result-title").focus();
}

/** *Play again*: offer the same four seats another game, or answer someone's offer ({line, buttons}). */
function rematchPart() {
  const me = store.view.you.player_id;
  const offer = store.view.rematch && store.view.rematch.until > store.now() ? store.view.rematch : null;
  const seated = store.view.you.seat !== null && store.view.you.seat !== undefined;
  const button = (label, accept, testid, primary) => h("button", { type: "button", "data-testid": testid,
    class: `button ${primary ? "button-primary" : "button-quiet"}`, onclick: () => send({ type: "rematch", accept }) }, label);
  const nameOf = (id) => (store.view.seats.find((s) => s.player_id === id) || {}).name || "?";
  let line;
  let actions = [];
  if (offer && offer.refused_by !== null) {
    line = offer.refused_by === me ? gettext("You declined to play again.")
      : interpolate(gettext("%(name)s declined to play again."), { name: nameOf(offer.refused_by) }, true);
  } else if (offer) {
    // the offer leaves the page when it lapses
    store.timers.later("rematch", () => store.changed(), Math.max(0, offer.until - store.now()) + 100);
    const waiting = offer.voters.filter((id) => !offer.accepted.includes(id) && store.view.seats.some((s) => s.player_id === id));
    line = offer.by === me ? gettext("You offered to play again.")
      : interpolate(gettext("%(name)s offers to play again."), { name: offer.by_name }, true);
    if (waiting.length) {
      line += ` ${interpolate(gettext("Waiting for %(names)s."), { names: waiting.map(nameOf).join(", ") }, true)}`;
    }
    if (seated && !offer.accepted.includes(me)) {
      actions = [button(gettext("Accept: play again"), true, "rematch-accept", true), button(gettext("Decline"), false, "rematch-decline")];
    }
  } else if (seated) {
    const again = button(gettext("Play again"), true, "rematch", true);
    again.title = gettext("The same four seats, the deal moving on: it starts when everyone seated accepts within a minute.");
    actions = [again];
  }
  return {
    line: line ? h("p", { class: "result-rematch", "data-testid": "rematch-text", role: "status" }, line) : null,
    buttons: actions,
  };
}

/** Escape closes the result, as its Close button does. */
export function listenToEscape() {
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && !ui.result.hidden) closeResult();
  });
}
