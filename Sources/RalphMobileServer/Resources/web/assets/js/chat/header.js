// @ts-check
// The chat screen's header (title, rename and actions for operators, the agent it runs, folder, model, mode, pin and
// archive, the host it runs on in a cluster, status, queue, total cost, the stream's connection) and its status bar ("Claude is working…", waiting for
// an approval, stalled, retrying), drawn from the chat state.

import { h, render, badge } from '../ui.js';
import { duration, money } from '../format.js';
import { conversationTitle, retryText } from '../words/conversation.js';
import { agentLabel, agentName } from '../words/agents.js';
import { hostLabel } from '../words/hosts.js';
import { statusBadge, conversationMenu, renameSheet } from '../components/conversation-sheets.js';

/** @typedef {import('../state/chat.js').ChatState} ChatState */
/** @typedef {import('../state/chat-wire.js').Conversation} Conversation */

export class ChatHeaderView {
  /**
   * @param {{operator: boolean, getConversation: () => Conversation, onChanged: (c: Conversation) => void,
   *   onDeleted: () => void}} options
   */
  constructor({ operator, getConversation, onChanged, onDeleted }) {
    this.titleText = h('span', { class: 'chat-title-text' });
    this.statusSlot = h('span', { 'data-test': 'chat-status', class: 'chat-status' });
    this.queuedText = h('span', { class: 'muted small', 'data-test': 'chat-queued' });
    this.streamState = h('span', { class: 'stream-state', 'data-test': 'stream-state' }, 'connecting');
    this.streamBox = h('span', { class: 'conn stream-conn', 'data-state': 'connecting', title: 'Live updates of this conversation' },
      h('span', { class: 'conn-dot', 'aria-hidden': 'true' }), h('span', { class: 'sr-only' }, 'Stream: '), this.streamState);
    this.reconnects = h('span', { class: 'muted small', 'data-test': 'reconnects', hidden: true });
    this.costText = h('span', { class: 'muted small', 'data-test': 'chat-cost' });
    this.metaLine = h('div', { class: 'chat-meta muted small' });
    const titleEdit = operator ? h('button', {
      type: 'button', class: 'icon-btn small-icon', 'aria-label': 'Rename conversation', 'data-test': 'chat-rename-button',
      onclick: async () => {
        const updated = await renameSheet(getConversation());
        if (updated) onChanged(updated);
      },
    }, '\u270E') : null;
    const moreButton = operator ? h('button', {
      type: 'button', class: 'btn small ghost', 'aria-label': 'Conversation actions: pin, archive, delete', 'data-test': 'chat-actions',
      onclick: () => conversationMenu(getConversation(), (/** @type {Conversation | null} */ updated) => {
        if (updated) onChanged(updated);
        else onDeleted();
      }),
    }, 'More \u22EF') : null;
    this.element = h('header', { class: 'card chat-head' },
      h('div', { class: 'chat-head-row' }, h('h2', { class: 'chat-title' }, this.titleText), titleEdit, moreButton),
      this.metaLine,
      h('div', { class: 'chat-head-row chat-state' }, this.statusSlot, this.queuedText, h('span', { class: 'grow' }), this.costText,
        this.streamBox, this.reconnects));
    this.label = h('span', { 'data-test': 'status-line' }, 'Claude is working…');
    this.bar = h('div', { class: 'streaming', 'data-test': 'streaming', role: 'status', hidden: true },
      h('span', { class: 'dots', 'aria-hidden': 'true' }, h('span', {}), h('span', {}), h('span', {})), this.label);
    /** @type {Conversation | null} */
    this.drawnConversation = null;
    this.drawnStatus = '';
  }

  /** @param {ChatState} state */
  update(state) {
    if (state.conversation !== this.drawnConversation) {
      this.drawnConversation = state.conversation;
      this.drawConversation(state.conversation);
    }
    const key = JSON.stringify([state.status, state.queued, state.silentSecs, state.retry]);
    if (key !== this.drawnStatus) {
      this.drawnStatus = key;
      this.drawStatus(state);
    }
  }

  /** @param {Conversation} c */
  drawConversation(c) {
    this.titleText.textContent = conversationTitle(c);
    const mode = c.agent_permission_mode || c.permission_mode || 'default';
    render(this.metaLine,
      h('span', { class: 'badge backend backend-' + (c.backend || 'claude'), 'data-test': 'chat-backend', 'data-backend': c.backend || 'claude',
        title: 'The agent this conversation runs' }, agentLabel(c.backend)), ' ',
      hostLabel(c) ? [h('span', { class: 'host-tag', 'data-test': 'chat-host', title: 'The host whose agent runs it' }, hostLabel(c)), ' '] : null,
      h('span', { class: 'mono', title: c.cwd }, c.cwd),
      c.model ? [' · ', 'model ', c.model] : null,
      mode !== 'default' ? [' · ', mode] : null,
      c.pinned ? [' · ', h('span', {}, '\u2605 pinned')] : null,
      c.archived ? [' · ', badge('archived', 'archived')] : null);
    this.costText.textContent = c.total_cost_usd ? 'total ' + money(c.total_cost_usd) : '';
  }

  /** @param {ChatState} state */
  drawStatus(state) {
    const status = state.status;
    render(this.statusSlot, statusBadge(status));
    this.queuedText.textContent = state.queued > 0 ? state.queued + ' queued' : '';
    this.bar.hidden = status === 'idle';
    this.label.textContent = status === 'awaiting_approval' ? 'Waiting for an approval…'
      : status === 'stalled' ? 'No output for ' + duration(state.silentSecs || 0) + ' — the turn may be stuck; you can interrupt it.'
        : status === 'retrying' ? retryText(state.retry)
          : agentName(state.conversation.backend) + ' is working…';
    this.bar.dataset.status = status;
  }

  /** @param {string} state @param {number} attempts */
  streamConnection(state, attempts) {
    this.streamState.textContent = state;
    this.streamBox.dataset.state = state;
    this.reconnects.hidden = !attempts;
    this.reconnects.textContent = String(attempts);
    this.reconnects.title = attempts + ' reconnects';
  }
}
