// @ts-check
// Adding an ntfy topic or a webhook as a notification device (operators: the server will call the URL given). A
// webhook's generated secret is shown once, here.

import { api } from '../api.js';
import { h, field, busy, copyText } from '../ui.js';

/** @param {{onAdded: () => void}} options */
export function addChannelForm({ onAdded }) {
  const channel = h('select', { 'data-test': 'notify-add-channel' },
    h('option', { value: 'ntfy' }, 'ntfy topic'), h('option', { value: 'webhook' }, 'Webhook'));
  const name = h('input', { type: 'text', maxlength: '100', required: true, 'data-test': 'notify-add-name', placeholder: 'ntfy on my watch' });
  const url = h('input', { type: 'url', required: true, 'data-test': 'notify-add-url', placeholder: 'https://ntfy.sh/my-topic' });
  const secret = h('input', { type: 'password', autocomplete: 'off', 'data-test': 'notify-add-secret' });
  const secretField = field('Access token (optional)', secret, 'For a protected topic; sent as Authorization: Bearer.');
  const problem = h('p', { class: 'banner error', role: 'alert', hidden: true, 'data-test': 'notify-add-error' });
  const result = h('div', { role: 'status', 'data-test': 'notify-add-result' });
  const submit = h('button', { type: 'submit', class: 'btn primary' }, 'Add');
  const label = /** @type {HTMLLabelElement} */ (secretField.querySelector('label'));
  const hint = /** @type {HTMLElement} */ (secretField.querySelector('.hint'));
  channel.addEventListener('change', () => {
    const hook = /** @type {HTMLSelectElement} */ (channel).value === 'webhook';
    label.textContent = hook ? 'Secret (optional)' : 'Access token (optional)';
    hint.textContent = hook ? 'The HMAC-SHA256 key of the signature header; the server makes one when empty and shows it once.' : 'For a protected topic; sent as Authorization: Bearer.';
    url.setAttribute('placeholder', hook ? 'https://example.com/hooks/ralph' : 'https://ntfy.sh/my-topic');
  });
  const form = h('form', { class: 'notify-add', 'data-test': 'notify-add' },
    field('Kind', channel), field('Name', name), field('URL', url), secretField, problem, submit, result);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    problem.hidden = true;
    result.replaceChildren();
    const kind = /** @type {HTMLSelectElement} */ (channel).value;
    const given = /** @type {HTMLInputElement} */ (secret).value.trim();
    const target = kind === 'webhook'
      ? { webhook: { url: /** @type {HTMLInputElement} */ (url).value.trim(), ...(given ? { secret: given } : {}) } }
      : { ntfy: { url: /** @type {HTMLInputElement} */ (url).value.trim(), ...(given ? { token: given } : {}) } };
    busy(/** @type {HTMLButtonElement} */ (submit), 'Adding\u2026', async () => {
      try {
        const device = await api.post('/api/notifications/devices', { name: /** @type {HTMLInputElement} */ (name).value.trim(), channel: kind, ...target });
        /** @type {HTMLFormElement} */ (form).reset();
        result.append(h('p', { class: 'small notify-ok' }, 'Added ' + device.name + '.'));
        if (device.webhook_secret) {
          result.append(h('p', { class: 'small' }, 'Its signing secret (shown once): ', h('code', { 'data-test': 'notify-webhook-secret' }, device.webhook_secret), ' ',
            h('button', { type: 'button', class: 'btn ghost small', onclick: () => copyText(device.webhook_secret, 'Secret copied') }, 'Copy')));
        }
        onAdded();
      } catch (error) {
        problem.textContent = error.status === 403
          ? 'Only an operator or admin key may add ntfy topics and webhooks (the server would call a URL you choose): ' + error.message
          : 'Not added: ' + error.message;
        problem.hidden = false;
      }
    });
  });
  // Not <details>: its closed content still counts as displayed for WebDriver and checkers.
  form.hidden = true;
  const toggle = h('button', { type: 'button', class: 'btn ghost small', 'aria-expanded': 'false', 'data-test': 'notify-add-toggle' }, 'Add an ntfy topic or a webhook');
  toggle.addEventListener('click', () => {
    form.hidden = !form.hidden;
    toggle.setAttribute('aria-expanded', form.hidden ? 'false' : 'true');
  });
  return h('div', { class: 'notify-add-box' }, toggle, form);
}
