// @ts-check
// The session screen's "Live" card for runs the server started in ralph's RPC mode: cost so far, context window use
// (with a bar), tool calls in progress, the agent wave and the latest acknowledgement. Hidden for runs read from files alone.

import { h, render } from '../ui.js';
import { costText, contextText, contextUse, tokensText, toolCallLines, ackText, waveText } from '../words/rpc.js';
import { stat } from './cards.js';

/** @typedef {import('../state/session.js').SessionState} SessionState */

/** @param {HTMLElement} card the card (hidden without RPC) @param {HTMLElement} body @param {SessionState} state @param {import('./cards.js').Memo} memo */
export function renderRpc(card, body, state, memo) {
  const rpc = /** @type {any} */ (state.detail).rpc;
  if (!memo.changed('rpc', rpc)) return;
  card.hidden = !rpc;
  if (!rpc) return;
  const context = contextText(rpc);
  const share = contextUse(rpc);
  const calls = toolCallLines(rpc);
  const ack = (rpc.acks || []).at(-1);
  const wave = waveText(rpc);
  render(body,
    h('div', { class: 'stats' },
      stat('Cost', costText(rpc)),
      stat('Tokens', tokensText(rpc)),
      context ? stat('Context', context) : null),
    share === null ? null : h('progress', { max: '1', value: String(share), 'aria-label': 'Context window use: ' + context, 'data-test': 'rpc-context' }),
    calls.length
      ? h('ul', { class: 'plain', 'data-test': 'rpc-tool-calls' }, calls.map((line) => h('li', {}, h('span', { class: 'muted' }, 'Running '), h('code', {}, line))))
      : null,
    wave ? h('p', { class: 'small', 'data-test': 'rpc-wave' }, wave) : null,
    ack ? h('p', { class: 'muted small', 'data-test': 'rpc-ack' }, ackText(ack)) : null,
    rpc.connected ? null : h('p', { class: 'muted small' }, 'ralph\'s RPC output ended' + (rpc.terminated_reason ? ' (' + rpc.terminated_reason + ')' : '') + '.'));
}
