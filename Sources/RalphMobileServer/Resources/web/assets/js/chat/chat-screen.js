// @ts-check
// The chat screen's controller: holds the chat state (../state/chat.js), feeds it the conversation stream, the
// global stream and the page's own requests, and redraws the views from it. Side effects the state asks for (read the
// stored text of a partial message, find the call a session rule allowed, fetch an approval's reason) happen here.

import { api } from '../api.js';
import { openStream, globalEvents } from '../stream.js';
import { h, render, showError } from '../ui.js';
import { normalizeApproval } from '../words/approval.js';
import { conversationTitle } from '../words/conversation.js';
import { agentName } from '../words/agents.js';
import { PermissionsPanel } from '../components/permissions-panel.js';
import { reduceChat, idsToReconcile, announcementFor, isRuleAllowance, isRunning } from '../state/chat.js';
import { ChatHeaderView } from './header.js';
import { TranscriptView } from './transcript-view.js';
import { ApprovalFlow } from './approval-flow.js';
import { Composer } from './composer.js';
import { AutoReplyPanel } from './auto-reply.js';

/** @typedef {import('../state/chat.js').ChatState} ChatState */
/** @typedef {import('../state/chat.js').ChatAction} ChatAction */

const EVENTS = ['turn_start', 'chunk', 'segment_end', 'tool_start', 'tool_end', 'permission_required', 'permission_resolved',
  'complete', 'error', 'title_update', 'status', 'auto_reply', 'permissions'];

const nearBottom = () => window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 160;
const toBottom = () => window.scrollTo(0, document.documentElement.scrollHeight);

export class ChatScreen {
  /**
   * @param {HTMLElement} view @param {string} id @param {ChatState} state @param {any} app
   * @param {number} resumeAfter The stream id the first page was read at: the stream starts right after it.
   */
  constructor(view, id, state, app, resumeAfter) {
    this.view = view;
    this.resumeAfter = resumeAfter;
    this.id = id;
    this.base = '/api/conversations/' + encodeURIComponent(id);
    this.app = app;
    this.state = state;
    this.operator = app.can('operator');
    this.removed = false;
    /** @type {ReturnType<typeof openStream> | null} */
    this.stream = null;
    /** @type {Array<() => void>} */
    this.cleanups = [];
    this.runningKey = '';
    this.header = new ChatHeaderView({
      operator: this.operator, getConversation: () => this.state.conversation,
      onChanged: (c) => this.dispatch({ type: 'conversation', conversation: c }), onDeleted: () => app.navigate('#/chats'),
    });
    this.approvals = new ApprovalFlow({ app, operator: this.operator, getState: () => this.state, isRemoved: () => this.removed,
      onClosed: (approvalId) => this.dispatch({ type: 'approval_closed', id: approvalId }) });
    this.transcript = new TranscriptView({ operator: this.operator, onReview: (approval) => this.approvals.show(approval, true),
      backend: state.conversation.backend });
    this.composer = this.operator ? new Composer({ id, base: this.base, isRemoved: () => this.removed, agent: agentName(state.conversation.backend),
      onSent: (result, text, mode) => this.dispatch({ type: 'sent', turn_id: result.turn_id, text, mode,
        queued_position: result.queued_position, at: new Date().toISOString() }) }) : null;
    this.autoReply = new AutoReplyPanel({ base: this.base, operator: this.operator });
    this.permissionsPanel = new PermissionsPanel({ base: this.base, conversation: state.conversation, operator: this.operator,
      me: app.whoami && app.whoami.key_id });
    this.layout();
  }

  layout() {
    this.emptyNote = h('p', { class: 'empty chat-empty' }, this.operator ? 'No messages yet. Write the first one below.' : 'No messages yet.');
    this.loadEarlier = h('button', { type: 'button', class: 'btn ghost block', 'data-test': 'load-earlier', onclick: () => this.earlier() }, 'Load earlier messages');
    this.announcer = h('div', { class: 'sr-only', role: 'status', 'aria-live': 'polite' });
    render(this.view, h('section', { class: 'chat', 'aria-label': 'Conversation' },
      this.header.element,
      this.permissionsPanel.element,
      this.autoReply.element,
      this.loadEarlier,
      this.emptyNote,
      this.transcript.element,
      this.header.bar,
      this.transcript.queueBox,
      this.announcer,
      this.composer ? this.composer.element : h('p', { class: 'muted small viewer-note' }, 'You can read this conversation; sending messages needs an operator key.')));
    this.draw();
    toBottom();
  }

  /** @param {ChatAction} action */
  dispatch(action) {
    const before = this.state;
    const next = reduceChat(before, action);
    if (next === before) return;
    this.state = next;
    const stick = nearBottom();
    this.draw();
    // Follow the end of the transcript if the reader was already there (not when older messages go on top).
    if (stick && action.type !== 'earlier' && (next.items !== before.items || next.queue !== before.queue)) toBottom();
    const ids = idsToReconcile(before, next);
    if (ids.length) this.reconcile(ids);
  }

  draw() {
    const state = this.state;
    this.header.update(state);
    this.app.setTitle(conversationTitle(state.conversation));
    this.transcript.update(state);
    this.emptyNote.hidden = state.items.length > 0;
    /** @type {HTMLElement} */ (this.loadEarlier).hidden = !state.hasMore;
    const running = isRunning(state);
    this.transcript.element.setAttribute('aria-busy', running && state.status === 'running' ? 'true' : 'false');
    const key = state.status + '|' + state.queued;
    if (this.composer && key !== this.runningKey) this.composer.setRunning(running, state.queued);
    this.runningKey = key;
  }

  /// Loads the approvals, marks calls that will get no result, follows the streams; resolves once the auto-reply
  /// panel is read.
  async start() {
    try {
      const list = await api.get('/api/approvals?state=all&conversation=' + encodeURIComponent(this.id));
      this.dispatch({ type: 'approvals', approvals: list.approvals });
    } catch (error) {
      showError(error, 'Approvals');
    }
    this.dispatch({ type: 'settle' });
    this.follow();
    await this.autoReply.load();
    this.approvals.next();
  }

  dispose() {
    this.removed = true;
    this.stream?.close();
    this.approvals.close();
    this.autoReply.destroy();
    this.permissionsPanel.destroy();
    for (const off of this.cleanups) off();
  }

  // --- Streams ----------------------------------------------------------------------------------------------------

  follow() {
    this.attemptsBefore = 0;
    this.lastAttempts = 0;
    this.openStream();
    // A page kept in the back/forward cache would keep its stream open, and a few of those use up the browser's
    // connections to the server: close it when the page is hidden that way, resume after the last event on return.
    const onPageHide = () => {
      if (!this.stream) return;
      if (typeof this.stream.lastId === 'number') this.resumeAfter = Math.max(this.resumeAfter, this.stream.lastId);
      this.attemptsBefore = this.lastAttempts;
      this.stream.close();
      this.stream = null;
    };
    const onPageShow = (/** @type {PageTransitionEvent} */ event) => {
      if (event.persisted && !this.stream && !this.removed) this.openStream();
    };
    window.addEventListener('pagehide', onPageHide);
    window.addEventListener('pageshow', onPageShow);
    this.cleanups.push(() => {
      window.removeEventListener('pagehide', onPageHide);
      window.removeEventListener('pageshow', onPageShow);
    }, ...this.globalFrames());
  }

  openStream() {
    // The conversation's own `error` event (a failed turn) arrives here like any other; openStream keeps EventSource's
    // connection errors, which share the name, out of it.
    /** @type {Record<string, (data: any) => void>} */
    const events = {};
    for (const name of EVENTS) {
      events[name] = (data) => {
        try { this.onEvent(name, data || {}); } catch (error) { console.error(name, error); }
      };
    }
    this.stream = openStream(this.base + '/events?after=' + this.resumeAfter, {
      events,
      onState: (state, info) => {
        this.lastAttempts = (this.attemptsBefore || 0) + info.attempts;
        this.header.streamConnection(state, this.lastAttempts);
      },
      onEnd: () => this.composer?.disable('This conversation has ended.'),
    });
  }

  /** @returns {Array<() => void>} */
  globalFrames() {
    return [
      globalEvents.on('conversation.updated', (c) => {
        // Title, pin, archive and cost; the status comes from this conversation's own stream (in order with its events).
        if (!c || c.id !== this.id) return;
        this.dispatch({ type: 'conversation', conversation: c });
        this.permissionsPanel.conversationUpdated(c);
      }),
      globalEvents.on('conversation.removed', (data) => {
        if (!data || data.id !== this.id) return;
        this.removed = true;
        this.stream?.close();
        this.approvals.close();
        this.view.prepend(h('div', { class: 'banner error', role: 'alert' }, 'This conversation was deleted. ', h('a', { href: '#/chats' }, 'All conversations')));
        this.composer?.disable('The conversation was deleted.');
      }),
    ];
  }

  /** @param {string} name @param {any} d */
  onEvent(name, d) {
    const before = this.state;
    this.dispatch({ type: 'event', name, data: d, at: new Date().toISOString() });
    const said = announcementFor(before, name, d);
    if (said) this.announcer.textContent = said;
    if (name === 'turn_start') this.composer?.turnStarted(d.turn_id);
    else if (name === 'permission_required' && this.operator) this.approvalDetails(d.approval_id);
    else if (name === 'permission_resolved') {
      if (isRuleAllowance(before, d)) this.markAllowedByRule(d);
      else this.approvals.resolved(d);
    } else if (name === 'auto_reply') this.autoReply.progress(d);
    else if (name === 'permissions') this.permissionsPanel.permissions(d);
  }

  // --- Requests the state asks for ----------------------------------------------------------------------------------

  /// The list has an approval's reason; the event does not. Then the sheet opens (if none is).
  /** @param {string} approvalId */
  async approvalDetails(approvalId) {
    try {
      const list = await api.get('/api/approvals?conversation=' + encodeURIComponent(this.id));
      const full = list.approvals.find((/** @type {any} */ a) => a.id === approvalId);
      if (full) this.dispatch({ type: 'approval_details', approval: normalizeApproval(full, this.id) });
    } catch (error) {
      console.warn('the reason of approval ' + approvalId + ' could not be read:', error);
    } finally {
      this.approvals.next();
    }
  }

  /// A call a session rule allowed: the event names its approval, not its tool call; the approval does.
  /** @param {{approval_id: string, decision: string, by?: string, message?: string}} d */
  async markAllowedByRule(d) {
    try {
      const list = await api.get('/api/approvals?state=allowed&conversation=' + encodeURIComponent(this.id));
      const found = list.approvals.find((/** @type {any} */ a) => a.id === d.approval_id);
      if (!found || !found.tool_use_id) return;
      this.dispatch({ type: 'allowed_by_rule', tool_use_id: found.tool_use_id,
        decision: { decision: d.decision, decided_by: d.by, decision_message: d.message || found.message } });
    } catch (error) {
      // The call still shows; reloading the page says how it was allowed.
      console.warn('the rule that allowed approval ' + d.approval_id + ' could not be read:', error);
    }
  }

  /// The page joined a turn in the middle of a segment: read the stored text of those messages.
  /** @param {string[]} ids */
  async reconcile(ids) {
    try {
      const fresh = await api.get(this.base + '/messages?limit=20');
      this.dispatch({ type: 'reconciled', ids, items: fresh.items });
    } catch (error) {
      console.warn('the stored text of ' + ids.join(', ') + ' could not be read (the streamed part stays):', error);
    }
  }

  async earlier() {
    const button = /** @type {HTMLButtonElement} */ (this.loadEarlier);
    if (!this.state.cursor) return;
    button.disabled = true;
    button.textContent = 'Loading…';
    try {
      const page = await api.get(this.base + '/messages?before=' + encodeURIComponent(this.state.cursor));
      const anchor = this.transcript.element.firstElementChild;
      const top = anchor ? anchor.getBoundingClientRect().top : 0;
      this.dispatch({ type: 'earlier', page });
      if (anchor) window.scrollBy(0, anchor.getBoundingClientRect().top - top);
    } catch (error) {
      showError(error, 'Earlier messages');
    } finally {
      button.disabled = false;
      button.textContent = 'Load earlier messages';
    }
  }
}
