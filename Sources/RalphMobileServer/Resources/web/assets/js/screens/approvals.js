// @ts-check
// Approvals inbox (`#/approvals`): every tool call waiting for a person, across conversations, kept live by the
// global stream (folded by ../state/approvals.js). Tap one for the approval sheet; operators can allow or deny several
// at once (../components/approval-batch.js).

import { api, seg } from '../api.js';
import { globalEvents } from '../stream.js';
import { h, render, showError, arrange } from '../ui.js';
import { relTime } from '../format.js';
import { openApprovalSheet } from '../components/approval-sheet.js';
import { ApprovalRow } from '../components/approval-row.js';
import { batchSheet } from '../components/approval-batch.js';
import { conversationTitle } from '../words/conversation.js';
import { initialInbox, reduceInbox, visibleApprovals, pendingCount } from '../state/approvals.js';

/** @typedef {import('../words/approval.js').Approval} Approval */
/** @typedef {import('../state/approvals.js').InboxAction} InboxAction */

/** @param {HTMLElement} view @param {unknown} _params @param {any} app */
export async function mount(view, _params, app) {
  const screen = new ApprovalsScreen(view, app);
  screen.draw();
  try {
    await screen.load();
  } catch (error) {
    screen.list.before(h('div', { class: 'banner error', role: 'alert' }, 'The approvals could not be loaded: ' + /** @type {Error} */ (error).message));
  }
  return () => screen.dispose();
}

class ApprovalsScreen {
  /** @param {HTMLElement} view @param {any} app */
  constructor(view, app) {
    this.app = app;
    this.operator = app.can('operator');
    this.state = initialInbox(app.pendingApprovals.values());
    /** @type {Map<string, ApprovalRow>} */
    this.rows = new Map();
    /** @type {Set<string>} */
    this.selected = new Set();
    /** @type {Map<string, any>} id → conversation, {missing: true}, or the promise reading it */
    this.conversations = new Map();
    /** @type {any} */
    this.sheet = null;
    this.disposed = false;
    this.layout(view);
    const onFrame = (/** @type {Approval} */ a) => this.onFrame(a);
    this.unsubscribe = [
      globalEvents.on('approval.pending', onFrame),
      globalEvents.on('approval.resolved', onFrame),
      globalEvents.on('conversation.updated', (c) => {
        if (!c || !c.id || !this.conversations.has(c.id)) return;
        this.conversations.set(c.id, c);
        this.redrawConversation(c.id);
      }),
      globalEvents.on('state', ({ state, attempts }) => {
        if (state === 'live' && attempts > 0) this.load().catch((error) => console.warn('approvals not read again:', error));
      }),
    ];
    this.timer = setInterval(() => {
      for (const node of this.list.querySelectorAll('.approval-age')) node.textContent = relTime(/** @type {HTMLElement} */ (node).dataset.ts);
    }, 30000);
  }

  dispose() {
    this.disposed = true;
    clearInterval(this.timer);
    this.sheet?.close();
    for (const off of this.unsubscribe) off();
  }

  /** @param {HTMLElement} view */
  layout(view) {
    this.list = h('ul', { class: 'list approval-list', 'aria-label': 'Approvals' });
    this.empty = h('div', { class: 'empty', hidden: true });
    this.counter = h('span', { class: 'muted small', role: 'status', 'aria-live': 'polite' });
    this.results = h('div', { class: 'card batch-results', hidden: true, role: 'status', 'aria-live': 'polite' });
    this.filterButtons = [['pending', 'Waiting'], ['all', 'All, with decided']].map(([value, label]) => h('button', {
      type: 'button', 'aria-pressed': value === this.state.filter ? 'true' : 'false', 'data-test': 'approval-filter-' + value,
      onclick: () => this.setFilter(/** @type {'pending' | 'all'} */ (value)),
    }, label));
    this.selectAll = /** @type {HTMLInputElement} */ (h('input', { type: 'checkbox', id: 'approvals-select-all', 'data-test': 'approval-select-all', onchange: () => this.toggleAll() }));
    this.allowSelected = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', class: 'btn primary small', 'data-test': 'approve-selected', disabled: true, onclick: () => this.batch('allow') }, 'Allow selected'));
    this.denySelected = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', class: 'btn danger small', 'data-test': 'deny-selected', disabled: true, onclick: () => this.batch('deny') }, 'Deny selected'));
    this.batchBar = this.operator
      ? h('div', { class: 'batch-bar' }, h('label', { class: 'check', for: 'approvals-select-all' }, this.selectAll, 'Select all'),
        h('span', { class: 'grow' }), this.allowSelected, this.denySelected)
      : null;
    render(view,
      h('section', { class: 'approvals', 'aria-labelledby': 'approvals-heading' },
        h('h2', { id: 'approvals-heading', class: 'sr-only' }, 'Approvals'),
        h('div', { class: 'toolbar' }, h('div', { class: 'segmented grow', role: 'group', 'aria-label': 'Which approvals' }, this.filterButtons), this.counter),
        this.batchBar,
        this.results,
        h('div', { class: 'card approval-card' }, this.list, this.empty)));
  }

  /** @param {InboxAction} action */
  dispatch(action) {
    const next = reduceInbox(this.state, action);
    if (next === this.state) return;
    this.state = next;
    this.draw();
  }

  // --- Conversation titles, read once each -----------------------------------------------------------------------

  /** @param {string | null} id */
  conversationOf(id) {
    if (!id) return null;
    const known = this.conversations.get(id);
    if (known && !(known instanceof Promise)) return known;
    if (!known) {
      const promise = api.get('/api/conversations/' + seg(id))
        .then((c) => { this.conversations.set(id, c); })
        .catch(() => { this.conversations.set(id, { id, missing: true }); })
        .finally(() => this.redrawConversation(id));
      this.conversations.set(id, promise);
    }
    return null;
  }

  /** @param {string} id */
  redrawConversation(id) {
    for (const a of this.state.approvals.values()) if (a.conversation_id === id) this.drawRow(a);
  }

  /** @param {Approval} a */
  titleOf(a) {
    const c = this.conversationOf(a.conversation_id);
    if (!c) return 'a conversation';
    if (c.missing) return 'a deleted conversation';
    return conversationTitle(c);
  }

  // --- Drawing ----------------------------------------------------------------------------------------------------

  /** @param {Approval} a */
  drawRow(a) {
    let row = this.rows.get(a.id);
    if (!row) {
      row = new ApprovalRow(a, { operator: this.operator, onOpen: (id) => this.open(id), onSelect: (id, on) => this.select(id, on) });
      this.rows.set(a.id, row);
    }
    if (!row.update(a, this.titleOf(a))) this.selected.delete(a.id);
    return row;
  }

  draw() {
    const items = visibleApprovals(this.state);
    arrange(this.list, items.map((a) => this.drawRow(a).li));
    for (const id of [...this.selected]) if (this.state.approvals.get(id)?.state !== 'pending') this.selected.delete(id);
    const waiting = pendingCount(this.state);
    this.counter.textContent = waiting ? waiting + ' waiting' : '';
    this.empty.hidden = items.length > 0 || this.state.loading;
    if (!items.length) {
      render(this.empty,
        h('p', { class: 'empty-title' }, this.state.filter === 'pending' ? 'Nothing is waiting for you' : 'No approvals yet'),
        h('p', {}, 'When Claude asks to run a tool in a conversation, the request shows up here' + (this.operator ? ' for you to allow or deny.' : '.')));
    }
    if (this.batchBar) this.batchBar.hidden = waiting === 0;
    this.updateBatch();
  }

  updateBatch() {
    if (!this.operator) return;
    const n = this.selected.size;
    for (const [button, verb] of /** @type {Array<[HTMLButtonElement, string]>} */ ([[this.allowSelected, 'Allow'], [this.denySelected, 'Deny']])) {
      button.disabled = n === 0;
      button.textContent = n ? verb + ' ' + n : verb + ' selected';
      button.setAttribute('aria-label', n ? verb + ' ' + n + ' selected' : verb + ' selected');
    }
    const pending = visibleApprovals(this.state).filter((a) => a.state === 'pending');
    this.selectAll.checked = pending.length > 0 && pending.every((a) => this.selected.has(a.id));
    this.selectAll.indeterminate = n > 0 && !this.selectAll.checked;
  }

  // --- Actions ----------------------------------------------------------------------------------------------------

  /** @param {string} id @param {boolean} on */
  select(id, on) {
    if (on) this.selected.add(id); else this.selected.delete(id);
    this.updateBatch();
  }

  toggleAll() {
    const on = this.selectAll.checked;
    for (const a of visibleApprovals(this.state)) {
      if (a.state !== 'pending') continue;
      if (on) this.selected.add(a.id); else this.selected.delete(a.id);
      const row = this.rows.get(a.id);
      if (row && row.checkbox) row.checkbox.checked = on;
    }
    this.updateBatch();
  }

  /** @param {string} decision */
  batch(decision) {
    batchSheet([...this.selected], decision, {
      get: (id) => this.state.approvals.get(id),
      titleOf: (a) => this.titleOf(a),
      onDecided: (a) => this.dispatch({ type: 'upsert', approval: a }),
      onAnswered: (id) => {
        this.selected.delete(id);
        const row = this.rows.get(id);
        if (row && row.checkbox) row.checkbox.checked = false;
        this.draw();
      },
      results: this.results,
    });
  }

  /** @param {string} id */
  open(id) {
    const a = this.state.approvals.get(id);
    if (!a) return;
    if (this.sheet) this.sheet.close();
    const c = this.conversationOf(a.conversation_id);
    this.sheet = openApprovalSheet(a, this.app, (/** @type {any} */ result) => {
      this.sheet = null;
      if (result.decided && result.approval) this.dispatch({ type: 'upsert', approval: result.approval });
      if (result.conflict) this.load().catch((error) => console.warn('approvals not read again:', error));
    }, { conversationTitle: c && !c.missing ? conversationTitle(c) : undefined, link: true, backend: c && !c.missing ? c.backend : undefined });
  }

  /** @param {'pending' | 'all'} value */
  setFilter(value) {
    this.dispatch({ type: 'filter', filter: value });
    for (const b of this.filterButtons) b.setAttribute('aria-pressed', b.dataset.test === 'approval-filter-' + value ? 'true' : 'false');
    this.load().catch((error) => showError(error));
  }

  /// Reads the list; frames that arrive meanwhile are applied on top of it.
  async load() {
    this.dispatch({ type: 'loading' });
    const token = this.state.loadToken;
    try {
      const data = await api.get('/api/approvals' + (this.state.filter === 'all' ? '?state=all' : ''));
      if (!this.disposed) this.dispatch({ type: 'loaded', token, approvals: data.approvals });
    } catch (error) {
      this.dispatch({ type: 'load_failed', token });
      throw error;
    }
    this.draw();
  }

  /** @param {Approval} a */
  onFrame(a) {
    if (!a || !a.id) return;
    if (a.state !== 'pending' && this.sheet && this.sheet.id === a.id) {
      this.sheet.resolved({ decision: a.state === 'cancelled' ? 'cancelled' : a.decision, by: a.decided_by });
    }
    this.dispatch({ type: 'frame', approval: a });
  }
}
