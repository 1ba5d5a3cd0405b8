// The table's chat: the messages this person may read, the quick phrases, mute and report.
//
// It talks over the table's socket (the table page hands it `send`) and takes the frames meant for it
// (`receive` returns true for those): chat, chat_history, chat_hidden, muted, reported, and the errors
// of its own requests. Every text goes into the page as text, never as markup.

import { h } from "./dom.js";
import { gettext, interpolate } from "./i18n.js";

const SHOWN = 100; // messages kept on the page

export class ChatPanel {
  constructor(root, { send, me }) {
    this.root = root;
    this.send = send;
    this.me = me;
    this.log = root.querySelector("[data-testid=chat-log]");
    this.form = root.querySelector("[data-testid=chat-form]");
    this.input = this.form.elements.text;
    this.note = root.querySelector("[data-testid=chat-note]");
    this.title = root.querySelector("[data-testid=chat-title]");
    this.phrases = Object.fromEntries([...root.querySelectorAll("[data-phrase]")].map((b) => [b.dataset.phrase, b.textContent.trim()]));
    this.muted = new Set();
    this.room = null;
    this.requests = 0;
    this.mine = new Set(); // ids of this panel's requests, so that their refusals show here
    // Messages that came live while a history was asked for: the history may have been read before them.
    this.sinceAsked = null;
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      const text = this.input.value.trim();
      if (text) this.request({ type: "chat", text }); // the field empties when the message comes back
    });
    for (const button of root.querySelectorAll("[data-phrase]")) {
      button.addEventListener("click", () => this.request({ type: "chat", phrase: button.dataset.phrase }));
    }
  }

  /** The socket (re)opened: ask for what was said (missed messages included). */
  opened() {
    this.askHistory();
  }

  askHistory() {
    this.sinceAsked = [];
    this.send({ type: "chat_history" });
  }

  /** The table's view changed: a person who sat down or stood up reads another room now. */
  viewChanged(view) {
    const you = view.you || {};
    const playing = you.seat !== null && you.seat !== undefined
      || (view.game && view.game.status === "running" && you.game_seat !== null && you.game_seat !== undefined);
    const room = playing ? "players" : "spectators";
    if (this.room !== null && room !== this.room) this.askHistory();
  }

  request(message) {
    const id = `chat-${++this.requests}`;
    this.mine.add(id);
    this.say(""); // a new try: the last refusal no longer stands
    if (!this.send({ ...message, id })) this.say(gettext("Not connected right now: reconnecting, try again in a moment."));
  }

  say(text, kind = "error") {
    this.note.textContent = text;
    this.note.dataset.kind = kind;
    this.note.hidden = !text;
  }

  /** A frame from the server; true if it was the chat's. */
  receive(message) {
    switch (message.type) {
      case "chat":
        this.sinceAsked?.push(message);
        this.add(message);
        // (The note stays: a refusal sent straight back may come before the echo of an earlier message.)
        if (message.player === this.me && message.text === this.input.value.trim()) this.input.value = "";
        return true;
      case "chat_history":
        this.room = message.room;
        this.title.textContent = message.room === "players" ? gettext("Table chat") : gettext("Spectators' chat");
        this.log.replaceChildren();
        for (const said of message.messages) this.add(said);
        for (const said of this.sinceAsked || []) this.add(said); // said after the history was read
        this.sinceAsked = null;
        return true;
      case "chat_hidden":
        if (this.sinceAsked) this.sinceAsked = this.sinceAsked.filter((said) => said.id !== message.message);
        this.log.querySelector(`[data-message="${Number(message.message)}"]`)?.remove();
        return true;
      case "muted":
        this.muted = new Set(message.players);
        for (const item of this.log.querySelectorAll("[data-player]")) {
          if (this.muted.has(Number(item.dataset.player))) item.remove();
        }
        return true;
      case "reported":
        this.say(gettext("Reported: the moderators will look at it. Thank you."), "info");
        return true;
      case "error":
        if (!this.mine.has(message.id)) return false;
        this.mine.delete(message.id);
        this.say(message.message ? message.message[0].toUpperCase() + message.message.slice(1) : gettext("Refused."));
        return true;
      default:
        return false;
    }
  }

  add(said) {
    if (this.muted.has(said.player) || this.log.querySelector(`[data-message="${Number(said.id)}"]`)) return;
    const words = said.phrase && this.phrases[said.phrase] ? this.phrases[said.phrase] : said.text;
    const others = said.player !== null && said.player !== this.me && this.me !== null;
    const item = h("li", { class: `chat-line chat-${said.room}`, "data-message": said.id, "data-player": said.player ?? "", "data-testid": "chat-line" },
      h("strong", { class: "chat-from" }, said.from),
      said.room === "spectators" ? h("span", { class: "chat-room" }, ` (${gettext("watching")})`) : null,
      ": ",
      h("span", { class: "chat-text", "data-testid": "chat-text" }, words),
      others ? h("span", { class: "chat-actions" },
        h("button", { type: "button", class: "link-button", "data-testid": "chat-mute",
          "aria-label": interpolate(gettext("Mute %(name)s"), { name: said.from }, true),
          onclick: () => this.request({ type: "mute", player: said.player, muted: true }) }, gettext("Mute")),
        h("button", { type: "button", class: "link-button", "data-testid": "chat-report",
          "aria-label": interpolate(gettext("Report this message of %(name)s"), { name: said.from }, true),
          onclick: () => this.request({ type: "report", message: said.id }) }, gettext("Report"))) : null);
    this.log.append(item);
    while (this.log.children.length > SHOWN) this.log.firstElementChild.remove();
    this.log.scrollTop = this.log.scrollHeight;
  }
}
