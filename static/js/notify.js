// Telling a person that something waits for them: the tab's title and icon, an optional sound, and — when
// they allow it — a notification through the service worker while the page is in the background.

import { gettext } from "./i18n.js";

const PREFERENCE = "jassweb-notify"; // "on" once the person asked for notifications here
const SOUND = "jassweb-sound"; // "on": a short tone on your turn
const ICON = document.querySelector('link[rel="icon"]');
const PLAIN_ICON = ICON ? ICON.href : null;
const WAITING_ICON = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 32 32'%3E%3Crect width='32' height='32' rx='7' fill='%23153f28'/%3E%3Ctext x='16' y='23' font-size='20' text-anchor='middle' fill='%23fff'%3E%E2%99%A5%3C/text%3E%3Ccircle cx='25' cy='7' r='6' fill='%23ffd24a'/%3E%3C/svg%3E";

export const supported = "Notification" in window && "serviceWorker" in navigator;

export function register() {
  if (!("serviceWorker" in navigator)) return Promise.resolve(null);
  return navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => null);
}

function stored(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

function store(key, value) {
  try {
    localStorage.setItem(key, value);
  } catch { /* private mode: for this page only */ }
}

export function enabled() {
  return supported && Notification.permission === "granted" && stored(PREFERENCE) === "on";
}

/** Ask the person (a click: browsers ask only then); true if notifications are on now. */
export async function enable() {
  if (!supported) return false;
  const answer = Notification.permission === "granted" ? "granted" : await Notification.requestPermission();
  store(PREFERENCE, answer === "granted" ? "on" : "off");
  return answer === "granted";
}

export function disable() {
  store(PREFERENCE, "off");
}

/** Something waits for this person: the tab says so, and a background page notifies (if allowed). */
export async function waiting(title, body, { url = window.location.pathname, tag = "jassweb", sound = false } = {}) {
  if (ICON) ICON.href = WAITING_ICON;
  if (sound && stored(SOUND) === "on") tone();
  if (!document.hidden || !enabled()) return;
  const registration = await navigator.serviceWorker.ready;
  await registration.showNotification(title, { body, tag, renotify: true, icon: "/static/icons/app-192.png", data: { url } });
}

/** Nothing waits any more: the tab's own icon again. */
export function settled() {
  if (ICON && PLAIN_ICON) ICON.href = PLAIN_ICON;
}

function tone() {
  try {
    const audio = new AudioContext();
    const beep = audio.createOscillator();
    const volume = audio.createGain();
    beep.frequency.value = 880;
    volume.gain.setValueAtTime(0.08, audio.currentTime);
    volume.gain.exponentialRampToValueAtTime(0.0001, audio.currentTime + 0.25);
    beep.connect(volume).connect(audio.destination);
    beep.start();
    beep.stop(audio.currentTime + 0.25);
  } catch { /* no audio here */ }
}

/** Wire a page's "Notify me" button and "Sound" box (``[data-notify]``, ``[data-sound]``), if it has them. */
export function controls(root = document) {
  const button = root.querySelector("[data-notify]");
  const sound = root.querySelector("[data-sound]");
  if (sound) {
    sound.checked = stored(SOUND) === "on";
    sound.addEventListener("change", () => store(SOUND, sound.checked ? "on" : "off"));
  }
  if (!button) return;
  if (!supported) {
    button.hidden = true;
    return;
  }
  const show = () => {
    const on = enabled();
    button.setAttribute("aria-pressed", String(on));
    button.textContent = on ? gettext("Notifications on") : gettext("Notify me in the background");
    button.dataset.state = on ? "on" : "off";
  };
  button.addEventListener("click", async () => {
    if (enabled()) disable();
    else await enable();
    show();
  });
  show();
}

register();
