// @ts-check
// A browser may replace this page's push subscription at any time (its keys rotated, the old one expired) and then
// fires `pushsubscriptionchange` in the service worker. Without an answer the person silently stops getting
// notifications, and the old device fails until a 410 removes it. The worker subscribes again with the same VAPID key
// and registers the new subscription with `replaces_endpoint`, so the server moves the old device's name and choices
// to it and deletes the old one. When that cannot be done (signed out, server down), the worker says so in a
// notification that leads to Settings, where subscribing again fixes it.
//
// `fetch` and the push manager are parameters so that node tests can run every step.

import { base64urlBytes } from './subscription.js';
import { deviceName } from '../words/notifications.js';

export const SETTINGS_PATH = '/api/notifications';
export const DEVICES_PATH = '/api/notifications/devices';
/** Where the failure notification leads: Settings, whose Notifications card subscribes again. */
export const FIX_PATH = '/#/settings';
export const FAILURE_TAG = 'ralph-resubscribe';

/**
 * What `fetch` is used for here (the worker's own `fetch`).
 * @typedef {(url: string, init: any) => Promise<{ok: boolean, status: number, text: () => Promise<string>}>} FetchFn
 */
/**
 * The parts of a `PushSubscription` used here.
 * @typedef {{endpoint: string, options?: {applicationServerKey?: ArrayBuffer | null} | null, toJSON: () => any}} Subscription
 */
/**
 * The parts of the worker's `PushManager` used here.
 * @typedef {{subscribe: (options: {userVisibleOnly: boolean, applicationServerKey: Uint8Array}) => Promise<Subscription>}} PushManagerLike
 */
/**
 * What `pushsubscriptionchange` carries (either may be null: Chrome gives no new one, and may give no old one).
 * @typedef {{oldSubscription?: Subscription | null, newSubscription?: Subscription | null}} SubscriptionChange
 */
/**
 * The outcome: the device registered, or the step that failed with the server's or browser's own words
 * (`status` is the HTTP status, 0 when the server was not reached or the failure was the browser's).
 * @typedef {{ok: true, device: any, replaced: string | null}
 *   | {ok: false, step: 'key' | 'subscribe' | 'register', status: number, message: string}} ResubscribeResult
 */

class StepFailure extends Error {
  /** @param {'key' | 'subscribe' | 'register'} step @param {number} status @param {string} message */
  constructor(step, status, message) {
    super(message);
    this.step = step;
    this.status = status;
  }
}

/// Subscribes again and registers the new subscription in place of the old one. Never throws: a failure comes back as
/// `{ok: false}` saying which step failed.
/**
 * @param {{fetch: FetchFn, pushManager: PushManagerLike, origin: string, userAgent: string}} env
 * @param {SubscriptionChange} change
 * @returns {Promise<ResubscribeResult>}
 */
export async function resubscribe(env, change) {
  const old = change.oldSubscription || null;
  try {
    const subscription = change.newSubscription || (await subscribeAgain(env, old));
    const replaced = old && old.endpoint !== subscription.endpoint ? old.endpoint : null;
    /** @type {Record<string, unknown>} */
    const body = { name: deviceName(env.userAgent), channel: 'web_push', web_push: subscription.toJSON() };
    if (replaced) body.replaces_endpoint = replaced;
    const device = await call(env, 'register', 'POST', DEVICES_PATH, body);
    return { ok: true, device, replaced };
  } catch (error) {
    if (error instanceof StepFailure) return { ok: false, step: error.step, status: error.status, message: error.message };
    return { ok: false, step: 'register', status: 0, message: error instanceof Error ? error.message : String(error) };
  }
}

/// A new subscription with the old one's VAPID key, or the server's when the browser kept none.
/** @param {{fetch: FetchFn, pushManager: PushManagerLike, origin: string}} env @param {Subscription | null} old */
async function subscribeAgain(env, old) {
  const kept = old && old.options && old.options.applicationServerKey;
  let key;
  if (kept && kept.byteLength > 0) {
    key = new Uint8Array(kept);
  } else {
    const settings = await call(env, 'key', 'GET', SETTINGS_PATH, undefined);
    if (!settings || typeof settings.vapid_public_key !== 'string') throw new StepFailure('key', 0, 'the server gave no vapid_public_key');
    key = base64urlBytes(settings.vapid_public_key);
  }
  try {
    return await env.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
  } catch (error) {
    throw new StepFailure('subscribe', 0, error instanceof Error ? error.name + ': ' + error.message : String(error));
  }
}

/// One request to this server with the page's login cookie; the parsed JSON answer, or a StepFailure with the
/// server's own sentence (`unreachable: …` when there was no answer).
/**
 * @param {{fetch: FetchFn, origin: string}} env @param {'key' | 'register'} step @param {string} method @param {string} path
 * @param {unknown} body
 */
async function call(env, step, method, path, body) {
  /** @type {Record<string, any>} */
  const init = { method, credentials: 'same-origin', headers: { Accept: 'application/json' } };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await env.fetch(new URL(path, env.origin).href, init);
  } catch (error) {
    throw new StepFailure(step, 0, 'unreachable: cannot reach the server (' + (error instanceof Error ? error.message : String(error)) + ')');
  }
  const raw = await response.text().catch(() => '');
  let data = null;
  try { data = raw ? JSON.parse(raw) : null; } catch { data = null; }
  if (response.ok) return data;
  const message = data && typeof data.error === 'string' ? data.error : response.status + ' ' + (raw.slice(0, 200) || 'no answer');
  throw new StepFailure(step, response.status, message);
}

/// The notification that says notifications stopped, why, and how to turn them on again; a tap opens Settings.
/** @param {ResubscribeResult & {ok: false}} failure */
export function failureDisplay(failure) {
  let why;
  if (failure.status === 401) why = 'This browser is signed out of Ralph Mobile.';
  else if (failure.status === 0 && failure.step !== 'subscribe') why = 'The Ralph Mobile server could not be reached.';
  else if (failure.step === 'subscribe') why = 'The browser refused a new push subscription (' + failure.message + ').';
  else why = 'The server refused the new subscription (' + failure.message + ').';
  return {
    title: 'Ralph Mobile notifications stopped',
    options: {
      body: 'This browser replaced its push subscription and it could not be registered again. ' + why
        + ' Open Settings \u2192 Notifications and turn them on again' + (failure.status === 401 ? ' after signing in.' : '.'),
      tag: FAILURE_TAG,
      requireInteraction: true,
      icon: '/assets/icons/icon-192.png',
      data: { path: FIX_PATH, actions: [] },
    },
  };
}
