// The table page's elements, found once by their test ids (the page's template renders them).

import { weisBar, weisPanel } from "../weis.js";
import { chat, invite } from "./actions.js";

export const PHONE = window.matchMedia("(max-width: 640px)"); // as the stylesheet's phone layout

export const app = document.getElementById("table-app");

const $ = (testid) => app.querySelector(`[data-testid="${testid}"]`);

export const ui = {
  scores: $("scores"),
  sub: $("table-sub"),
  connection: $("connection"),
  trump: $("trump"),
  seats: { top: $("seat-top"), left: $("seat-left"), right: $("seat-right"), bottom: $("seat-bottom") },
  trick: $("trick"),
  trickCaption: $("trick-caption"),
  scoreTrump: $("scorebar-trump"),
  center: $("center-panel"),
  summary: $("round-summary"),
  hand: $("hand"),
  handNote: $("hand-note"),
  weisBar: $("weis-bar"),
  weisPanel: $("weis-panel"),
  lastTrickToggle: $("last-trick-toggle"),
  lastTrick: $("last-trick"),
  sheet: $("score-sheet"),
  info: $("table-info"),
  faults: $("faults-panel"),
  result: $("result"),
  toasts: $("toasts"),
  announcer: $("announcer"),
  vote: $("abandon-vote"),
  invite: $("invite-dialog"),
  chat: $("chat-panel"),
};
