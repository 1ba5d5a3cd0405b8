// The replay's analysis (games/pages/stored_analyses.py): each card's mark and loss, the evaluation graph, accuracy,
// and the button that asks for an analysis (then polled until it is done).

import { trumpLabel } from "../cards.js";
import { postForm } from "../csrf.js";
import { h } from "../dom.js";
import { formatPercent, gettext, interpolate, pgettext } from "../i18n.js";

const NS = gettext("N/S");
const EW = gettext("E/W");
// The marks' English words name their CSS classes too (an-mark-blunder); MARK_TEXT says them in the page's language.
export const MARK_WORDS = { "?!": "inaccuracy", "?": "mistake", "??": "blunder" };
export const MARK_TEXT = { "?!": gettext("inaccuracy"), "?": gettext("mistake"), "??": gettext("blunder") };

/** A game's analysis as the server last sent it, and the panel that shows it at a position. */
export class Analysis {
  #analysis;
  #refused = ""; // why the server refused the last request (a limit), in the page's language
  #gameId;
  #who;
  #cardCode;
  #onChange;

  /** `who(seat)` names a seat, `cardCode(code)` draws a card in text, `onChange()` renders the page again. */
  constructor(gameId, analysis, { who, cardCode, onChange }) {
    this.#gameId = gameId;
    this.#analysis = analysis || { status: "none" };
    this.#who = who;
    this.#cardCode = cardCode;
    this.#onChange = onChange;
  }

  /** The analysis of round `index` (0-based), or null while there is none. */
  round(index) {
    const a = this.#analysis;
    return a.status === "done" && a.rounds && a.rounds[index] ? a.rounds[index] : null;
  }

  points(value) {
    return interpolate(gettext("%(points)s pts"), { points: Math.round(value) }, true);
  }

  valuesLine(values, played) {
    // Every legal card with its points, best first; the card played stands out.
    const sorted = Object.entries(values).sort((a, b) => b[1] - a[1]);
    return h("span", { class: "an-values" }, sorted.map(([code, value]) => h("span", {
      class: `an-value${code === played ? " an-played" : ""}`,
    }, this.#cardCode(code), ` ${Math.round(value)}`)));
  }

  cardVerdict(entry) {
    const mark = entry.mark;
    const view = entry.view;
    const open = entry.open;
    return h("div", { class: "an-card", "data-testid": "analysis-card", "data-mark": mark, "data-loss": String(view.loss) },
      h("p", { class: "an-head" }, this.#cardCode(entry.card), ` ${interpolate(gettext("by %(name)s"), { name: this.#who(entry.seat) }, true)} `,
        mark ? h("strong", { class: `an-mark an-mark-${MARK_WORDS[mark]}`, title: MARK_TEXT[mark] }, `${mark} ${MARK_TEXT[mark]}`) : null),
      entry.choices < 2 ? h("p", { class: "muted" }, gettext("The only legal card.")) : h("p", { "data-testid": "analysis-view" },
        view.loss > 0
          ? h("span", {}, `${interpolate(gettext("Lost %(points)s from the player's view; better:"), { points: this.points(view.loss) }, true)} `,
            h("span", { "data-testid": "analysis-best" }, this.#cardCode(view.best)), ".")
          : gettext("The best card from the player's view."),
        h("br"), h("span", { class: "hint" }, `${gettext("Player's view (expected points):")} `), this.valuesLine(view.values, entry.card)),
      entry.choices < 2 ? null : h("p", { "data-testid": "analysis-open" },
        open === null
          ? h("span", { class: "muted" }, gettext("Open hands: not solved within the search budget (an early trick)."))
          : h("span", {}, open.loss > 0
            ? `${interpolate(gettext("With open hands it lost %(points)s pts (best %(card)s)."), { points: open.loss, card: this.#cardCode(open.best).textContent }, true)} `
            : `${gettext("With open hands it was a best card.")} `,
          h("br"), h("span", { class: "hint" }, `${gettext("Open hands (exact points):")} `), this.valuesLine(open.values, entry.card))));
  }

  trumpVerdicts(list) {
    const label = (key) => (key === "push" ? pgettext("trump", "Push") : trumpLabel(Number(key)));
    return list.map((d) => h("div", { class: "an-card", "data-testid": "analysis-trump", "data-mark": d.mark },
      h("p", { class: "an-head" }, `${interpolate(gettext("%(name)s chose"), { name: this.#who(d.seat) }, true)} `, label(d.chosen), " ",
        d.mark ? h("strong", { class: "an-mark" }, `${d.mark} ${MARK_TEXT[d.mark]}`) : null),
      h("p", {}, d.loss > 0
        ? [`${interpolate(gettext("Lost %(points)s from the player's view; best:"), { points: this.points(d.loss) }, true)} `, label(d.best), "."]
        : gettext("The best choice from the player's view.")),
      h("p", { class: "hint" }, `${gettext("Expected points:")} `, Object.entries(d.values).sort((a, b) => b[1] - a[1])
        .flatMap(([k, v], i) => [i ? " · " : "", label(k), ` ${Math.round(v)}`]))));
  }

  evalGraph(series, card) {
    // Expected final points of each team after every card (the player's-view search of the seat to move).
    if (!series.length) return null;
    const width = 320;
    const height = 120;
    const top = Math.max(157, ...series.flat());
    const x = (i) => 6 + ((width - 12) * i) / 36;
    const y = (v) => height - 14 - ((height - 24) * v) / top;
    const line = (team) => series.map((p, i) => `${x(i).toFixed(1)},${y(p[team]).toFixed(1)}`).join(" ");
    const svg = (tag, attrs, ...children) => {
      const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
      for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
      node.append(...children.flat());
      return node;
    };
    return svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "an-graph", role: "img", "data-testid": "eval-graph",
      "aria-label": interpolate(gettext("Expected final points after card %(card)s: N/S %(ns)s, E/W %(ew)s"),
      { card, ns: series[Math.min(card, series.length - 1)]?.[0] ?? "–", ew: series[Math.min(card, series.length - 1)]?.[1] ?? "–" }, true) },
    svg("line", { x1: 6, x2: width - 6, y1: y(157 / 2), y2: y(157 / 2), class: "an-mid" }),
    [9, 18, 27].map((t) => svg("line", { x1: x(t * 4 / 4), x2: x(t * 4 / 4), y1: 4, y2: height - 14, class: "an-trick" })),
    svg("polyline", { points: line(0), class: "an-line an-team-0" }),
    svg("polyline", { points: line(1), class: "an-line an-team-1" }),
    svg("line", { x1: x(card), x2: x(card), y1: 2, y2: height - 12, class: "an-now" }),
    svg("text", { x: 8, y: 13, class: "an-legend an-team-0" }, `${NS} ${Math.round(series[Math.min(card, series.length - 1)][0])}`),
    svg("text", { x: 84, y: 13, class: "an-legend an-team-1" }, `${EW} ${Math.round(series[Math.min(card, series.length - 1)][1])}`),
    svg("text", { x: width - 6, y: height - 2, "text-anchor": "end", class: "an-legend" }, gettext("expected points after each card · tricks")));
  }

  accuracyList() {
    return h("ul", { class: "an-accuracy", "data-testid": "accuracy" }, [0, 1, 2, 3].map((seat) => {
      const value = this.#analysis.accuracy ? this.#analysis.accuracy[seat] : null;
      return h("li", { "data-testid": "accuracy-seat", "data-seat": seat },
        `${this.#who(seat)}: `, h("strong", {}, value === null || value === undefined ? "–" : formatPercent(value)));
    }));
  }

  /** The panel at position `at` ({round, card}): the card's or the trump's verdict, the graph, accuracy. */
  panel(at) {
    const section = (...children) => h("section", { class: "panel panel-compact rp-analysis", "data-testid": "analysis-panel" },
      h("h2", { class: "panel-title" }, gettext("Analysis")), ...children);
    if (this.#analysis.status === "queued" || this.#analysis.status === "running") {
      return section(h("p", {}, interpolate(gettext("Analysing every card: round %(done)s of %(total)s done."), { done: this.#analysis.done, total: this.#analysis.total }, true)),
        h("progress", { max: String(this.#analysis.total || 1), value: String(this.#analysis.done), "data-testid": "analysis-progress",
          "aria-label": gettext("Analysis progress") }));
    }
    if (this.#analysis.status === "failed") {
      return section(h("p", { class: "muted", "data-testid": "analysis-failed" }, gettext("The analysis of this game failed. The fault was logged for the site's operators.")),
        this.askButton(gettext("Analyse again")));
    }
    if (!this.round(at.round)) return section(h("p", { class: "muted" }, gettext("This game has not been analysed.")), this.askButton(gettext("Analyse this game")));
    const rnd = this.#analysis.rounds[at.round];
    const entry = at.card > 0 ? rnd.cards[at.card - 1] : null;
    return section(
      entry ? this.cardVerdict(entry) : this.trumpVerdicts(rnd.trump),
      this.evalGraph(rnd.eval, at.card),
      h("h3", { class: "an-subtitle" }, gettext("Accuracy this game")),
      this.accuracyList(),
      h("p", { class: "hint" }, gettext("Marks by points lost from the player's own view: ?! 5 or more, ? 10 or more, ?? 20 or more.")));
  }

  askButton(label) {
    // Any game that is over may be analysed on request (games/pages/views.py: analyse_game); the server says when not.
    if (!this.#analysis.may_ask) return null;
    return h("p", { class: "an-ask" },
      h("button", { type: "button", class: "button", "data-testid": "analyse-button", onclick: (event) => this.ask(event) }, label),
      this.#refused ? h("span", { class: "an-refused", role: "alert", "data-testid": "analyse-refused" }, ` ${this.#refused}`) : null);
  }

  async ask(event) {
    event.currentTarget.disabled = true;
    try {
      const response = await postForm(`/games/${this.#gameId}/analyse`, { game: this.#gameId }); // an empty multipart body is a 400
      const answer = await response.json();
      if (response.ok) {
        this.#analysis = answer;
        this.#refused = "";
      } else {
        this.#refused = answer.message || gettext("The analysis could not be started. Try again later.");
      }
    } catch (error) {
      this.#refused = gettext("The analysis could not be started. Try again later.");
    }
    this.#onChange();
    this.poll();
  }

  /** While the analysis runs, ask for it again every 2 s (and render it). */
  poll() {
    if (this.#analysis.status !== "queued" && this.#analysis.status !== "running") return;
    setTimeout(async () => {
      try {
        const response = await fetch(`/games/${this.#gameId}/analysis.json`, { headers: { Accept: "application/json" } });
        if (response.ok) this.#analysis = await response.json();
      } catch (error) {
        // A dropped request: the next poll asks again.
      }
      this.#onChange();
      this.poll();
    }, 2000);
  }
}
