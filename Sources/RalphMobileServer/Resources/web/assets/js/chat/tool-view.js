// @ts-check
// One tool call in the transcript: name, one-line summary, state badge, input, output (long ones cut with Show all),
// how it was approved, Review for a pending approval, and for a file edit that ran, the diff of what it changed (in
// view below the call, small files open). Redrawn in place from its ToolCall record, so an open <details> stays open.

import { h, render, badge } from '../ui.js';
import { number } from '../format.js';
import { toolSummary, prettyJSON, decisionWords } from '../words/approval.js';
import { toolState, hasOutput } from '../state/chat-tools.js';
import { fileDiffs } from '../diff/file-diff.js';
import { diffList } from '../components/diff-view.js';

/** @typedef {import('../state/chat-tools.js').ToolCall} ToolCall */
/** @typedef {import('../words/approval.js').Approval} Approval */

const OUTPUT_PREVIEW = 4000;

/** @type {Record<string, [string, string]>} state → [words, badge kind] */
const TOOL_STATES = {
  running: ['running', 'running'],
  awaiting: ['needs approval', 'awaiting_approval'],
  done: ['done', 'complete'],
  error: ['error', 'error'],
  denied: ['denied', 'denied'],
  cancelled: ['cancelled', 'stopped'],
  stale: ['no result', 'stopped'],
};

export class ToolView {
  /**
   * @param {ToolCall} call
   * @param {{operator: boolean, onReview: (approval: Approval) => void, agent?: string}} options `agent`: who asks, in words
   */
  constructor(call, { operator, onReview, agent = 'Claude' }) {
    this.operator = operator;
    this.onReview = onReview;
    this.agent = agent;
    this.diffBox = h('div', { class: 'tool-diffs', 'data-test': 'tool-diffs', hidden: true });
    /** @type {unknown} */
    this.drawnDiffs = undefined;
    this.summary = h('span', { class: 'tool-sum mono' });
    this.stateSlot = h('span', { class: 'tool-state' });
    this.input = h('pre', { class: 'json' });
    this.outputBox = h('div', { class: 'tool-output-box' });
    this.approvalBar = h('div', { class: 'tool-approval', hidden: true });
    this.name = h('span', { class: 'tool-name' }, call.name || 'tool');
    const details = h('details', { class: 'tool-details' },
      h('summary', {}, h('span', { class: 'tool-icon', 'aria-hidden': 'true' }, '\u2699'), this.name, this.summary, this.stateSlot),
      h('div', { class: 'tool-body' }, h('h4', {}, 'Input'), this.input, this.outputBox));
    this.element = h('div', { class: 'tool', 'data-test': 'tool-call', 'data-tool-use-id': call.tool_use_id || '' }, details, this.diffBox, this.approvalBar);
    /** @type {ToolCall | null} */
    this.call = null;
    this.update(call);
  }

  /** @param {ToolCall} call */
  update(call) {
    if (call === this.call) return;
    this.call = call;
    const s = toolState(call);
    this.element.dataset.state = s;
    this.name.textContent = call.name || 'tool';
    this.summary.textContent = toolSummary(call.name, call.input);
    const [word, kind] = TOOL_STATES[s];
    render(this.stateSlot, badge(word, kind));
    this.input.textContent = prettyJSON(call.input) || '(no input)';
    render(this.outputBox, decisionLine(call), ...outputNodes(call));
    this.drawDiffs(call);
    this.approvalBar.hidden = s !== 'awaiting';
    if (s === 'awaiting' && call.approval) {
      const approval = call.approval;
      render(this.approvalBar,
        h('span', {}, this.operator ? this.agent + ' waits for your approval.' : 'Waiting for an operator to approve this.'),
        this.operator ? h('button', {
          type: 'button', class: 'btn small primary', 'data-test': 'review-approval', onclick: () => this.onReview(approval),
        }, 'Review') : null);
    }
  }

  /// What a file edit changed, once it ran (`tool_end`, or the stored call; never for a call that was denied): drawn
  /// again only when the diffs change, so the files someone opened stay open.
  /** @param {ToolCall} call */
  drawDiffs(call) {
    const ran = ['done', 'error'].includes(toolState(call));
    const shown = ran ? call.diffs : undefined;
    if (shown === this.drawnDiffs) return;
    this.drawnDiffs = shown;
    const diffs = fileDiffs(shown);
    this.diffBox.hidden = !diffs.length;
    render(this.diffBox, diffs.length ? diffList(diffs, { openLines: 40, label: 'What ' + (call.name || 'the tool') + ' changed' }) : null);
  }
}

/// How the call was approved: not asked (a session rule), or who allowed or denied it.
/** @param {ToolCall} call */
function decisionLine(call) {
  if (call.decision && typeof call.decided_by === 'string' && call.decided_by.startsWith('rule ')) {
    return h('p', { class: 'tool-decision small muted', 'data-test': 'tool-decision' },
      'Approval: not asked — ' + (call.decision_message || 'allowed by a session rule') + '.');
  }
  if (!call.decision) return null;
  return h('p', { class: 'tool-decision small muted', 'data-test': 'tool-decision' },
    'Approval: ' + decisionWords(call.decision) + (call.decided_by && call.decided_by !== 'system' ? ' by ' + call.decided_by : ''),
    call.decision_message ? ' — “' + call.decision_message + '”' : '');
}

/// The output (or error) of a call that returned; the first few thousand characters, and Show all.
/** @param {ToolCall} call @returns {Node[]} */
function outputNodes(call) {
  if (!hasOutput(call)) return [];
  const full = String(call.output);
  const pre = h('pre', { class: 'tool-output' + (call.is_error ? ' is-error' : '') }, full.length > OUTPUT_PREVIEW ? full.slice(0, OUTPUT_PREVIEW) + '\n…' : full || '(empty)');
  const nodes = [h('h4', {}, call.is_error ? 'Error' : 'Output'), pre];
  if (full.length > OUTPUT_PREVIEW) {
    nodes.push(h('button', {
      type: 'button', class: 'btn small ghost', 'aria-label': 'Show the whole output of ' + (call.name || 'the tool'),
      onclick: (/** @type {Event} */ event) => { pre.textContent = full; /** @type {HTMLElement} */ (event.currentTarget).remove(); },
    }, 'Show all ' + number(full.length) + ' characters'));
  }
  return nodes;
}
