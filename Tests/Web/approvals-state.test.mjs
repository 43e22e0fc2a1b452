// Approvals (state/approvals.js): the inbox's list kept live by the global stream, a read with the frames seen during
// it applied on top, the filter, and the shell's pending set behind the tab badge.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  initialInbox, reduceInbox, visibleApprovals, pendingCount, applyPendingFrame,
} from '../../Sources/RalphMobileServer/Resources/web/assets/js/state/approvals.js';

const pending = (id, created_at = '2026-01-01T00:00:0' + id.slice(-1) + 'Z') => ({ id, state: 'pending', tool_name: 'Bash', created_at });

test('what the shell knows shows at once; frames add, update and (waiting filter) remove', () => {
  let state = initialInbox([pending('a1')]);
  assert.deepEqual(visibleApprovals(state).map((a) => a.id), ['a1']);
  state = reduceInbox(state, { type: 'frame', approval: pending('a2') });
  assert.deepEqual(visibleApprovals(state).map((a) => a.id), ['a2', 'a1'], 'newest first');
  assert.equal(pendingCount(state), 2);
  state = reduceInbox(state, { type: 'frame', approval: { id: 'a1', state: 'allowed', decision: 'allow' } });
  assert.deepEqual([...state.approvals.keys()], ['a2'], 'decided ones leave the waiting list');
  assert.equal(reduceInbox(state, { type: 'frame', approval: { state: 'pending' } }), state);
});

test('with the decided ones, a decision updates the row in place', () => {
  let state = reduceInbox(initialInbox([pending('a1')]), { type: 'filter', filter: 'all' });
  state = reduceInbox(state, { type: 'frame', approval: { id: 'a1', state: 'denied', decision: 'deny', decided_by: 'bob' } });
  const a1 = state.approvals.get('a1');
  assert.deepEqual([a1.state, a1.tool_name, a1.decided_by], ['denied', 'Bash', 'bob']);
  assert.deepEqual(visibleApprovals(state).map((a) => a.id), ['a1']);
  assert.equal(pendingCount(state), 0);
});

test('a read: frames seen during it go on top of its answer; a late older answer is ignored', () => {
  let state = reduceInbox(initialInbox(), { type: 'loading' });
  const first = state.loadToken;
  state = reduceInbox(state, { type: 'frame', approval: { id: 'a1', state: 'allowed', decision: 'allow' } });
  state = reduceInbox(state, { type: 'frame', approval: pending('a3') });
  state = reduceInbox(state, { type: 'loaded', token: first, approvals: [pending('a1'), pending('a2')] });
  assert.equal(state.loading, false);
  assert.deepEqual(visibleApprovals(state).map((a) => a.id).sort(), ['a2', 'a3'], 'a1 was decided during the read');
  const again = reduceInbox(state, { type: 'loading' });
  assert.equal(reduceInbox(again, { type: 'loaded', token: first, approvals: [] }), again, 'the older read answered late');
  assert.equal(reduceInbox(again, { type: 'load_failed', token: again.loadToken }).loading, false);
});

test('the shell pending set', () => {
  let map = new Map();
  map = applyPendingFrame(map, 'approval.pending', pending('a1'));
  map = applyPendingFrame(map, 'approval.pending', pending('a2'));
  const before = map;
  map = applyPendingFrame(map, 'approval.resolved', { id: 'a1', state: 'allowed' });
  assert.deepEqual([...map.keys()], ['a2']);
  assert.equal(before.size, 2, 'a new map each time');
  assert.equal(applyPendingFrame(map, 'approval.pending', null), map);
});
