// @ts-check
// One registered notification device in Settings: what it is, its last delivery or error, and its settings (kinds,
// privacy, quiet hours in this browser's time zone: PATCH), Send test (the outcome in words) and Remove.

import { api, seg } from '../api.js';
import { h, badge, busy, confirmDialog, toast } from '../ui.js';
import { dateTime } from '../format.js';
import { KINDS, CHANNEL_NAMES, testOutcomeText, quietHoursProblem, updateRequest } from '../words/notifications.js';
import { unsubscribe } from '../notify/subscription.js';

/**
 * @param {any} device a `NotificationDevice`
 * @param {boolean} mine whether it is this browser
 * @param {{life: {alive: boolean}, showProblem: (message: string | null) => void, refresh: () => Promise<void>}} card
 * @param {boolean} showKey whether to say which key registered it (an admin sees every key's devices)
 */
export function deviceRow(device, mine, card, showKey) {
  const uid = 'dev-' + String(device.id).replace(/[^a-zA-Z0-9_-]/g, '');
  const outcome = h('p', { class: 'small', role: 'status', 'data-test': 'notify-test-outcome', hidden: true });
  const settingsBox = settingsForm(device, uid);
  const toggle = h('button', { type: 'button', class: 'btn ghost small', 'aria-expanded': mine ? 'true' : 'false', 'aria-controls': uid + '-settings',
    'data-test': 'notify-device-settings-toggle', 'aria-label': 'Settings of ' + device.name }, 'Settings');
  settingsBox.hidden = !mine;
  toggle.addEventListener('click', () => {
    settingsBox.hidden = !settingsBox.hidden;
    toggle.setAttribute('aria-expanded', settingsBox.hidden ? 'false' : 'true');
  });
  const test = h('button', { type: 'button', class: 'btn small', 'data-test': 'notify-test', 'aria-label': 'Send a test to ' + device.name }, 'Send test');
  test.addEventListener('click', () => busy(test, 'Sending\u2026', async () => {
    outcome.hidden = true;
    try {
      const delivery = await api.post('/api/notifications/devices/' + seg(device.id) + '/test');
      const words = testOutcomeText(delivery);
      outcome.textContent = words.text;
      outcome.className = 'small ' + (words.ok ? 'notify-ok' : 'notify-bad');
      outcome.dataset.outcome = delivery.outcome;
    } catch (error) {
      outcome.textContent = 'The test was not sent: ' + error.message;
      outcome.className = 'small notify-bad';
      outcome.dataset.outcome = 'error';
    }
    outcome.hidden = false;
    if (card.life.alive && outcome.dataset.outcome !== 'delivered') await card.refresh();
  }));
  const remove = h('button', { type: 'button', class: 'btn ghost small', 'data-test': 'notify-remove', 'aria-label': 'Remove ' + device.name }, 'Remove');
  remove.addEventListener('click', async () => {
    const ok = await confirmDialog({ title: 'Remove this device?', message: 'Remove \u201c' + device.name + '\u201d? It will not be told anything any more.' + (mine ? ' This browser is also unsubscribed.' : ''), confirm: 'Remove', danger: true });
    if (!ok) return;
    await busy(remove, 'Removing\u2026', async () => {
      card.showProblem(null);
      try {
        if (mine) await unsubscribe();
        else await api.del('/api/notifications/devices/' + seg(device.id));
        toast('Removed ' + device.name);
      } catch (error) {
        card.showProblem('Could not remove ' + device.name + ': ' + error.message);
      }
    });
    if (card.life.alive) await card.refresh();
  });
  return h('li', { class: 'notify-device', 'data-test': 'notify-device', 'data-id': device.id, 'data-channel': device.channel },
    h('div', { class: 'notify-device-head' },
      h('div', { class: 'row-main' },
        h('div', { class: 'row-title' }, device.name, ' ', mine ? badge('this browser', 'live') : null),
        h('div', { class: 'row-sub' }, (CHANNEL_NAMES[device.channel] || device.channel) + ' \u00b7 ', h('span', { class: 'mono' }, device.target)),
        showKey ? h('div', { class: 'row-sub', 'data-test': 'notify-device-key' }, 'Key ', h('span', { class: 'mono' }, device.key_id || 'none (trusted local caller)')) : null,
        device.last_error
          ? h('div', { class: 'small notify-bad', 'data-test': 'notify-device-error' }, 'Last delivery failed: ' + device.last_error)
          : h('div', { class: 'small muted' }, device.last_delivered_at ? 'Last delivered ' + dateTime(device.last_delivered_at) : 'Nothing delivered yet')),
      toggle),
    h('div', { class: 'btn-row notify-device-actions' }, test, remove),
    outcome,
    settingsBox);
}

/** @param {any} device @param {string} uid */
function settingsForm(device, uid) {
  const kinds = new Set(device.kinds || []);
  const boxes = KINDS.map((k) => h('input', { type: 'checkbox', id: uid + '-kind-' + k.kind, value: k.kind, checked: kinds.has(k.kind), 'data-kind': k.kind }));
  const privacy = ['full', 'private'].map((value) => h('input', { type: 'radio', name: uid + '-privacy', id: uid + '-privacy-' + value, value,
    checked: (device.privacy || 'full') === value, 'data-privacy': value }));
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  const quiet = device.quiet_hours || null;
  const start = h('input', { type: 'time', id: uid + '-quiet-start', value: quiet ? quiet.start : '', 'data-test': 'notify-quiet-start' });
  const end = h('input', { type: 'time', id: uid + '-quiet-end', value: quiet ? quiet.end : '', 'data-test': 'notify-quiet-end' });
  const error = h('p', { class: 'small notify-bad', role: 'alert', hidden: true, 'data-test': 'notify-settings-error' });
  const saved = h('p', { class: 'small muted', role: 'status', 'data-test': 'notify-settings-saved', hidden: true });
  const save = h('button', { type: 'submit', class: 'btn primary small', 'data-test': 'notify-save' }, 'Save');
  const form = h('form', { class: 'notify-settings', id: uid + '-settings', 'data-test': 'notify-device-form' },
    h('fieldset', { class: 'notify-fieldset' }, h('legend', {}, 'Tell it about'),
      KINDS.map((k, i) => h('label', { class: 'check', for: boxes[i].id }, boxes[i],
        h('span', {}, k.label, h('span', { class: 'muted small notify-hint' }, ' \u2014 ' + k.hint))))),
    h('fieldset', { class: 'notify-fieldset' }, h('legend', {}, 'On the lock screen'),
      h('label', { class: 'check', for: privacy[0].id }, privacy[0], h('span', {}, 'Full text: names, tools, commands, questions')),
      h('label', { class: 'check', for: privacy[1].id }, privacy[1], h('span', {}, 'Content-free: only \u201cAn approval is waiting\u201d'))),
    h('fieldset', { class: 'notify-fieldset' }, h('legend', {}, 'Quiet hours (told silently)'),
      h('div', { class: 'notify-quiet' },
        h('label', { for: start.id }, 'From'), start, h('label', { for: end.id }, 'to'), end),
      h('p', { class: 'muted small' }, (quiet && quiet.time_zone && quiet.time_zone !== zone ? 'Saved in ' + quiet.time_zone + '; saving uses ' : 'Time zone: ') + zone + '. Leave both empty for none.')),
    error, saved, save);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const problem = quietHoursProblem(start.value, end.value);
    error.textContent = problem || '';
    error.hidden = !problem;
    saved.hidden = true;
    if (problem) return;
    const body = updateRequest({
      kinds: boxes.filter((b) => /** @type {HTMLInputElement} */ (b).checked).map((b) => /** @type {HTMLInputElement} */ (b).value),
      privacy: (/** @type {HTMLInputElement | undefined} */ (privacy.find((p) => /** @type {HTMLInputElement} */ (p).checked)) || { value: 'full' }).value,
      start: start.value, end: end.value, timeZone: zone,
    });
    await busy(save, 'Saving\u2026', async () => {
      try {
        await api.patch('/api/notifications/devices/' + seg(device.id), body);
        saved.textContent = 'Saved.';
        saved.hidden = false;
      } catch (failure) {
        error.textContent = 'Not saved: ' + failure.message;
        error.hidden = false;
      }
    });
  });
  return form;
}
