// The hosts of a cluster (state/hosts.js): `GET /api/hosts` read, `host.updated` frames folded in, the sessions list's
// host filter (in effect only in a cluster, for a host it knows), and the list narrowed to a host with live frames.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  initialHostsState, reduceHosts, showsHosts, onHost, hostFilterInEffect, filterByHost, countsByHost, hostNamed, selfHost, orderedHosts,
} from '../../Sources/RalphMobileServer/Resources/web/assets/js/state/hosts.js';
import {
  initialSessionsState, reduceSessions, sessionsView, FILTERS,
} from '../../Sources/RalphMobileServer/Resources/web/assets/js/state/sessions.js';

const bravo = { id: 'h-b', name: 'bravo', version: '1.0', online: true, last_heartbeat_at: '2026-03-01T10:00:00Z', is_self: true };
const alpha = { id: 'h-a', name: 'alpha', version: '1.0', online: true, last_heartbeat_at: '2026-03-01T10:00:00Z', is_self: false };
const charlie = { id: 'h-c', name: 'charlie', version: '1.0', online: true, last_heartbeat_at: '2026-03-01T10:00:00Z', is_self: false };
const cluster = () => reduceHosts(initialHostsState(), { type: 'fetched', list: { hosts: [charlie, bravo, alpha], clustered: true } });

test('a read orders this server first, then the others by name', () => {
  const state = cluster();
  assert.equal(state.loaded, true);
  assert.equal(state.clustered, true);
  assert.deepEqual(state.hosts.map((h) => h.name), ['bravo', 'alpha', 'charlie']);
  assert.equal(selfHost(state).name, 'bravo');
  assert.equal(showsHosts(state), true);
  assert.deepEqual(orderedHosts([alpha, bravo]).map((h) => h.id), ['h-b', 'h-a']);
});

test('a server on its own shows no hosts, whatever it lists', () => {
  const single = reduceHosts(initialHostsState(), { type: 'fetched', list: { hosts: [{ ...bravo }], clustered: false } });
  assert.equal(showsHosts(single), false);
  assert.equal(showsHosts(initialHostsState()), false, 'not read yet');
  // An older server without /api/hosts.
  const older = reduceHosts(initialHostsState(), { type: 'failed' });
  assert.equal(older.loaded, true);
  assert.equal(showsHosts(older), false);
  assert.equal(reduceHosts(cluster(), { type: 'failed' }).clustered, true, 'a failed re-read keeps what was read');
});

test('host.updated replaces its host in place and keeps this server first', () => {
  let state = cluster();
  state = reduceHosts(state, { type: 'updated', host: { ...alpha, online: false, last_heartbeat_at: '2026-03-01T10:05:00Z' } });
  assert.deepEqual(state.hosts.map((h) => [h.name, h.online]), [['bravo', true], ['alpha', false], ['charlie', true]]);
  assert.equal(state.hosts[1].last_heartbeat_at, '2026-03-01T10:05:00Z');
  // Back online.
  state = reduceHosts(state, { type: 'updated', host: { ...alpha, online: true } });
  assert.equal(state.hosts[1].online, true);
  // A host that joined since the read is added.
  state = reduceHosts(state, { type: 'updated', host: { id: 'h-d', name: 'delta', online: true, is_self: false } });
  assert.deepEqual(state.hosts.map((h) => h.name), ['bravo', 'alpha', 'charlie', 'delta']);
  assert.equal(reduceHosts(state, { type: 'updated', host: { name: 'no id' } }), state, 'a frame without an id changes nothing');
});

test('is_self stays this page server\'s to say', () => {
  const state = reduceHosts(cluster(), { type: 'updated', host: { ...bravo, is_self: false, online: true } });
  assert.equal(selfHost(state).name, 'bravo');
});

test('a host.updated before any read of a second host makes a cluster', () => {
  let state = reduceHosts(initialHostsState(), { type: 'fetched', list: { hosts: [bravo], clustered: false } });
  state = reduceHosts(state, { type: 'updated', host: alpha });
  assert.equal(state.clustered, true);
});

test('a run is on a host named by its id or its name, ignoring case, as ?host= decides', () => {
  const run = { id: 'r1', host: 'Alpha', host_id: 'h-a' };
  assert.equal(onHost(run, 'h-a'), true);
  assert.equal(onHost(run, 'alpha'), true);
  assert.equal(onHost(run, 'bravo'), false);
  assert.equal(onHost({ id: 'single' }, 'h-a'), false, 'a run without a host is on no host');
  assert.equal(onHost({ id: 'single' }, ''), true);
});

test('the host filter applies only in a cluster, for a host it has', () => {
  assert.equal(hostFilterInEffect(cluster(), 'h-a'), 'h-a');
  assert.equal(hostFilterInEffect(cluster(), 'h-gone'), 'all', 'a host that left the cluster');
  assert.equal(hostFilterInEffect(cluster(), null), 'all');
  const single = reduceHosts(initialHostsState(), { type: 'fetched', list: { hosts: [bravo], clustered: false } });
  assert.equal(hostFilterInEffect(single, 'h-a'), 'all', 'a server on its own is never filtered');
  assert.equal(hostFilterInEffect(initialHostsState(), 'h-a'), 'h-a', 'kept until the hosts are read');
  assert.equal(hostNamed(cluster(), 'h-a').name, 'alpha');
  assert.equal(hostNamed(cluster(), 'ALPHA').id, 'h-a');
  assert.equal(hostNamed(cluster(), 'all'), undefined);
});

test('counts by host and the list narrowed to a host, kept so by live frames', () => {
  const hosts = cluster();
  let state = reduceSessions(initialSessionsState(), { type: 'fetched', list: [
    { id: 'a1', host: 'alpha', host_id: 'h-a', reachable: true, mode: 'live', status: 'running', started_at: '2026-03-01T09:00:00Z' },
    { id: 'b1', host: 'bravo', host_id: 'h-b', reachable: true, mode: 'complete', status: 'completed', started_at: '2026-03-01T08:00:00Z' },
    { id: 'b2', host: 'bravo', host_id: 'h-b', reachable: true, mode: 'live', status: 'running', started_at: '2026-03-01T09:30:00Z' },
  ] });
  const all = [...state.sessions.values()];
  assert.deepEqual(countsByHost(hosts, all), { 'h-b': 2, 'h-a': 1, 'h-c': 0 });
  assert.deepEqual(filterByHost(all, 'all').length, 3);
  assert.deepEqual(sessionsView(state, 'h-a').all.map((s) => s.id), ['a1']);
  assert.deepEqual(sessionsView(state, 'h-b').all.map((s) => s.id), ['b2', 'b1']);
  assert.deepEqual(sessionsView(state, 'h-b').counts, { all: 2, live: 1, done: 1 });
  // A run that starts on alpha while the list shows alpha's runs appears; one on bravo does not.
  state = reduceSessions(state, { type: 'frame', name: 'session.added', data: { id: 'a2', host: 'alpha', host_id: 'h-a', mode: 'live', started_at: '2026-03-01T11:00:00Z' } });
  state = reduceSessions(state, { type: 'frame', name: 'session.added', data: { id: 'b3', host: 'bravo', host_id: 'h-b', mode: 'live', started_at: '2026-03-01T11:00:00Z' } });
  assert.deepEqual(sessionsView(state, 'h-a').all.map((s) => s.id), ['a2', 'a1']);
  assert.deepEqual(sessionsView(state).all.length, 5);
});

test('a run whose host is offline is neither live nor done: it is under All only', () => {
  let state = reduceSessions(initialSessionsState(), { type: 'fetched', list: [
    { id: 'a1', host: 'alpha', host_id: 'h-a', reachable: true, mode: 'live', status: 'running' },
  ] });
  assert.deepEqual(sessionsView(state).counts, { all: 1, live: 1, done: 0 });
  // alpha goes offline: its runs are announced again as unreachable.
  state = reduceSessions(state, { type: 'frame', name: 'session.updated', data: { id: 'a1', host: 'alpha', host_id: 'h-a', reachable: false, mode: 'unreachable', status: 'unreachable' } });
  const view = sessionsView(state);
  assert.deepEqual(view.counts, { all: 1, live: 0, done: 0 });
  assert.equal(view.live, 0);
  const live = FILTERS.find((f) => f.key === 'live');
  assert.equal(live.test({ id: 'x', reachable: false, mode: 'live' }), false, 'never live, even if a stale mode says so');
  // Back online.
  state = reduceSessions(state, { type: 'frame', name: 'session.updated', data: { id: 'a1', reachable: true, mode: 'live', status: 'running' } });
  assert.deepEqual(sessionsView(state).counts, { all: 1, live: 1, done: 0 });
});
