// The four seats around the table: nameplates, presence, bots' facts, cards left, and between games the seat controls.

import { cardBack } from "../cards.js";
import { botIcon, clockIcon, h, replaceIfChanged, SEAT_NAMES } from "../dom.js";
import { faultCountText, latencyText } from "../faults.js";
import { gettext, interpolate, ngettext, pgettext } from "../i18n.js";
import { invite, send } from "./actions.js";
import { clockSeat, clockText } from "./clock.js";
import { botLabel, defaultBot, game, isOnline, mySeat, positions, running, seatName, seatPlayer, standinName } from "./people.js";
import { store } from "./store.js";
import { ui } from "./ui.js";

export function renderSeats() {
  const pos = positions();
  for (const [where, seat] of Object.entries(pos)) {
    // While a game runs a seat has no controls (no listeners): one that has not changed stays as it is.
    const el = seatElement(seat, where);
    if (running()) replaceIfChanged(ui.seats[where], el);
    else ui.seats[where].replaceChildren(el);
  }
}

function seatElement(seat, where) {
  const g = game();
  const me = mySeat();
  const isMe = seat === me;
  const player = seatPlayer(seat);
  const occupied = running() ? true : player && player.kind !== "empty";
  const toMove = running() && g.player === seat;
  const team = seat % 2;
  const relation = me === null ? (team === 0 ? gettext("N/S") : gettext("E/W"))
    : isMe ? gettext("you") : team === me % 2 ? gettext("partner") : gettext("opponent");
  const turnText = !toMove ? null : g.phase === "trump"
    ? (isMe ? gettext("Your turn: choose trump") : gettext("choosing trump"))
    : (isMe ? gettext("Your turn") : gettext("to play"));

  const el = h("div", {
    class: `seat team-${team}${isMe ? " seat-me" : ""}${toMove ? " seat-to-move" : ""}${occupied ? "" : " seat-empty"}`,
    "data-seat": seat,
    "data-you": isMe ? "true" : "false",
    "data-to-move": toMove ? "true" : "false",
    "aria-label": `${SEAT_NAMES[seat]}: ${occupied ? seatName(seat) : gettext("empty seat")}${isMe ? ` (${gettext("you")})` : ""}${botFacts(player)}${presenceFacts(player)}${toMove ? `, ${turnText}` : ""}`,
    role: "group",
  });
  const bot = player && player.bot;
  const remote = player && player.kind === "remote";
  const plate = h("div", { class: "nameplate" },
    h("span", { class: `avatar${bot || remote ? " avatar-bot" : ""}` },
      bot || remote ? botIcon() : h("span", { "aria-hidden": "true" }, avatarText(seat, occupied)),
      bot ? h("span", { class: "badge badge-bot avatar-badge", title: botLabel(bot) }, gettext("bot")) : null,
      remote ? h("span", { class: "badge badge-remote avatar-badge", "data-testid": "hslu-badge",
        title: gettext("A bot that speaks the HSLU Jass interface") }, "HSLU") : null),
    h("span", { class: "nameplate-text" },
      h("span", { class: "seat-name", "data-testid": "seat-name" }, occupied ? seatName(seat) : gettext("Empty seat"),
        isMe ? h("span", { class: "you-tag" }, ` (${gettext("you")})`) : null),
      h("span", { class: "seat-meta" },
        h("span", { class: `team-tag team-tag-${team}` }, h("span", { "aria-hidden": "true" }, team === 0 ? "◆ " : "● "), relation),
        h("span", { class: "seat-compass" }, ` · ${SEAT_NAMES[seat]}`))),
    running() && g.dealer === seat ? h("span", { class: "dealer-chip", title: gettext("Dealer"), "aria-label": gettext("Dealer") }, pgettext("the dealer's chip: one letter", "D")) : null);
  el.append(plate);
  const facts = botFactsLine(player);
  if (facts) el.append(facts);
  const presence = presenceLine(seat, player);
  if (presence) el.append(presence);
  if (turnText) {
    el.append(h("span", { class: "turn-flag", "data-testid": "turn-flag" }, turnText,
      clockSeat() === seat ? h("span", { class: "turn-clock", "data-testid": "turn-clock", "data-clock-seat": seat }, ` · ${clockText()}`) : null));
  } else if (running()) {
    // The flag's room, kept while others move: the seats, the trick and your hand stay where they are as the
    // turn goes round (the felt grew a line whenever North was to move, and everything under it jumped).
    el.append(h("span", { class: "turn-flag-space", "aria-hidden": "true" }, "\u00a0"));
  }
  if (running() && !(isMe && where === "bottom")) {
    const count = g.hand_sizes[seat];
    el.append(h("span", { class: "backs", "data-testid": "backs", role: "img", "aria-label": interpolate(ngettext("%(count)s card in hand", "%(count)s cards in hand", count), { count }, true) },
      Array.from({ length: count }, () => cardBack("card-back-mini"))),
    h("span", { class: "backs-count", "aria-hidden": "true" }, interpolate(ngettext("%(count)s card", "%(count)s cards", count), { count }, true)));
  }
  if (!running()) el.append(...seatControls(seat, player));
  return el;
}

/** A person's presence (online or offline, in words and a dot) and the stand-in bot playing for them. */
function presenceLine(seat, player) {
  const online = isOnline(player);
  if (online === null) return null;
  const parts = [h("span", { class: `presence ${online ? "presence-on" : "presence-off"}`, "data-testid": "presence",
    "data-online": String(online) }, h("span", { class: "presence-dot", "aria-hidden": "true" }, online ? "●" : "○"),
  ` ${online ? gettext("online") : gettext("offline")}`)];
  if (running() && player.standin) {
    parts.push(h("span", { class: "badge badge-standin", "data-testid": "standin-badge",
      title: player.standin === "left" ? gettext("Left the game: a bot took the seat") : gettext("Out of time: a bot plays until they are back") },
    interpolate(player.standin === "left" ? gettext("%(bot)s plays (left)") : gettext("%(bot)s plays"), { bot: standinName(player) }, true)));
  }
  return h("div", { class: "seat-presence" }, parts);
}

/** A remote bot's host (full URL in the tooltip), and in a game its last answer time and its faults. */
function botFactsLine(player) {
  if (!player || player.kind !== "remote") return null;
  const parts = [];
  if (player.remote_url) {
    const host = hostOf(player.remote_url);
    const colon = host.lastIndexOf(":");
    // A narrow seat breaks the host before its port rather than anywhere.
    const shown = colon > 0 && !host.endsWith("]") ? [host.slice(0, colon + 1), h("wbr"), host.slice(colon + 1)] : [host];
    parts.push(h("span", { class: "seat-host", "data-testid": "seat-host", title: player.remote_url }, shown));
  }
  if (running() && player.latency_ms !== null && player.latency_ms !== undefined) {
    parts.push(h("span", { class: "seat-latency", "data-testid": "seat-latency", title: gettext("Last answer time") },
      clockIcon(), latencyText(player.latency_ms)));
  }
  if (running() && player.faults > 0) {
    parts.push(h("span", { class: "badge badge-fault", "data-testid": "fault-badge",
      title: gettext("Answers replaced by a random legal move") }, faultCountText(player.faults)));
  }
  return parts.length ? h("div", { class: "seat-bot-facts", "aria-hidden": "true" }, parts) : null;
}

/** The same facts for the seat's aria-label (the line above is hidden from screen readers). */
function botFacts(player) {
  if (!player) return "";
  let text = "";
  if (player.kind === "remote") text += `, ${interpolate(gettext("HSLU bot at %(url)s"), { url: player.remote_url }, true)}`;
  else if (player.kind === "bot") text += `, ${gettext("bot")}`;
  if (running() && player.kind === "remote" && player.latency_ms !== null && player.latency_ms !== undefined) {
    text += `, ${interpolate(gettext("last answer %(time)s"), { time: latencyText(player.latency_ms) }, true)}`;
  }
  if (running() && player.faults > 0) {
    text += `, ${interpolate(ngettext("%(count)s fault", "%(count)s faults", player.faults), { count: player.faults }, true)}`;
  }
  return text;
}

function presenceFacts(player) {
  const online = isOnline(player);
  if (online === null) return "";
  let text = `, ${online ? gettext("online") : gettext("offline")}`;
  if (running() && player.standin) text += `, ${interpolate(gettext("%(bot)s plays for them"), { bot: standinName(player) }, true)}`;
  return text;
}

function hostOf(url) {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

function avatarText(seat, occupied) {
  if (!occupied) return "+";
  return seatName(seat).trim().charAt(0).toUpperCase() || "?";
}

function seatControls(seat, player) {
  const me = store.view.you;
  const label = SEAT_NAMES[seat];
  const controls = [];
  if (player.kind === "empty") {
    if (me.player_id !== null && me.seat === null) {
      controls.push(h("button", { type: "button", class: "button button-small button-primary", "data-key": `sit-${seat}`,
        "data-testid": `sit-${seat}`, "aria-label": interpolate(gettext("Sit here (%(seat)s)"), { seat: label }, true), onclick: () => send({ type: "join", seat }) }, gettext("Sit here")));
    }
    if (me.can_manage && store.view.bots.length) {
      const select = h("select", { "aria-label": interpolate(gettext("Bot for %(seat)s"), { seat: label }, true), "data-key": `bot-select-${seat}`, "data-testid": `bot-select-${seat}`,
        onchange: (e) => { store.botChosen(seat, e.target.value); } },
      store.view.bots.map((b) => h("option", { value: b.name, title: b.description || null, selected: (store.botChoice(seat) || defaultBot()) === b.name }, botLabel(b.name))));
      controls.push(h("span", { class: "add-bot" }, select,
        h("button", { type: "button", class: "button button-small button-quiet", "data-key": `add-bot-${seat}`,
          "data-testid": `add-bot-${seat}`, "aria-label": interpolate(gettext("Add bot (%(seat)s)"), { seat: label }, true),
          onclick: () => send({ type: "add_bot", seat, bot: select.value }) }, gettext("Add bot"))));
    }
    if (me.can_manage) {
      controls.push(h("button", { type: "button", class: "button button-small button-quiet invite-open", "data-key": `invite-bot-${seat}`,
        "data-testid": `invite-bot-${seat}`, "aria-label": interpolate(gettext("Invite a bot by URL (%(seat)s)"), { seat: label }, true), "aria-haspopup": "dialog",
        onclick: () => invite.open(seat) },
      h("span", { class: "invite-open-long" }, gettext("Invite a bot by URL")),
      h("span", { class: "invite-open-short", "aria-hidden": "true" }, gettext("Bot by URL"))));
    }
  } else if ((player.kind === "bot" || player.kind === "remote") && me.can_manage) {
    controls.push(h("button", { type: "button", class: "button button-small button-quiet", "data-key": `remove-bot-${seat}`,
      "data-testid": `remove-bot-${seat}`, "aria-label": interpolate(gettext("Remove bot (%(seat)s)"), { seat: label }, true), onclick: () => send({ type: "remove_bot", seat }) }, gettext("Remove bot")));
  } else if (player.kind === "human" && seat === me.seat) {
    controls.push(h("button", { type: "button", class: "button button-small button-quiet", "data-key": "leave",
      "data-testid": "leave", onclick: () => send({ type: "leave" }) }, gettext("Leave seat")));
  }
  return controls.length ? [h("div", { class: "seat-controls" }, controls)] : [];
}
