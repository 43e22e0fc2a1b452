// ralph's RPC mode in words (words/rpc.js): cost, context, tool calls, acknowledgements and the steer notice.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { costText, contextText, contextUse, tokensText, toolCallLines, ackText, steerNotice, waveText } from '../../Sources/RalphMobileServer/Resources/web/assets/js/words/rpc.js';

const rpc = {
  cost_usd: 0.027, input_tokens: 6000, output_tokens: 600, context_window: 100000, context_tokens: 60000,
  iterations: [{ iteration: 1 }], tool_calls: [{ id: 't', name: 'Bash', input: { command: 'swift test' }, iteration: 3 }],
  acks: [{ message: 'Check it', applies_to: 'current', iteration: 3 }],
};

test('cost, tokens and context in the words the app uses', () => {
  assert.equal(costText(rpc), '$0.0270 so far (1 iteration)');
  assert.equal(tokensText(rpc), '6,000 in · 600 out');
  assert.equal(contextText(rpc), '60,000 of 100,000 tokens (60%)');
  assert.equal(contextUse(rpc), 0.6);
  assert.equal(contextText({ iterations: [] }), null);
});

test('tool calls in progress and acknowledgements', () => {
  assert.deepEqual(toolCallLines(rpc), ['Bash: swift test (iteration 3)']);
  assert.equal(ackText(rpc.acks[0]), 'acknowledged for this iteration (3): Check it');
  assert.equal(ackText({ message: 'later', applies_to: 'next' }), 'acknowledged for next iteration: later');
});

test('the notice after a steer follows the server answer', () => {
  assert.equal(steerNotice({ status: 'acknowledged', applies_to: 'current', acknowledgement: 'Now' }), 'ralph acknowledged it for this iteration: Now');
  assert.equal(steerNotice({ status: 'sent', applies_to: 'next' }), 'Sent to ralph for its next iteration; no acknowledgement yet');
  assert.equal(steerNotice({ status: 'written', applies_to: 'current' }), 'Written for this iteration (experimental: ralph does not acknowledge it)');
  assert.equal(steerNotice({ status: 'delivered', id: '46', applies_to: 'next' }), 'Guidance delivered as event #46; ralph reads it in its next iteration');
});

test('an agent wave in progress, and once completed (the app says the same)', () => {
  const wave = { hat: 'builder', worker_count: 3, timeout_secs: 300, iteration: 2, done: [{ index: 1, success: false, duration_ms: 80, preview: 'b' }], completed: false };
  assert.equal(waveText({ wave }), 'wave of builder (iteration 2): 1 of 3 workers done (1 failed)');
  assert.equal(waveText({ wave: { ...wave, completed: true, succeeded: 2, failed: 1, duration_ms: 480 } }), 'wave of builder (iteration 2): 3 workers, 1 failed, 0.5 s');
  assert.equal(waveText(rpc), null);
});
