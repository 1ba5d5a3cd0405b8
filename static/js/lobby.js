// The lobby: the create-table form's mode switch and the live list of tables (ws/lobby/).

import { csrfToken, postForm } from "./csrf.js";
import { h, SEAT_NAMES } from "./dom.js";
import { ReconnectingSocket } from "./socket.js";

const list = document.getElementById("lobby-tables");
const playerId = list.dataset.playerId ? Number(list.dataset.playerId) : null;
const botOptions = document.getElementById("bot-options");
const live = document.querySelector("[data-testid=lobby-live]");

// -- create-table form: show only the length field of the chosen mode ----------------

const createForm = document.getElementById("create-table");
if (createForm) {
  const showModeFields = () => {
    const mode = createForm.querySelector("input[name=mode]:checked").value;
    for (const field of createForm.querySelectorAll("[data-mode-field]")) {
      const active = field.dataset.modeField === mode;
      field.hidden = !active;
      for (const input of field.querySelectorAll("input")) input.disabled = !active;
    }
  };
  createForm.addEventListener("change", showModeFields);
  showModeFields();
}

// -- seat buttons: post with the CSRF header, then go to the table --------------------

list.addEventListener("submit", async (event) => {
  const form = event.target.closest("form[data-seat-form]");
  if (!form) return;
  event.preventDefault();
  const fields = Object.fromEntries(new FormData(form, event.submitter));
  delete fields.csrfmiddlewaretoken;
  for (const button of form.querySelectorAll("button")) button.disabled = true;
  try {
    // getAttribute: form.action would be the form's own field named "action".
    const response = await postForm(form.getAttribute("action"), fields);
    if (new URL(response.url).pathname.startsWith("/tables/")) {
      window.location.assign(response.url);
      return;
    }
    // Refused: the server redirected back here with its reason as a message.
    const page = new DOMParser().parseFromString(await response.text(), "text/html");
    const reasons = [...page.querySelectorAll(".message")].map((m) => m.textContent.trim());
    showMessages(reasons.length ? reasons : [`That did not work (${response.status}). Reload the page and try again.`]);
  } catch {
    showMessages(["Could not reach the server. Check your connection and try again."]);
  }
  for (const button of form.querySelectorAll("button")) button.disabled = false;
});

function showMessages(texts) {
  let box = document.querySelector(".messages");
  if (!box) {
    box = h("div", { class: "messages", role: "status" });
    document.querySelector(".site-header").after(box);
  }
  box.replaceChildren(...texts.map((text) => h("p", { class: "message message-error" }, text)));
}

// -- the live table list -----------------------------------------------------------

function lengthText(t) {
  const length = t.mode === "fair" ? `Fair · ${t.round_count} rounds` : `Standard · to ${t.target}`;
  const weis = t.weis ? `${length} · Weis & Stöck` : length;
  return weis + (t.multipliers ? " · multipliers" : "") + (t.rated ? " · rated" : "");
}

function seatItem(t, s) {
  const label = SEAT_NAMES[s.position];
  const item = h("li", { class: `lobby-seat lobby-seat-${s.kind}`, "data-seat": s.position },
    h("span", { class: "lobby-seat-label" }, label), " ");
  if (s.kind !== "empty") {
    item.append(h("span", { class: "lobby-seat-name" }, s.name));
    if (s.kind === "bot") item.append(" ", h("span", { class: "badge badge-bot" }, "bot"));
    if (s.kind === "remote") {
      item.append(" ", h("span", { class: "badge badge-remote", title: `A bot at ${s.remote_url}, HSLU interface` }, "HSLU"));
    }
    if (playerId !== null && s.player_id === playerId) item.append(" ", h("span", { class: "badge badge-you" }, "you"));
    return item;
  }
  if (playerId === null || t.status === "running") {
    item.append(h("span", { class: "lobby-seat-name muted" }, "empty"));
    return item;
  }
  const action = `/tables/${t.id}/seat/`;
  const hidden = (name, value) => h("input", { type: "hidden", name, value });
  const token = hidden("csrfmiddlewaretoken", csrfToken());
  const select = h("select", { name: "bot", "aria-label": `Bot for ${label}` });
  select.append(botOptions.content.cloneNode(true));
  const actions = h("span", { class: "lobby-seat-actions" },
    h("form", { method: "post", action, "data-seat-form": true },
      token, hidden("seat", s.position),
      h("button", { type: "submit", name: "action", value: "join", class: "button button-small",
        "aria-label": `Sit here: ${label} at ${t.name}` }, "Sit here")));
  if (t.managers.includes(playerId)) { // only the creator and seated players may add bots
    actions.append(h("form", { method: "post", action, "data-seat-form": true, class: "add-bot-form" },
      token.cloneNode(), hidden("seat", s.position), hidden("action", "add_bot"), select,
      h("button", { type: "submit", class: "button button-small button-quiet" }, "Add bot")));
  }
  item.append(actions);
  return item;
}

function tableItem(t) {
  const seated = playerId !== null && t.seats.some((s) => s.player_id === playerId);
  const url = `/tables/${t.id}/`;
  // The same data attributes as includes/lobby_table.html: the filters and the ageing read them.
  const facts = {
    "data-status": t.status,
    "data-updated": t.updated,
    "data-free": String(t.free_seats > 0 && t.status !== "running"),
    "data-mine": String(playerId !== null && t.managers.includes(playerId)),
  };
  return h("li", { class: "lobby-table", "data-testid": "lobby-table", "data-table-id": t.id, ...facts },
    h("div", { class: "lobby-table-head" },
      h("h3", { class: "lobby-table-name" }, h("a", { href: url }, t.name)),
      h("span", { class: `status status-${t.status}` }, t.status[0].toUpperCase() + t.status.slice(1))),
    h("p", { class: "lobby-table-meta" }, lengthText(t)),
    h("ul", { class: "lobby-seats", "aria-label": "Seats" }, t.seats.map((s) => seatItem(t, s))),
    h("div", { class: "lobby-table-foot" },
      t.points
        ? h("p", { class: "lobby-scores", "aria-label": "Scores" },
          "North & South ", h("strong", {}, t.points[0]), " : ", h("strong", {}, t.points[1]), " East & West")
        : h("span"),
      h("a", { class: "button button-small button-quiet", href: url },
        seated || t.status !== "running" ? "Open" : "Watch")));
}

let deferred = null; // tables that arrived while a bot choice was open

list.addEventListener("focusout", () => {
  if (deferred) setTimeout(() => deferred && renderTables(deferred), 0);
});

function renderTables(tables) {
  // Keep an open bot choice from being wiped by an update; render once the choice is left.
  if (list.contains(document.activeElement) && document.activeElement.tagName === "SELECT") {
    deferred = tables;
    return;
  }
  deferred = null;
  if (tables.length === 0) {
    list.replaceChildren(h("li", { class: "empty-note" }, "No tables yet. Open one and add some bots."));
  } else {
    list.replaceChildren(...tables.map(tableItem));
  }
  applyFilter();
}

// -- filters (free seat, running, mine) and finished tables ageing out -------------------
// Client-side, so that the server still renders one list for all lobby watchers.

const filters = document.querySelector("[data-testid=lobby-filter]");
const filterEmpty = document.querySelector("[data-testid=lobby-filter-empty]");
const hideOverAfterMs = Number(list.dataset.hideOverAfter || 0) * 1000;
const FILTER_KEY = "jassweb.lobby-filter";

function applyFilter() {
  const chosen = filters.querySelector("input:checked")?.value ?? "all";
  list.dataset.filter = chosen;
  const now = Date.now();
  let shown = 0;
  const items = list.querySelectorAll(".lobby-table");
  for (const item of items) {
    const over = item.dataset.status === "finished" || item.dataset.status === "abandoned";
    // The server leaves such tables out of new lists; this hides one that ages out while the page is open.
    item.hidden = hideOverAfterMs > 0 && over && now - Date.parse(item.dataset.updated) > hideOverAfterMs;
    const matches = chosen === "all" || (chosen === "free" && item.dataset.free === "true")
      || (chosen === "running" && item.dataset.status === "running") || (chosen === "mine" && item.dataset.mine === "true");
    item.dataset.match = String(matches);
    if (matches && !item.hidden) shown += 1;
  }
  filterEmpty.hidden = shown > 0 || items.length === 0;
}

filters.addEventListener("change", () => {
  try { sessionStorage.setItem(FILTER_KEY, filters.querySelector("input:checked").value); } catch { /* private mode */ }
  applyFilter();
});
try {
  const saved = sessionStorage.getItem(FILTER_KEY);
  const input = saved && filters.querySelector(`input[value="${saved}"]`);
  if (input) input.checked = true;
} catch { /* storage unavailable: start with all tables */ }
applyFilter();
setInterval(applyFilter, 30_000);

function setLive(status) {
  live.dataset.live = String(status === "open");
  live.querySelector(".live-text").textContent = status === "open" ? "live" : "reconnecting…";
}

new ReconnectingSocket("/ws/lobby/", {
  onStatus: setLive,
  onMessage: (message) => {
    if (message.type === "tables") renderTables(message.tables);
  },
});
