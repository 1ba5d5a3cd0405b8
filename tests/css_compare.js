// Computed styles of every element (and its ::before/::after) under the page's own stylesheets, then under
// the baseline's (tests/css_helpers.py injected them, disabled), compared in one task: no frame, no message
// from the server and no animation step can come in between, so any difference is the stylesheets' doing.
({ props }) => {
  const mine = [...document.querySelectorAll('link[rel=stylesheet]:not([data-css-baseline])')];
  const base = [...document.querySelectorAll('link[rel=stylesheet][data-css-baseline]')];
  const keyOf = (el) => {
    const parts = [];
    for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
      let i = 0;
      for (let s = e.previousElementSibling; s; s = s.previousElementSibling) i += 1;
      parts.push(`${e.tagName.toLowerCase()}:${i}`);
    }
    return parts.reverse().join('/');
  };
  const snap = () => {
    const out = {};
    for (const el of document.querySelectorAll('body, body *')) {
      if (el.closest('svg') && el.tagName.toLowerCase() !== 'svg' && !el.closest('svg.chart, [data-testid=eval-graph]')) continue;
      const key = keyOf(el);
      for (const pseudo of [null, '::before', '::after']) {
        const cs = getComputedStyle(el, pseudo);
        if (pseudo && (cs.content === 'none' || cs.content === 'normal')) continue;
        const values = props.map((p) => cs.getPropertyValue(p));
        const rect = pseudo ? null : el.getBoundingClientRect();
        if (rect) values.push(`${rect.x.toFixed(2)},${rect.y.toFixed(2)},${rect.width.toFixed(2)},${rect.height.toFixed(2)}`);
        out[pseudo ? key + pseudo : key] = values;
      }
    }
    return out;
  };
  const use = (sheets, on) => sheets.forEach((link) => { link.sheet.disabled = !on; });
  const scroll = [window.scrollX, window.scrollY];
  use(base, false); use(mine, true);
  const now = snap();
  use(mine, false); use(base, true);
  const before = snap();
  use(base, false); use(mine, true);
  window.scrollTo(scroll[0], scroll[1]);
  const names = [...props, 'box'];
  const diffs = [];
  for (const key of Object.keys({ ...now, ...before })) {
    const a = before[key], b = now[key];
    if (!a || !b) { diffs.push(`${key}: ${a ? 'gone' : 'new'}`); continue; }
    a.forEach((value, i) => { if (value !== b[i]) diffs.push(`${key} ${names[i]}: ${value} -> ${b[i]}`); });
  }
  return { elements: Object.keys(now).length, diffs: diffs.slice(0, 50), count: diffs.length };
}
