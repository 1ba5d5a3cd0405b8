// The table page: renders the view the server sends (initially via json_script, then over the socket)
// and turns clicks into the websocket messages of games/live/consumers.py.
//
// The page's modules, in static/js/table/: `store.js` holds all its state and changes it by named
// transitions; `actions.js` talks to the server; the views render from the store (`seats.js`,
// `hand.js`, `centre.js`, `scoreboard.js`, `summary.js`, `sheet.js`, `settings.js`, `vote.js`,
// `result.js`), each called by `render.js` after every change.

import { gettext } from "./i18n.js";
import * as notify from "./notify.js";
import { listenToHandKeys } from "./table/hand.js";
import { toast } from "./table/messages.js";
import { render } from "./table/render.js";
import { listenToEscape } from "./table/result.js";
import { listenToLastTrickToggle } from "./table/sheet.js";
import { store } from "./table/store.js";
import { app } from "./table/ui.js";

store.subscribe(render);
listenToHandKeys();
listenToLastTrickToggle();
listenToEscape();

// A private table's invitation link (its creator's panel): copy it with one click.
for (const button of app.querySelectorAll("[data-copy-from]")) {
  button.addEventListener("click", async () => {
    const field = document.getElementById(button.dataset.copyFrom);
    field.select();
    try {
      await navigator.clipboard.writeText(field.value);
      toast(gettext("Invitation link copied."), "good");
    } catch {
      toast(gettext("Copy the selected link (Ctrl+C): the browser did not allow copying here."), "info");
    }
  });
}

render();

notify.controls(app);
