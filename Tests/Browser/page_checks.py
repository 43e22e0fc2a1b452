"""Accessibility checks run in the page: WCAG 2 contrast of the computed colours and controls without a name."""

# WCAG 2 contrast of computed colours, run in the page.
CONTRAST_JS = r"""
function parse(c) {
  const m = c.match(/rgba?\(([^)]+)\)/); if (!m) return null;
  const p = m[1].split(',').map(s => parseFloat(s)); return {r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1};
}
function lum(c) {
  const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
  return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b);
}
function background(el) {
  let stack = [];
  for (let e = el; e; e = e.parentElement) {
    const c = parse(getComputedStyle(e).backgroundColor);
    if (c && c.a > 0) { stack.push(c); if (c.a >= 1) break; }
  }
  let base = {r: 255, g: 255, b: 255};
  if (stack.length && stack[stack.length - 1].a >= 1) base = stack.pop();
  while (stack.length) { const c = stack.pop(); base = {r: c.r * c.a + base.r * (1 - c.a), g: c.g * c.a + base.g * (1 - c.a), b: c.b * c.a + base.b * (1 - c.a)}; }
  return base;
}
const out = [];
for (const el of document.querySelectorAll(arguments[0])) {
  if (!el.offsetParent && getComputedStyle(el).position !== 'fixed') continue;
  const text = (el.innerText || '').trim(); if (!text) continue;
  const fg = parse(getComputedStyle(el).color); const bg = background(el);
  const l1 = lum(fg), l2 = lum(bg);
  const ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
  const size = parseFloat(getComputedStyle(el).fontSize); const bold = parseInt(getComputedStyle(el).fontWeight) >= 700;
  const large = size >= 24 || (bold && size >= 18.66);
  out.push({text: text.slice(0, 40), cls: el.className && el.className.baseVal === undefined ? el.className : '', ratio: Math.round(ratio * 100) / 100, need: large ? 3 : 4.5});
}
return out;
"""

# Controls without an accessible name (a label, aria-label/labelledby, title or text).
UNLABELLED_JS = r"""
const bad = [];
for (const el of document.querySelectorAll('button, a[href], input:not([type=hidden]), select, textarea, [role=button], [role=tab]')) {
  if (!el.offsetParent) continue;
  const labelled = el.getAttribute('aria-label') || el.getAttribute('aria-labelledby') || el.getAttribute('title')
    || (el.id && document.querySelector('label[for="' + CSS.escape(el.id) + '"]')) || el.closest('label')
    || (el.innerText || '').trim() || (el.getAttribute('placeholder') && el.tagName !== 'TEXTAREA' && false)
    || (el.querySelector('img[alt]:not([alt=""])'));
  if (!labelled) bad.push(el.outerHTML.slice(0, 120));
}
return bad;
"""
