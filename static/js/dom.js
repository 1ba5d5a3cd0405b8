// A tiny DOM builder: h("button", {class: "x", onclick: fn}, "text", child) — no innerHTML, so no escaping bugs.

import { gettext, interpolate, pgettext } from "./i18n.js";

export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      node.addEventListener(key.slice(2), value);
    } else if (key === "style") {
      node.style.cssText = String(value); // through the CSSOM: the Content-Security-Policy refuses style attributes
    } else if (key === "dataset") {
      Object.assign(node.dataset, value);
    } else if (value === true) {
      node.setAttribute(key, "");
    } else {
      node.setAttribute(key, String(value));
    }
  }
  append(node, children);
  return node;
}

/**
 * Put `nodes` in `parent` unless it already shows exactly that markup. Only for parts without listeners (the
 * nodes left in place keep the old ones). A table page renders every part on every move: a part put back
 * unchanged is laid out and painted again, and in software every tile it touches is rastered anew.
 */
export function replaceIfChanged(parent, ...nodes) {
  const fresh = document.createElement(parent.tagName);
  append(fresh, nodes);
  if (fresh.innerHTML !== parent.innerHTML) parent.replaceChildren(...fresh.childNodes);
}

function append(node, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(node, child);
    else node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export const SEAT_NAMES = [pgettext("seat", "North"), pgettext("seat", "East"), pgettext("seat", "South"), pgettext("seat", "West")];

// The built-in bots by key in the page's language (the live views carry their English names: games/pages/names.py).
const BOT_LABELS = {
  random: pgettext("bot", "Random"),
  rules: pgettext("bot", "Rule-based"),
  "mcts-fast": pgettext("bot", "MCTS (fast)"),
  "mcts-strong": pgettext("bot", "MCTS (strong)"),
  solver: pgettext("bot", "Solver"),
};

/** A built-in bot's label ("Regelbasiert"), or `fallback` for any other bot. */
export function botLabel(key, fallback = key) {
  return BOT_LABELS[key] || fallback;
}

/** A built-in bot as a name ("Bot Regelbasiert"), or `fallback` for any other bot. */
export function botName(key, fallback = key) {
  return BOT_LABELS[key] ? interpolate(gettext("%(label)s bot"), { label: BOT_LABELS[key] }, true) : fallback;
}

/** Who plays a seat (a view's player or seat), a built-in bot in the page's language. */
export function playerName(p) {
  if (!p) return "";
  return p.kind === "bot" && p.bot ? botName(p.bot, p.name) : p.name;
}

export function jsonFromScript(id) {
  const script = document.getElementById(id);
  return script ? JSON.parse(script.textContent) : null;
}

const SVG_NS = "http://www.w3.org/2000/svg";

function svgIcon(className, shapes) {
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("class", className);
  svg.setAttribute("aria-hidden", "true");
  for (const [tag, attrs] of shapes) {
    const shape = document.createElementNS(SVG_NS, tag);
    for (const [key, value] of Object.entries(attrs)) shape.setAttribute(key, String(value));
    svg.append(shape);
  }
  return svg;
}

/** A small clock for response times (the ⏱ emoji is missing from many fonts). */
export function clockIcon() {
  const line = { stroke: "currentColor", "stroke-width": 2.2, "stroke-linecap": "round", fill: "none" };
  return svgIcon("icon-clock", [
    ["circle", { cx: 12, cy: 12, r: 9, ...line }],
    ["path", { d: "M12 7v5l3.5 2", ...line }],
  ]);
}

/** A small robot face for bot seats (an icon font or emoji may be missing on the device). */
export function botIcon() {
  return svgIcon("icon-bot", [
    ["line", { x1: 12, y1: 2.5, x2: 12, y2: 6, stroke: "currentColor", "stroke-width": 1.8, "stroke-linecap": "round" }],
    ["circle", { cx: 12, cy: 2.5, r: 1.6, fill: "currentColor" }],
    ["rect", { x: 4, y: 6, width: 16, height: 13, rx: 4, fill: "currentColor" }],
    ["circle", { cx: 9, cy: 12, r: 2, fill: "#fff" }],
    ["circle", { cx: 15, cy: 12, r: 2, fill: "#fff" }],
    ["rect", { x: 9, y: 15.5, width: 6, height: 1.6, rx: .8, fill: "#fff" }],
    ["rect", { x: 1.5, y: 10, width: 2, height: 5, rx: 1, fill: "currentColor" }],
    ["rect", { x: 20.5, y: 10, width: 2, height: 5, rx: 1, fill: "currentColor" }],
  ]);
}
