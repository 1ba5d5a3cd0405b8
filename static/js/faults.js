// Remote bots' faults in words. A fault means the bot's answer was replaced by a random legal move
// (templates/includes/fault_kind.html says the same on the game's result page).

import { h, SEAT_NAMES } from "./dom.js";
import { gettext, interpolate, ngettext } from "./i18n.js";

export const FAULT_KINDS = {
  timeout: gettext("No answer in time"),
  connection: gettext("Could not connect"),
  http_status: gettext("HTTP error"),
  not_json: gettext("Reply is not JSON"),
  not_object: gettext("Reply is not a JSON object"),
  missing_field: gettext("Field missing in the reply"),
  wrong_type: gettext("Field of the wrong type"),
  bad_trump: gettext("Not a valid trump"),
  unknown_card: gettext("Unknown card"),
  card_not_in_hand: gettext("Card not in its hand"),
  illegal_card: gettext("Card against the rules"),
  second_push: gettext("Push not allowed"),
  too_large: gettext("Reply too large"),
  redirect: gettext("Redirect not followed"),
  game_info: gettext("Round report (game_info) failed"),
};

/** A fault kind in words ("timeout" -> "No answer in time"); unknown kinds are shown as they come. */
export function faultKindText(kind) {
  return FAULT_KINDS[kind] || String(kind || "fault").replaceAll("_", " ");
}

export function faultCountText(count) {
  return `⚠ ${interpolate(ngettext("%(count)s fault", "%(count)s faults", count), { count }, true)}`;
}

/** "212 ms", or "" when there is no time. */
export function latencyText(ms) {
  return ms === null || ms === undefined ? "" : `${ms} ms`;
}

/** Where a fault happened: "Round 2, trick 3"; no trick: the report (game_info) sent after the round. */
function faultWhere(fault) {
  return fault.trick == null
    ? interpolate(gettext("Round %(round)s, after the round"), { round: fault.round }, true)
    : interpolate(gettext("Round %(round)s, trick %(trick)s"), { round: fault.round, trick: fault.trick }, true);
}

/** The faults as a list, each with where, who (players[i].name), the kind in words, the detail and the time. */
export function faultList(faults, players) {
  return h("ol", { class: "fault-list", "data-testid": "fault-list" }, faults.map((fault) => {
    const player = players[fault.seat];
    const name = player && player.name ? player.name : SEAT_NAMES[fault.seat];
    return h("li", { class: "fault", "data-testid": "fault", "data-kind": fault.kind },
      h("p", { class: "fault-head" },
        h("strong", { class: "fault-kind" }, h("span", { "aria-hidden": "true" }, "⚠ "), faultKindText(fault.kind)),
        h("span", { class: "fault-who" }, ` · ${name} (${SEAT_NAMES[fault.seat]})`)),
      h("p", { class: "fault-where" }, faultWhere(fault),
        fault.latency_ms ? ` · ${interpolate(gettext("after %(time)s"), { time: latencyText(fault.latency_ms) }, true)}` : ""),
      fault.detail ? h("p", { class: "fault-detail" }, fault.detail) : null);
  }));
}
