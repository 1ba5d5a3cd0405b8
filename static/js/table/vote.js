// A request to abandon the game: the others agree or refuse; everyone sees who answered.

import { h } from "../dom.js";
import { gettext, interpolate } from "../i18n.js";
import { send } from "./actions.js";
import { game, gameWho, running, whoInText } from "./people.js";
import { store } from "./store.js";
import { ui } from "./ui.js";

/** The request, who agreed and who is still asked, with Agree and Refuse for those asked; hidden when it lapses. */
export function renderVote() {
  const vote = running() ? game().abandon_vote : null;
  const left = vote ? vote.until - store.now() : 0;
  store.timers.cancel("vote");
  if (!vote || left <= 0) {
    ui.vote.hidden = true;
    ui.vote.replaceChildren();
    return;
  }
  store.timers.later("vote", renderVote, Math.min(left + 50, 2 ** 31 - 1));
  const me = store.view.you.game_seat;
  const waiting = vote.voters.filter((s) => !vote.agreed.includes(s));
  const parts = [];
  if (vote.refused_by !== null && vote.refused_by !== undefined) {
    parts.push(h("p", { class: "vote-text" },
      vote.refused_by === me ? gettext("You refused to abandon the game: it goes on.")
        : interpolate(gettext("%(name)s refused to abandon the game: it goes on."), { name: gameWho(vote.refused_by) }, true)));
  } else {
    parts.push(h("p", { class: "vote-text" }, vote.by === me ? gettext("You asked to abandon the game.")
      : interpolate(gettext("%(name)s asked to abandon the game."), { name: vote.by_name }, true),
      vote.agreed.length ? ` ${interpolate(gettext("Agreed: %(names)s."), { names: vote.agreed.map(gameWho).join(", ") }, true)}` : "",
      waiting.length ? ` ${interpolate(gettext("Waiting for %(names)s"), { names: waiting.map(whoInText).join(", ") }, true)}` : "",
      ` (${interpolate(gettext("lapses in %(seconds)s s"), { seconds: Math.ceil(left / 1000) }, true)}).`));
    if (me !== null && me !== undefined && waiting.includes(me)) {
      parts.push(h("div", { class: "vote-actions" },
        h("button", { type: "button", class: "button button-small button-danger", "data-testid": "abandon-agree",
          onclick: () => send({ type: "abandon_vote", agree: true }) }, gettext("Agree: abandon")),
        h("button", { type: "button", class: "button button-small", "data-testid": "abandon-refuse",
          onclick: () => send({ type: "abandon_vote", agree: false }) }, gettext("Refuse: play on"))));
    }
  }
  ui.vote.replaceChildren(...parts);
  // Asked to answer: a question (on a phone a dialog over the table); else a note.
  ui.vote.classList.toggle("abandon-vote-asking", parts.length > 1);
  ui.vote.hidden = false;
}
