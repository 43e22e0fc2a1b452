// Words for the hosts of a cluster (words/hosts.js): the host label of a row (none for a server on its own), the
// unreachable state, a host's state, what a control that got 503 host_offline says; and a new conversation made for
// another host (words/conversation.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  hostLabel, isUnreachable, UNREACHABLE_LABEL, unreachableLine, unreachableControlsLine, hostStateText, hostChipLabel, isHostOffline, hostOfflineMessage, hostOptionLabel,
} from '../../Sources/RalphMobileServer/Resources/web/assets/js/words/hosts.js';
import { conversationRequest } from '../../Sources/RalphMobileServer/Resources/web/assets/js/words/conversation.js';

const NOW = Date.parse('2026-03-01T10:05:00Z');

test('a row names its host in a cluster, and nothing for a server on its own', () => {
  assert.equal(hostLabel({ host: 'alpha', host_id: 'b7e0c2f1-aaaa' }), 'alpha');
  assert.equal(hostLabel({ host_id: 'b7e0c2f1-aaaa' }), 'b7e0c2f1', 'only the id known: its start');
  assert.equal(hostLabel({}), null);
  assert.equal(hostLabel({ host: null, host_id: null }), null);
  assert.equal(hostLabel(null), null);
});

test('a run whose host is offline is unreachable, never live', () => {
  assert.equal(isUnreachable({ mode: 'unreachable', status: 'unreachable', reachable: false }), true);
  assert.equal(isUnreachable({ mode: 'live', reachable: false }), true, 'reachable false wins over a stale mode');
  assert.equal(isUnreachable({ mode: 'live', status: 'running', reachable: true }), false);
  assert.equal(isUnreachable({ mode: 'live', status: 'running' }), false, 'a server on its own');
  assert.equal(UNREACHABLE_LABEL, 'unreachable — host offline');
  assert.match(unreachableLine({ host: 'alpha', reachable: false }), /^Host alpha is offline: this run cannot be paused/);
  assert.match(unreachableLine({ reachable: false }), /^Its host is offline/);
  assert.equal(unreachableControlsLine({ host: 'alpha' }), 'The controls come back when host alpha is online again.');
});

test('a host\'s state: this server, online, or offline with when it was last seen', () => {
  assert.equal(hostStateText({ id: 'b', name: 'bravo', online: true, is_self: true }, NOW), 'this server');
  assert.equal(hostStateText({ id: 'a', name: 'alpha', online: true }, NOW), 'online');
  assert.equal(hostStateText({ id: 'a', name: 'alpha', online: false, last_heartbeat_at: '2026-03-01T10:03:00Z' }, NOW), 'offline · last seen 2m ago');
  assert.equal(hostStateText({ id: 'a', name: 'alpha', online: false }, NOW), 'offline');
  assert.equal(hostChipLabel({ id: 'a', name: 'alpha', online: false, last_heartbeat_at: '2026-03-01T10:04:50Z' }, 1, NOW),
    'alpha, offline, last heartbeat 10s ago, 1 run');
  assert.equal(hostChipLabel({ id: 'b', name: 'bravo', online: true, is_self: true }, 2, NOW), 'bravo, online, this server, 2 runs');
});

test('a control that got 503 host_offline says the server\'s sentence', () => {
  const offline = { status: 503, code: 'host_offline', message: 'host_offline: host alpha is offline: its runs and conversations cannot be reached until it is back' };
  assert.equal(isHostOffline(offline), true);
  assert.equal(isHostOffline({ status: 503, code: 'unavailable', message: 'unavailable: busy' }), false);
  assert.equal(isHostOffline({ status: 404, code: 'session_not_found', message: 'session_not_found: x' }), false);
  assert.equal(isHostOffline(null), false);
  assert.equal(hostOfflineMessage(offline), 'Host alpha is offline: its runs and conversations cannot be reached until it is back.');
  const lost = { status: 503, code: 'host_offline', message: 'host_offline: host alpha went offline while carrying out POST /api/sessions/x/pause; it may or may not have been done' };
  assert.equal(hostOfflineMessage(lost), 'Host alpha went offline while carrying out POST /api/sessions/x/pause; it may or may not have been done.');
  assert.equal(hostOfflineMessage({ code: 'host_offline', message: 'host_offline' }, { host: 'alpha' }),
    'Host alpha is offline: it cannot be reached until it is back.');
});

test('the New conversation sheet names each host, this server and the offline ones', () => {
  assert.equal(hostOptionLabel({ id: 'b', name: 'bravo', online: true, is_self: true }), 'bravo (this server)');
  assert.equal(hostOptionLabel({ id: 'a', name: 'alpha', online: true }), 'alpha');
  assert.equal(hostOptionLabel({ id: 'a', name: 'alpha', online: false }), 'alpha — offline');
});

test('a conversation for another host carries it; one for this server is made as before', () => {
  const form = { cwd: '.', title: '', model: '', mode: 'default', text: '' };
  assert.deepEqual(conversationRequest({ ...form, host: 'h-a' }), { body: { cwd: '.', host: 'h-a' } });
  assert.deepEqual(conversationRequest({ ...form, host: null }), { body: { cwd: '.' } });
  assert.deepEqual(conversationRequest(form), { body: { cwd: '.' } });
});
