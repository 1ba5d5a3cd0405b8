// The replay viewer: steps through a finished game card by card, all four hands open.
// The server sends the whole game once (games/pages/replay.py); a position is (round, card) and lives in the URL.

import { cardElement, cardTag, sortHand, suitTag, TRUMPS, trumpLabel, trumpMark, trumpText } from "./cards.js";
import { botName, h, jsonFromScript, playerName as displayName, SEAT_NAMES } from "./dom.js";
import { faultKindText } from "./faults.js";
import { gettext, interpolate } from "./i18n.js";
import { Analysis, MARK_TEXT, MARK_WORDS } from "./replay/analysis.js";
import { chatPanel, weisPanel } from "./replay/said.js";

const data = jsonFromScript("replay-data");
const PHRASES = jsonFromScript("chat-phrases") || {}; // quick phrases in the reader's language, by key
const app = document.getElementById("replay");
const POSITIONS = { 0: "top", 3: "left", 1: "right", 2: "bottom" };
const TEAM_NAMES = [gettext("North & South"), gettext("East & West")];
const NS = gettext("N/S");
const EW = gettext("E/W");

const ui = {
  felt: document.getElementById("replay-felt"),
  controls: document.getElementById("replay-controls"),
  select: document.getElementById("round-select"),
  pair: document.getElementById("pair-box"),
  center: document.getElementById("rp-center"),
  side: document.getElementById("replay-side"),
  position: document.getElementById("position"),
  slider: document.getElementById("card-slider"),
  marks: document.getElementById("slider-marks"),
  first: document.getElementById("go-first"),
  prev: document.getElementById("go-prev"),
  next: document.getElementById("go-next"),
  last: document.getElementById("go-last"),
};

let at = { round: 0, card: 0 }; // round: 0-based index into data.rounds
const analysis = new Analysis(data.id, data.analysis, { who, cardCode, onChange: render });

const rounds = data.rounds;
const roundOf = () => rounds[at.round];
const length = (r) => rounds[r].cards.length;

function playerName(seat) {
  const p = data.players.find((x) => x.seat === seat);
  return p && p.name ? displayName(p) : SEAT_NAMES[seat];
}

function who(seat) {
  return `${playerName(seat)} (${SEAT_NAMES[seat]})`;
}

function signed(n) {
  return n > 0 ? `+${n}` : String(n);
}

// Fair pair scores are told from one side: the viewer's team if they played the game, else North & South.
const viewer = data.viewer || { seat: null, team: 0 };
const viewerSide = viewer.seat === null ? TEAM_NAMES[viewer.team] : gettext("you");

function pairScore(scores) {
  // "you +23" / "North & South -12": what the viewer's team made with a pair's hands minus the other team's.
  if (!scores) return `${viewerSide} –`;
  const n = scores[viewer.team];
  return `${viewerSide} ${n === 0 ? "±0" : signed(n)}`;
}

// -- position and URL ---------------------------------------------------------------------

function clamp(value, low, high) {
  return Math.min(high, Math.max(low, value));
}

function readUrl() {
  const params = new URLSearchParams(window.location.search);
  const round = clamp(parseInt(params.get("round") || "1", 10) || 1, 1, rounds.length) - 1;
  const card = clamp(parseInt(params.get("card") || "0", 10) || 0, 0, length(round));
  return { round, card };
}

function writeUrl() {
  const url = new URL(window.location.href);
  url.searchParams.set("round", String(at.round + 1));
  url.searchParams.set("card", String(at.card));
  window.history.replaceState(null, "", url);
}

function go(round, card, { reveal = true } = {}) {
  const r = clamp(round, 0, rounds.length - 1);
  at = { round: r, card: clamp(card, 0, length(r)) };
  writeUrl();
  render();
  if (reveal) keepTrickInView();
}

function step(delta) {
  const { round, card } = at;
  if (delta > 0) {
    if (card < length(round)) go(round, card + 1);
    else if (round < rounds.length - 1) go(round + 1, 0);
  } else if (card > 0) {
    go(round, card - 1);
  } else if (round > 0) {
    go(round - 1, length(round - 1));
  }
}

function keepTrickInView() {
  // The step buttons stick to the bottom of the screen; on a short screen (a phone) they would cover the
  // felt below the fold. Scroll just enough that the felt (or, if it is taller than the room, the trick)
  // sits above them, so that every step is seen where it happens.
  const room = Math.min(window.innerHeight, ui.controls.getBoundingClientRect().top);
  const felt = ui.felt.getBoundingClientRect();
  const target = felt.height <= room ? felt : ui.center.getBoundingClientRect();
  if (target.top < 0) window.scrollBy(0, target.top);
  else if (target.bottom > room) window.scrollBy(0, Math.min(target.bottom - room, target.top));
}

function switchToTwin() {
  const pair = roundOf().pair;
  if (pair && pair.twin_played) go(pair.twin - 1, at.card);
}

// -- rendering ------------------------------------------------------------------------------

function handsAt(rnd, card) {
  const hands = rnd.hands.map((hand) => new Set(hand));
  for (const played of rnd.cards.slice(0, card)) hands[played.seat].delete(played.card);
  return hands.map((set) => [...set]);
}

function seatTags(rnd, seat) {
  const tags = [];
  if (rnd.dealer === seat) tags.push(h("span", { class: "rp-tag", title: gettext("Dealer") }, gettext("Dealer")));
  if (rnd.forehand === seat) tags.push(h("span", { class: "rp-tag", title: gettext("Forehand: declares or pushes, leads first") },
    rnd.pushed ? gettext("Pushed") : gettext("Forehand")));
  if (rnd.declarer === seat) {
    tags.push(h("span", { class: "rp-tag rp-tag-trump", title: interpolate(gettext("Chose %(trump)s"), { trump: TRUMPS[rnd.trump].name }, true) },
      `${gettext("Trump")}: `, trumpMark(rnd.trump)));
  }
  return tags;
}

function renderSeat(rnd, seat, hands, toPlay) {
  const zone = app.querySelector(`.rp-seat[data-pos="${POSITIONS[seat]}"]`);
  const player = data.players.find((p) => p.seat === seat) || { kind: "empty" };
  const cards = sortHand(hands[seat], rnd.trump);
  const twin = rnd.pair
    ? h("span", { class: "rp-twin-hand", "data-testid": `twin-hand-${seat}` },
      interpolate(rnd.pair.original ? gettext("Dealt again to %(seat)s in round %(round)s") : gettext("Dealt before to %(seat)s in round %(round)s"),
        { seat: SEAT_NAMES[rnd.pair.seat_map[seat]], round: rnd.pair.twin }, true))
    : null;
  zone.classList.toggle("rp-seat-to-play", toPlay === seat);
  zone.dataset.team = String(seat % 2);
  // replaceChildren would write a null child as the text "null": leave out what is not there.
  zone.replaceChildren(...[
    h("div", { class: "rp-nameplate" },
      h("span", { class: "rp-compass" }, SEAT_NAMES[seat]),
      h("strong", { class: "rp-name" }, playerName(seat)),
      player.kind === "bot" || player.kind === "remote"
        ? h("span", { class: `badge ${player.kind === "remote" ? "badge-remote" : "badge-bot"}` }, player.kind === "remote" ? "HSLU" : gettext("bot"))
        : null,
      toPlay === seat ? h("span", { class: "rp-to-play" }, gettext("to play")) : null,
      ...seatTags(rnd, seat)),
    h("div", { class: "rp-hand", "data-testid": `hand-${seat}`, "data-count": cards.length, style: `--n: ${cards.length}` },
      cards.length
        ? cards.map((code) => cardElement(code, { className: "card-mini" }))
        : h("span", { class: "rp-empty-hand" }, gettext("no cards left"))),
    twin,
  ].filter(Boolean));
}

function trickAt(rnd, card) {
  // The cards of the trick being played; right after a trick's fourth card, that whole trick and its winner.
  if (card === 0) return null;
  const start = card % 4 === 0 ? card - 4 : card - (card % 4);
  const number = Math.floor(start / 4);
  const cards = rnd.cards.slice(start, card);
  const done = cards.length === 4 ? rnd.tricks[number] : null;
  return { number, cards, done };
}

function renderCenter(rnd) {
  const trick = trickAt(rnd, at.card);
  if (!trick) {
    const lines = [];
    if (rnd.trump < 0) {
      lines.push(h("p", {}, gettext("The game ended before a trump was chosen.")));
    } else {
      if (rnd.pushed) lines.push(h("p", {}, interpolate(gettext("%(name)s pushed."), { name: who(rnd.forehand) }, true)));
      lines.push(h("p", { class: "rp-decision" }, `${interpolate(gettext("%(name)s chose"), { name: who(rnd.declarer) }, true)} `, trumpLabel(rnd.trump),
        rnd.multiplier > 1 ? h("span", { class: "factor" }, ` ×${rnd.multiplier}`) : null));
      lines.push(h("p", { class: "muted" }, interpolate(gettext("%(name)s leads."), { name: who(rnd.forehand) }, true)));
    }
    ui.center.replaceChildren(h("div", { class: "rp-center-note", "data-testid": "decision" }, lines));
    return;
  }
  const slots = trick.cards.map((played) => h("div", { class: `trick-slot trick-${POSITIONS[played.seat]}` },
    cardElement(played.card, { className: trick.done && trick.done.winner === played.seat ? "card-winner" : "" })));
  const caption = trick.done
    ? interpolate(gettext("Trick %(number)s: %(name)s wins %(points)s"), { number: trick.number + 1, name: who(trick.done.winner), points: trick.done.points }, true)
    : interpolate(gettext("Trick %(number)s"), { number: trick.number + 1 }, true);
  ui.center.replaceChildren(
    h("div", { class: "trick rp-trick", "data-cards": trick.cards.length }, slots),
    h("p", { class: "rp-trick-caption", "data-testid": "trick-caption" }, caption));
}

function factsList(entries) {
  return h("dl", { class: "rp-facts" }, entries.filter(Boolean).map(([term, value, testid]) => [
    h("dt", {}, term), h("dd", testid ? { "data-testid": testid } : {}, value)]));
}

const PAIR_SCORE_HINT = gettext("The points a team made with a pair's hands minus the points the other team made with the same hands");

function pairsPanel() {
  // Every pair of a fair game, numbered in play order, each score from the viewer's side.
  if (!data.pairs.length) return null;
  const here = roundOf().pair;
  const heading = viewer.seat !== null ? `${viewerSide} (${TEAM_NAMES[viewer.team]})` : viewerSide;
  return h("section", { class: "panel panel-compact rp-pairs", "data-testid": "pair-scores" },
    h("h2", { class: "panel-title" }, interpolate(gettext("Pair scores for %(side)s"), { side: heading }, true)),
    h("p", { class: "hint" }, PAIR_SCORE_HINT, "."),
    h("ol", { class: "rp-pair-list" }, data.pairs.map((p) => h("li", {
      class: `rp-pair-row${here && here.number === p.number ? " rp-pair-here" : ""}`,
      "data-testid": "pair-score", "data-pair": p.number,
    },
    h("span", {}, interpolate(gettext("Pair %(number)s · rounds %(first)s & %(second)s"), { number: p.number, first: p.rounds[0], second: p.rounds[1] }, true)),
    h("strong", { class: "rp-pair-score" }, pairScore(p.scores))))));
}

function renderSide(rnd) {
  const running = rnd.running[at.card];
  const total = [rnd.scores_before[0] + running[0], rnd.scores_before[1] + running[1]];
  const ended = at.card === rnd.cards.length && rnd.complete;
  const last = at.card > 0 ? rnd.cards[at.card - 1] : null;
  const facts = factsList([
    [gettext("Round"), interpolate(gettext("%(round)s of %(count)s"), { round: rnd.round, count: data.mode === "fair" ? data.round_count : rounds.length }, true)],
    [gettext("Dealer"), who(rnd.dealer)],
    [gettext("Trump"), rnd.trump >= 0 ? h("span", {}, trumpLabel(rnd.trump), ` ${interpolate(gettext("by %(name)s"), { name: SEAT_NAMES[rnd.declarer] }, true)}`,
      rnd.pushed ? ` (${interpolate(gettext("%(name)s pushed"), { name: SEAT_NAMES[rnd.forehand] }, true)})` : "") : "–"],
    [gettext("Round points"), h("span", {}, `${NS} ${running[0]} : ${running[1]} ${EW}`,
      ended && rnd.match !== null ? h("strong", { class: "match-tag" }, ` ${interpolate(gettext("Match for %(team)s!"), { team: TEAM_NAMES[rnd.match] }, true)}`) : null), "round-points"],
    [gettext("Game score"), `${NS} ${total[0]} : ${total[1]} ${EW}`, "game-score"],
    last
      ? [gettext("Last card"), h("span", { "data-testid": "last-card" }, cardCode(last.card), ` ${interpolate(gettext("by %(name)s"), { name: SEAT_NAMES[last.seat] }, true)}`,
        last.standin ? h("span", { class: "badge badge-standin", "data-testid": "standin-move",
          title: interpolate(gettext("%(name)s was out of time or had left; a stand-in bot played this card"), { name: who(last.seat) }, true) },
        ` ${interpolate(gettext("played by the stand-in (%(bot)s)"), { bot: botName(data.standin_bot, data.standin_label || gettext("bot")) }, true)}`) : null,
        last.ms !== null && last.ms !== undefined ? `, ${interpolate(gettext("%(ms)s ms to decide"), { ms: last.ms }, true)}` : "")]
      : null,
  ]);
  const tricksDone = Math.floor(at.card / 4);
  const tricks = h("ol", { class: "rp-tricks", "data-testid": "tricks" }, rnd.tricks.slice(0, tricksDone).map((t, i) =>
    h("li", { class: `rp-trick-row team-${t.winner % 2}` },
      h("span", { class: "rp-trick-cards" }, rnd.cards.slice(4 * i, 4 * i + 4).map((c) => cardCode(c.card))),
      h("span", { title: who(t.winner) }, `${SEAT_NAMES[t.winner]} +${t.points}`))));
  const faults = rnd.faults.map((f) => h("li", {
    class: `rp-fault${f.card === at.card ? " rp-fault-here" : ""}`, "data-testid": "replay-fault", "data-card": f.card,
  }, h("button", { type: "button", class: "link-button", onclick: () => go(at.round, f.card) }, interpolate(gettext("card %(number)s"), { number: f.card }, true)),
  ` ⚠ ${who(f.seat)}: ${faultKindText(f.kind)} — ${f.detail}${f.latency_ms ? ` (${f.latency_ms} ms)` : ""}`));
  ui.side.replaceChildren(...[
    h("section", { class: "panel panel-compact" }, h("h2", { class: "panel-title" }, gettext("This round")), facts),
    h("section", { class: "panel panel-compact" }, h("h2", { class: "panel-title" }, interpolate(gettext("Tricks (%(count)s of 9)"), { count: tricksDone }, true)),
      tricksDone ? tricks : h("p", { class: "muted" }, gettext("No trick played yet."))),
    faults.length ? h("section", { class: "panel panel-compact rp-faults" },
      h("h2", { class: "panel-title" }, gettext("Bot faults this round")),
      h("p", { class: "hint" }, gettext("A random legal move was played in the bot's stead.")),
      h("ul", {}, faults)) : null,
    weisPanel(rnd, at, { who, cardCode, teams: TEAM_NAMES }),
    analysis.panel(at),
    pairsPanel(),
    chatPanel(data.chat || [], PHRASES, at),
  ].filter(Boolean));
}

function cardCode(code) {
  return cardTag(code, "rp-code");
}

function renderPair(rnd) {
  if (!rnd.pair) {
    ui.pair.hidden = true;
    return;
  }
  const p = rnd.pair;
  const suits = Object.entries(p.suits).filter(([a, b]) => a !== b)
    .map(([a, b]) => h("span", { class: "rp-perm" }, suitTag(a), "→", suitTag(b)));
  ui.pair.hidden = false;
  ui.pair.replaceChildren(
    h("span", { class: "pair-label", "data-testid": "pair-label" },
      interpolate(gettext("Pair %(number)s: round %(original)s and its twin, round %(twin)s"),
        { number: p.number, original: p.original ? rnd.round : p.twin, twin: p.original ? p.twin : rnd.round }, true)),
    h("span", { class: "pair-suits", title: gettext("Suits of the original → suits of the twin") }, `${gettext("Suits")} `, suits),
    h("span", { class: "pair-rpa", "data-testid": "rpa", title: PAIR_SCORE_HINT },
      `${gettext("Pair score")} `, h("strong", {}, pairScore(p.scores))),
    p.twin_played
      ? h("button", { type: "button", class: "button button-small", "data-testid": "twin", onclick: switchToTwin },
        `${interpolate(gettext("Twin: round %(round)s"), { round: p.twin }, true)} ⇄`)
      : h("span", { class: "muted" }, interpolate(gettext("Round %(round)s was not played"), { round: p.twin }, true)));
}

function renderControls(rnd) {
  const n = rnd.cards.length;
  ui.slider.max = String(n);
  ui.slider.value = String(at.card);
  ui.slider.setAttribute("aria-valuetext", interpolate(gettext("card %(card)s of %(count)s"), { card: at.card, count: n }, true));
  ui.position.textContent = `${interpolate(gettext("Round %(round)s"), { round: rnd.round }, true)} · ${interpolate(gettext("card %(card)s of %(count)s"), { card: at.card, count: n }, true)}`;
  ui.first.disabled = at.card === 0;
  ui.last.disabled = at.card === n;
  ui.prev.disabled = at.round === 0 && at.card === 0;
  ui.next.disabled = at.round === rounds.length - 1 && at.card === n;
  const analysedRound = analysis.round(at.round);
  const judged = analysedRound ? analysedRound.cards : [];
  ui.marks.replaceChildren(...rnd.faults.map((f) => h("span", {
    class: "slider-mark", style: `left:${n ? (100 * f.card) / n : 0}%`, title: interpolate(gettext("bot fault at card %(card)s"), { card: f.card }, true),
  })), ...judged.map((c, i) => (c.mark ? h("span", {
    class: `slider-mark slider-mark-analysis an-mark-${MARK_WORDS[c.mark]}`, style: `left:${n ? (100 * (i + 1)) / n : 0}%`,
    title: interpolate(gettext("card %(card)s: %(mark)s, %(points)s pts lost"), { card: i + 1, mark: `${c.mark} ${MARK_TEXT[c.mark]}`, points: c.view.loss }, true), "data-testid": "slider-analysis-mark", "data-card": i + 1,
  }, c.mark) : null)).filter(Boolean));
  ui.select.value = String(at.round);
}

function render() {
  const rnd = roundOf();
  const hands = handsAt(rnd, at.card);
  const toPlay = at.card < rnd.cards.length ? rnd.cards[at.card].seat : -1;
  for (const seat of [0, 1, 2, 3]) renderSeat(rnd, seat, hands, toPlay);
  renderCenter(rnd);
  renderSide(rnd);
  renderPair(rnd);
  renderControls(rnd);
  app.dataset.round = String(rnd.round);
  app.dataset.card = String(at.card);
}

function roundOption(rnd, index) {
  const trump = rnd.trump >= 0 ? trumpText(rnd.trump) : gettext("no trump");
  const pair = !rnd.pair ? "" : ` · ${interpolate(rnd.pair.original ? gettext("pair %(number)s") : gettext("pair %(number)s (twin)"), { number: rnd.pair.number }, true)}`;
  return h("option", { value: String(index) },
    `${interpolate(gettext("Round %(round)s"), { round: rnd.round }, true)} · ${trump} · ${rnd.points[0]} : ${rnd.points[1]}${pair}`);
}

// -- input ------------------------------------------------------------------------------------

ui.select.replaceChildren(...rounds.map(roundOption));
ui.select.addEventListener("change", () => go(Number(ui.select.value), 0));
// Not while dragging the slider: the page must not move under the finger.
ui.slider.addEventListener("input", () => go(at.round, Number(ui.slider.value), { reveal: false }));
ui.first.addEventListener("click", () => go(at.round, 0));
ui.last.addEventListener("click", () => go(at.round, length(at.round)));
ui.prev.addEventListener("click", () => step(-1));
ui.next.addEventListener("click", () => step(1));

document.addEventListener("keydown", (event) => {
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  const target = event.target;
  if (target instanceof HTMLElement && (target.matches("input:not([type=range]), textarea, select") || target.isContentEditable)) return;
  const onSlider = target === ui.slider;
  const keys = {
    ArrowRight: () => step(1),
    ArrowLeft: () => step(-1),
    Home: () => go(at.round, 0),
    End: () => go(at.round, length(at.round)),
    PageDown: () => go(at.round + 1, 0),
    PageUp: () => go(at.round - 1, 0),
    t: switchToTwin,
    T: switchToTwin,
  };
  const action = keys[event.key];
  if (!action) return;
  // On the slider, arrows move within the round (the browser's own handling); elsewhere they cross rounds.
  if (onSlider && !["t", "T", "PageUp", "PageDown"].includes(event.key)) return;
  event.preventDefault();
  action();
});

window.addEventListener("popstate", () => {
  at = readUrl();
  render();
});

at = readUrl();
writeUrl();
render();
analysis.poll();
app.dataset.ready = "true";
