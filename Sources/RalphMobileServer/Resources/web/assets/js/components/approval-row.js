// @ts-check
// One row of the approvals inbox: select box (operators, pending only), the call in one line with its conversation
// and age, its state once decided, a link to the conversation, and for a file edit its diff folded into one line
// ("Diff notes.txt +1 −1") that opens in place. Kept per approval id and updated in place.

import { h, render, badge } from '../ui.js';
import { relTime, dateTime } from '../format.js';
import { callSummary } from '../words/approval.js';
import { fileDiffs, displayPath } from '../diff/file-diff.js';
import { diffFold } from './diff-view.js';

/** @typedef {import('../words/approval.js').Approval} Approval */

/** @type {Record<string, string>} */
const STATE_BADGE = { pending: 'awaiting_approval', allowed: 'complete', denied: 'denied', cancelled: 'stopped' };

/** @param {Approval} a */
function stateWords(a) {
  if (a.state === 'allowed' && a.decision === 'allow_session') {
    return String(a.decided_by || '').startsWith('rule ') ? 'allowed by a rule' : 'allowed (session)';
  }
  return String(a.state);
}

export class ApprovalRow {
  /**
   * @param {Approval} a
   * @param {{operator: boolean, onOpen: (id: string) => void, onSelect: (id: string, selected: boolean) => void}} options
   */
  constructor(a, { operator, onOpen, onSelect }) {
    /** @type {HTMLInputElement | null} */
    this.checkbox = operator ? /** @type {HTMLInputElement} */ (h('input', { type: 'checkbox', 'data-test': 'approval-select', id: 'sel-' + a.id })) : null;
    const checkbox = this.checkbox;
    checkbox?.addEventListener('change', () => onSelect(a.id, checkbox.checked));
    this.main = h('button', { type: 'button', class: 'row-link approval-open', onclick: () => onOpen(a.id) });
    this.link = h('a', { class: 'icon-btn approval-chat-link', href: '#/chats/' + encodeURIComponent(a.conversation_id || '') }, '\u2192');
    this.li = h('li', { class: 'approval-row', 'data-test': 'approval-row', 'data-id': a.id },
      checkbox ? h('label', { class: 'approval-check', for: checkbox.id }, checkbox, h('span', { class: 'sr-only' }, 'Select')) : null,
      this.main, this.link);
    /** @type {HTMLElement | null} */
    this.fold = null;
    /** @type {unknown} */
    this.drawnDiffs = undefined;
  }

  /// The folded diff, drawn again only when the approval's diffs change (an open fold stays open).
  /** @param {Approval} a */
  drawDiffs(a) {
    if (a.diffs === this.drawnDiffs) return;
    this.drawnDiffs = a.diffs;
    const diffs = fileDiffs(a.diffs);
    const fold = diffs.length ? diffFold(diffs) : null;
    if (fold && this.fold && /** @type {HTMLDetailsElement} */ (this.fold).open) /** @type {HTMLDetailsElement} */ (fold).open = true;
    if (this.fold) this.fold.remove();
    this.fold = fold;
    if (fold) this.li.append(fold);
  }

  /** @param {Approval} a @param {string} title the conversation's title @returns {boolean} whether it is pending */
  update(a, title) {
    const summary = callSummary(a, displayPath);
    const pending = a.state === 'pending';
    this.li.dataset.state = a.state;
    render(this.main,
      h('div', { class: 'row-main' },
        h('div', { class: 'row-title' }, h('span', { class: 'tool-name' }, a.tool_name), ' ', h('span', { class: 'mono approval-sum' }, summary)),
        h('div', { class: 'row-sub' }, title, ' · ', h('span', { class: 'approval-age', dataset: { ts: a.created_at || '' }, title: dateTime(a.created_at) }, relTime(a.created_at)))),
      pending ? null : badge(stateWords(a), STATE_BADGE[String(a.state)] || a.state));
    this.main.setAttribute('aria-label', a.tool_name + ': ' + summary + ', in ' + title + ', ' + relTime(a.created_at) + (pending ? '' : ', ' + a.state) + '. Open details');
    this.link.setAttribute('aria-label', 'Open the conversation ' + title);
    this.link.hidden = !a.conversation_id;
    this.drawDiffs(a);
    if (this.checkbox) {
      /** @type {HTMLElement} */ (this.checkbox.closest('label')).hidden = !pending;
      if (!pending) this.checkbox.checked = false;
      this.checkbox.setAttribute('aria-label', 'Select ' + a.tool_name + ': ' + summary);
    }
    return pending;
  }
}
