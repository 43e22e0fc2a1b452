// @ts-check
/// <reference lib="webworker" />
// The dashboard's service worker: notifications only (no offline cache). Served at /sw.js so that its scope is the
// whole dashboard; registered as a module by Settings when the person subscribes.
//
// `push`: the decrypted `NotificationMessage` is shown (Allow / Deny buttons for an approval, Answer for a question),
// or, for `withdraw: true`, the notification with its tag is closed and nothing is shown.
// `notificationclick`: a button POSTs its single-use token to /api/notifications/actions and the notification is
// replaced by what happened (or why nothing did); a tap on the body opens the dashboard at the message's path.
// `pushsubscriptionchange`: the browser replaced the subscription; it is registered again in place of the old one
// (notify/resubscribe.js), or a notification says notifications stopped and leads to Settings.

import { parseMessage, displayFor, openURL } from './assets/js/notify/message.js';
import { sendAction, outcomeDisplay, clickPlan } from './assets/js/notify/action.js';
import { resubscribe, failureDisplay } from './assets/js/notify/resubscribe.js';
import { leaveDeviceId, MESSAGE_TYPE } from './assets/js/notify/handoff.js';

const worker = /** @type {ServiceWorkerGlobalScope & typeof globalThis} */ (/** @type {unknown} */ (self));

/** How long a successful action's outcome stays on screen. */
const OUTCOME_MS = 4000;

worker.addEventListener('install', () => { worker.skipWaiting(); });
worker.addEventListener('activate', (event) => { event.waitUntil(worker.clients.claim()); });

worker.addEventListener('push', (event) => { event.waitUntil(onPush(event.data ? event.data.text() : '')); });

worker.addEventListener('notificationclick', (event) => {
  const notification = event.notification;
  const reply = /** @type {any} */ (event).reply;
  event.waitUntil(onClick(notification, event.action || '', typeof reply === 'string' ? reply : null));
});

worker.addEventListener('pushsubscriptionchange', (event) => {
  // Not in every TypeScript lib's event map: the fields the spec gives it.
  const change = /** @type {ExtendableEvent & {oldSubscription?: PushSubscription | null, newSubscription?: PushSubscription | null}} */ (
    /** @type {unknown} */ (event));
  change.waitUntil(onSubscriptionChange(change.oldSubscription || null, change.newSubscription || null));
});

/** @param {PushSubscription | null} oldSubscription @param {PushSubscription | null} newSubscription */
async function onSubscriptionChange(oldSubscription, newSubscription) {
  const env = { fetch: fetch.bind(worker), pushManager: worker.registration.pushManager, origin: worker.location.origin, userAgent: navigator.userAgent };
  const result = await resubscribe(env, { oldSubscription, newSubscription });
  if (result.ok) {
    // The page keeps this browser's device id; hand it the new one (now, and for the next page that opens).
    const id = result.device && typeof result.device.id === 'string' ? result.device.id : null;
    if (id) {
      await leaveDeviceId(caches, id).catch((error) => console.error('new device id not kept for the page:', error));
      for (const client of await worker.clients.matchAll({ type: 'window' })) client.postMessage({ type: MESSAGE_TYPE, id });
    }
    return;
  }
  console.error('push subscription not registered again:', result.step, result.status, result.message);
  const display = failureDisplay(result);
  await worker.registration.showNotification(display.title, display.options);
}

function abilities() {
  const maxActions = /** @type {any} */ (Notification).maxActions;
  return {
    textReply: typeof NotificationEvent !== 'undefined' && 'reply' in NotificationEvent.prototype,
    maxActions: typeof maxActions === 'number' ? maxActions : 2,
  };
}

/** @param {string} text */
async function onPush(text) {
  let message;
  try {
    message = parseMessage(text);
  } catch (error) {
    // A push must show something (browsers punish silent pushes): say what was wrong with it.
    await worker.registration.showNotification('Ralph Mobile: unreadable notification', {
      body: (error instanceof Error ? error.message : String(error)) + '. Open Ralph Mobile to see what is waiting.',
      tag: 'ralph-unreadable', data: { path: '/#/sessions', actions: [] },
    });
    return;
  }
  // What is on screen with this tag decides renotify and is what a withdraw closes; if it cannot be read, the message
  // is still shown (as new) rather than lost.
  const existing = await worker.registration.getNotifications({ tag: message.tag }).catch((error) => {
    console.error('notifications on screen not read:', error);
    return [];
  });
  const display = displayFor(message, abilities(), existing.length > 0);
  if (!display.show) {
    for (const notification of existing) notification.close();
    return;
  }
  await worker.registration.showNotification(display.title, display.options);
}

/** @param {Notification} notification @param {string} action @param {string | null} reply */
async function onClick(notification, action, reply) {
  const message = notification.data;
  const plan = clickPlan(message, action, reply);
  notification.close();
  if (plan.kind === 'open') {
    await openDashboard(plan.path);
    return;
  }
  const result = await sendAction(fetch, worker.location.origin, plan.token, plan.text);
  const outcome = outcomeDisplay(message, result);
  await worker.registration.showNotification(outcome.title, outcome.options);
  if (outcome.brief) {
    await new Promise((resolve) => setTimeout(resolve, OUTCOME_MS));
    for (const shown of await worker.registration.getNotifications({ tag: outcome.options.tag })) {
      if (shown.data && shown.data.outcome === 'done' && shown.data.id === message.id) shown.close();
    }
  }
}

/// Focuses a dashboard window already open and tells it to show `path` (app.js listens: no reload), else opens one.
/** @param {string} path */
async function openDashboard(path) {
  const url = openURL(path, worker.location.origin);
  const windows = await worker.clients.matchAll({ type: 'window' });
  const open = windows.find((client) => new URL(client.url).origin === worker.location.origin);
  if (open) {
    open.postMessage({ type: 'ralph:open', url });
    await open.focus();
    return;
  }
  await worker.clients.openWindow(url);
}
