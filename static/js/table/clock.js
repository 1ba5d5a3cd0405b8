// The turn clock: whose clock runs, the time left in words, and its countdown once a second.

import { gettext, interpolate } from "../i18n.js";
import { game, running } from "./people.js";
import { store } from "./store.js";
import { app } from "./ui.js";

/** The seat whose turn clock runs now, or null. */
export function clockSeat() {
  const g = game();
  return running() && g.clock && g.clock.seat !== null && g.clock.seat !== undefined ? g.clock.seat : null;
}

function clockRemaining() {
  const g = game();
  return Math.max(0, Math.ceil((g.clock.deadline - store.now()) / 1000));
}

export function clockText() {
  const left = clockRemaining();
  return interpolate(gettext("%(time)s left"), { time: `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}` }, true);
}

/** Tick the countdown once a second while a clock runs (only its text changes). */
export function tickClock() {
  const ticking = clockSeat() !== null;
  if (ticking && !store.timers.active("clock")) {
    store.timers.every("clock", () => {
      if (clockSeat() === null) {
        store.timers.cancel("clock");
        return;
      }
      for (const el of app.querySelectorAll("[data-testid=turn-clock]")) el.textContent = ` · ${clockText()}`;
      const mine = app.querySelector("[data-testid=my-clock]");
      if (mine) mine.textContent = clockText();
    }, 1000);
  } else if (!ticking) {
    store.timers.cancel("clock");
  }
}
