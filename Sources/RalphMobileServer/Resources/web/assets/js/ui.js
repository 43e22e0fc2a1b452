// @ts-check
// Small DOM helpers shared by every screen. Text always goes in as text (never parsed as HTML). Pure formatting
// (times, numbers, money) is in ./format.js, which the reducers use too.

import { hatClass, dateTime, relTime } from './format.js';

/// Creates an element: `h('button', {class: 'btn', onclick: fn, 'aria-label': 'Pause'}, 'Pause')`.
/// Attributes starting with `on` become listeners; `dataset`/`style` take objects; `false`/`null` attributes are
/// left out; children may be strings, numbers, nodes, arrays or null.
/** @param {string} tag @param {Record<string, any> | null} [attributes] @param {...any} children @returns {HTMLElement} */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElementNS(
    tag === 'svg' || tag === 'path' || tag === 'polyline' || tag === 'circle' || tag === 'line' ? 'http://www.w3.org/2000/svg' : 'http://www.w3.org/1999/xhtml',
    tag,
  );
  for (const [key, value] of Object.entries(attributes || {})) {
    if (value === false || value === null || value === undefined) continue;
    if (key.startsWith('on') && typeof value === 'function') {
      element.addEventListener(key.slice(2).toLowerCase(), value);
    } else if (key === 'dataset') {
      Object.assign(element.dataset, value);
    } else if (key === 'style' && typeof value === 'object') {
      Object.assign(element.style, value);
    } else if (key === 'value' && 'value' in element) {
      element.value = value;
    } else if (key === 'checked' || key === 'selected' || key === 'disabled') {
      element[key] = Boolean(value);
      if (value) element.setAttribute(key, '');
    } else {
      element.setAttribute(key === 'className' ? 'class' : key, value === true ? '' : String(value));
    }
  }
  append(element, children);
  return element;
}

/** @param {Element} parent @param {any[]} children */
function append(parent, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else parent.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/// Replaces the children of `element`.
/** @param {Element} element @param {...any} children */
export function render(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

/** @param {string} message @param {'info' | 'error'} [kind] @param {number} [ms] */
export function toast(message, kind = 'info', ms = 4000) {
  const box = document.getElementById('toasts');
  const node = h('div', { class: 'toast ' + kind, role: kind === 'error' ? 'alert' : 'status' }, message);
  box.append(node);
  setTimeout(() => node.remove(), ms);
  return node;
}

/// Shows an error from the API (or anything thrown) as a toast; returns the message.
/** @param {unknown} error @param {string} [prefix] */
export function showError(error, prefix = '') {
  const message = (prefix ? prefix + ': ' : '') + (error && error.message ? error.message : String(error));
  toast(message, 'error', 7000);
  return message;
}

/// A modal bottom sheet. `build(close)` returns its body. Focus moves into the sheet, is kept inside it, and returns
/// to where it was on close; Escape and the backdrop close it. Returns `{close, element}`.
/**
 * @param {{title: string, label?: string, build: (close: (result?: any) => void) => Node, onClose?: (result: any) => void}} options
 * @returns {{close: (result?: any) => void, element: HTMLElement}}
 */
export function openSheet({ title, label, build, onClose = () => {} }) {
  const previous = document.activeElement;
  const titleId = 'sheet-title-' + Math.random().toString(36).slice(2, 8);
  let closed = false;
  const close = (result) => {
    if (closed) return;
    closed = true;
    backdrop.remove();
    document.removeEventListener('keydown', onKey, true);
    if (previous && previous.focus) previous.focus();
    onClose(result);
  };
  const sheet = h('div', { class: 'sheet', role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': titleId, 'aria-label': label || null },
    h('div', { class: 'sheet-head' },
      h('h2', { id: titleId }, title),
      h('button', { type: 'button', class: 'icon-btn', 'aria-label': 'Close', onclick: () => close(null) }, '\u2715')),
  );
  const backdrop = h('div', { class: 'sheet-backdrop', onclick: (event) => { if (event.target === backdrop) close(null); } }, sheet);
  sheet.append(build(close));
  function onKey(event) {
    if (event.key === 'Escape') { event.preventDefault(); close(null); }
    if (event.key === 'Tab') {
      const focusable = [...sheet.querySelectorAll('button, [href], input, select, textarea, [tabindex]:not([tabindex="-1"])')]
        .filter((el) => !el.disabled && el.offsetParent !== null);
      if (!focusable.length) return;
      const first = focusable[0];
      const last = focusable[focusable.length - 1];
      if (event.shiftKey && document.activeElement === first) { event.preventDefault(); last.focus(); }
      else if (!event.shiftKey && document.activeElement === last) { event.preventDefault(); first.focus(); }
    }
  }
  document.addEventListener('keydown', onKey, true);
  document.body.append(backdrop);
  const firstField = sheet.querySelector('textarea, input, select') || sheet.querySelector('.sheet-head + * button, button.primary, button.danger');
  (firstField || sheet.querySelector('button')).focus();
  return { close, element: sheet };
}

/// Asks to confirm; resolves true or false. `danger` makes the confirm button red.
/** @param {{title: string, message: string, confirm?: string, danger?: boolean}} options @returns {Promise<boolean>} */
export function confirmDialog({ title, message, confirm = 'Confirm', danger = false }) {
  return new Promise((resolve) => {
    openSheet({
      title,
      onClose: (result) => resolve(result === true),
      build: (close) => h('div', {},
        h('p', {}, message),
        h('div', { class: 'btn-row' },
          h('button', { type: 'button', class: 'btn ghost', onclick: () => close(false) }, 'Cancel'),
          h('button', { type: 'button', class: 'btn ' + (danger ? 'danger' : 'primary'), 'data-test': 'confirm', onclick: () => close(true) }, confirm))),
    });
  });
}

/** @param {string | null | undefined} hat @param {string} [color] a #rgb color from the workspace config */
export function hatBadge(hat, color) {
  const element = h('span', { class: 'hat ' + hatClass(hat) }, hat || '—');
  if (color && /^#[0-9a-fA-F]{3,8}$/.test(color)) element.style.setProperty('--hat-color', color);
  return element;
}

/** @param {string} text @param {string | null | undefined} [kind] the CSS class (the text itself by default) */
export function badge(text, kind = text) {
  return h('span', { class: 'badge ' + String(kind || '').toLowerCase() }, text);
}

/// An SVG sparkline of `values` (numbers), labelled for screen readers.
/** @param {unknown[]} values @param {string} label */
export function sparkline(values, label) {
  const points = values.map(Number).filter((v) => Number.isFinite(v));
  const svg = h('svg', { class: 'sparkline', viewBox: '0 0 100 30', preserveAspectRatio: 'none', role: 'img', 'aria-label': label });
  if (points.length < 2) return svg;
  const max = Math.max(...points);
  const min = Math.min(...points);
  const span = max - min || 1;
  const coords = points.map((v, i) => [(i / (points.length - 1)) * 100, 28 - ((v - min) / span) * 26]);
  const line = coords.map(([x, y], i) => (i ? 'L' : 'M') + x.toFixed(2) + ' ' + y.toFixed(2)).join(' ');
  svg.append(h('path', { class: 'area', d: line + ' L100 30 L0 30 Z' }), h('path', { class: 'line', d: line }));
  return svg;
}

/** @param {string} text @param {string} [what] */
export async function copyText(text, what = 'Copied') {
  try {
    await navigator.clipboard.writeText(text);
    toast(what + ' to the clipboard');
  } catch {
    // Clipboard access needs a secure context (HTTPS or localhost): fall back to a selected text area.
    const area = h('textarea', { class: 'sr-only', 'aria-hidden': 'true' });
    area.value = text;
    document.body.append(area);
    area.select();
    const ok = document.execCommand && document.execCommand('copy');
    area.remove();
    toast(ok ? what + ' to the clipboard' : 'Copy failed: select the text and copy it by hand', ok ? 'info' : 'error');
  }
}

/// Offers `text` as a file download.
/** @param {string} filename @param {string} text @param {string} [type] */
export function download(filename, text, type = 'application/json') {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = h('a', { href: url, download: filename });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/// A labelled form field; `control` is an input/select/textarea (its id is set when missing).
/** @param {string} labelText @param {HTMLElement} control @param {string} [hint] @returns {any} the field, with setError(message) */
export function field(labelText, control, hint) {
  if (!control.id) control.id = 'f-' + Math.random().toString(36).slice(2, 9);
  const error = h('div', { class: 'field-error', role: 'alert', hidden: true, id: control.id + '-error' });
  const node = h('div', { class: 'field' }, h('label', { for: control.id }, labelText), control,
    hint ? h('div', { class: 'hint', id: control.id + '-hint' }, hint) : null, error);
  if (hint) control.setAttribute('aria-describedby', control.id + '-hint');
  node.setError = (message) => {
    error.textContent = message || '';
    error.hidden = !message;
    control.setAttribute('aria-invalid', message ? 'true' : 'false');
  };
  return node;
}

/// Runs `action` with `button` disabled and showing `busyText`; errors become toasts. Returns the action's result.
/**
 * @template T
 * @param {HTMLButtonElement} button @param {string} busyText @param {() => Promise<T>} action
 * @returns {Promise<T | undefined>}
 */
export async function busy(button, busyText, action) {
  const original = button.textContent;
  button.disabled = true;
  if (busyText) button.textContent = busyText;
  try {
    return await action();
  } catch (error) {
    showError(error);
    return undefined;
  } finally {
    button.disabled = false;
    button.textContent = original;
  }
}

/// A disclosure whose open state is remembered in localStorage under `storeKey`: `toggle` opens and closes `body`,
/// `panel` gets the class `open`. (Not <details>: its closed content still counts as "displayed" for WebDriver and
/// checkers.)
/** @param {HTMLElement} panel @param {HTMLElement} toggle @param {HTMLElement} body @param {string} storeKey */
export function rememberedDisclosure(panel, toggle, body, storeKey) {
  const setOpen = (/** @type {boolean} */ open) => {
    body.hidden = !open;
    toggle.setAttribute('aria-expanded', open ? 'true' : 'false');
    panel.classList.toggle('open', open);
  };
  setOpen(localStorage.getItem(storeKey) === '1');
  toggle.addEventListener('click', () => {
    const open = body.hidden;
    setOpen(open);
    localStorage.setItem(storeKey, open ? '1' : '0');
  });
}

/// Makes `wanted` the children of `list`, in order, moving only what is out of place (a focused element keeps its
/// focus) and removing the rest.
/** @param {HTMLElement} list @param {HTMLElement[]} wanted */
export function arrange(list, wanted) {
  const keep = new Set(wanted);
  for (const child of [...list.children]) if (!keep.has(/** @type {HTMLElement} */ (child))) child.remove();
  wanted.forEach((element, index) => {
    if (list.children[index] !== element) list.insertBefore(element, list.children[index] || null);
  });
}

/// Sets a `<time>` to `ts`, shown relative ("5m ago", refreshed by whoever redraws `time[data-rel]`), the full date
/// in its title.
/** @param {HTMLElement} el @param {string | undefined} ts */
export function setRelativeTime(el, ts) {
  el.dataset.rel = ts || '';
  el.setAttribute('datetime', ts || '');
  el.title = dateTime(ts);
  el.textContent = relTime(ts);
}

/// Redraws every relative time (`time[data-rel]`) under `root`.
/** @param {Element} root */
export function refreshRelativeTimes(root) {
  for (const el of root.querySelectorAll('time[data-rel]')) el.textContent = relTime(/** @type {HTMLElement} */ (el).dataset.rel);
}
