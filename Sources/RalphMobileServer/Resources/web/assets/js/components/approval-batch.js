// @ts-check
// Allowing or denying several approvals at once from the inbox: the confirmation sheet (each call in one line, a file
// edit's diff folded under it; an optional message to the agent for a deny), the request, and the results card (which
// calls were decided, which were not and why).

import { api } from '../api.js';
import { h, render, toast, openSheet } from '../ui.js';
import { callSummary, decisionWords } from '../words/approval.js';
import { fileDiffs, displayPath } from '../diff/file-diff.js';
import { diffFold } from './diff-view.js';

/** @typedef {import('../words/approval.js').Approval} Approval */

/**
 * @typedef {object} BatchContext
 * @property {(id: string) => Approval | undefined} get
 * @property {(a: Approval) => string} titleOf
 * @property {(a: Approval) => void} onDecided an approval the server decided
 * @property {(id: string) => void} onAnswered an id the server answered (decided or not): no longer selected
 * @property {HTMLElement} results the results card
 */

/// Sends the decision for `ids` and shows what happened in the results card.
/** @param {string[]} ids @param {string} decision @param {string | undefined} message @param {BatchContext} ctx */
export async function decideBatch(ids, decision, message, ctx) {
  if (!ids.length) return;
  /** @type {{ids: string[], decision: string, message?: string}} */
  const body = { ids, decision };
  if (message) body.message = message;
  const asked = new Map(ids.map((id) => [id, ctx.get(id)]));
  const response = await api.post('/api/approvals', body);
  const lines = [];
  let ok = 0;
  for (const r of response.results) {
    const a = asked.get(r.id) || ctx.get(r.id) || { tool_name: r.id, input: null };
    const call = [h('strong', {}, a.tool_name), ' ', callSummary(a, displayPath)];
    if (r.approval) {
      ok += 1;
      ctx.onDecided(r.approval);
      lines.push(h('li', { class: 'ok' }, '\u2713 ', call, ' — ', decisionWords(decision)));
    } else {
      lines.push(h('li', { class: 'failed' }, '\u2717 ', call, ' — ', r.error || 'not applied'));
    }
    ctx.onAnswered(r.id);
  }
  render(ctx.results,
    h('div', { class: 'card-head' },
      h('h3', {}, ok + ' of ' + response.results.length + ' ' + decisionWords(decision)),
      h('button', { type: 'button', class: 'icon-btn', 'aria-label': 'Hide the results', onclick: () => { ctx.results.hidden = true; } }, '\u2715')),
    h('ul', { class: 'batch-lines', 'data-test': 'batch-results' }, lines));
  ctx.results.hidden = false;
  toast(ok + ' of ' + response.results.length + ' ' + decisionWords(decision));
}

/// The confirmation sheet for deciding `ids` at once.
/** @param {string[]} ids @param {string} decision @param {BatchContext} ctx */
export function batchSheet(ids, decision, ctx) {
  if (!ids.length) return;
  const deny = decision === 'deny';
  openSheet({
    title: (deny ? 'Deny ' : 'Allow ') + ids.length + (ids.length === 1 ? ' tool call?' : ' tool calls?'),
    build: (/** @type {(result: unknown) => void} */ close) => {
      const message = deny ? /** @type {HTMLTextAreaElement} */ (h('textarea', { id: 'batch-deny-message', rows: 2, 'data-test': 'batch-deny-message', maxlength: 4000, placeholder: 'e.g. Stop and wait for me' })) : null;
      const error = h('p', { class: 'field-error', role: 'alert', hidden: true });
      const confirm = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', class: 'btn ' + (deny ? 'danger' : 'primary'), 'data-test': 'batch-confirm' }, deny ? 'Deny all' : 'Allow all'));
      confirm.addEventListener('click', async () => {
        confirm.disabled = true;
        try {
          await decideBatch(ids.filter((id) => ctx.get(id)?.state === 'pending'), decision, message ? message.value.trim() : undefined, ctx);
          close(true);
        } catch (failure) {
          error.textContent = /** @type {Error} */ (failure).message;
          error.hidden = false;
        } finally {
          confirm.disabled = false;
        }
      });
      return h('div', {},
        h('ul', { class: 'batch-preview' }, ids.map((id) => {
          const a = ctx.get(id);
          if (!a) return null;
          const diffs = fileDiffs(a.diffs);
          return h('li', { 'data-test': 'batch-item' }, h('strong', {}, a.tool_name), ' ', h('span', { class: 'mono' }, callSummary(a, displayPath)),
            h('span', { class: 'muted small' }, ' · ' + ctx.titleOf(a)), diffs.length ? diffFold(diffs) : null);
        })),
        deny ? h('div', { class: 'field' }, h('label', { for: 'batch-deny-message' }, 'Message to the agent (optional, sent with each)'), message) : null,
        error,
        h('div', { class: 'btn-row' }, h('button', { type: 'button', class: 'btn ghost', onclick: () => close(false) }, 'Cancel'), confirm));
    },
  });
}
