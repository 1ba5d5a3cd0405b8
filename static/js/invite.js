// The table page's "Invite a bot by URL" dialog: Test sends the bot a real trump request (test_bot),
// Seat bot puts it on the seat (add_remote_bot) with the dialect a successful test found.

import { h, SEAT_NAMES } from "./dom.js";
import { faultKindText, latencyText } from "./faults.js";
import { gettext, interpolate } from "./i18n.js";

const SERVER_GRACE_MS = 5000; // beyond the bot's own timeout, for the server's reply to arrive
const SEAT_REPLY_MS = 10000;

const DIALECT_NAMES = { spec: gettext("HSLU spec paths"), "jass-kit": gettext("jass-kit paths") };
const PATH_HINTS = {
  auto: gettext("Tries the spec's URL/select_trump first and jass-kit's URL/action_trump if that is not found."),
  spec: gettext("Requests go to URL/select_trump, URL/play_card and URL/game_info."),
  "jass-kit": gettext("Requests go to URL/action_trump, URL/action_play_card and URL/game_info: jass-kit serves a player at http://host:port/name."),
};
// Refusals that concern the URL: shown next to the URL field.
const URL_ERRORS = new Set(["bot_url_refused", "bad_bot_url"]);

/** The name the server gives a bot without one: the URL's last path part, else its host. */
export function defaultBotName(url) {
  try {
    const parsed = new URL(url.trim());
    return parsed.pathname.replace(/\/+$/, "").split("/").pop() || parsed.hostname || "";
  } catch {
    return "";
  }
}

function sentence(text) {
  if (!text) return "";
  return text[0].toUpperCase() + text.slice(1) + (/[.!?)]$/.test(text) ? "" : ".");
}

export class InviteDialog {
  /**
   * dialog: the <dialog> of templates/table.html. send(message) returns false while disconnected;
   * timeoutSeconds() is the table's bot timeout; onSeated(seat, name) runs once the bot sits.
   */
  constructor(dialog, { send, timeoutSeconds, onSeated }) {
    this.dialog = dialog;
    this.send = send;
    this.timeoutSeconds = timeoutSeconds;
    this.onSeated = onSeated;
    this.seat = null;
    this.seated = false;
    this.taken = false; // a person sat down on the seat meanwhile
    this.awaiting = null; // "test" | "seat": a request whose reply (or error) is still to come
    this.timer = null;
    this.tested = null; // the last test's reply, for the URL and dialect still in the form
    const $ = (selector) => dialog.querySelector(selector);
    this.form = $("form");
    this.seatLabel = $("[data-invite-seat]");
    this.url = $("#invite-url");
    this.urlError = $("[data-testid=invite-url-error]");
    this.name = $("#invite-name");
    this.dialect = $("#invite-dialect");
    this.paths = $("[data-testid=invite-paths]");
    this.result = $("[data-testid=invite-result]");
    this.testButton = $("[data-testid=invite-test]");
    this.seatButton = $("[data-testid=invite-seat]");

    this.form.addEventListener("submit", (event) => {
      event.preventDefault(); // Enter in a field runs the test, which changes nothing
      this.test();
    });
    this.seatButton.addEventListener("click", () => this.seatBot());
    for (const button of dialog.querySelectorAll("[data-invite-close]")) {
      button.addEventListener("click", () => dialog.close());
    }
    this.url.addEventListener("input", () => this.formChanged());
    this.dialect.addEventListener("change", () => this.formChanged());
    dialog.addEventListener("close", () => {
      this.settle();
      // Back to the seat's invite button (the one that opened the dialog may have been re-rendered).
      if (!this.seated) document.querySelector(`[data-testid="invite-bot-${this.seat}"]`)?.focus();
    });
    // A click on the backdrop closes the dialog, as Escape does; not one in the dialog's own padding,
    // nor the end of a text selection dragged out of a field.
    const outside = (event) => {
      const box = dialog.getBoundingClientRect();
      return event.target === dialog && (event.clientX < box.left || event.clientX > box.right
        || event.clientY < box.top || event.clientY > box.bottom);
    };
    let pressedOutside = false;
    dialog.addEventListener("pointerdown", (event) => { pressedOutside = outside(event); });
    dialog.addEventListener("click", (event) => {
      if (pressedOutside && outside(event)) dialog.close();
      pressedOutside = false;
    });
    this.showPaths();
  }

  get isOpen() {
    return this.dialog.open;
  }

  open(seat) {
    this.seat = seat;
    this.seated = false;
    this.taken = false;
    this.seatLabel.textContent = SEAT_NAMES[seat];
    this.seatButton.setAttribute("aria-label", interpolate(gettext("Seat bot at %(seat)s"), { seat: SEAT_NAMES[seat] }, true));
    this.settle();
    this.formChanged();
    this.dialog.showModal();
    this.url.focus();
  }

  close() {
    if (this.dialog.open) this.dialog.close();
  }

  /** The URL or dialect changed: an earlier test result no longer applies. */
  formChanged() {
    this.tested = null;
    this.result.hidden = true;
    this.result.replaceChildren();
    this.showUrlError(null);
    this.showPaths();
    this.name.placeholder = defaultBotName(this.url.value) || gettext("e.g. Trumpfi");
  }

  showPaths() {
    this.paths.textContent = PATH_HINTS[this.dialect.value] || "";
  }

  showUrlError(text) {
    this.urlError.hidden = !text;
    this.urlError.replaceChildren(...(text ? [h("span", { "aria-hidden": "true" }, "✗ "), text] : []));
    if (text) this.url.setAttribute("aria-invalid", "true");
    else this.url.removeAttribute("aria-invalid");
  }

  /** The URL typed, or null after saying (next to the field) that one is needed. */
  urlValue() {
    const url = this.url.value.trim();
    if (!url) {
      this.showUrlError(gettext("Enter the bot's URL, e.g. http://bots.example.org:5001/mybot."));
      this.url.focus();
      return null;
    }
    return url;
  }

  test() {
    if (this.awaiting) return;
    const url = this.urlValue();
    if (url === null) return;
    const seconds = this.timeoutSeconds();
    if (!this.request({ type: "test_bot", url, dialect: this.dialect.value, seat: this.seat }, "test", (seconds * 1000) + SERVER_GRACE_MS)) return;
    this.result.hidden = false;
    this.result.className = "invite-result invite-result-busy";
    this.result.replaceChildren(h("p", { class: "invite-verdict" },
      h("span", { class: "spinner", "aria-hidden": "true" }), ` ${interpolate(gettext("Testing… the bot has up to %(seconds)s s to answer."), { seconds }, true)}`));
  }

  seatBot() {
    if (this.awaiting || this.taken) return;
    const url = this.urlValue();
    if (url === null) return;
    const chosen = this.dialect.value;
    // A successful test tells the dialect; no need to guess again at the first move.
    const dialect = this.tested && this.tested.ok && (chosen === "auto" || chosen === this.tested.dialect)
      ? this.tested.dialect : chosen;
    this.request({ type: "add_remote_bot", seat: this.seat, url, name: this.name.value.trim(), dialect }, "seat", SEAT_REPLY_MS);
  }

  /** Send a request and wait for its reply; false (and said so) when not connected. */
  request(message, kind, waitMs) {
    this.showUrlError(null);
    this.requestId = `invite-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
    if (!this.send({ ...message, id: this.requestId })) {
      this.showResult(false, [h("p", { class: "invite-verdict" }, gettext("Not connected right now: reconnecting, try again in a moment."))]);
      return false;
    }
    this.awaiting = kind;
    this.busy(true);
    this.timer = setTimeout(() => {
      this.settle();
      this.showResult(false, [h("p", { class: "invite-verdict" }, gettext("No reply from the server. Try again."))]);
    }, waitMs);
    return true;
  }

  /** Stop waiting for a reply. */
  settle() {
    clearTimeout(this.timer);
    this.timer = null;
    this.awaiting = null;
    this.busy(false);
  }

  busy(on) {
    // aria-disabled, not disabled: a disabled button would lose the keyboard focus.
    this.testButton.setAttribute("aria-disabled", String(on));
    this.seatButton.setAttribute("aria-disabled", String(on || this.taken));
    this.testButton.textContent = on && this.awaiting === "test" ? gettext("Testing…") : gettext("Test");
    this.seatButton.textContent = on && this.awaiting === "seat" ? gettext("Seating…") : gettext("Seat bot");
    this.form.setAttribute("aria-busy", String(on));
  }

  showResult(ok, children) {
    this.result.hidden = false;
    this.result.className = `invite-result ${ok ? "invite-result-ok" : "invite-result-bad"}`;
    this.result.replaceChildren(...children);
  }

  /** A message from the server; true if it was the reply this dialog waited for. */
  receive(message) {
    // The server echoes our request's id: anything else is not our reply.
    if (!this.awaiting || message.id !== this.requestId) return false;
    if (message.type === "bot_test" && this.awaiting === "test") {
      this.settle();
      this.tested = message;
      this.showTest(message);
      return true;
    }
    if (message.type === "error") {
      this.settle();
      if (URL_ERRORS.has(message.code)) {
        this.result.hidden = true;
        this.showUrlError(sentence(message.message));
        this.url.focus();
      } else {
        this.showResult(false, [h("p", { class: "invite-verdict" }, h("span", { "aria-hidden": "true" }, "✗ "), sentence(message.message))]);
      }
      return true;
    }
    return false;
  }

  showTest(reply) {
    const fact = (term, value, testid) => [h("dt", {}, term), h("dd", { "data-testid": testid }, value)];
    const chosen = this.dialect.value;
    const dialectName = DIALECT_NAMES[reply.dialect] || reply.dialect;
    if (reply.ok) {
      this.showResult(true, [
        h("p", { class: "invite-verdict", "data-testid": "invite-verdict" },
          h("span", { class: "verdict-mark", "aria-hidden": "true" }, "✓"), ` ${gettext("The bot answered")}`),
        h("dl", { class: "facts invite-facts" },
          fact(gettext("Answer"), reply.answer, "invite-answer"),
          fact(chosen === "auto" ? gettext("Detected") : gettext("Dialect"), reply.dialect, "invite-dialect"),
          fact(gettext("Time"), latencyText(reply.latency_ms), "invite-latency"),
          fact(gettext("URL"), reply.url, "invite-url-used")),
        h("p", { class: "hint" }, interpolate(gettext("Seat bot uses the %(dialect)s."), { dialect: dialectName }, true)),
      ]);
    } else {
      this.showResult(false, [
        h("p", { class: "invite-verdict", "data-testid": "invite-verdict" },
          h("span", { class: "verdict-mark", "aria-hidden": "true" }, "✗"), ` ${gettext("No usable answer:")} `, faultKindText(reply.fault_kind)),
        h("dl", { class: "facts invite-facts" },
          fact(gettext("Problem"), sentence(reply.answer), "invite-answer"),
          fact(gettext("Tried"), reply.dialect, "invite-dialect"),
          fact(gettext("Time"), latencyText(reply.latency_ms), "invite-latency"),
          fact(gettext("URL"), reply.url, "invite-url-used")),
        h("p", { class: "hint" }, gettext("You may still seat it: each missing or bad answer becomes a random legal move.")),
      ]);
    }
  }

  /** A new view of the table arrived: done once the bot sits; nothing to do once a game runs. */
  update(view, running) {
    if (!this.isOpen) return;
    if (running) {
      this.close();
      return;
    }
    const seat = view.seats[this.seat];
    if (this.awaiting === "seat" && seat && seat.kind === "remote") {
      this.settle();
      this.seated = true;
      this.close();
      this.form.reset(); // the next invitation starts afresh, not with this bot's name
      this.formChanged();
      this.onSeated(this.seat, seat.name);
    } else if (seat && seat.kind === "human" && !this.awaiting && !this.taken) {
      this.taken = true;
      this.busy(false);
      this.showResult(false, [h("p", { class: "invite-verdict" }, interpolate(gettext("%(name)s has just taken %(seat)s."), { name: seat.name, seat: SEAT_NAMES[this.seat] }, true))]);
    }
  }
}
