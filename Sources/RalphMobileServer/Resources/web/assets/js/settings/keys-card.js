// @ts-check
// The settings screen's API keys card (admins): the keys (newest first, yours marked), Revoke with a confirmation,
// and New key, whose secret is shown once in a sheet that outlives the screen (a trusted server's first key logs
// this browser out).

import { api, seg } from '../api.js';
import { h, render, toast, openSheet, confirmDialog, copyText, field, badge, busy } from '../ui.js';
import { dateTime, relTime } from '../format.js';

/**
 * @param {any} me who is logged in (`/api/whoami`)
 * @param {{alive: boolean, sheets: Set<{close: () => void}>}} life the screen's: whether it is shown, its open sheets
 */
export function keysCard(me, life) {
  const list = h('div', { class: 'set-keys-body' }, h('p', { class: 'loading', role: 'status' }, 'Loading keys\u2026'));
  const create = h('button', { type: 'button', class: 'btn primary', 'data-test': 'create-key', onclick: () => openCreate(card) }, '+ New key');
  const section = h('section', { class: 'card', 'data-test': 'keys', 'aria-labelledby': 'set-keys' },
    h('div', { class: 'card-head' }, h('h2', { id: 'set-keys' }, 'API keys'), create),
    h('p', { class: 'muted small' }, 'Keys let phones, the iOS app and scripts in. The server keeps only a digest of each; a key\u2019s secret is shown once, when it is created.'),
    list);
  const card = { me, life, list };
  loadKeys(card);
  return section;
}

/** @typedef {{me: any, life: {alive: boolean, sheets: Set<{close: () => void}>}, list: HTMLElement}} KeysCardContext */


/** @param {KeysCardContext} card */
async function loadKeys(card) {
  try {
    const data = await api.get('/api/keys');
    if (!card.life.alive) return;
    drawKeys(card, (data && data.keys) || []);
  } catch (error) {
    if (!card.life.alive) return;
    render(card.list, h('div', { class: 'banner error', role: 'alert' },
      h('p', {}, 'Could not load the keys: ' + error.message),
      h('button', { type: 'button', class: 'btn', onclick: () => loadKeys(card) }, 'Try again')));
  }
}

/** @param {KeysCardContext} card @param {any[]} keys */
function drawKeys(card, keys) {
  if (!keys.length) {
    render(card.list, h('div', { class: 'empty' }, h('p', {}, card.me.via === 'trusted'
      ? 'No keys yet: the server trusts local callers. Create a key to use the dashboard from a phone (and start the server with --bind-all to listen on the network).'
      : 'No keys in the keys file. The key you logged in with comes from the server\u2019s --api-key option or $RALPH_MOBILE_API_KEY, which is not listed here.')));
    return;
  }
  const sorted = [...keys].sort((a, b) => String(b.created_at).localeCompare(String(a.created_at)));
  render(card.list, h('ul', { class: 'list', 'aria-label': 'API keys' }, sorted.map((key) => {
    const mine = key.id === card.me.key_id;
    const label = (key.name || 'unnamed') + ' (' + key.id + ')';
    return h('li', { class: 'set-key', 'data-test': 'key-row', 'data-id': key.id },
      h('div', { class: 'row-main' },
        h('div', { class: 'set-key-title' },
          h('span', { class: 'row-title' }, key.name || h('span', { class: 'muted' }, 'unnamed')),
          badge(key.role), mine ? badge('you', 'set-you-badge') : null),
        h('div', { class: 'row-sub' }, h('span', { class: 'mono' }, key.id), ' \u00b7 created ',
          h('time', { datetime: key.created_at, title: key.created_at }, dateTime(key.created_at)), ' (' + relTime(key.created_at) + ')')),
      h('button', { type: 'button', class: 'btn ghost set-revoke', 'data-test': 'revoke-key', 'aria-label': 'Revoke key ' + label,
        onclick: (event) => revoke(card, key, mine, event.currentTarget) }, 'Revoke'));
  })));
}

/** @param {KeysCardContext} card @param {any} key @param {boolean} mine @param {HTMLButtonElement} button */
async function revoke(card, key, mine, button) {
  const ok = await confirmDialog({
    title: 'Revoke this key?',
    message: 'Revoke \u201c' + (key.name || 'unnamed') + '\u201d (' + key.id + ', ' + key.role + ')? Every device using it loses access at once. This cannot be undone.'
      + (mine ? ' It is the key you are logged in with: you will be logged out.' : ''),
    confirm: 'Revoke',
    danger: true,
  });
  if (!ok || !card.life.alive) return;
  await busy(button, 'Revoking\u2026', async () => {
    await api.del('/api/keys/' + seg(key.id));
    // When it was our own key, this request answers 401 and app.js shows the login (which says why).
    await loadKeys(card);
    if (card.life.alive) toast('Key \u201c' + (key.name || key.id) + '\u201d revoked');
  });
}

/** @param {KeysCardContext} card */
function openCreate(card) {
  const name = h('input', { type: 'text', 'data-test': 'key-name', maxlength: '200', autocomplete: 'off', placeholder: 'e.g. phone, ci-bot' });
  const role = h('select', { 'data-test': 'key-role' },
    h('option', { value: 'viewer' }, 'Viewer — read only'),
    h('option', { value: 'operator', selected: card.me.via !== 'trusted' }, 'Operator — steer, chat, approve'),
    // The first key of a trusted server is the one this browser logs in with next: admin by default.
    h('option', { value: 'admin', selected: card.me.via === 'trusted' }, 'Admin — everything'));
  const nameField = field('Name', name, 'Where the key will be used; optional, up to 200 characters.');
  const roleField = field('Role', role);
  const submit = h('button', { type: 'submit', class: 'btn primary block', 'data-test': 'key-create-submit' }, 'Create key');
  const trustedWarning = card.me.via === 'trusted'
    ? h('p', { class: 'banner warn' }, 'This server trusts local callers only while it has no keys. Once this key exists, every request needs a key: this browser will have to log in with it — create an admin key to keep full access.')
    : null;
  const sheet = openSheet({
    title: 'New API key',
    onClose: () => card.life.sheets.delete(sheet),
    build: (close) => {
      const form = h('form', { class: 'set-create', novalidate: true }, trustedWarning, nameField, roleField, submit);
      form.addEventListener('submit', async (event) => {
        event.preventDefault();
        const text = name.value.trim();
        nameField.setError('');
        if (text.length > 200) { nameField.setError('The name is longer than 200 characters.'); name.focus(); return; }
        if (!['viewer', 'operator', 'admin'].includes(role.value)) { roleField.setError('Choose a role.'); role.focus(); return; }
        const body = { role: role.value };
        if (text) body.name = text;
        const created = await busy(submit, 'Creating\u2026', () => api.post('/api/keys', body));
        if (!created) return;
        close(true);
        showSecret(created);
        if (card.life.alive && card.me.via !== 'trusted') loadKeys(card);
      });
      return form;
    },
  });
  sheet.element.classList.add('set-sheet');
  card.life.sheets.add(sheet);
}

/** @param {any} created the new key and its secret */
function showSecret(created) {
  const key = created.key || {};
  // Not closed with the screen: when this was the first key of a trusted server, the next request answers 401
  // and the login replaces the screen, but the secret must stay readable until the user is done with it.
  const { element } = openSheet({
    title: 'Key created',
    onClose: () => {
      // The button that opened it may be gone (the login replaced the screen): land somewhere useful.
      if (document.activeElement && document.activeElement !== document.body) return;
      const next = document.getElementById('login-key') || document.querySelector('[data-test="create-key"]');
      if (next) next.focus();
    },
    build: (close) => h('div', { class: 'set-secret' },
      h('p', { class: 'banner warn', role: 'alert' }, 'Copy this key now. It is not shown again: the server keeps only a digest of it.'),
      h('dl', { class: 'kv set-kv' },
        h('dt', {}, 'Name'), h('dd', {}, key.name || 'unnamed'),
        h('dt', {}, 'Role'), h('dd', {}, badge(key.role || '—')),
        h('dt', {}, 'Id'), h('dd', { class: 'mono' }, key.id || '—')),
      h('div', { class: 'field' },
        h('span', { class: 'label', id: 'secret-label' }, 'Key'),
        h('code', { class: 'set-secret-value', 'data-test': 'key-secret', 'aria-labelledby': 'secret-label', tabindex: '0' }, created.secret)),
      h('div', { class: 'btn-row' },
        h('button', { type: 'button', class: 'btn primary', 'data-test': 'copy', onclick: () => copyText(created.secret, 'Key copied') }, 'Copy key'),
        h('button', { type: 'button', class: 'btn ghost', onclick: () => close(true) }, 'Done')),
      h('p', { class: 'muted small' }, 'On a phone: open ', h('span', { class: 'mono' }, location.origin), ' and log in with this key.')),
  });
  element.classList.add('set-sheet');
}
