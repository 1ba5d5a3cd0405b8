// The lobby: the create-table form's mode switch and the live list of tables (ws/lobby/).

import { csrfToken, postForm } from "./csrf.js";
import { h, playerName, SEAT_NAMES } from "./dom.js";
import { gettext, interpolate, ngettext } from "./i18n.js";
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
    showMessages(reasons.length ? reasons : [interpolate(gettext("That did not work (%(status)s). Reload the page and try again."), { status: response.status }, true)]);
  } catch {
    showMessages([gettext("Could not reach the server. Check your connection and try again.")]);
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
  const length = t.mode === "fair"
    ? interpolate(ngettext("Fair · %(count)s round", "Fair · %(count)s rounds", t.round_count), { count: t.round_count }, true)
    : interpolate(gettext("Standard · to %(target)s"), { target: t.target }, true);
  const weis = t.weis ? `${length} · ${gettext("Weis & Stöck")}` : length;
  return weis + (t.multipliers ? ` · ${gettext("multipliers")}` : "") + (t.rated ? ` · ${gettext("rated")}` : "");
}

function seatItem(t, s) {
  const label = SEAT_NAMES[s.position];
  const item = h("li", { class: `lobby-seat lobby-seat-${s.kind}`, "data-seat": s.position },
    h("span", { class: "lobby-seat-label" }, label), " ");
  if (s.kind !== "empty") {
    item.append(h("span", { class: "lobby-seat-name" }, playerName(s)));
    if (s.kind === "bot") item.append(" ", h("span", { class: "badge badge-bot" }, gettext("bot")));
    if (s.kind === "remote") {
      item.append(" ", h("span", { class: "badge badge-remote", title: interpolate(gettext("A bot at %(url)s, HSLU interface"), { url: s.remote_url }, true) }, "HSLU"));
    }
    if (playerId !== null && s.player_id === playerId) item.append(" ", h("span", { class: "badge badge-you" }, gettext("you")));
    return item;
  }
  if (playerId === null || t.status === "running") {
    item.append(h("span", { class: "lobby-seat-name muted" }, gettext("empty")));
    return item;
  }
  const action = `/tables/${t.id}/seat/`;
  const hidden = (name, value) => h("input", { type: "hidden", name, value });
  const token = hidden("csrfmiddlewaretoken", csrfToken());
  const select = h("select", { name: "bot", "aria-label": interpolate(gettext("Bot for %(seat)s"), { seat: label }, true) });
  select.append(botOptions.content.cloneNode(true));
  const actions = h("span", { class: "lobby-seat-actions" },
    h("form", { method: "post", action, "data-seat-form": true },
      token, hidden("seat", s.position),
      h("button", { type: "submit", name: "action", value: "join", class: "button button-small",
        "aria-label": interpolate(gettext("Sit here: %(seat)s at %(table)s"), { seat: label, table: t.name }, true) }, gettext("Sit here"))));
  if (t.managers.includes(playerId)) { // only the creator and seated players may add bots
    actions.append(h("form", { method: "post", action, "data-seat-form": true, class: "add-bot-form" },
      token.cloneNode(), hidden("seat", s.position), hidden("action", "add_bot"), select,
      h("button", { type: "submit", class: "button button-small button-quiet" }, gettext("Add bot"))));
  }
  item.append(actions);
  return item;
}

/** A table's status in words ("running" -> "Running"); a status unknown here is shown as it comes. */
function statusText(status) {
  const words = { waiting: gettext("Waiting"), running: gettext("Running"), finished: gettext("Finished"), abandoned: gettext("Abandoned") };
  return words[status] || status[0].toUpperCase() + status.slice(1);
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
      h("span", { class: `status status-${t.status}` }, statusText(t.status))),
    h("p", { class: "lobby-table-meta" }, lengthText(t)),
    h("ul", { class: "lobby-seats", "aria-label": gettext("Seats") }, t.seats.map((s) => seatItem(t, s))),
    h("div", { class: "lobby-table-foot" },
      t.points
        ? h("p", { class: "lobby-scores", "aria-label": gettext("Scores") },
          `${gettext("North & South")} `, h("strong", {}, t.points[0]), " : ", h("strong", {}, t.points[1]), ` ${gettext("East & West")}`)
        : h("span"),
      h("a", { class: "button button-small button-quiet", href: url },
        seated || t.status !== "running" ? gettext("Open") : gettext("Watch"))));
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
    list.replaceChildren(h("li", { class: "empty-note" }, gettext("No tables yet. Open one and add some bots.")));
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
  live.querySelector(".live-text").textContent = status === "open" ? gettext("live") : gettext("reconnecting…");
}

new ReconnectingSocket("/ws/lobby/", {
  onStatus: setLive,
  onMessage: (message) => {
    if (message.type === "tables") renderTables(message.tables);
  },
});
