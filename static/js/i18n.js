// The front end's words in the visitor's language: Django's JavaScript catalogue (/jsi18n/, loaded by a
// plain <script> in base.html before any module) defines window.django; without it (a page that does not
// load it, the catalogue failing to load) every string stays the English one written in the code.
// `manage.py makemessages -d djangojs` finds the strings by these functions' names: call them with
// literal strings, and put values in with interpolate(text, {name: value}, true) ("%(name)s").

const catalog = globalThis.django && typeof globalThis.django.gettext === "function" ? globalThis.django : null;

/** `msgid` in the page's language. */
export function gettext(msgid) {
  return catalog ? catalog.gettext(msgid) : msgid;
}

/** The singular or plural form for `count`, in the page's language. */
export function ngettext(singular, plural, count) {
  return catalog ? catalog.ngettext(singular, plural, count) : count === 1 ? singular : plural;
}

/** `msgid` in the page's language, told apart from the same English word used elsewhere by `context`. */
export function pgettext(context, msgid) {
  return catalog ? catalog.pgettext(context, msgid) : msgid;
}

/** The plural-aware `pgettext`. */
export function npgettext(context, singular, plural, count) {
  return catalog ? catalog.npgettext(context, singular, plural, count) : count === 1 ? singular : plural;
}

/**
 * Put values into a translated string: named fields "%(name)s" from an object when `named` is true,
 * else "%s" in order from an array (Django's `interpolate`).
 */
export function interpolate(text, values, named = false) {
  if (named) return text.replace(/%\((\w+)\)s/g, (all, key) => (key in values ? String(values[key]) : all));
  let index = 0;
  return text.replace(/%s/g, () => String(values[index++]));
}

/** The page's language code ("de", "fr", "it", "en"), as the server chose it. */
export const LANGUAGE = document.documentElement.lang || "en";

/** A share (0..100) as a percentage in the page's language: "97.5%", "97,5 %". */
export function formatPercent(value, digits = 1) {
  const options = { style: "percent", minimumFractionDigits: digits, maximumFractionDigits: digits };
  try {
    return new Intl.NumberFormat(LANGUAGE, options).format(value / 100);
  } catch {
    return new Intl.NumberFormat("en", options).format(value / 100); // a language tag Intl does not know
  }
}
