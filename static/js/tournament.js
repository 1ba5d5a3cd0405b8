// A tournament's page: its live part (standings, rounds, teams) over ws/tournaments/<id>/, your table when it
// is ready, the team buttons for those who may use them, and the Test of an HSLU bot before registering it.

import { postForm } from "./csrf.js";
import { gettext, interpolate } from "./i18n.js";
import * as notify from "./notify.js";
import { ReconnectingSocket } from "./socket.js";

const page = document.getElementById("tournament");
const livePart = document.getElementById("tournament-live");
const liveDot = page.querySelector("[data-testid=tournament-live]");
const me = page.dataset.playerId || "";
const owner = page.dataset.owner === "true";
let status = page.dataset.status;

/** Show what the shared HTML holds for this viewer only: their table, their team's buttons. */
function personalise() {
  const mine = (element, key) => me !== "" && element.dataset[key].split(" ").includes(me);
  const tables = [...livePart.querySelectorAll(".your-table")];
  for (const note of tables) note.hidden = !mine(note, "players");
  for (const form of livePart.querySelectorAll("form[data-managers]")) form.hidden = !(owner || mine(form, "managers"));
  const ready = tables.find((note) => !note.hidden);
  document.title = (ready ? "● " : "") + document.title.replace(/^● /, "");
  if (!ready) {
    notify.settled();
    return;
  }
  const link = ready.querySelector("a");
  if (told !== link.getAttribute("href")) {
    told = link.getAttribute("href");
    const round = ready.dataset.round;
    notify.waiting(interpolate(gettext("Round %(number)s: your table is ready"), { number: round }, true),
      page.querySelector("h1").textContent, { url: told, tag: `tournament-${page.dataset.id}` });
  }
}

let told = null; // the table this person was last told of

function setLive(state) {
  liveDot.dataset.live = String(state === "open");
  liveDot.querySelector(".live-text").textContent = state === "open" ? gettext("live") : gettext("reconnecting…");
}

// -- forms: confirmation, and posting the shared HTML's forms with the page's CSRF token -------------

page.addEventListener("submit", async (event) => {
  const form = event.target;
  if (form.dataset.confirm && !window.confirm(form.dataset.confirm)) {
    event.preventDefault();
    return;
  }
  if (!form.hasAttribute("data-post")) return;
  event.preventDefault();
  for (const button of form.querySelectorAll("button")) button.disabled = true;
  try {
    await postForm(form.getAttribute("action"), {});
  } finally {
    window.location.reload();
  }
});

for (const button of page.querySelectorAll("[data-copy]")) {
  button.addEventListener("click", async () => {
    const field = page.querySelector(button.dataset.copy);
    field.select();
    try {
      await navigator.clipboard.writeText(field.value);
      button.textContent = gettext("Copied");
    } catch { /* the text stays selected for the person to copy */ }
  });
}

const registerMe = page.querySelector("[data-testid=register-me]");
if (registerMe) {
  const showKind = () => {
    const kind = registerMe.querySelector("input[name=kind]:checked").value;
    for (const field of registerMe.querySelectorAll("[data-kind-field]")) field.hidden = field.dataset.kindField !== kind;
  };
  registerMe.addEventListener("change", showKind);
  showKind();
}

// -- the live part, and the bot test --------------------------------------------------------------------

const botForm = document.getElementById("register-bot");
const testResult = page.querySelector("[data-testid=bot-test-result]");
let testId = 0;

function showTest(message) {
  if (message.type === "bot_test") {
    const time = interpolate(gettext("%(ms)s ms"), { ms: message.latency_ms }, true);
    testResult.textContent = message.ok
      ? `✓ ${gettext("The bot answered")} (${time}): ${message.answer}`
      : `✗ ${message.answer} (${time})`;
  } else {
    testResult.textContent = `✗ ${message.message}`;
  }
  testResult.dataset.ok = String(message.type === "bot_test" && message.ok);
}

const socket = new ReconnectingSocket(page.dataset.socket, {
  onStatus: setLive,
  onMessage: (message) => {
    if (message.type === "live") {
      if (message.status !== status) {
        status = message.status;
        window.location.reload(); // registration closed or play ended: the forms change too
        return;
      }
      livePart.innerHTML = message.html; // rendered by the server's templates (escaped there)
      personalise();
    } else if ((message.type === "bot_test" || message.type === "error") && message.id === `test-${testId}`) {
      showTest(message);
    }
  },
});

if (botForm) {
  botForm.querySelector("[data-test-bot]").addEventListener("click", () => {
    const url = botForm.elements.url.value.trim();
    if (!url) {
      testResult.textContent = gettext("Type the bot's URL first.");
      botForm.elements.url.focus();
      return;
    }
    testId += 1;
    testResult.textContent = gettext("Asking the bot…");
    if (!socket.send({ type: "test_bot", id: `test-${testId}`, url, dialect: botForm.elements.dialect.value })) {
      testResult.textContent = gettext("Not connected. Try again in a moment.");
    }
  });
}

personalise();

notify.controls(page);
