// What was said in a replayed game up to the position shown: the table's chat, and the round's Weis and Stöck.

import { h } from "../dom.js";
import { gettext, interpolate } from "../i18n.js";
import { weisKind } from "../weis.js";

/** What was said at the table up to this step (the players' and the spectators' words, as written). */
export function chatPanel(chat, phrases, at) {
  const said = chat.filter((m) => m.round < at.round || (m.round === at.round && m.card <= at.card));
  if (!chat.length) return null;
  return h("section", { class: "panel panel-compact rp-chat", "data-testid": "replay-chat" },
    h("h2", { class: "panel-title" }, gettext("Table chat")),
    said.length
      ? h("ol", { class: "chat-log" }, said.map((m) => h("li", { class: `chat-line chat-${m.room}`, "data-testid": "replay-chat-line" },
        h("strong", { class: "chat-from" }, m.from),
        m.room === "spectators" ? h("span", { class: "chat-room" }, ` (${gettext("watching")})`) : null,
        ": ", h("span", { class: "chat-text" }, m.phrase && phrases[m.phrase] ? phrases[m.phrase] : m.text))))
      : h("p", { class: "muted" }, gettext("Nothing said yet at this point.")));
}

/** The round's Weis and Stöck said up to this step; after the first trick, who scored (all cards are open here). */
export function weisPanel(rnd, at, { who, cardCode, teams }) {
  if (!rnd.weis) return null;
  const decided = at.card >= 4;
  const said = rnd.announcements.filter((a) => a.before_card < at.card);
  const rows = said.map((a) => {
    if (a.stoeck) {
      return h("li", { class: "weis-entry weis-scored", "data-testid": "replay-stoeck", "data-seat": a.seat },
        `${interpolate(gettext("%(name)s: Stöck +20 with"), { name: who(a.seat) }, true)} `, cardCode(a.stoeck));
    }
    const scored = decided && a.seat % 2 === rnd.weis.team;
    return h("li", { class: `weis-entry${scored ? " weis-scored" : ""}`, "data-testid": "replay-weis-entry",
      "data-seat": a.seat, "data-status": !decided ? "declared" : scored ? "scored" : "not scored" },
    `${who(a.seat)}: ${weisKind(a.weis)} ${a.weis.points} `, h("span", { class: "rp-trick-cards" }, a.weis.cards.map(cardCode)),
    decided ? (scored ? ` ✓ ${gettext("scored")}` : ` · ${gettext("not scored")}`) : "");
  });
  const team = rnd.weis.team;
  return h("section", { class: "panel panel-compact", "data-testid": "replay-weis" },
    h("h2", { class: "panel-title" }, gettext("Weis & Stöck")),
    rows.length ? h("ul", { class: "weis-list" }, rows) : h("p", { class: "muted" }, gettext("Nothing declared yet.")),
    decided && team >= 0 ? h("p", { class: "weis-verdict" }, interpolate(gettext("%(team)s score %(points)s in Weis"),
      { team: teams[team], points: `${rnd.weis.points[team]}${rnd.multiplier > 1 ? ` ×${rnd.multiplier}` : ""}` }, true)) : null);
}
