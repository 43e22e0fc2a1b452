// What the service worker does on `pushsubscriptionchange` (notify/resubscribe.js): subscribe again with the same
// VAPID key, register the new subscription in place of the old one, and say so when that fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { resubscribe, failureDisplay, DEVICES_PATH, SETTINGS_PATH, FIX_PATH } from '../../Sources/RalphMobileServer/Resources/web/assets/js/notify/resubscribe.js';
import { clickPlan } from '../../Sources/RalphMobileServer/Resources/web/assets/js/notify/action.js';

const ORIGIN = 'https://ralph.example';
const KEY_TEXT = 'BMV7_T16hpyaAQID';
const keyBytes = (/** @type {string} */ text) => Uint8Array.from(Buffer.from(text, 'base64url'));
const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';

/** A subscription as the browser gives it. */
function subscription(endpoint, key = keyBytes(KEY_TEXT)) {
  const json = { endpoint, keys: { p256dh: 'BP' + endpoint.length, auth: 'au' } };
  return { endpoint, options: { applicationServerKey: key.buffer.slice(key.byteOffset, key.byteOffset + key.byteLength) }, toJSON: () => json };
}

/** A push manager that records the keys it was asked for and gives `endpoint` (or fails with `error`). */
function pushManager(endpoint, error = null) {
  const keys = [];
  return {
    keys,
    subscribe: async (options) => {
      keys.push(Array.from(options.applicationServerKey));
      if (error) throw error;
      assert.equal(options.userVisibleOnly, true);
      return subscription(endpoint, options.applicationServerKey);
    },
  };
}

/** A fetch that answers from `routes` (`'GET /path'` → [status, body]) and records every call. */
function server(routes) {
  const calls = [];
  const fetch = async (url, init) => {
    calls.push({ url, init, body: init.body === undefined ? undefined : JSON.parse(init.body) });
    const path = new URL(url).pathname;
    const answer = routes[init.method + ' ' + path];
    if (answer instanceof Error) throw answer;
    if (!answer) return { ok: false, status: 404, text: async () => JSON.stringify({ error: 'not_found: ' + path }) };
    const [status, body] = answer;
    return { ok: status >= 200 && status < 300, status, text: async () => (body === undefined ? '' : JSON.stringify(body)) };
  };
  return { calls, fetch };
}

const device = { id: 'dev-2', name: 'Kitchen tablet', channel: 'web_push' };

test('the old subscription’s key is reused; the new one is registered with replaces_endpoint and the page’s cookie', async () => {
  const push = pushManager('https://push.example/new');
  const api = server({ ['POST ' + DEVICES_PATH]: [201, device] });
  const result = await resubscribe(
    { fetch: api.fetch, pushManager: push, origin: ORIGIN, userAgent: CHROME }, { oldSubscription: subscription('https://push.example/old') });
  assert.deepEqual(result, { ok: true, device, replaced: 'https://push.example/old' });
  assert.deepEqual(push.keys, [Array.from(keyBytes(KEY_TEXT))], 'the same applicationServerKey');
  assert.equal(api.calls.length, 1, 'no need to ask the server for its key');
  const [call] = api.calls;
  assert.equal(call.url, ORIGIN + DEVICES_PATH);
  assert.equal(call.init.method, 'POST');
  assert.equal(call.init.credentials, 'same-origin');
  assert.equal(call.init.headers['Content-Type'], 'application/json');
  assert.deepEqual(call.body, {
    name: 'Chrome on Linux', channel: 'web_push', web_push: subscription('https://push.example/new').toJSON(),
    replaces_endpoint: 'https://push.example/old',
  });
});

test('without the old key (no old subscription, or no options) the server’s VAPID key is fetched; nothing to replace is not sent', async () => {
  const push = pushManager('https://push.example/new');
  const api = server({ ['GET ' + SETTINGS_PATH]: [200, { vapid_public_key: KEY_TEXT }], ['POST ' + DEVICES_PATH]: [201, device] });
  const result = await resubscribe({ fetch: api.fetch, pushManager: push, origin: ORIGIN, userAgent: CHROME }, { oldSubscription: null });
  assert.equal(result.ok, true);
  assert.deepEqual(push.keys, [Array.from(keyBytes(KEY_TEXT))]);
  assert.deepEqual(api.calls.map((c) => c.init.method + ' ' + new URL(c.url).pathname), ['GET ' + SETTINGS_PATH, 'POST ' + DEVICES_PATH]);
  assert.equal(api.calls[0].init.credentials, 'same-origin');
  assert.equal('replaces_endpoint' in api.calls[1].body, false);

  const keyless = { ...subscription('https://push.example/old'), options: { applicationServerKey: null } };
  const again = server({ ['GET ' + SETTINGS_PATH]: [200, { vapid_public_key: KEY_TEXT }], ['POST ' + DEVICES_PATH]: [201, device] });
  const second = await resubscribe({ fetch: again.fetch, pushManager: pushManager('https://push.example/n2'), origin: ORIGIN, userAgent: CHROME },
    { oldSubscription: keyless });
  assert.equal(second.ok, true);
  assert.equal(again.calls[1].body.replaces_endpoint, 'https://push.example/old');
});

test('a new subscription the browser already made is registered as is (no second subscribe)', async () => {
  const push = pushManager('https://push.example/unused');
  const api = server({ ['POST ' + DEVICES_PATH]: [201, device] });
  const result = await resubscribe({ fetch: api.fetch, pushManager: push, origin: ORIGIN, userAgent: CHROME },
    { oldSubscription: subscription('https://push.example/old'), newSubscription: subscription('https://push.example/given') });
  assert.equal(result.ok, true);
  assert.deepEqual(push.keys, []);
  assert.equal(api.calls[0].body.web_push.endpoint, 'https://push.example/given');
});

test('signed out (401): the failure names the step and the server’s words; the notification says to sign in and leads to Settings', async () => {
  const api = server({ ['POST ' + DEVICES_PATH]: [401, { error: 'unauthorized: missing or invalid API key' }] });
  const result = await resubscribe({ fetch: api.fetch, pushManager: pushManager('https://push.example/new'), origin: ORIGIN, userAgent: CHROME },
    { oldSubscription: subscription('https://push.example/old') });
  assert.deepEqual(result, { ok: false, step: 'register', status: 401, message: 'unauthorized: missing or invalid API key' });
  const display = failureDisplay(result);
  assert.equal(display.title, 'Ralph Mobile notifications stopped');
  assert.match(display.options.body, /signed out/);
  assert.match(display.options.body, /Open Settings → Notifications and turn them on again after signing in\./);
  assert.equal(display.options.requireInteraction, true);
  assert.deepEqual(clickPlan(display.options.data, '', null), { kind: 'open', path: FIX_PATH }, 'a tap opens Settings');
});

test('server down: the network error is a failure (status 0) that says the server could not be reached', async () => {
  const api = server({ ['POST ' + DEVICES_PATH]: new TypeError('Failed to fetch') });
  const result = await resubscribe({ fetch: api.fetch, pushManager: pushManager('https://push.example/new'), origin: ORIGIN, userAgent: CHROME },
    { oldSubscription: subscription('https://push.example/old') });
  assert.deepEqual(result, { ok: false, step: 'register', status: 0, message: 'unreachable: cannot reach the server (Failed to fetch)' });
  assert.match(failureDisplay(result).options.body, /could not be reached/);

  const noKey = server({ ['GET ' + SETTINGS_PATH]: new TypeError('Failed to fetch') });
  const keyStep = await resubscribe({ fetch: noKey.fetch, pushManager: pushManager('https://push.example/new'), origin: ORIGIN, userAgent: CHROME }, {});
  assert.equal(keyStep.ok === false && keyStep.step, 'key');
});

test('the browser refusing a new subscription, and the server refusing the registration, are told in their own words', async () => {
  const denied = Object.assign(new Error('Registration failed - permission denied'), { name: 'NotAllowedError' });
  const api = server({});
  const refused = await resubscribe({ fetch: api.fetch, pushManager: pushManager('x', denied), origin: ORIGIN, userAgent: CHROME },
    { oldSubscription: subscription('https://push.example/old') });
  assert.deepEqual(refused, { ok: false, step: 'subscribe', status: 0, message: 'NotAllowedError: Registration failed - permission denied' });
  assert.equal(api.calls.length, 0, 'nothing registered');
  assert.match(failureDisplay(refused).options.body, /browser refused a new push subscription \(NotAllowedError/);

  const other = server({ ['POST ' + DEVICES_PATH]: [403, { error: 'forbidden: replaces_endpoint names a device another key registered; it was not replaced' }] });
  const forbidden = await resubscribe({ fetch: other.fetch, pushManager: pushManager('https://push.example/new'), origin: ORIGIN, userAgent: CHROME },
    { oldSubscription: subscription('https://push.example/old') });
  assert.equal(forbidden.ok === false && forbidden.status, 403);
  assert.match(failureDisplay(forbidden).options.body, /server refused the new subscription \(forbidden: replaces_endpoint/);

  const noBody = server({ ['GET ' + SETTINGS_PATH]: [200, {}] });
  const missing = await resubscribe({ fetch: noBody.fetch, pushManager: pushManager('x'), origin: ORIGIN, userAgent: CHROME }, {});
  assert.deepEqual(missing, { ok: false, step: 'key', status: 0, message: 'the server gave no vapid_public_key' });
});
