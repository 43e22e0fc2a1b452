// The chat state (state/chat.js): a conversation's stream folded into its transcript — turns, streamed text and the
// stored message it becomes, tool calls and their results, approvals and decisions, turn meta, failed turns, status,
// queued messages, earlier pages, and text read again for a page that joined mid-segment.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  initialChatState, reduceChat, applyChatEvent, idsToReconcile, announcementFor, isRuleAllowance, turnMetaText, nextApproval,
} from '../../Sources/RalphMobileServer/Resources/web/assets/js/state/chat.js';
import { toolState } from '../../Sources/RalphMobileServer/Resources/web/assets/js/state/chat-tools.js';

const AT = '2026-01-02T03:04:05.000Z';
const idle = { id: 'c1', status: 'idle', title: 'T' };
const emptyPage = { items: [], has_more: false, next_cursor: null, last_event_id: 0 };
const fold = (state, ...events) => events.reduce((s, [name, data]) => reduceChat(s, { type: 'event', name, data, at: AT }), state);
const messages = (state) => state.items.filter((i) => i.kind === 'message').map((m) => [m.role, m.text, m.id ?? null]);

test('a turn: the message sent, streamed text, then the stored message', () => {
  let state = initialChatState(idle, emptyPage);
  state = fold(state,
    ['turn_start', { turn_id: 't1', message_id: 'u1', text: 'Hello' }],
    ['chunk', { turn_id: 't1', text: 'Hi ' }],
    ['chunk', { turn_id: 't1', text: 'there' }]);
  assert.deepEqual(messages(state), [['user', 'Hello', 'u1'], ['assistant', 'Hi there', null]]);
  const streamed = state.items[1];
  assert.equal(streamed.streaming, true);
  assert.equal(streamed.partial, false, 'the page saw the turn start');
  state = fold(state, ['segment_end', { turn_id: 't1', message_id: 'a1' }]);
  assert.deepEqual(messages(state), [['user', 'Hello', 'u1'], ['assistant', 'Hi there', 'a1']]);
  assert.equal(state.items[1].streaming, false);
  assert.equal(state.items[1].key, streamed.key, 'the streamed item becomes the stored one (same element)');
  assert.deepEqual(state.streams, {});
});

test('a turn already on the page is not added again; a user message is not doubled', () => {
  const page = { ...emptyPage, items: [{ id: 'u1', role: 'user', text: 'Hello', turn_id: 't1' }] };
  let state = initialChatState(idle, page);
  state = fold(state, ['turn_start', { turn_id: 't1', message_id: 'u1', text: 'Hello' }]);
  assert.equal(state.items.length, 1);
  state = fold(state, ['turn_start', { turn_id: 't1', text: 'Hello' }]);
  assert.equal(state.items.length, 1, 'a user message of the same turn is there');
  assert.equal(state.boundaries.t1, true);
});

test('a turn the agent starts by itself is a system note', () => {
  const before = initialChatState(idle, emptyPage);
  const state = fold(before, ['turn_start', { turn_id: 't2', message_id: 's1', text: 'Background task finished', origin: 'agent' }]);
  assert.deepEqual(messages(state), [['system', 'Background task finished', 's1']]);
  assert.equal(announcementFor(before, 'turn_start', { turn_id: 't2', message_id: 's1', text: 'Background task finished', origin: 'agent' }),
    'Claude went on by itself: Background task finished');
});

test('streamed text whose stored message the page already has goes away', () => {
  const page = { ...emptyPage, items: [{ id: 'a1', role: 'assistant', text: 'Done', turn_id: 't1' }] };
  let state = initialChatState({ ...idle, status: 'running' }, page);
  state = fold(state, ['chunk', { turn_id: 't1', text: 'Do' }]);
  assert.equal(state.items.length, 2);
  assert.equal(state.items[1].partial, true, 'loaded while running, the segment start was not seen');
  state = fold(state, ['segment_end', { turn_id: 't1', message_id: 'a1' }]);
  assert.deepEqual(messages(state), [['assistant', 'Done', 'a1']]);
});

test('tool calls: start in the message, end with a result, unknown calls get a message', () => {
  let state = initialChatState(idle, emptyPage);
  state = fold(state,
    ['turn_start', { turn_id: 't1', message_id: 'u1', text: 'Run ls' }],
    ['chunk', { turn_id: 't1', text: 'Listing.' }],
    ['tool_start', { turn_id: 't1', message_id: 'a1', tool_use_id: 'tu1', name: 'Bash', input: { command: 'ls' } }]);
  assert.deepEqual(messages(state), [['user', 'Run ls', 'u1'], ['assistant', 'Listing.', 'a1']], 'the streamed text is the message holding the call');
  assert.deepEqual(state.items[1].toolIds, ['tu1']);
  assert.equal(toolState(state.tools.tu1), 'running');
  assert.equal(state.tools.tu1.turn, 't1');
  state = fold(state, ['tool_end', { turn_id: 't1', tool_use_id: 'tu1', name: 'Bash', input: { command: 'ls' }, output: 'a.txt', is_error: false }]);
  assert.equal(state.tools.tu1.output, 'a.txt');
  assert.equal(toolState(state.tools.tu1), 'done');
  state = fold(state, ['tool_end', { turn_id: 't1', message_id: 'a2', tool_use_id: 'tu2', name: 'Read', output: 'boom', is_error: true }]);
  assert.deepEqual(state.items[2].toolIds, ['tu2']);
  assert.equal(state.items[2].id, 'a2');
  assert.equal(toolState(state.tools.tu2), 'error');
});

test('approvals: a call waits, the decision is written on it, the pending list follows', () => {
  let state = initialChatState(idle, emptyPage);
  state = fold(state,
    ['turn_start', { turn_id: 't1', message_id: 'u1', text: 'write' }],
    ['tool_start', { turn_id: 't1', message_id: 'a1', tool_use_id: 'tu1', name: 'Write', input: { file_path: 'x' } }],
    ['permission_required', { approval_id: 'ap1', turn_id: 't1', tool_use_id: 'tu1', tool_name: 'Write', input: { file_path: 'x' } }]);
  assert.deepEqual(state.pendingApprovals.map((a) => [a.id, a.tool_name, a.conversation_id, a.state, a.created_at]), [['ap1', 'Write', 'c1', 'pending', AT]]);
  assert.equal(toolState(state.tools.tu1), 'awaiting');
  assert.equal(nextApproval(state, new Set()).id, 'ap1');
  assert.equal(nextApproval(state, new Set(['ap1'])), undefined);
  const before = state;
  state = fold(state, ['permission_resolved', { approval_id: 'ap1', decision: 'deny', by: 'alice', message: 'no' }]);
  assert.deepEqual(state.pendingApprovals, []);
  assert.equal(state.tools.tu1.approval, null);
  assert.deepEqual([state.tools.tu1.decision, state.tools.tu1.decided_by, state.tools.tu1.decision_message], ['deny', 'alice', 'no']);
  assert.equal(toolState(state.tools.tu1), 'denied');
  assert.equal(announcementFor(before, 'permission_resolved', { approval_id: 'ap1', decision: 'deny' }), 'Write denied.');
});

test('a call a session rule allowed, before and after its tool_start', () => {
  let state = initialChatState(idle, emptyPage);
  const resolved = { approval_id: 'ap9', decision: 'allow', by: 'rule Bash(ls)' };
  assert.equal(isRuleAllowance(state, resolved), true);
  assert.equal(fold(state, ['permission_resolved', resolved]), state, 'the page reads the approval to find the call');
  state = reduceChat(state, { type: 'allowed_by_rule', tool_use_id: 'tu1', decision: { decision: 'allow', decided_by: 'rule Bash(ls)' } });
  state = fold(state, ['tool_start', { turn_id: 't1', message_id: 'a1', tool_use_id: 'tu1', name: 'Bash', input: {} }]);
  assert.equal(state.tools.tu1.decided_by, 'rule Bash(ls)', 'the decision waited for its call');
  assert.deepEqual(state.allowedByRule, {});
  state = reduceChat(state, { type: 'allowed_by_rule', tool_use_id: 'tu1', decision: { decision: 'allow', decided_by: 'rule other' } });
  assert.equal(state.tools.tu1.decided_by, 'rule other');
});

test('complete: the turn meta on its message, calls without a result are stale', () => {
  let state = initialChatState(idle, emptyPage);
  state = fold(state,
    ['turn_start', { turn_id: 't1', message_id: 'u1', text: 'go' }],
    ['tool_start', { turn_id: 't1', message_id: 'a1', tool_use_id: 'tu1', name: 'Bash', input: {} }],
    ['chunk', { turn_id: 't1', text: 'All done' }],
    ['complete', { turn_id: 't1', message_id: 'a2', cost_usd: 0.5, duration_ms: 1500, usage: { input_tokens: 1000, output_tokens: 234 }, stop_reason: 'end_turn' }]);
  assert.equal(toolState(state.tools.tu1), 'stale');
  const last = state.items[state.items.length - 1];
  assert.equal(last.id, 'a2', 'the streamed text was stored as the completing message');
  assert.equal(last.turnMeta.text, turnMetaText({ cost_usd: 0.5, duration_ms: 1500, usage: { input_tokens: 1000, output_tokens: 234 } }));
  assert.match(last.turnMeta.text, /^\$0\.50 · 1\.5 s · 1.?234 tokens$/);
  assert.equal(turnMetaText({ stop_reason: 'interrupted' }), 'interrupted');
  assert.equal(turnMetaText({}), null);
});

test('a completed turn without an assistant message gets an aside', () => {
  const state = fold(initialChatState(idle, emptyPage), ['complete', { turn_id: 'tx', cost_usd: 0.02 }]);
  assert.deepEqual(state.items.map((i) => [i.kind, i.text]), [['aside', '$0.02']]);
});

test('a failed turn: what was streamed is kept as incomplete, the error is shown', () => {
  let state = initialChatState(idle, emptyPage);
  state = fold(state,
    ['turn_start', { turn_id: 't1', message_id: 'u1', text: 'go' }],
    ['chunk', { turn_id: 't1', text: 'Half' }],
    ['error', { turn_id: 't1', message: 'API overloaded', recoverable: true }]);
  assert.equal(state.items[1].incomplete, true);
  assert.equal(state.items[1].streaming, false);
  assert.deepEqual(state.items[2], { key: state.items[2].key, kind: 'error', message: 'API overloaded', recoverable: true });
});

test('status, title and permission mode', () => {
  let state = initialChatState({ ...idle, status: 'retrying', retry: { attempt: 1 } }, emptyPage);
  assert.deepEqual(state.retry, { attempt: 1 });
  state = fold(state, ['status', { status: 'retrying', queued: 2, retry: { attempt: 3, max_retries: 10 } }]);
  assert.deepEqual([state.status, state.queued, state.retry.attempt], ['retrying', 2, 3]);
  state = fold(state, ['status', { status: 'stalled', silent_secs: 90 }]);
  assert.deepEqual([state.status, state.queued, state.silentSecs, state.retry], ['stalled', 2, 90, null]);
  state = fold(state, ['status', { status: 'idle', queued: 0 }], ['title_update', { title: 'New title' }], ['permissions', { permission_mode: 'plan' }]);
  assert.deepEqual([state.status, state.queued, state.conversation.title, state.conversation.agent_permission_mode], ['idle', 0, 'New title', 'plan']);
  state = reduceChat(state, { type: 'conversation', conversation: { id: 'c1', pinned: true } });
  assert.equal(state.conversation.pinned, true);
  assert.equal(state.conversation.title, 'New title');
});

test('a message sent while a turn runs waits in the queue until its turn starts', () => {
  let state = initialChatState({ ...idle, status: 'running' }, emptyPage);
  state = reduceChat(state, { type: 'sent', turn_id: 't5', text: 'next', mode: 'queue', queued_position: 1, at: AT });
  assert.deepEqual(state.queue.map((q) => [q.turn_id, q.label]), [['t5', 'queued #1']]);
  assert.equal(reduceChat(state, { type: 'sent', turn_id: 't5', text: 'next', mode: 'queue', queued_position: 1, at: AT }), state);
  state = fold(state, ['turn_start', { turn_id: 't5', message_id: 'u5', text: 'next' }]);
  assert.deepEqual(state.queue, []);
  assert.deepEqual(messages(state), [['user', 'next', 'u5']]);
  // Sent after its turn started: nothing to queue.
  assert.equal(reduceChat(state, { type: 'sent', turn_id: 't5', text: 'next', mode: 'steer', queued_position: 0, at: AT }), state);
});

test('the approvals listed at load and the calls of the history that will get no result', () => {
  const page = { ...emptyPage, items: [
    { id: 'a1', role: 'assistant', turn_id: 't1', text: '', tool_calls: [{ tool_use_id: 'old', name: 'Bash' }, { tool_use_id: 'denied', name: 'Write' }] },
    { id: 'a2', role: 'assistant', turn_id: 't2', text: '', tool_calls: [{ tool_use_id: 'now', name: 'Bash' }, { tool_use_id: 'asks', name: 'Edit' }] },
  ] };
  let state = initialChatState({ ...idle, status: 'running' }, page);
  state = reduceChat(state, { type: 'approvals', approvals: [
    { id: 'p1', tool_use_id: 'asks', tool_name: 'Edit', state: 'pending' },
    { id: 'p0', tool_use_id: 'denied', tool_name: 'Write', state: 'denied', decision: 'deny', decided_by: 'bob' },
  ] });
  state = reduceChat(state, { type: 'settle' });
  assert.equal(toolState(state.tools.old), 'stale', 'an earlier turn');
  assert.equal(toolState(state.tools.denied), 'denied');
  assert.equal(toolState(state.tools.now), 'running', 'the last turn of a running conversation');
  assert.equal(toolState(state.tools.asks), 'awaiting');
  assert.deepEqual(state.pendingApprovals.map((a) => a.id), ['p1']);
  state = reduceChat(state, { type: 'approval_details', approval: { id: 'p1', reason: 'writes outside' } });
  assert.equal(state.pendingApprovals[0].reason, 'writes outside');
  assert.equal(state.pendingApprovals[0].tool_name, 'Edit');
  state = reduceChat(state, { type: 'approval_closed', id: 'p1' });
  assert.deepEqual(state.pendingApprovals, []);
});

test('an earlier page goes on top, without the messages already shown', () => {
  const page = { items: [{ id: 'm3', role: 'user', text: 'three' }], has_more: true, next_cursor: 'c3' };
  let state = initialChatState(idle, page);
  assert.equal(state.hasMore, true);
  state = reduceChat(state, { type: 'earlier', page: { items: [{ id: 'm1', role: 'user', text: 'one' }, { id: 'm2', role: 'assistant', text: 'two' }, { id: 'm3', role: 'user', text: 'three' }], has_more: false, next_cursor: null } });
  assert.deepEqual(messages(state).map((m) => m[2]), ['m1', 'm2', 'm3']);
  assert.equal(state.hasMore, false);
  assert.equal(new Set(state.items.map((i) => i.key)).size, 3, 'keys stay unique');
});

test('joined mid-segment: the stored text is read again and replaces the partial one', () => {
  let state = initialChatState({ ...idle, status: 'running' }, emptyPage);
  const before = state;
  state = fold(state, ['segment_end', { turn_id: 't1', message_id: 'a1' }]);
  assert.deepEqual(idsToReconcile(before, state), ['a1']);
  assert.equal(state.items[0].partial, true);
  const streamed = fold(state, ['chunk', { turn_id: 't2', text: 'par' }]);
  assert.deepEqual(idsToReconcile(state, streamed), [], 'nothing to read while it streams');
  const stored = fold(streamed, ['segment_end', { turn_id: 't2', message_id: 'a2' }]);
  assert.deepEqual(idsToReconcile(streamed, stored), ['a2']);
  const read = reduceChat(stored, { type: 'reconciled', ids: ['a2'], items: [{ id: 'a2', role: 'assistant', text: 'partial text' }, { id: 'zz', text: 'x' }] });
  assert.equal(read.items[1].text, 'partial text');
  assert.equal(read.items[1].partial, false);
  assert.deepEqual(idsToReconcile(stored, read), []);
});

test('the events the transcript does not hold leave it as it is', () => {
  const state = initialChatState(idle, emptyPage);
  assert.equal(applyChatEvent(state, 'auto_reply', { state: 'running' }, AT), state);
  assert.equal(applyChatEvent(state, 'title_update', {}, AT), state);
});

test('a file edit: the approval carries what it will change, tool_end and the stored call what it changed', () => {
  const proposed = [{ path: '/ws/notes.txt', kind: 'update', diff: '@@ -1 +1 @@\n-a\n+b\n', added: 1, removed: 1, binary: false, truncated: false }];
  const applied = [{ ...proposed[0], diff: '--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\n-a\n+b\n' }];
  let state = initialChatState({ ...idle, status: 'running' }, emptyPage);
  state = fold(state,
    ['tool_start', { turn_id: 't1', message_id: 'a1', tool_use_id: 'e1', name: 'Edit', input: { file_path: 'notes.txt' } }],
    ['permission_required', { approval_id: 'p1', turn_id: 't1', tool_use_id: 'e1', tool_name: 'Edit', input: {}, diffs: proposed }]);
  assert.deepEqual(state.pendingApprovals[0].diffs, proposed);
  assert.deepEqual(state.tools.e1.approval.diffs, proposed);
  assert.equal(state.tools.e1.diffs, undefined, 'nothing changed yet');
  state = fold(state,
    ['permission_resolved', { approval_id: 'p1', decision: 'allow', by: 'me' }],
    ['tool_end', { turn_id: 't1', tool_use_id: 'e1', name: 'Edit', output: 'updated', diffs: applied }]);
  assert.deepEqual(state.tools.e1.diffs, applied);
  assert.equal(toolState(state.tools.e1), 'done');
  // A tool_end without diffs (an older server) keeps what the call had.
  assert.deepEqual(fold(state, ['tool_end', { turn_id: 't1', tool_use_id: 'e1', output: 'updated' }]).tools.e1.diffs, applied);
  const page = { ...emptyPage, items: [{ id: 'a1', role: 'assistant', text: '', turn_id: 't1',
    tool_calls: [{ tool_use_id: 'e1', name: 'Edit', input: {}, output: 'updated', diffs: applied }] }] };
  assert.deepEqual(initialChatState(idle, page).tools.e1.diffs, applied);
});

test('a Codex conversation is announced as Codex (one without a backend, from an older server, as Claude)', () => {
  const codex = initialChatState({ ...idle, backend: 'codex' }, emptyPage);
  assert.equal(announcementFor(codex, 'permission_required', { approval_id: 'p1', tool_name: 'apply_patch' }), 'Codex asks to use apply_patch.');
  assert.equal(announcementFor(codex, 'complete', { turn_id: 't1' }), 'Codex finished.');
  assert.equal(announcementFor(initialChatState(idle, emptyPage), 'complete', { turn_id: 't1', stop_reason: 'interrupted' }), 'Claude finished (interrupted).');
});
