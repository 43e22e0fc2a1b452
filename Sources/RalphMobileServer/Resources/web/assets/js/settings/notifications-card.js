// @ts-check
// The settings screen's Notifications card: whether this browser can get push notifications and its permission,
// Subscribe / Unsubscribe, what the server can deliver (its channels), this key's devices (each with its kinds,
// privacy, quiet hours, Send test and Remove: ./notification-device.js) and adding an ntfy topic or a webhook
// (operators). Every failure is shown in the card, in words.

import { api } from '../api.js';
import { h, render, busy } from '../ui.js';
import { channelText } from '../words/notifications.js';
import { pushUnsupported, permissionState, storedDeviceId, currentSubscription, subscribe, unsubscribe, forgetIfGone } from '../notify/subscription.js';
import { deviceRow } from './notification-device.js';
import { addChannelForm } from './notification-add.js';

/** @type {Record<string, string>} */
const PERMISSION_TEXT = {
  granted: 'Allowed',
  denied: 'Blocked \u2014 allow notifications for this site in the browser\u2019s site settings',
  default: 'Not asked yet',
  unsupported: 'Not supported',
};

/**
 * @param {any} app the shell (for the role)
 * @param {{alive: boolean}} life the screen's
 */
export function notificationsCard(app, life) {
  const problem = h('div', { class: 'banner error', role: 'alert', 'data-test': 'notify-error', hidden: true });
  const browser = h('div', { class: 'notify-browser', 'data-test': 'notify-browser' });
  const channels = h('ul', { class: 'notify-channels', 'data-test': 'notify-channels', 'aria-label': 'Channels' });
  const devices = h('div', { 'data-test': 'notify-devices' }, h('p', { class: 'loading', role: 'status' }, 'Loading devices\u2026'));
  const section = h('section', { class: 'card', 'data-test': 'notifications', 'aria-labelledby': 'set-notify' },
    h('h2', { id: 'set-notify' }, 'Notifications'),
    h('p', { class: 'muted small' }, 'Be told when an approval or a question waits, a run ends, or a conversation stops \u2014 even with the page closed. Buttons on the notification allow, deny or answer.'),
    problem,
    h('h3', {}, 'This browser'), browser,
    h('h3', {}, app.can('admin') ? 'Devices (every key\u2019s: you are an admin)' : 'Devices of your key'), devices,
    app.can('operator') ? addChannelForm({ onAdded: () => refresh() }) : h('p', { class: 'muted small' }, 'Adding an ntfy topic or a webhook needs an operator key (the server would call a URL you choose).'),
    h('h3', {}, 'What this server can send'), channels);

  /** @param {string | null} message */
  const showProblem = (message) => {
    problem.textContent = message || '';
    problem.hidden = !message;
  };
  const card = { life, showProblem, refresh: () => refresh() };

  async function refresh() {
    const [settings, list] = await Promise.all([
      api.get('/api/notifications').catch((error) => ({ error })),
      api.get('/api/notifications/devices').catch((error) => ({ error })),
    ]);
    if (!life.alive) return;
    drawChannels(settings);
    if (list.error) {
      render(devices, h('p', { class: 'banner error', role: 'alert' }, 'Could not load the devices: ' + list.error.message));
    } else {
      forgetIfGone(list.devices);
      drawDevices(list.devices);
    }
    await drawBrowser();
  }

  /** @param {any} settings */
  function drawChannels(settings) {
    if (settings.error) {
      render(channels, h('li', { class: 'banner error', role: 'alert' }, 'Could not read what the server can send: ' + settings.error.message));
      return;
    }
    render(channels, settings.channels.map((/** @type {any} */ state) =>
      h('li', { 'data-channel': state.channel, 'data-available': state.available ? 'true' : 'false', class: state.available ? '' : 'muted' },
        channelText(state))),
    h('li', { class: 'muted small' }, 'A live run silent for ' + settings.silence_seconds + ' s is reported; bursts within ' + settings.coalesce_seconds + ' s are folded into one notification.'));
  }

  /** @param {any[]} list */
  function drawDevices(list) {
    const mine = storedDeviceId();
    if (!list.length) {
      render(devices, h('p', { class: 'muted', 'data-test': 'notify-no-devices' }, 'No devices yet: subscribe this browser, or register the iOS app, an ntfy topic or a webhook.'));
      return;
    }
    const sorted = [...list].sort((a, b) => Number(b.id === mine) - Number(a.id === mine));
    const showKeys = app.can('admin');
    render(devices, h('ul', { class: 'list notify-devices', 'aria-label': 'Devices' }, sorted.map((device) => deviceRow(device, device.id === mine, card, showKeys))));
  }

  async function drawBrowser() {
    const unsupported = pushUnsupported();
    const permission = permissionState();
    const id = storedDeviceId();
    let subscription = null;
    let lookup = null;
    if (!unsupported) {
      try { subscription = await currentSubscription(); } catch (error) { lookup = error; }
    }
    if (!life.alive) return;
    const subscribed = Boolean(id && subscription);
    const state = unsupported ? 'unsupported' : subscribed ? 'subscribed' : 'unsubscribed';
    render(browser,
      h('dl', { class: 'kv set-kv' },
        h('dt', {}, 'Push'), h('dd', { 'data-test': 'notify-support', 'data-value': unsupported ? 'unsupported' : 'supported' },
          unsupported || 'Supported'),
        h('dt', {}, 'Permission'), h('dd', { 'data-test': 'notify-permission', 'data-value': permission }, PERMISSION_TEXT[permission] || permission),
        h('dt', {}, 'Subscribed'), h('dd', { 'data-test': 'notify-subscribed', 'data-value': state },
          subscribed ? 'Yes \u2014 this browser is told' : id ? 'Registered, but this browser lost its push subscription: subscribe again' : 'No')),
      lookup ? h('p', { class: 'banner error', role: 'alert' }, 'Could not read this browser\u2019s subscription: ' + (lookup.message || lookup)) : null,
      unsupported ? null : h('div', { class: 'btn-row' },
        subscribed
          ? h('button', { type: 'button', class: 'btn', 'data-test': 'notify-unsubscribe', onclick: (/** @type {any} */ event) => act(event.currentTarget, 'Unsubscribing\u2026', unsubscribe) }, 'Unsubscribe')
          : h('button', { type: 'button', class: 'btn primary', 'data-test': 'notify-subscribe', disabled: permission === 'denied',
            onclick: (/** @type {any} */ event) => act(event.currentTarget, 'Subscribing\u2026', () => subscribe()) }, 'Subscribe')));
  }

  /** @param {HTMLButtonElement} button @param {string} busyText @param {() => Promise<any>} work */
  async function act(button, busyText, work) {
    showProblem(null);
    await busy(button, busyText, async () => {
      try {
        await work();
      } catch (error) {
        showProblem(error instanceof Error ? error.message : String(error));
      }
    });
    if (life.alive) await refresh();
  }

  refresh();
  return section;
}
