// Cards drawn with CSS: codes like "HA", "S10" (HSLU numbering), a four-colour deck with suit symbols.

import { h } from "./dom.js";

export const SUITS = {
  D: { symbol: "♦", name: "Diamonds" },
  H: { symbol: "♥", name: "Hearts" },
  S: { symbol: "♠", name: "Spades" },
  C: { symbol: "♣", name: "Clubs" },
};

export const TRUMPS = {
  0: { symbol: "♦", name: "Diamonds", suit: "D" },
  1: { symbol: "♥", name: "Hearts", suit: "H" },
  2: { symbol: "♠", name: "Spades", suit: "S" },
  3: { symbol: "♣", name: "Clubs", suit: "C" },
  4: { symbol: "⬇", name: "Obe-Abe", hint: "top down: Ace high" },
  5: { symbol: "⬆", name: "Une-Ufe", hint: "bottom up: Six high" },
  10: { symbol: "↪", name: "Push", hint: "let your partner choose" },
};

const RANK_NAMES = { A: "Ace", K: "King", Q: "Queen", J: "Jack", 10: "Ten", 9: "Nine", 8: "Eight", 7: "Seven", 6: "Six" };
const PLAIN_ORDER = ["A", "K", "Q", "J", "10", "9", "8", "7", "6"];
const TRUMP_ORDER = ["J", "9", "A", "K", "Q", "10", "8", "7", "6"];
const SUIT_ORDER = ["S", "H", "C", "D"]; // alternates the colours of a classic deck

// Pip positions (x %, y %) of the number cards, as printed on French-suited cards.
const L = 28;
const M = 50;
const R = 72;
const PIPS = {
  6: [[L, 18], [L, 50], [L, 82], [R, 18], [R, 50], [R, 82]],
  7: [[L, 18], [L, 50], [L, 82], [R, 18], [R, 50], [R, 82], [M, 34]],
  8: [[L, 18], [L, 50], [L, 82], [R, 18], [R, 50], [R, 82], [M, 34], [M, 66]],
  9: [[L, 18], [L, 39], [L, 61], [L, 82], [R, 18], [R, 39], [R, 61], [R, 82], [M, 50]],
  10: [[L, 18], [L, 39], [L, 61], [L, 82], [R, 18], [R, 39], [R, 61], [R, 82], [M, 28.5], [M, 71.5]],
};

export function parseCard(code) {
  return { suit: code[0], rank: code.slice(1) };
}

/** "Ace of Hearts" */
export function cardName(code) {
  const { suit, rank } = parseCard(code);
  return `${RANK_NAMES[rank]} of ${SUITS[suit].name}`;
}

/** The hand sorted by suit (trumps first) and by strength under the current trump. */
export function sortHand(codes, trump) {
  const trumpSuit = TRUMPS[trump]?.suit;
  const suitRank = (s) => (s === trumpSuit ? -1 : SUIT_ORDER.indexOf(s));
  const strength = (card) => {
    if (card.suit === trumpSuit) return TRUMP_ORDER.indexOf(card.rank);
    const plain = PLAIN_ORDER.indexOf(card.rank);
    return trump === 5 ? 8 - plain : plain;
  };
  return [...codes].sort((a, b) => {
    const ca = parseCard(a);
    const cb = parseCard(b);
    return suitRank(ca.suit) - suitRank(cb.suit) || strength(ca) - strength(cb);
  });
}

function corner(rank, symbol, position) {
  return h("span", { class: `card-corner card-corner-${position}`, "aria-hidden": "true" },
    h("span", { class: "card-rank" }, rank), h("span", { class: "card-suit" }, symbol));
}

function face(rank, symbol) {
  if (PIPS[rank]) {
    return h("span", { class: "card-face card-pips", "aria-hidden": "true" },
      PIPS[rank].map(([x, y]) =>
        h("span", { class: y > 55 ? "pip pip-flip" : "pip", style: `left:${x}%;top:${y}%` }, symbol)));
  }
  if (rank === "A") {
    return h("span", { class: "card-face card-ace", "aria-hidden": "true" }, h("span", { class: "pip-ace" }, symbol));
  }
  return h("span", { class: "card-face card-court", "aria-hidden": "true" },
    h("span", { class: "court-frame" },
      h("span", { class: "court-letter" }, rank), h("span", { class: "court-suit" }, symbol)));
}

/**
 * A face-up card. `tag` "button" makes it playable; extra attributes (aria-*, data-*) are passed on.
 * Every card carries data-card with its code and an aria-label with its name.
 */
export function cardElement(code, { tag = "div", className = "", attrs = {} } = {}) {
  const { suit, rank } = parseCard(code);
  const symbol = SUITS[suit].symbol;
  return h(tag, {
    class: `card suit-${suit} ${className}`.trim(),
    "data-card": code,
    "aria-label": cardName(code),
    ...attrs,
  },
  corner(rank, symbol, "tl"), face(rank, symbol), corner(rank, symbol, "br"));
}

/** A face-down card (other players' hands). */
export function cardBack(className = "") {
  return h("span", { class: `card-back ${className}`.trim(), "aria-hidden": "true" });
}

/** A trump's symbol and name as inline elements. */
export function trumpLabel(trump) {
  const t = TRUMPS[trump];
  if (!t) return h("span", { class: "trump-label muted" }, "not chosen yet");
  return h("span", { class: `trump-label${t.suit ? ` suit-${t.suit}` : ""}` },
    h("span", { class: "trump-symbol", "aria-hidden": "true" }, t.symbol), " ", t.name);
}
