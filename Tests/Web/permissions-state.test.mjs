// A conversation's permissions (state/permissions.js) and the composer's message rule (words/conversation.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { initialPermissions, reducePermissions, permissionMode, addedRules, usesText } from '../../Sources/RalphMobileServer/Resources/web/assets/js/state/permissions.js';
import { messageProblem, retryText, conversationTitle } from '../../Sources/RalphMobileServer/Resources/web/assets/js/words/conversation.js';

const rule = (id, display, fields = {}) => ({ id, rule: { display }, granted_by: 'k1', ...fields });

test('permissions events set the rules and the mode; conversation updates only the counts, version and modes', () => {
  let state = initialPermissions({ permission_mode: 'default', session_rules: [rule('r1', 'Bash(ls)')] });
  assert.equal(permissionMode(state), 'default');
  const before = state;
  state = reducePermissions(state, { type: 'permissions', event: { permission_mode: 'plan', session_rules: [rule('r1', 'Bash(ls)'), rule('r2', 'Read(a)')] } });
  assert.equal(permissionMode(state), 'plan');
  assert.deepEqual(addedRules(before, state).map((r) => r.id), ['r2']);
  state = reducePermissions(state, { type: 'conversation', conversation: { agent_version: '2.1', session_rules: [rule('r2', 'Read(a)', { uses: 3, last_used_at: 'x' }), rule('r9', 'New')] } });
  assert.equal(state.version, '2.1');
  assert.deepEqual(state.rules.map((r) => [r.id, r.uses ?? 0]), [['r1', 0], ['r2', 3]], 'which rules exist follows the permissions events only');
  state = reducePermissions(state, { type: 'revoked', id: 'r1' });
  assert.deepEqual(state.rules.map((r) => r.id), ['r2']);
  assert.equal(usesText(state.rules[0], () => '5m ago'), 'used 3 times, last 5m ago');
  assert.equal(usesText(rule('r', 'x', { uses: 1 }), () => ''), 'used once');
  assert.equal(usesText(rule('r', 'x'), () => ''), 'not used yet');
});

test('a message the server would refuse is caught before sending', () => {
  assert.equal(messageProblem('  \n'), 'Write a message first.');
  assert.equal(messageProblem('a\u0000b'), 'The message contains a NUL character.');
  assert.match(messageProblem('é'.repeat(50001)), /^The message is too long: at most 100 000 bytes \(it has 100.?002\)\.$/);
  assert.equal(messageProblem('Hello'), null);
});

test('conversation words', () => {
  assert.equal(retryText({ attempt: 3, max_retries: 10, error_status: 529, error: 'overloaded' }), 'Retrying the model API (attempt 3 of 10, HTTP 529): overloaded');
  assert.equal(retryText(null), 'Retrying the model API…');
  assert.equal(conversationTitle({ title: '  ' }), 'Untitled conversation');
});

test('the New conversation request', async () => {
  const { conversationRequest, modesHint } = await import('../../Sources/RalphMobileServer/Resources/web/assets/js/words/conversation.js');
  assert.deepEqual(conversationRequest({ cwd: ' app ', title: ' T ', model: 'sonnet', mode: 'plan', text: 'hi' }),
    { body: { cwd: 'app', title: 'T', model: 'sonnet', permission_mode: 'plan' } });
  assert.deepEqual(conversationRequest({ cwd: '.', title: '', model: '', mode: 'default', text: '' }), { body: { cwd: '.' } });
  assert.deepEqual(conversationRequest({ cwd: ' ', title: 'x'.repeat(201), model: '-rm', mode: 'default', text: 'é'.repeat(50001) }), { problems: [
    ['cwd', 'Enter a directory ("." for the workspace root).'],
    ['title', 'At most 200 characters.'],
    ['model', 'A short name without spaces that does not start with "-".'],
    ['message', 'At most 100 000 bytes.'],
  ] });
  assert.equal(modesHint(null, []), 'The server does not say which modes its claude accepts: only default is offered.');
  assert.equal(modesHint({ name: 'claude', version: '2.1' }, ['plan']), 'The modes claude 2.1 accepts.');
  assert.equal(modesHint({ name: 'claude', error: 'timeout' }, []), 'The server could not ask claude about itself (timeout): only default is offered.');
});
