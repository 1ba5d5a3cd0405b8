// Cards in the visitor's deck: codes like "HA", "S10" (HSLU numbering) drawn and named as French cards
// (a four-colour deck with suit symbols) or Swiss-German cards (Schellen, Rosen, Schilten, Eicheln).
// The page says which (<html data-deck="swiss">, chosen in the header or on /settings/); one renderer
// draws both, the Swiss pictures coming from an SVG sprite (static/cards/swiss.svg, scripts/draw_swiss_cards.py).
// games/decks.py holds the server's copy of DECK_STRINGS and of the card markup.

import { h } from "./dom.js";
import { gettext, interpolate, pgettext } from "./i18n.js";

/**
 * Every word a deck puts on the screen, in the page's language (static/js/i18n.js). The Swiss suits
 * (Schellen, Rosen, Schilten, Eicheln) and the Swiss court cards Ober, Under and Banner are proper
 * names in every language. Names are filled into a card's name with interpolate ("%(rank)s").
 */
export const DECK_STRINGS = {
  french: {
    label: pgettext("deck", "French"),
    suits: { D: pgettext("suit", "Diamonds"), H: pgettext("suit", "Hearts"), S: pgettext("suit", "Spades"), C: pgettext("suit", "Clubs") },
    symbols: { D: "♦", H: "♥", S: "♠", C: "♣" },
    ranks: {
      A: pgettext("rank", "Ace"), K: pgettext("rank", "King"), Q: pgettext("rank", "Queen"), J: pgettext("rank", "Jack"),
      10: pgettext("rank", "Ten"), 9: pgettext("rank", "Nine"), 8: pgettext("rank", "Eight"), 7: pgettext("rank", "Seven"), 6: pgettext("rank", "Six"),
    },
    indices: { A: "A", K: "K", Q: "Q", J: "J", 10: "10", 9: "9", 8: "8", 7: "7", 6: "6" },
    card: pgettext("card name: French deck", "%(rank)s of %(suit)s"),
  },
  swiss: {
    label: pgettext("deck", "Swiss-German"),
    suits: { D: "Schellen", H: "Rosen", S: "Schilten", C: "Eicheln" },
    symbols: {},
    ranks: { A: pgettext("Swiss-German rank", "Ass"), K: pgettext("Swiss-German rank", "König"), Q: "Ober", J: "Under", 10: "Banner", 9: "9", 8: "8", 7: "7", 6: "6" },
    indices: { A: "A", K: "K", Q: "O", J: "U", 10: "10", 9: "9", 8: "8", 7: "7", 6: "6" },
    card: pgettext("card name: Swiss-German deck", "%(suit)s %(rank)s"),
  },
};

/** Why a card may not be played (%(suit)s: a suit in running text, %(card)s: a card in running text). */
export const REASON_STRINGS = {
  follow: gettext("You must follow %(suit)s"),
  follow_trump: gettext("Trump %(suit)s was led: you must follow it"),
  under_trump: gettext("No under-trumping: the %(card)s in the trick is higher"),
  absent: gettext("You do not hold %(card)s"),
  stoeck_card: gettext("You announced Stöck: play the %(card)s now"),
  unknown: gettext("You may not play this card now"),
};

const TRUMP_STRINGS = {
  4: { symbol: "⬇", name: pgettext("trump", "Obe-Abe"), hint: gettext("top down: Ace high") },
  5: { symbol: "⬆", name: pgettext("trump", "Une-Ufe"), hint: gettext("bottom up: Six high") },
  10: { symbol: "↪", name: pgettext("trump", "Push"), hint: gettext("let your partner choose") },
};

const SUIT_LETTERS = "DHSC";

/** "swiss" or "french": the deck of this page. */
export const DECK = document.documentElement.dataset.deck === "swiss" ? "swiss" : "french";
const words = DECK_STRINGS[DECK];
const SPRITE = document.documentElement.dataset.cardSprite || "/static/cards/swiss.svg";

/** Fill "%(name)s" fields of a (translated) string from `values`. */
export function format(template, values) {
  return interpolate(template, values, true);
}

/** Suits by letter: name (deck's) and symbol (French text symbol, for code that needs a character). */
export const SUITS = Object.fromEntries([...SUIT_LETTERS].map((s) => [s, { symbol: DECK_STRINGS.french.symbols[s], name: words.suits[s] }]));

/** Trumps by HSLU code, named in the page's deck. */
export const TRUMPS = {
  ...Object.fromEntries([...SUIT_LETTERS].map((s, i) => [i, { symbol: SUITS[s].symbol, name: words.suits[s], suit: s }])),
  ...TRUMP_STRINGS,
};

const RANK_ORDER = ["A", "K", "Q", "J", "10", "9", "8", "7", "6"];
const TRUMP_ORDER = ["J", "9", "A", "K", "Q", "10", "8", "7", "6"];
const SUIT_ORDER = ["S", "H", "C", "D"]; // alternates the colours of a classic deck

// Pip positions (x %, y %) of the number cards, as printed on French-suited cards; games/decks.py has the same.
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
// The Banner (the ten) of the Swiss deck is a picture; the French ten is a pip card.
const PIP_RANKS = DECK === "swiss" ? ["9", "8", "7", "6"] : ["10", "9", "8", "7", "6"];

export function parseCard(code) {
  return { suit: code[0], rank: code.slice(1) };
}

/** "Ace of Hearts" / "Rosen Ass" */
export function cardName(code) {
  const { suit, rank } = parseCard(code);
  return format(words.card, { rank: words.ranks[rank], suit: words.suits[suit] });
}

/** A suit in running text: "♥" in the French deck, "Rosen" in the Swiss one. */
export function suitText(suit) {
  return words.symbols[suit] || words.suits[suit];
}

/** A card in running text: "♥A" in the French deck, "Rosen Ass" in the Swiss one. */
export function cardText(code) {
  const { suit, rank } = parseCard(code);
  return words.symbols[suit] ? words.symbols[suit] + words.indices[rank] : cardName(code);
}

/** A trump's name: "Hearts" / "Rosen", "Obe-Abe"… */
export function trumpName(trump) {
  return TRUMPS[trump] ? TRUMPS[trump].name : "";
}

/** A trump in running text, for plain-text places (a select's option): "♥ Hearts" / "Rosen" / "⬇ Obe-Abe". */
export function trumpText(trump) {
  const t = TRUMPS[trump];
  if (!t) return "";
  return t.suit && !words.symbols[t.suit] ? t.name : `${t.suit ? words.symbols[t.suit] : t.symbol} ${t.name}`;
}

/** Why a card may not be played, from the server's reason ({rule, suit} or {rule, card}), in the deck's words. */
export function reasonText(reason) {
  if (!reason || !REASON_STRINGS[reason.rule]) return REASON_STRINGS.unknown;
  return format(REASON_STRINGS[reason.rule], {
    suit: reason.suit ? suitText(reason.suit) : "",
    card: reason.card ? cardText(reason.card) : "",
  });
}

/** The hand sorted by suit (trumps first) and by strength under the current trump. */
export function sortHand(codes, trump) {
  const trumpSuit = TRUMPS[trump]?.suit;
  const suitRank = (s) => (s === trumpSuit ? -1 : SUIT_ORDER.indexOf(s));
  const strength = (card) => {
    if (card.suit === trumpSuit) return TRUMP_ORDER.indexOf(card.rank);
    const plain = RANK_ORDER.indexOf(card.rank);
    return trump === 5 ? 8 - plain : plain;
  };
  return [...codes].sort((a, b) => {
    const ca = parseCard(a);
    const cb = parseCard(b);
    return suitRank(ca.suit) - suitRank(cb.suit) || strength(ca) - strength(cb);
  });
}

const SVG_NS = "http://www.w3.org/2000/svg";

function spriteImage(className, viewBox, symbol) {
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("class", className);
  svg.setAttribute("viewBox", viewBox);
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  const use = document.createElementNS(SVG_NS, "use");
  use.setAttribute("href", `${SPRITE}#${symbol}`);
  svg.append(use);
  return svg;
}

/** A suit's symbol as an inline node: the text symbol (♥), or the Swiss picture (a rose). */
export function suitMark(suit) {
  return words.symbols[suit] ? document.createTextNode(words.symbols[suit]) : spriteImage("suit-mark", "0 0 100 100", `suit-${suit}`);
}

function corner(suit, rank, position) {
  return h("span", { class: `card-corner card-corner-${position}`, "aria-hidden": "true" },
    h("span", { class: "card-rank" }, words.indices[rank]), h("span", { class: "card-suit" }, suitMark(suit)));
}

function face(suit, rank) {
  if (PIP_RANKS.includes(rank)) {
    const flip = DECK === "french";
    return h("span", { class: "card-face card-pips", "aria-hidden": "true" },
      PIPS[rank].map(([x, y]) =>
        h("span", { class: flip && y > 55 ? "pip pip-flip" : "pip", "data-x": x, "data-y": y }, suitMark(suit))));
  }
  if (DECK === "swiss") {
    return h("span", { class: "card-face card-figure", "aria-hidden": "true" },
      spriteImage("card-figure-art", "0 0 50 100", `face-${suit}${rank}`));
  }
  if (rank === "A") {
    return h("span", { class: "card-face card-ace", "aria-hidden": "true" }, h("span", { class: "pip-ace" }, suitMark(suit)));
  }
  return h("span", { class: "card-face card-court", "aria-hidden": "true" },
    h("span", { class: "court-frame" },
      h("span", { class: "court-letter" }, rank), h("span", { class: "court-suit" }, suitMark(suit))));
}

/**
 * A face-up card. `tag` "button" makes it playable; extra attributes (aria-*, data-*) are passed on.
 * Every card carries data-card with its code and an aria-label with its name.
 */
export function cardElement(code, { tag = "div", className = "", attrs = {} } = {}) {
  const { suit, rank } = parseCard(code);
  const { "aria-label": label = cardName(code), ...rest } = attrs;
  // A card shown is a picture with a name (role img); a card to play is a button named by its words (hidden
  // text, not aria-label: a name must hold the text one sees, and the corners' "K♥" would not be in it).
  const button = tag === "button";
  return h(tag, {
    class: `card suit-${suit} ${className}`.trim(),
    "data-card": code,
    role: button ? null : "img",
    "aria-label": button ? null : label,
    ...rest,
  },
  button ? h("span", { class: "visually-hidden" }, label) : null,
  corner(suit, rank, "tl"), face(suit, rank), corner(suit, rank, "br"));
}

/** A card in a line of text: its suit's symbol and its index ("♥A"), named in full for assistive technology. */
export function cardTag(code, className = "") {
  const { suit, rank } = parseCard(code);
  return h("span", { class: `card-tag suit-${suit} ${className}`.trim(), role: "img", "aria-label": cardName(code),
    title: cardName(code), "data-card": code }, suitMark(suit), words.indices[rank]);
}

/** A suit's symbol alone, coloured, for lines of text (a suit swap "♦→♠"), named for assistive technology. */
export function suitTag(suit) {
  return h("span", { class: `suit-tag suit-${suit}`, role: "img", "aria-label": words.suits[suit], title: words.suits[suit] },
    suitMark(suit));
}

/** A face-down card (other players' hands). */
export function cardBack(className = "") {
  return h("span", { class: `card-back ${className}`.trim(), "aria-hidden": "true" });
}

/** A trump's symbol as an inline node: the suit's mark, or ⬇ ⬆ ↪ for the others. */
export function trumpMark(trump) {
  const t = TRUMPS[trump];
  return t.suit ? suitMark(t.suit) : document.createTextNode(t.symbol);
}

/** A trump's symbol and name as inline elements. */
export function trumpLabel(trump) {
  const t = TRUMPS[trump];
  if (!t) return h("span", { class: "trump-label muted" }, gettext("not chosen yet"));
  return h("span", { class: `trump-label${t.suit ? ` suit-${t.suit}` : ""}` },
    h("span", { class: "trump-symbol", "aria-hidden": "true" }, trumpMark(trump)), " ", t.name);
}
