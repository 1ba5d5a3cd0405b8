// The layout checker of the browser tests (tests/layout_helpers.py): what a player would call broken on screen.
//
// Called as a function of one argument, { root, important, contrast }:
//   root       a selector: the part of the page to look at (its visible text);
//   important  selectors of what must be in view, not covered and not cut off (the hand, the buttons of
//              the moment, your own seat...); every element matching one of them counts;
//   contrast   a selector: where text must meet WCAG AA contrast (4.5:1, 3:1 for large text).
// Returns a list of problems, each a sentence naming the texts or elements concerned (empty: all well).
//
// A text is a run of a text node's lines (Range.getClientRects). It is visible when the topmost element
// at the middle of one of its lines is its own element (or inside it): text under a dialog or an opaque
// panel is hidden, not overlapping. Two visible texts overlap when their line boxes share more than a
// sliver (3 px each way) and neither element holds the other. Hit testing runs with pointer-events
// forced on (a caption that lets clicks through still paints over what lies under it).
(options) => {
  const root = document.querySelector(options.root || "main");
  if (!root) return [`no ${options.root} on the page`];
  // A constructed sheet, not a <style> element: the page's Content-Security-Policy refuses inline styles.
  const force = new CSSStyleSheet();
  force.replaceSync("*, *::before, *::after { pointer-events: auto !important; }");
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, force];
  const problems = [];
  const vw = document.documentElement.clientWidth;
  const vh = window.innerHeight;
  const short = (el) => {
    const id = el.dataset && el.dataset.testid ? `[data-testid=${el.dataset.testid}]` : "";
    const cls = typeof el.className === "string" && el.className ? `.${el.className.trim().split(/\s+/).join(".")}` : "";
    return `${el.tagName.toLowerCase()}${id}${cls}`;
  };
  const words = (text) => JSON.stringify(text.replace(/\s+/g, " ").trim().slice(0, 40));
  // Shown: rendered and not visibility: hidden (a fading opacity is no absence: the contrast takes it in).
  const shown = (el) => el.checkVisibility({ visibilityProperty: true });
  const topmostIn = (el, x, y) => {
    if (x < 0 || y < 0 || x >= vw || y >= vh) return false;
    const top = document.elementFromPoint(x, y);
    return top !== null && (top === el || el.contains(top));
  };

  const intersect = (a, b) => {
    const left = Math.max(a.left, b.left);
    const top = Math.max(a.top, b.top);
    const right = Math.min(a.right, b.right);
    const bottom = Math.min(a.bottom, b.bottom);
    return { left, top, right, bottom, width: Math.max(0, right - left), height: Math.max(0, bottom - top) };
  };
  const clipBox = (el) => {
    let box = { left: -1e9, top: -1e9, right: 1e9, bottom: 1e9, width: 2e9, height: 2e9 };
    for (let node = el; node && node !== document.documentElement; node = node.parentElement) {
      const style = getComputedStyle(node);
      if (style.overflowX !== "visible" || style.overflowY !== "visible") box = intersect(box, node.getBoundingClientRect());
    }
    return box;
  };

  // -- the visible texts ----------------------------------------------------------------------------------
  const texts = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    acceptNode: (node) => (node.data.trim() ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_REJECT),
  });
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    // A card's corners and pips are its picture: cards are boxes here (a hand's fan overlaps by design).
    if (!el || !shown(el) || el.closest("svg, option, select, script, style, .visually-hidden, .card")) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    // What shows of each line: a box that clips its overflow (an ellipsis, a scroller) hides the rest.
    const clip = clipBox(el);
    const lines = [...range.getClientRects()].map((r) => intersect(r, clip)).filter((r) => r.width > 2 && r.height > 2);
    if (!lines.length) continue;
    const visible = lines.some((r) => topmostIn(el, r.left + r.width / 2, r.top + r.height / 2));
    if (visible) texts.push({ el, text: node.data, lines });
  }

  // -- no two texts over each other -----------------------------------------------------------------------
  const seen = new Set();
  for (let i = 0; i < texts.length; i++) {
    for (let j = i + 1; j < texts.length; j++) {
      const a = texts[i];
      const b = texts[j];
      if (a.el === b.el || a.el.contains(b.el) || b.el.contains(a.el)) continue;
      const hit = a.lines.some((p) => b.lines.some((q) =>
        Math.min(p.right, q.right) - Math.max(p.left, q.left) > 3 && Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top) > 3));
      const key = `${words(a.text)}|${words(b.text)}`;
      if (hit && !seen.has(key)) {
        seen.add(key);
        problems.push(`overlap: ${words(a.text)} (${short(a.el)}) and ${words(b.text)} (${short(b.el)})`);
      }
    }
  }

  // -- no text over a card (a note across the trick, a name under a card) -----------------------------------
  const quarters = [[0.5, 0.5], [0.25, 0.25], [0.75, 0.25], [0.25, 0.75], [0.75, 0.75]];
  const cards = [...root.querySelectorAll(".card")].filter(shown).map((el) => ({ el, r: el.getBoundingClientRect() }))
    .filter(({ el, r }) => r.width > 2 && quarters.some(([fx, fy]) => topmostIn(el, r.left + r.width * fx, r.top + r.height * fy)));
  for (const { el, text, lines } of texts) {
    if (el.closest("[data-layout=overlay]")) continue; // a caption laid over the cards on purpose
    for (const card of cards) {
      if (card.el.contains(el) || el.contains(card.el)) continue;
      const q = card.r;
      const hit = lines.some((p) => Math.min(p.right, q.right) - Math.max(p.left, q.left) > 3
        && Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top) > 3);
      if (hit) {
        problems.push(`over a card: ${words(text)} (${short(el)}) and the ${card.el.dataset.card || "card"} (${short(card.el.parentElement)})`);
        break;
      }
    }
  }

  // -- no text cut off by its box, none outside the screen ---------------------------------------------------
  for (const { el, text, lines } of texts) {
    const style = getComputedStyle(el);
    const clips = style.overflowX !== "visible" || style.textOverflow === "ellipsis";
    if (clips && el.scrollWidth > el.clientWidth + 1) problems.push(`cut off: ${words(text)} (${short(el)})`);
    const out = lines.find((r) => r.left < -1 || r.right > vw + 1);
    if (out) problems.push(`off the screen's side: ${words(text)} (${short(el)})`);
  }

  // -- what matters now: in view, on top, whole -------------------------------------------------------------
  for (const wanted of options.important || []) {
    // "?selector": checked where it is shown (your own seat's name, which a phone leaves out while you play).
    const optional = wanted.startsWith("?");
    const selector = optional ? wanted.slice(1) : wanted;
    const found = [...document.querySelectorAll(selector)].filter(shown);
    if (!found.length && !optional) problems.push(`missing: ${selector}`);
    // Under another of the same kind is no fault (a hand's cards overlap by design); under anything else is.
    const mine = (top) => found.some((other) => other.contains(top));
    for (const el of found) {
      const r = el.getBoundingClientRect();
      if (r.width < 1 || r.height < 1) continue;
      if (r.left < -1 || r.top < -1 || r.right > vw + 1 || r.bottom > vh + 1) {
        problems.push(`outside the viewport: ${selector} ${short(el)} at ${Math.round(r.left)},${Math.round(r.top)}-${Math.round(r.right)},${Math.round(r.bottom)} of ${vw}x${vh}`);
        continue;
      }
      // Its middle and the middles of its four quarters: covered where something else is on top.
      const covered = quarters.filter(([fx, fy]) => {
        const x = r.left + r.width * fx;
        const y = r.top + r.height * fy;
        return !topmostIn(el, x, y) && !mine(document.elementFromPoint(x, y));
      });
      if (covered.length > 1) {
        const [fx, fy] = covered[0];
        const over = document.elementFromPoint(r.left + r.width * fx, r.top + r.height * fy);
        problems.push(`covered: ${selector} ${short(el)} under ${over ? short(over) : "nothing"}`);
      }
    }
  }

  // -- contrast of the text on the table -------------------------------------------------------------------
  const parse = (color) => {
    const m = color.match(/rgba?\(([^)]+)\)/);
    if (!m) return null;
    const parts = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
    return { r: parts[0], g: parts[1], b: parts[2], a: parts.length > 3 ? parts[3] : 1 };
  };
  const over = (top, below) => ({
    r: top.r * top.a + below.r * (1 - top.a), g: top.g * top.a + below.g * (1 - top.a), b: top.b * top.a + below.b * (1 - top.a), a: 1,
  });
  const backgrounds = (el) => {
    // The colours behind the element: its and its ancestors' background colours composed from the first
    // opaque one up; a gradient with no colour under it stands for each of its colours (the worst counts).
    const layers = [];
    let bases = [{ r: 255, g: 255, b: 255, a: 1 }];
    for (let node = el; node; node = node.parentElement) {
      const style = getComputedStyle(node);
      const c = parse(style.backgroundColor);
      if (c && c.a > 0) {
        layers.push(c);
        if (c.a >= 1) break;
      }
      const stops = (style.backgroundImage.match(/rgba?\([^)]+\)/g) || []).map(parse).filter((x) => x && x.a >= 1);
      if (stops.length) {
        bases = stops;
        break;
      }
    }
    return bases.map((base) => layers.slice().reverse().reduce((color, layer) => over(layer, color), base));
  };
  const luminance = (c) => {
    const f = (v) => { const s = v / 255; return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b);
  };
  if (options.contrast) {
    const judged = new Set();
    for (const { el, text } of texts) {
      if (judged.has(el) || !el.closest(options.contrast)) continue;
      judged.add(el);
      const style = getComputedStyle(el);
      const fg = parse(style.color);
      if (!fg) continue;
      let opacity = 1;
      for (let node = el; node; node = node.parentElement) opacity *= Number(getComputedStyle(node).opacity);
      const ratio = Math.min(...backgrounds(el).map((bg) => {
        const ink = over({ ...fg, a: fg.a * opacity }, bg);
        const [hi, lo] = [luminance(ink), luminance(bg)].sort((x, y) => y - x);
        return (hi + 0.05) / (lo + 0.05);
      }));
      const size = parseFloat(style.fontSize);
      const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
      const needed = large ? 3 : 4.5;
      if (ratio < needed - 0.05) problems.push(`contrast ${ratio.toFixed(2)} < ${needed}: ${words(text)} (${short(el)})`);
    }
  }
  document.adoptedStyleSheets = document.adoptedStyleSheets.filter((sheet) => sheet !== force);
  return problems;
}
