// The auto-reply form's rules (words/auto-reply.js): the settings a form describes or the problems by field, the
// server's complaints mapped to fields, the progress summary and the elapsed time.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { settingsFromForm, serverProblems, progressSummary, elapsedSecs } from '../../Sources/RalphMobileServer/Resources/web/assets/js/words/auto-reply.js';

const form = (fields = {}) => ({
  mode: 'smart_stop', max_iterations: '20', max_minutes: '', max_messages: '', min_confidence: '', prompt: '',
  stop_on_error: true, require_confirmation: false, allow_override: false, showstopper_detection: true, ...fields,
});

test('a valid form gives the settings, keeping what the form does not show', () => {
  const current = { mode: 'hybrid', max_iterations: 5, max_minutes: 30, min_confidence: 0.5, judge: { model: 'x' }, next_prompt: { strategy: 'judge', text: 'old' } };
  const result = settingsFromForm(form({ max_messages: '7', min_confidence: '0.9', prompt: 'Go on' }), current);
  assert.deepEqual(result, { settings: {
    mode: 'smart_stop', max_iterations: 20, max_messages: 7, min_confidence: 0.9, judge: { model: 'x' },
    stop_on_error: true, require_confirmation: false, allow_override: false, showstopper_detection: true,
    next_prompt: { strategy: 'judge', text: 'Go on' },
  } });
  assert.equal('max_minutes' in result.settings, false, 'an emptied limit is removed');
  assert.deepEqual(settingsFromForm(form(), null).settings.next_prompt, { strategy: 'fixed' });
  assert.equal(settingsFromForm(form(), null).settings.min_confidence, 0.8, 'empty confidence is the default');
});

test('problems by field', () => {
  assert.deepEqual(settingsFromForm(form({ max_iterations: '0', max_minutes: '2.5', max_messages: '101', min_confidence: '2' }), null), { problems: [
    ['max_iterations', 'A whole number from 1 to 500.'],
    ['max_minutes', 'A whole number from 1 to 480, or empty.'],
    ['max_messages', 'A whole number from 1 to 100, or empty.'],
    ['min_confidence', 'A number from 0 to 1.'],
  ] });
  assert.deepEqual(settingsFromForm(form({ mode: 'time_based' }), null), { problems: [['max_minutes', 'Time based needs max minutes.']] });
  assert.deepEqual(settingsFromForm(form({ mode: 'message_based' }), null), { problems: [['max_messages', 'Message based needs max messages.']] });
  assert.deepEqual(settingsFromForm(form({ mode: 'hybrid' }), null), { problems: [['max_minutes', 'Hybrid needs max minutes or max messages.']] });
  assert.deepEqual(settingsFromForm(form({ prompt: 'é'.repeat(5001) }), null), { problems: [['next_prompt.text', 'At most 10 000 bytes.']] }, 'bytes, not characters');
});

test('the server\'s complaints go to the fields they name', () => {
  const fields = ['mode', 'max_iterations', 'max_minutes', 'max_messages', 'min_confidence', 'next_prompt.text'];
  assert.deepEqual(serverProblems('invalid_body: max_iterations must be at most 500; hybrid needs a limit; unknown thing', fields), [
    ['max_iterations', 'max_iterations must be at most 500'],
    ['max_minutes', 'hybrid needs a limit'],
    [null, 'unknown thing'],
  ]);
});

test('progress summary and elapsed time', () => {
  assert.equal(progressSummary({ state: 'stopped', iterations: 0, max_iterations: 20, messages: 0 }), 'off');
  assert.equal(progressSummary({ state: 'running', iterations: 3, max_iterations: 20, messages: 3, confidence: 0.854, started_at: 'x' }), '3/20 cycles · 85%');
  const now = Date.parse('2026-01-01T00:01:00Z');
  assert.equal(elapsedSecs({ state: 'running', elapsed_secs: 10, updated_at: '2026-01-01T00:00:30Z', iterations: 0, max_iterations: 1, messages: 0 }, now), 40);
  assert.equal(elapsedSecs({ state: 'paused', elapsed_secs: 10, updated_at: '2026-01-01T00:00:30Z', iterations: 0, max_iterations: 1, messages: 0 }, now), 10);
});
