// The Notifications settings' words and requests (words/notifications.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { KINDS, channelText, testOutcomeText, subscribeProblem, unsupportedReason, deviceName, quietHoursProblem, updateRequest }
  from '../../Sources/RalphMobileServer/Resources/web/assets/js/words/notifications.js';

test('every notification kind has a label', () => {
  assert.deepEqual(KINDS.map((k) => k.kind), ['approval', 'question', 'run_finished', 'auto_reply', 'turn_stalled', 'run_silent', 'run_suspended']);
});

test('a channel says whether it is available and why not', () => {
  assert.equal(channelText({ channel: 'apns', available: false, reason: 'no --apns-key' }), 'APNs (iOS app): not available — no --apns-key');
  assert.equal(channelText({ channel: 'web_push', available: true }), 'Web Push (browsers): available');
  assert.equal(channelText({ channel: 'ntfy', available: true, reason: 'no buttons' }), 'ntfy: available (no buttons)');
});

test('a test delivery’s outcome in words', () => {
  assert.equal(testOutcomeText({ outcome: 'delivered', status: 201 }).ok, true);
  assert.match(testOutcomeText({ outcome: 'delivered', status: 201 }).text, /HTTP 201/);
  assert.deepEqual(testOutcomeText({ outcome: 'failed', status: 400, detail: 'bad key' }), { ok: false, text: 'The test was not delivered (HTTP 400): bad key' });
  assert.match(testOutcomeText({ outcome: 'expired', status: 410, detail: 'gone' }).text, /subscription is gone/);
});

test('why subscribing failed names the step and what to do', () => {
  assert.match(subscribeProblem('permission', new Error('denied')), /blocked for this site/);
  assert.match(subscribeProblem('permission', new Error('default')), /not given \(default\)/);
  assert.match(subscribeProblem('subscribe', Object.assign(new Error('push service not available'), { name: 'AbortError' })), /AbortError: push service not available/);
  assert.match(subscribeProblem('register', new Error('forbidden: needs operator')), /did not register this browser: forbidden/);
});

test('what a browser cannot do', () => {
  const all = { secure: true, serviceWorker: true, pushManager: true, notification: true, ios: false, standalone: false };
  assert.equal(unsupportedReason(all), null);
  assert.match(unsupportedReason({ ...all, secure: false }), /HTTPS/);
  assert.match(unsupportedReason({ ...all, ios: true, pushManager: false }), /Home Screen/);
  assert.match(unsupportedReason({ ...all, pushManager: false }), /does not support Web Push/);
});

test('a device is named after the browser and the system', () => {
  assert.equal(deviceName('Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 Chrome/130 Mobile Safari/537.36'), 'Chrome on Android');
  assert.equal(deviceName('Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605 Version/18 Mobile Safari/604'), 'Safari on iPhone');
  assert.equal(deviceName('Mozilla/5.0 (X11; Linux x86_64; rv:140) Gecko Firefox/140'), 'Firefox on Linux');
  assert.equal(deviceName(''), 'Browser');
});

test('quiet hours are both HH:MM or both empty, and not the same', () => {
  assert.equal(quietHoursProblem('', ''), null);
  assert.equal(quietHoursProblem('22:00', '07:00'), null);
  assert.match(quietHoursProblem('22:00', ''), /both/);
  assert.match(quietHoursProblem('25:00', '07:00'), /HH:MM/);
  assert.match(quietHoursProblem('07:00', '07:00'), /same/);
});

test('the PATCH body keeps the kinds in order, sets or clears the quiet window', () => {
  assert.deepEqual(updateRequest({ kinds: ['question', 'approval'], privacy: 'private', start: '22:00', end: '07:00', timeZone: 'Europe/Paris' }),
    { kinds: ['approval', 'question'], privacy: 'private', quiet_hours: { start: '22:00', end: '07:00', time_zone: 'Europe/Paris' } });
  assert.deepEqual(updateRequest({ kinds: [], privacy: 'full', start: '', end: '', timeZone: 'UTC' }), { kinds: [], privacy: 'full', clear_quiet_hours: true });
});
