// The table's panel: its rules and settings, the forms that change them between games, leaving and abandoning.

import { suitTag } from "../cards.js";
import { h } from "../dom.js";
import { gettext, interpolate, ngettext, pgettext } from "../i18n.js";
import { send } from "./actions.js";
import { announce } from "./messages.js";
import { botLabel, game, gameWho, otherPeople, running } from "./people.js";
import { store } from "./store.js";
import { ui } from "./ui.js";

export function renderInfo() {
  const t = store.view.table;
  const editable = store.view.you.can_manage && !running();
  const g = game();
  const mine = running() ? store.view.you.game_seat : null;
  const standin = mine !== null && mine !== undefined ? g.players[mine].standin : null;
  const signature = JSON.stringify([t, editable, store.view.you.can_manage, running(), g && g.id, mine, standin]);
  if (signature === store.infoSignature && ui.info.children.length) return; // keeps a timeout being typed
  store.infoBuilt(signature);
  const items = [h("h2", { class: "panel-title" }, pgettext("a Jass table", "Table"))];
  const multipliers = t.multipliers
    ? h("span", {}, suitTag("D"), " ", suitTag("H"), " ×1 · ", suitTag("S"), " ", suitTag("C"), ` ×2 · ${gettext("Obe/Une")} ×3`) : gettext("off");
  items.push(h("dl", { class: "facts" },
    h("dt", {}, gettext("Mode")), h("dd", {}, t.mode === "fair"
      ? interpolate(ngettext("Fair, %(count)s round", "Fair, %(count)s rounds", t.round_count), { count: t.round_count }, true)
      : interpolate(gettext("Standard, to %(target)s points"), { target: t.target }, true)),
    h("dt", {}, gettext("Multipliers")), h("dd", {}, multipliers),
    h("dt", {}, gettext("Bot timeout")), h("dd", { "data-testid": "bot-timeout" },
      interpolate(gettext("%(seconds)s s per answer"), { seconds: t.bot_timeout_s }, true)),
    h("dt", {}, gettext("Turn clock")), h("dd", { "data-testid": "turn-clock-option" }, t.turn_clock_s
      ? interpolate(gettext("%(seconds)s s a move, then the %(bot)s bot plays"), { seconds: t.turn_clock_s, bot: botLabel(t.standin_bot) }, true)
      : gettext("off")),
    h("dt", {}, gettext("Round summary")), h("dd", { "data-testid": "round-pause-option" }, t.round_pause_s
      ? interpolate(gettext("%(seconds)s s, then the next deal (Continue goes on sooner)"), { seconds: t.round_pause_s }, true)
      : gettext("off")),
    t.creator ? [h("dt", {}, gettext("Opened by")), h("dd", {}, t.creator)] : null));
  if (editable) items.push(timeoutForm(t), clockForm(t));
  if (mine !== null && mine !== undefined && g.players[mine].standin !== "left") {
    items.push(h("button", {
      type: "button", class: "button button-small button-quiet", "data-testid": "leave-game",
      onclick: () => {
        const question = interpolate(gettext("Leave this game? The %(bot)s bot takes your seat to its end."), { bot: botLabel(g.standin_bot) }, true);
        if (window.confirm(question)) send({ type: "leave" });
      },
    }, gettext("Leave game")));
  }
  if (running() && store.view.you.can_manage) {
    const others = otherPeople();
    const question = others.length
      ? interpolate(gettext("Ask %(names)s to abandon this game? It ends when they agree."), { names: others.map(gameWho).join(` ${gettext("and")} `) }, true)
      : gettext("Abandon this game for everyone at the table?");
    items.push(h("button", {
      type: "button", class: "button button-small button-danger", "data-testid": "abandon",
      onclick: () => {
        if (window.confirm(question)) send({ type: "abandon" });
      },
    }, gettext("Abandon game")));
  }
  if (g && !running()) items.push(h("p", {}, h("a", { href: `/games/${g.id}/` }, gettext("Last game's details"))));
  ui.info.replaceChildren(...items);
}

/** Change the table's bot timeout (between games): a number field and Save. */
function timeoutForm(t) {
  const input = h("input", {
    id: "bot-timeout-input", type: "number", min: 1, max: 30, step: 1, required: true, inputmode: "numeric",
    value: store.timeoutDraft ?? t.bot_timeout_s, "data-key": "bot-timeout-input", "data-testid": "bot-timeout-input",
    "aria-describedby": "bot-timeout-hint",
    oninput: (event) => {
      const typed = event.target.valueAsNumber;
      store.timeoutDrafted(Number.isNaN(typed) ? null : typed);
    },
  });
  return h("form", {
    class: "timeout-form", "data-testid": "timeout-form",
    onsubmit: (event) => {
      event.preventDefault();
      if (!event.target.reportValidity()) return;
      const seconds = input.valueAsNumber;
      if (seconds === store.view.table.bot_timeout_s) {
        store.timeoutDrafted(null);
        announce(interpolate(gettext("The bot timeout is already %(seconds)s seconds."), { seconds }, true));
        return;
      }
      if (send({ type: "set_bot_timeout", seconds })) store.timeoutSent(seconds);
    },
  },
  h("label", { for: "bot-timeout-input" }, gettext("Bot timeout (s)")),
  h("span", { class: "input-row" }, input,
    h("button", { type: "submit", class: "button button-small", "data-key": "bot-timeout-save", "data-testid": "bot-timeout-save" }, gettext("Save"))),
  h("p", { id: "bot-timeout-hint", class: "hint" }, gettext("How long an HSLU bot may think per answer, 1 to 30 s; then a random legal move is played for it.")));
}

/** Change the table's turn clock and stand-in bot (between games). */
function clockForm(t) {
  const chosen = store.clockDraft || { seconds: t.turn_clock_s, bot: t.standin_bot, pause: t.round_pause_s };
  const remember = () => { store.clockDrafted({ seconds: Number(seconds.value), bot: bot.value, pause: Number(pause.value) }); };
  const seconds = h("select", { id: "turn-clock-input", "data-testid": "turn-clock-input", "data-key": "turn-clock-input",
    onchange: remember },
  [...new Set([...(store.view.turn_clocks || [0, 30, 60, 120]), t.turn_clock_s])].map((s) =>
    h("option", { value: s, selected: s === chosen.seconds }, s ? `${s} s` : gettext("Off"))));
  const bot = h("select", { id: "standin-input", "data-testid": "standin-input", "data-key": "standin-input",
    "aria-label": gettext("Stand-in bot"), onchange: remember },
  store.view.bots.map((b) => h("option", { value: b.name, selected: b.name === chosen.bot }, botLabel(b.name))));
  const pause = h("select", { id: "round-pause-input", "data-testid": "round-pause-input", "data-key": "round-pause-input",
    "aria-label": gettext("Round summary"), onchange: remember },
  (store.view.round_pauses || [0, 3, 5, 10]).map((s) => h("option", { value: s, selected: s === chosen.pause }, s ? interpolate(gettext("Round summary %(seconds)s s"), { seconds: s }, true) : gettext("No round summary"))));
  return h("form", {
    class: "timeout-form", "data-testid": "clock-form",
    onsubmit: (event) => {
      event.preventDefault();
      const wanted = { seconds: Number(seconds.value), bot: bot.value, pause: Number(pause.value) };
      if (wanted.seconds === store.view.table.turn_clock_s && wanted.bot === store.view.table.standin_bot
        && wanted.pause === store.view.table.round_pause_s) {
        store.clockDrafted(null);
        announce(gettext("The turn clock is already set so."));
        return;
      }
      if (send({ type: "set_turn_clock", seconds: wanted.seconds, bot: wanted.bot, round_pause: wanted.pause })) {
        store.clockSent(wanted);
      }
    },
  },
  h("label", { for: "turn-clock-input" }, gettext("Turn clock")),
  h("span", { class: "input-row" }, seconds, bot, pause,
    h("button", { type: "submit", class: "button button-small", "data-testid": "clock-save" }, gettext("Save"))),
  h("p", { class: "hint" }, gettext("When a person's time for a move runs out, the stand-in bot plays for them until they are back.")));
}
