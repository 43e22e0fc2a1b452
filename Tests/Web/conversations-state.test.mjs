// The conversations list (state/conversations.js): pinned and first page, more pages, live updates, archiving.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { initialConversations, reduceConversations, orderedConversations } from '../../Sources/RalphMobileServer/Resources/web/assets/js/state/conversations.js';

const c = (id, fields = {}) => ({ id, status: 'idle', last_activity_at: '2026-01-0' + id.slice(-1) + 'T00:00:00Z', ...fields });

test('pinned first, then the newest activity; more pages keep what is shown', () => {
  let state = reduceConversations(initialConversations(false), { type: 'loaded', pinned: [c('c1', { pinned: true })], page: { items: [c('c2'), c('c3')], next_cursor: 'n1', has_more: true } });
  assert.deepEqual(orderedConversations(state).map((x) => x.id), ['c1', 'c3', 'c2']);
  assert.deepEqual([state.cursor, state.hasMore], ['n1', true]);
  state = reduceConversations(state, { type: 'more', page: { items: [c('c3', { title: 'stale copy' }), c('c4')], next_cursor: null, has_more: false } });
  assert.equal(state.items.get('c3').title, undefined, 'a row already shown is not replaced by a page');
  assert.deepEqual(orderedConversations(state).map((x) => x.id), ['c1', 'c4', 'c3', 'c2']);
  assert.equal(state.hasMore, false);
});

test('updates, removals and archiving', () => {
  let state = reduceConversations(initialConversations(false), { type: 'loaded', pinned: [], page: { items: [c('c1'), c('c2')] } });
  state = reduceConversations(state, { type: 'updated', conversation: c('c2', { title: 'Renamed', status: 'running' }) });
  assert.equal(state.items.get('c2').title, 'Renamed');
  state = reduceConversations(state, { type: 'updated', conversation: c('c1', { archived: true }) });
  assert.equal(state.items.has('c1'), false, 'archived while archived ones are hidden: it leaves');
  assert.equal(reduceConversations(state, { type: 'updated', conversation: c('c9', { archived: true }) }), state);
  state = reduceConversations(state, { type: 'removed', id: 'c2' });
  assert.equal(state.items.size, 0);
  let shown = reduceConversations(initialConversations(true), { type: 'updated', conversation: c('c5', { archived: true }) });
  assert.deepEqual(orderedConversations(shown).map((x) => x.id), ['c5']);
  shown = reduceConversations(shown, { type: 'archived', show: false });
  assert.deepEqual(orderedConversations(shown), [], 'hidden, not forgotten, until the list is read again');
});
