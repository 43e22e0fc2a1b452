// The sessions list (state/sessions.js): global frames folded into the list, a read of the list with the frames that
// arrived during it applied on top, filters and order.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  initialSessionsState, reduceSessions, applySessionFrame, sessionsView, isActiveSession, byNewest,
} from '../../Sources/RalphMobileServer/Resources/web/assets/js/state/sessions.js';

const frame = (name, data) => ({ type: 'frame', name, data });

test('added, updated (partial) and removed frames', () => {
  let state = initialSessionsState();
  state = reduceSessions(state, frame('session.added', { id: 'a', mode: 'live', status: 'running', iteration: 1, task_name: 'Task A' }));
  state = reduceSessions(state, frame('session.updated', { id: 'a', iteration: 3 }));
  assert.deepEqual(state.sessions.get('a'), { id: 'a', mode: 'live', status: 'running', iteration: 3, task_name: 'Task A' });
  state = reduceSessions(state, frame('session.added', { id: 'b', mode: 'complete' }));
  state = reduceSessions(state, frame('session.removed', { id: 'a' }));
  assert.deepEqual([...state.sessions.keys()], ['b']);
  assert.equal(reduceSessions(state, frame('session.updated', { mode: 'live' })), state, 'a frame without an id is ignored');
});

test('frames are applied to a new map, the old one is untouched', () => {
  const before = new Map([['a', { id: 'a', iteration: 1 }]]);
  const after = applySessionFrame(before, 'session.updated', { id: 'a', iteration: 2 });
  assert.equal(before.get('a').iteration, 1);
  assert.equal(after.get('a').iteration, 2);
});

test('frames that arrive while the list is read are applied on top of its answer', () => {
  let state = initialSessionsState();
  state = reduceSessions(state, { type: 'fetching' });
  state = reduceSessions(state, frame('session.updated', { id: 'a', iteration: 9, mode: 'paused' }));
  state = reduceSessions(state, frame('session.removed', { id: 'gone' }));
  state = reduceSessions(state, { type: 'fetched', list: [{ id: 'a', iteration: 5, mode: 'live', task_name: 'A' }, { id: 'gone', mode: 'live' }] });
  assert.equal(state.loaded, true);
  assert.equal(state.buffered, null);
  assert.deepEqual(state.sessions.get('a'), { id: 'a', iteration: 9, mode: 'paused', task_name: 'A' });
  assert.equal(state.sessions.has('gone'), false);
  // The next read replaces the list: a run the answer no longer has goes away.
  state = reduceSessions(reduceSessions(state, { type: 'fetching' }), { type: 'fetched', list: [] });
  assert.equal(state.sessions.size, 0);
});

test('a failed read keeps the list and stops buffering', () => {
  let state = reduceSessions(initialSessionsState(), { type: 'fetched', list: [{ id: 'a' }] });
  state = reduceSessions(reduceSessions(state, { type: 'fetching' }), { type: 'failed' });
  assert.equal(state.buffered, null);
  assert.deepEqual([...state.sessions.keys()], ['a']);
});

test('newest first, counts per filter', () => {
  let state = reduceSessions(initialSessionsState(), { type: 'fetched', list: [
    { id: 'old', mode: 'complete', started_at: '2026-01-01T00:00:00Z' },
    { id: 'new', mode: 'live', started_at: '2026-03-01T00:00:00Z' },
    { id: 'mid', mode: 'paused', started_at: '2026-02-01T00:00:00Z' },
    { id: 'boot', status: 'starting' },
  ] });
  const view = sessionsView(state);
  assert.deepEqual(view.all.map((s) => s.id), ['new', 'mid', 'old', 'boot']);
  assert.deepEqual(view.counts, { all: 4, live: 3, done: 1 });
  assert.equal(view.live, 3);
  assert.equal(isActiveSession({ id: 'x', mode: 'complete' }), false);
  assert.ok(byNewest({ id: 'a', started_at: '2026-01-01T00:00:00Z' }, { id: 'b', started_at: '2026-01-01T00:00:00Z' }) < 0, 'ties by id');
});
