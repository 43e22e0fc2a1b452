// @ts-check
// The pairing page (`/pair`), opened from a pairing QR code (`ralph-mobile-server pair`, or Settings → Pair a phone):
// `/pair#code=ABCD-EFGH-JKMN`. It trades the single-use code for a new key and this browser's login
// (`POST /api/pairing/exchange` with `login: true`: the key stays on the server's side of an HttpOnly cookie, as after
// a key login), then leads to the dashboard. The code is in the fragment, which is never sent in a request, and is
// dropped from the address bar at once so it does not stay in the history. Without a code, or after a refusal, the
// code can be typed.

import { api } from './api.js';
import { applyTheme } from './theme.js';
import { h, render } from './ui.js';

const view = /** @type {HTMLElement} */ (document.getElementById('view'));

/// The code in `#code=…`, or '' when there is none.
function codeFromFragment() {
  const params = new URLSearchParams(location.hash.replace(/^#/, ''));
  return (params.get('code') || '').trim();
}

/// The card every state of the page is drawn in, with the dashboard's logo and title.
/** @param {...any} children */
function card(...children) {
  return h('section', { class: 'card login pair', 'aria-labelledby': 'pair-heading' },
    h('img', { class: 'logo', src: '/assets/icons/icon.svg', alt: '' }),
    h('h1', { id: 'pair-heading' }, 'Pair with Ralph Mobile'),
    ...children);
}

/** @param {string} code */
async function exchange(code) {
  render(view, card(h('p', { class: 'loading', role: 'status', 'data-test': 'pair-status' }, 'Pairing this device\u2026')));
  try {
    const paired = await api.post('/api/pairing/exchange', { code, login: true });
    showPaired(paired);
  } catch (error) {
    // The server's sentence without its prefix (`conflict: this pairing code was already used …`).
    const text = String(error.message || error);
    const sentence = error.code && text.startsWith(error.code + ':') ? text.slice(error.code.length + 1).trim() : text;
    showForm(code, (error.status === 429 ? 'Too many wrong codes from this network: ' : '') + sentence.charAt(0).toUpperCase() + sentence.slice(1),
      error.code);
  }
}

/** @param {any} paired the new key and the login */
function showPaired(paired) {
  const key = paired.key || {};
  const open = h('a', { class: 'btn primary block', href: '/', 'data-test': 'pair-open' }, 'Open the dashboard');
  render(view, card(
    h('p', { class: 'banner info', role: 'status', 'data-test': 'pair-done', 'data-role': key.role || '' },
      'Paired. This browser is logged in as ' + (key.role || 'a new key') + '.'),
    h('dl', { class: 'kv set-kv' },
      h('dt', {}, 'Key'), h('dd', {}, (key.name || 'unnamed') + ' ', h('span', { class: 'mono muted' }, '(' + (key.id || '?') + ')')),
      h('dt', {}, 'Role'), h('dd', {}, key.role || '—')),
    h('p', { class: 'muted small' }, 'An admin can end this device\u2019s access by revoking the key in Settings \u2192 API keys.'),
    open));
  open.focus();
}

/// The code form, with the last refusal (if any) above it.
/** @param {string} code @param {string} [message] @param {string} [reason] the error's prefix */
function showForm(code, message, reason) {
  const input = h('input', { type: 'text', id: 'pair-code', name: 'code', value: code, autocomplete: 'one-time-code',
    autocapitalize: 'characters', spellcheck: 'false', placeholder: 'ABCD-EFGH-JKMN', 'aria-describedby': 'pair-hint', required: true });
  const error = h('p', { class: 'field-error', role: 'alert', id: 'pair-error', 'data-test': 'pair-error', 'data-reason': reason || '', hidden: !message },
    message || '');
  const form = h('form', { novalidate: true },
    h('div', { class: 'field' },
      h('label', { for: 'pair-code' }, 'Pairing code'),
      input,
      h('div', { class: 'hint', id: 'pair-hint' }, 'Make one on the server with: ralph-mobile-server pair, or in Settings \u2192 Pair a phone.')),
    error,
    h('button', { type: 'submit', class: 'btn primary block', 'data-test': 'pair-submit' }, 'Pair'));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const typed = input.value.trim();
    if (!typed) {
      error.textContent = 'Enter the pairing code.';
      error.hidden = false;
      input.focus();
      return;
    }
    exchange(typed);
  });
  render(view, card(
    message ? null : h('p', { class: 'muted' }, 'Enter the code shown beside the QR code to pair this device.'),
    form,
    h('p', { class: 'muted small' }, h('a', { href: '/' }, 'Log in with a key instead'))));
  if (message) input.setAttribute('aria-invalid', 'true');
  input.focus();
}

applyTheme();
const code = codeFromFragment();
// Out of the address bar and the history before anything else happens.
if (location.hash) history.replaceState(null, '', location.pathname);
if (code) exchange(code);
else showForm('');
