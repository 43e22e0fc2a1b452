// The session screen's reducer (state/session.js) and event log (state/event-log.js): workflow frames folded into
// the event list, the `state` frame replacing the detail, global updates merged, reset and end.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { emptyEventLog, foldWorkflow, resetEventLog, lineOf } from '../../Sources/RalphMobileServer/Resources/web/assets/js/state/event-log.js';
import {
  initialSessionState, reduceSession, modeOf, needsDetailRefresh, hatColor, isActiveMode, MODE_HOLD_MS,
} from '../../Sources/RalphMobileServer/Resources/web/assets/js/state/session.js';

const detail = (fields = {}) => ({ id: 'run-1', mode: 'live', status: 'running', iteration: 1, event_count: 0, ...fields });
const workflow = (line, topic = 'build.task', check = 'abcdef01') => ({ type: 'workflow', data: { id: line, topic, ts: '2026-01-01T00:00:00Z' }, id: line + ':' + check });

test('stream ids order by their line', () => {
  assert.equal(lineOf('17:3fa2c901'), 17);
  assert.equal(lineOf('17'), 17);
  assert.ok(Number.isNaN(lineOf('abc')));
  assert.ok(Number.isNaN(lineOf('17:xyz')));
});

test('workflow frames fold newest first, each line once', () => {
  let state = initialSessionState(detail(), 1000);
  for (const line of [1, 2, 3]) state = reduceSession(state, workflow(line));
  assert.deepEqual(state.log.shown.map((row) => row.line), ['3', '2', '1']);
  assert.equal(state.log.shown[0].key, '3:abcdef01');
  assert.equal(state.log.received, 3);
  assert.deepEqual(state.log.exported.map((e) => e.id), [1, 2, 3]);
  // A replay overlapping what is shown changes nothing (the same state object comes back).
  const again = reduceSession(state, workflow(2));
  assert.equal(again, state);
  assert.equal(reduceSession(state, { type: 'workflow', data: 'not an event', id: '9:abcdef01' }), state);
});

test('the event log keeps the latest shown and exported events and counts the dropped ones', () => {
  let log = emptyEventLog();
  const limits = { shown: 3, exported: 4 };
  for (let line = 1; line <= 6; line += 1) log = foldWorkflow(log, { id: line, topic: 't' }, String(line), limits);
  assert.deepEqual(log.shown.map((row) => row.line), ['6', '5', '4']);
  assert.deepEqual(log.exported.map((e) => e.id), [3, 4, 5, 6]);
  assert.equal(log.dropped, 2);
  assert.equal(log.received, 6);
  assert.equal(log.lastOrder, 6);
});

test('an event without a stream id is keyed by its own id and not repeated', () => {
  let log = emptyEventLog();
  log = foldWorkflow(log, { id: 'x', topic: 't' }, undefined);
  const same = foldWorkflow(log, { id: 'x', topic: 't' }, '');
  assert.equal(same, log);
  assert.equal(log.shown[0].key, 'x');
});

test('a reset clears the list but keeps what the export and the count recorded; lines start again', () => {
  let state = initialSessionState(detail(), 0);
  for (const line of [1, 2]) state = reduceSession(state, workflow(line));
  state = reduceSession(state, { type: 'reset' });
  assert.deepEqual(state.log.shown, []);
  assert.equal(state.log.received, 2);
  assert.equal(state.log.exported.length, 2);
  state = reduceSession(state, workflow(1, 'fresh.start', '99999999'));
  assert.deepEqual(state.log.shown.map((row) => row.event.topic), ['fresh.start']);
  assert.equal(resetEventLog(emptyEventLog()).lastOrder, null);
});

test('a state frame replaces the detail and says the server streams it', () => {
  let state = initialSessionState(detail({ iteration: 1, hat_flow: [] }), 1000);
  assert.equal(needsDetailRefresh(state), false, 'while the first frame is awaited, nothing is read again');
  const frame = detail({ iteration: 4, hat: 'builder', hat_flow: [{ to: 'builder', topic: 'build.task', iteration: 4 }] });
  state = reduceSession(state, { type: 'state', detail: frame, at: 5000 });
  assert.equal(state.detail, frame);
  assert.equal(state.detail.iteration, 4);
  assert.equal(state.detailAt, 5000);
  assert.equal(state.stateFrames, 1);
  assert.equal(needsDetailRefresh(state), false);
  // A detail read with GET does not count as a frame.
  const read = reduceSession(initialSessionState(detail(), 0), { type: 'detail', detail: detail({ iteration: 2 }), at: 1 });
  assert.equal(read.stateFrames, 0);
  assert.equal(read.detail.iteration, 2);
});

test('a global session.updated merges into the detail of the same run only', () => {
  const state = initialSessionState(detail({ hat_flow: [{ to: 'planner' }], iteration: 1 }), 0);
  const merged = reduceSession(state, { type: 'global', session: { id: 'run-1', iteration: 7, mode: 'paused' }, at: 10 });
  assert.equal(merged.detail.iteration, 7);
  assert.equal(modeOf(merged), 'paused');
  assert.deepEqual(merged.detail.hat_flow, [{ to: 'planner' }], 'fields the update does not carry are kept');
  assert.equal(reduceSession(state, { type: 'global', session: { id: 'other', iteration: 9 }, at: 10 }), state);
});

test('mode changes, removal, the stream connection and the end', () => {
  let state = initialSessionState(detail(), 0);
  state = reduceSession(state, { type: 'mode', mode: 'paused', status: 'paused', at: 0 });
  assert.equal(state.detail.mode, 'paused');
  assert.equal(state.detail.status, 'paused');
  assert.equal(isActiveMode(modeOf(state)), true);
  state = reduceSession(state, { type: 'stream', state: 'live', attempts: 2 });
  assert.deepEqual([state.stream.state, state.stream.attempts], ['live', 2]);
  assert.equal(reduceSession(state, { type: 'stream', state: 'closed', attempts: 2 }), state, 'closing the page is not a state');
  state = reduceSession(state, { type: 'end', data: { reason: 'completed', mode: 'complete', status: 'completed' } });
  assert.equal(state.stream.state, 'ended');
  assert.equal(state.stream.end.reason, 'completed');
  assert.equal(modeOf(state), 'complete');
  assert.equal(isActiveMode(modeOf(state)), false);
  assert.equal(reduceSession(state, { type: 'removed', id: 'other' }).gone, false);
  assert.equal(reduceSession(state, { type: 'removed', id: 'run-1' }).gone, true);
  assert.equal(modeOf(initialSessionState({ id: 'x' }, 0)), 'complete', 'a detail without a mode is a finished run');
});

test('hats and their colors', () => {
  let state = initialSessionState(detail(), 0);
  assert.equal(state.hatsLoaded, false);
  state = reduceSession(state, { type: 'hats', hats: [{ id: 'builder', name: 'Builder', color: '#abc' }] });
  assert.equal(state.hatsLoaded, true);
  assert.equal(hatColor(state, 'builder'), '#abc');
  assert.equal(hatColor(state, 'BUILDER'), '#abc');
  assert.equal(hatColor(state, 'planner'), undefined);
  state = reduceSession(state, { type: 'iterations', iterations: { iterations: [{ number: 1 }] } });
  assert.equal(state.iterations.iterations.length, 1);
});

test('a server that sends no state frame: the screen re-reads the detail itself, until a frame comes', () => {
  let state = initialSessionState(detail(), 0);
  state = reduceSession(state, { type: 'no_state_frames' });
  assert.equal(state.stateless, true);
  assert.equal(needsDetailRefresh(state), true);
  assert.equal(reduceSession(state, { type: 'no_state_frames' }), state);
  state = reduceSession(state, { type: 'state', detail: detail({ iteration: 9 }), at: 1 });
  assert.equal(needsDetailRefresh(state), false, 'a late frame still counts');
  const streamed = reduceSession(initialSessionState(detail(), 0), { type: 'state', detail: detail(), at: 1 });
  assert.equal(reduceSession(streamed, { type: 'no_state_frames' }), streamed, 'frames came: nothing to fall back to');
});

test('a mode the page just set is not undone by a detail read before the change', () => {
  let state = initialSessionState(detail({ mode: 'live', status: 'running', iteration: 1 }), 0);
  state = reduceSession(state, { type: 'mode', mode: 'paused', status: 'paused', at: 1000 });
  // A frame computed before the pause reached the server's catalog: its other fields are taken, not its mode.
  state = reduceSession(state, { type: 'state', detail: detail({ mode: 'live', status: 'running', iteration: 2 }), at: 1100 });
  assert.deepEqual([modeOf(state), state.detail.status, state.detail.iteration], ['paused', 'paused', 2]);
  state = reduceSession(state, { type: 'global', session: { id: 'run-1', mode: 'live' }, at: 1200 });
  assert.equal(modeOf(state), 'paused');
  // The server agrees: the hold ends, and what it says next counts.
  state = reduceSession(state, { type: 'state', detail: detail({ mode: 'paused', status: 'paused', iteration: 2 }), at: 1300 });
  assert.equal(state.heldMode, null);
  state = reduceSession(state, { type: 'state', detail: detail({ mode: 'live', status: 'running', iteration: 3 }), at: 1400 });
  assert.equal(modeOf(state), 'live', 'resumed elsewhere');
  // Without agreement, the hold lasts MODE_HOLD_MS.
  let held = reduceSession(initialSessionState(detail(), 0), { type: 'mode', mode: 'paused', status: 'paused', at: 0 });
  held = reduceSession(held, { type: 'detail', detail: detail({ mode: 'live' }), at: MODE_HOLD_MS });
  assert.equal(modeOf(held), 'live');
  assert.equal(held.heldMode, null);
});
