// Presence reports for each dashboard route (notify/presence.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { foregroundReport, backgroundReport, REFRESH_SECONDS } from '../../Sources/RalphMobileServer/Resources/web/assets/js/notify/presence.js';

test('a run or a conversation is reported with its id; other screens by their name', () => {
  assert.deepEqual(foregroundReport('#/sessions/r-1', 'dev-1'), { foreground: true, device_id: 'dev-1', screen: 'session', subject_id: 'r-1' });
  assert.deepEqual(foregroundReport('#/chats/c%201', null), { foreground: true, screen: 'conversation', subject_id: 'c 1' });
  assert.deepEqual(foregroundReport('#/approvals', null), { foreground: true, screen: 'approvals' });
  assert.deepEqual(foregroundReport('#/chats', null), { foreground: true, screen: 'chats' });
  assert.deepEqual(foregroundReport('#/library/prompts', null), { foreground: true, screen: 'library' });
  assert.deepEqual(foregroundReport('#/settings', null), { foreground: true, screen: 'settings' });
  assert.deepEqual(foregroundReport('#/new', null), { foreground: true, screen: 'create' });
  assert.deepEqual(foregroundReport('', null), { foreground: true, screen: 'sessions' }, 'no hash is the sessions list');
  assert.deepEqual(foregroundReport('#/nowhere/at/all', null), { foreground: true, screen: 'other' });
});

test('a subject id longer than the server takes is cut to 200 characters; a bad escape is kept as written', () => {
  assert.equal(foregroundReport('#/chats/' + 'x'.repeat(300), null).subject_id.length, 200);
  assert.equal(foregroundReport('#/chats/%E0%A4%A', null).subject_id, '%E0%A4%A');
});

test('leaving reports foreground false, with the device when subscribed; reports refresh every 30 s', () => {
  assert.deepEqual(backgroundReport('dev-1'), { foreground: false, device_id: 'dev-1' });
  assert.deepEqual(backgroundReport(null), { foreground: false });
  assert.equal(REFRESH_SECONDS, 30);
});
