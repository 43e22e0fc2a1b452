// @ts-check
// Approvals on the chat screen: the sheet opens by itself for the first pending approval an operator has not
// dismissed, one at a time; Review on a tool call opens it again. A decision made elsewhere closes it.

import { openApprovalSheet } from '../components/approval-sheet.js';
import { nextApproval } from '../state/chat.js';

/** @typedef {import('../state/chat.js').ChatState} ChatState */
/** @typedef {import('../words/approval.js').Approval} Approval */

export class ApprovalFlow {
  /**
   * @param {{app: any, operator: boolean, getState: () => ChatState, isRemoved: () => boolean,
   *   onClosed: (id: string) => void}} options
   */
  constructor({ app, operator, getState, isRemoved, onClosed }) {
    this.app = app;
    this.operator = operator;
    this.getState = getState;
    this.isRemoved = isRemoved;
    this.onClosed = onClosed;
    /** @type {Set<string>} */
    this.dismissed = new Set();
    /** @type {{id: string, close: () => void, resolved: (info: object) => void} | null} */
    this.sheet = null;
  }

  /** @param {Approval} approval @param {boolean} [explicit] Review was pressed: a dismissed approval opens again. */
  show(approval, explicit = false) {
    if (!approval || !this.operator) return;
    if (this.sheet && this.sheet.id === approval.id) return;
    if (this.sheet) this.sheet.close();
    if (explicit) this.dismissed.delete(approval.id);
    this.sheet = openApprovalSheet(approval, this.app, (/** @type {any} */ result) => {
      this.sheet = null;
      if (result.dismissed) this.dismissed.add(approval.id);
      if (result.decided || result.conflict || result.resolved) this.onClosed(approval.id);
      setTimeout(() => this.next(), 0);
    }, { backend: this.getState().conversation.backend });
  }

  /// Opens the sheet for the next pending approval, unless one is open.
  next() {
    if (this.sheet || !this.operator || this.isRemoved()) return;
    const approval = nextApproval(this.getState(), this.dismissed);
    if (approval) this.show(approval);
  }

  /// The approval was answered elsewhere (another page, the inbox, a rule): its open sheet says so and closes.
  /** @param {{approval_id: string}} info */
  resolved(info) {
    if (this.sheet && this.sheet.id === info.approval_id) this.sheet.resolved(info);
  }

  close() {
    if (this.sheet) this.sheet.close();
  }
}
