// What a push becomes on screen (notify/message.js) and what a click on it does (notify/action.js), as the service
// worker uses them.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { parseMessage, displayFor, notificationActions, openURL } from '../../Sources/RalphMobileServer/Resources/web/assets/js/notify/message.js';
import { clickPlan, outcomeDisplay, sendAction, ACTIONS_PATH } from '../../Sources/RalphMobileServer/Resources/web/assets/js/notify/action.js';

const chrome = { textReply: true, maxActions: 2 };
const safari = { textReply: false, maxActions: 2 };
const action = (name, title, input = false) => ({ action: name, title, token: 'rmact_' + name, url: '/api/notifications/actions', input });
const approval = {
  id: 'm1', kind: 'approval', subject: 'conversation', subject_id: 'c1', title: 'Bash waits: ls', body: 'In “docs”', tag: 'approval-a1',
  path: '/#/chats/c1', actions: [action('allow', 'Allow'), action('deny', 'Deny')], created_at: '2026-11-23T18:00:00Z',
};
const question = {
  id: 'm2', kind: 'question', subject: 'session', subject_id: 'r1', title: 'Question', body: 'Which branch?', tag: 'question-q1',
  path: '/#/sessions/r1', actions: [action('answer', 'Answer', true)], created_at: '2026-11-23T18:00:00Z',
};

test('an approval shows its title, body, tag, the message as data, and Allow / Deny buttons', () => {
  const display = displayFor(parseMessage(JSON.stringify(approval)), chrome, false);
  assert.equal(display.show, true);
  assert.equal(display.title, 'Bash waits: ls');
  assert.equal(display.options.body, 'In “docs”');
  assert.equal(display.options.tag, 'approval-a1');
  assert.equal(display.options.data.id, 'm1');
  assert.deepEqual(display.options.actions, [{ action: 'allow', title: 'Allow' }, { action: 'deny', title: 'Deny' }]);
  assert.equal(display.options.requireInteraction, true);
  assert.equal(display.options.silent, false);
  assert.equal(display.options.renotify, false, 'a first notification is not a re-notification');
  assert.equal(display.options.timestamp, Date.parse('2026-11-23T18:00:00Z'));
});

test('an update of a notification on screen buzzes again, unless it is quiet (silent and renotify never together)', () => {
  assert.equal(displayFor(approval, chrome, true).options.renotify, true);
  const quiet = displayFor({ ...approval, quiet: true }, chrome, true);
  assert.equal(quiet.options.silent, true);
  assert.equal(quiet.options.renotify, false);
});

test('a question’s Answer is a text field where the browser takes replies, else a button that opens the page', () => {
  assert.deepEqual(notificationActions(question, chrome), [{ action: 'answer', title: 'Answer', type: 'text', placeholder: 'Your answer' }]);
  assert.deepEqual(notificationActions(question, safari), [{ action: 'answer-open', title: 'Answer…' }]);
  assert.equal(notificationActions({ ...approval, actions: [...approval.actions, action('x', 'X')] }, { textReply: true, maxActions: 2 }).length, 2);
  assert.deepEqual(notificationActions(approval, { textReply: true, maxActions: 0 }), []);
});

test('a withdraw message closes the notification with its tag and shows nothing', () => {
  assert.deepEqual(displayFor({ ...approval, withdraw: true, actions: [] }, chrome, true), { show: false, withdraw: 'approval-a1' });
});

test('a push that is not a message says what is wrong', () => {
  assert.throws(() => parseMessage('not json'), /not JSON/);
  assert.throws(() => parseMessage('[1]'), /not a JSON object/);
  assert.throws(() => parseMessage('{"title": "x"}'), /no tag/);
  assert.throws(() => parseMessage('{"title": "x", "tag": "t", "actions": 3}'), /actions/);
  assert.deepEqual(parseMessage('{"title": "x", "tag": "t"}').actions, []);
});

test('a tap opens the message’s dashboard path on this origin only', () => {
  assert.equal(openURL('/#/chats/c1', 'http://h:1'), 'http://h:1/#/chats/c1');
  assert.equal(openURL('https://evil.test/#/x', 'http://h:1'), 'http://h:1/#/sessions');
  assert.equal(openURL('//evil.test/x', 'http://h:1'), 'http://h:1/#/sessions');
  assert.equal(openURL(undefined, 'http://h:1'), 'http://h:1/#/sessions');
});

test('a click: the body opens the page; Allow sends its token; Answer sends the typed text, or opens the page when empty', () => {
  assert.deepEqual(clickPlan(approval, '', null), { kind: 'open', path: '/#/chats/c1' });
  assert.deepEqual(clickPlan(approval, 'allow', null), { kind: 'send', token: 'rmact_allow', text: undefined });
  assert.deepEqual(clickPlan(approval, 'deny', null), { kind: 'send', token: 'rmact_deny', text: undefined });
  assert.deepEqual(clickPlan(question, 'answer', '  main  '), { kind: 'send', token: 'rmact_answer', text: 'main' });
  assert.deepEqual(clickPlan(question, 'answer', ''), { kind: 'open', path: '/#/sessions/r1' });
  assert.deepEqual(clickPlan(question, 'answer-open', null), { kind: 'open', path: '/#/sessions/r1' });
  assert.deepEqual(clickPlan(approval, 'unknown', null), { kind: 'open', path: '/#/chats/c1' });
  assert.deepEqual(clickPlan(null, 'allow', null), { kind: 'open', path: '/#/sessions' });
});

/** A fetch double that answers `status` with `body` and records what it was asked. */
function fakeFetch(status, body) {
  const calls = [];
  const fn = async (url, init) => {
    calls.push({ url, init });
    return { ok: status >= 200 && status < 300, status, text: async () => (typeof body === 'string' ? body : JSON.stringify(body)) };
  };
  return { fn, calls };
}

test('an action POSTs {token, text} as JSON to this origin’s actions route, with no credentials', async () => {
  const { fn, calls } = fakeFetch(200, { action: 'allow', subject: 'conversation', subject_id: 'c1', detail: 'Allowed: Bash' });
  const result = await sendAction(fn, 'http://h:1', 'rmact_x', undefined);
  assert.deepEqual(result, { ok: true, detail: 'Allowed: Bash', action: 'allow' });
  assert.equal(calls[0].url, 'http://h:1' + ACTIONS_PATH);
  assert.equal(calls[0].init.method, 'POST');
  assert.equal(calls[0].init.credentials, 'omit');
  assert.equal(calls[0].init.headers['Content-Type'], 'application/json');
  assert.deepEqual(JSON.parse(calls[0].init.body), { token: 'rmact_x' });
  await sendAction(fn, 'http://h:1', 'rmact_y', 'main');
  assert.deepEqual(JSON.parse(calls[1].init.body), { token: 'rmact_y', text: 'main' });
});

test('a refused action comes back with the contract’s prefix and the server’s sentence, and its notification says why', async () => {
  const used = await sendAction(fakeFetch(409, { error: 'action_token_used: this action was carried out already' }).fn, 'http://h:1', 't', undefined);
  assert.deepEqual(used, { ok: false, status: 409, code: 'action_token_used', message: 'action_token_used: this action was carried out already' });
  const shown = outcomeDisplay(approval, used);
  assert.equal(shown.title, 'Already done');
  assert.equal(shown.brief, false);
  assert.match(shown.options.body, /carried out already/);
  assert.equal(shown.options.tag, 'approval-a1');
  assert.deepEqual(shown.options.data.actions, [], 'the replacement has no buttons: its token is spent');
  const down = await sendAction(async () => { throw new TypeError('Failed to fetch'); }, 'http://h:1', 't', undefined);
  assert.equal(down.code, 'unreachable');
  assert.equal(outcomeDisplay(approval, down).title, 'Server unreachable');
  const odd = await sendAction(fakeFetch(502, 'Bad Gateway').fn, 'http://h:1', 't', undefined);
  assert.deepEqual([odd.ok, odd.status, odd.message], [false, 502, '502 Bad Gateway']);
  assert.equal(outcomeDisplay(approval, odd).title, 'The action failed');
});

test('a done action replaces the notification briefly and silently with what was done', () => {
  const shown = outcomeDisplay(approval, { ok: true, detail: 'Allowed: Bash', action: 'allow' });
  assert.equal(shown.title, 'Allowed: Bash');
  assert.equal(shown.brief, true);
  assert.equal(shown.options.silent, true);
  assert.equal(shown.options.data.outcome, 'done');
});
