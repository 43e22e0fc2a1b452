// @ts-check
// The settings screen's "Pair a phone" card (admins): makes a single-use pairing code for a role and a name
// (`POST /api/pairing`) and shows its QR code (an SVG the server draws with libqrencode), the URL it holds, the code to
// type, and how long it stays valid. The phone's camera opens `/pair#code=…`, which trades the code for a new key.

import { api } from '../api.js';
import { h, render, copyText, field, busy } from '../ui.js';

/**
 * @param {any} me who is logged in (`/api/whoami`)
 * @param {{alive: boolean, sheets: Set<{close: () => void}>}} life the screen's: whether it is shown
 */
export function pairCard(me, life) {
  const name = h('input', { type: 'text', 'data-test': 'pair-name', maxlength: '200', autocomplete: 'off', value: 'phone' });
  const role = h('select', { 'data-test': 'pair-role' },
    h('option', { value: 'viewer' }, 'Viewer — read only'),
    h('option', { value: 'operator', selected: true }, 'Operator — steer, chat, approve'),
    h('option', { value: 'admin' }, 'Admin — everything'));
  const nameField = field('Name', name, 'The new key\u2019s name: the device that will use it.');
  const submit = h('button', { type: 'submit', class: 'btn primary', 'data-test': 'pair-create' }, 'Make a pairing code');
  const result = h('div', { class: 'pair-result', 'aria-live': 'polite' });
  const form = h('form', { class: 'set-create', novalidate: true }, nameField, field('Role', role), submit);
  /** @type {{timer: any}} */
  const state = { timer: null };
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const text = name.value.trim();
    nameField.setError('');
    if (text.length > 200) { nameField.setError('The name is longer than 200 characters.'); name.focus(); return; }
    const body = { role: role.value };
    if (text) body.name = text;
    const made = await busy(submit, 'Making\u2026', () => api.post('/api/pairing', body));
    if (!made || !life.alive) return;
    showCode(result, made, life, state);
  });
  return h('section', { class: 'card', 'data-test': 'pairing', 'aria-labelledby': 'set-pair' },
    h('div', { class: 'card-head' }, h('h2', { id: 'set-pair' }, 'Pair a phone')),
    h('p', { class: 'muted small' }, 'Scan the QR code with the phone\u2019s camera: it opens this dashboard and logs the phone in with a new key of the role you choose. The code works once, for a few minutes; the key itself is never in the QR code.'),
    me.via === 'trusted'
      ? h('p', { class: 'banner warn' }, 'This server trusts local callers only while it has no keys. Once a phone pairs, every request needs a key: this browser will have to log in with one.')
      : null,
    form, result);
}

/**
 * @param {HTMLElement} result @param {any} made the code, URL, QR image and expiry
 * @param {{alive: boolean}} life @param {{timer: any}} state
 */
function showCode(result, made, life, state) {
  clearInterval(state.timer);
  const countdown = h('span', { 'data-test': 'pair-countdown' }, '');
  const expires = Date.parse(made.expires_at);
  const qr = h('img', { class: 'pair-qr', 'data-test': 'pair-qr', width: '240', height: '240',
    alt: 'QR code of ' + made.url, src: 'data:image/svg+xml;charset=utf-8,' + encodeURIComponent(made.qr_svg) });
  const tick = () => {
    if (!life.alive || !qr.isConnected) { clearInterval(state.timer); return; }
    const left = Math.max(0, Math.round((expires - Date.now()) / 1000));
    if (left > 0) {
      countdown.textContent = 'Valid for ' + Math.floor(left / 60) + ':' + String(left % 60).padStart(2, '0') + ' more, once.';
      return;
    }
    clearInterval(state.timer);
    countdown.textContent = 'Expired: make a new code.';
    qr.classList.add('expired');
  };
  render(result,
    made.warning ? h('p', { class: 'banner warn', role: 'alert', 'data-test': 'pair-warning' }, made.warning) : null,
    h('div', { class: 'pair-qr-box' }, qr),
    h('p', { class: 'pair-countdown' }, countdown),
    h('dl', { class: 'kv set-kv' },
      h('dt', {}, 'Pairs as'), h('dd', {}, made.role + ' key \u201c' + (made.name || 'unnamed') + '\u201d'),
      h('dt', {}, 'Code'), h('dd', { class: 'mono', 'data-test': 'pair-code' }, made.code),
      h('dt', {}, 'Address'), h('dd', { class: 'set-url' },
        h('span', { class: 'mono', 'data-test': 'pair-url' }, made.url),
        h('button', { type: 'button', class: 'btn ghost small set-copy', 'aria-label': 'Copy the pairing address',
          onclick: () => copyText(made.url, 'Address copied') }, 'Copy'))));
  tick();
  state.timer = setInterval(tick, 1000);
}
