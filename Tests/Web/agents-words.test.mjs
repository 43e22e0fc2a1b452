// The agent backends (words/agents.js) as GET /api/health lists them: names, which can be used, the permission modes
// each offers with its own default; and the New conversation request for a backend (words/conversation.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  agentLabel, agentName, agentsOf, isUsable, preferredBackend, defaultMode, modeOptions, agentLine,
} from '../../Sources/RalphMobileServer/Resources/web/assets/js/words/agents.js';
import { conversationRequest } from '../../Sources/RalphMobileServer/Resources/web/assets/js/words/conversation.js';

const claude = { name: 'claude', command: 'claude', version: '2.1.330', permission_modes: ['acceptEdits', 'plan', 'bypassPermissions'] };
const codex = { name: 'codex', command: 'codex', version: '0.147.0', permission_modes: ['untrusted', 'on-request', 'never'] };
const missingCodex = { name: 'codex', command: 'codex', permission_modes: ['untrusted', 'on-request', 'never'], error: 'looked for codex: not found' };

test('names: the product in lists, the short name in sentences; no backend is Claude (an older server)', () => {
  assert.deepEqual([agentLabel('claude'), agentLabel('codex'), agentLabel(undefined), agentLabel('gemini')], ['Claude Code', 'Codex', 'Claude Code', 'gemini']);
  assert.deepEqual([agentName('claude'), agentName('codex'), agentName(null)], ['Claude', 'Codex', 'Claude']);
  assert.equal(agentLine(claude), 'Claude Code 2.1.330');
  assert.equal(agentLine(missingCodex), 'Codex \u2014 not available: looked for codex: not found');
});

test('the agents of /api/health, in its order; the first usable one is chosen', () => {
  assert.deepEqual(agentsOf({ agents: [claude, null, { version: 'x' }, missingCodex] }), [claude, missingCodex]);
  assert.deepEqual(agentsOf({}), []);
  assert.deepEqual(agentsOf(null), []);
  assert.equal(isUsable(claude), true);
  assert.equal(isUsable(missingCodex), false);
  assert.equal(preferredBackend([claude, codex]), 'claude');
  assert.equal(preferredBackend([{ ...claude, error: 'gone' }, codex]), 'codex');
  assert.equal(preferredBackend([{ ...claude, error: 'gone' }]), 'claude');
  assert.equal(preferredBackend([]), 'claude');
});

test('modes: claude offers default plus exactly what it accepts; Codex its policies, untrusted (its default) first', () => {
  assert.deepEqual(modeOptions(claude).map((o) => o.value), ['default', 'acceptEdits', 'plan', 'bypassPermissions']);
  assert.equal(modeOptions(claude)[0].isDefault, true);
  assert.deepEqual(modeOptions(codex).map((o) => o.value), ['untrusted', 'on-request', 'never']);
  assert.match(modeOptions(codex)[0].label, /^untrusted — .*\(its default\)$/);
  assert.match(modeOptions(codex)[2].label, /^never — /);
  assert.deepEqual(modeOptions({ name: 'codex', permission_modes: ['never', 'untrusted'] }).map((o) => o.value), ['untrusted', 'never']);
  assert.deepEqual(modeOptions(null).map((o) => o.value), ['default']);
  assert.deepEqual([defaultMode(claude), defaultMode(codex), defaultMode({ name: 'other', permission_modes: ['ask', 'yolo'] })], ['default', 'untrusted', 'ask']);
});

test('the request names a backend other than claude, and a mode only when it is not the backend\'s default', () => {
  const form = { cwd: '.', title: '', model: '', text: '' };
  assert.deepEqual(conversationRequest({ ...form, mode: 'default', backend: 'claude', defaultMode: 'default' }), { body: { cwd: '.' } });
  assert.deepEqual(conversationRequest({ ...form, mode: 'untrusted', backend: 'codex', defaultMode: 'untrusted' }), { body: { cwd: '.', backend: 'codex' } });
  assert.deepEqual(conversationRequest({ ...form, mode: 'never', backend: 'codex', defaultMode: 'untrusted', model: 'gpt-5.5' }),
    { body: { cwd: '.', backend: 'codex', model: 'gpt-5.5', permission_mode: 'never' } });
  assert.deepEqual(conversationRequest({ ...form, mode: 'plan', backend: 'claude' }), { body: { cwd: '.', permission_mode: 'plan' } });
});
