// @ts-check
// One row of the conversations list: title (pinned, archived, the agent when it is not Claude), retry line, last
// message, folder (and, in a cluster, the host its agent runs on), status, waiting approvals and last activity; the row
// menu for operators. Kept per id and updated in place.

import { h, render, badge } from '../ui.js';
import { relTime, dateTime } from '../format.js';
import { conversationTitle, shortPath, retryText } from '../words/conversation.js';
import { agentLabel } from '../words/agents.js';
import { statusBadge } from './conversation-sheets.js';
import { hostLabel } from '../words/hosts.js';

/** @typedef {import('../state/conversations.js').ConversationRow} ConversationRow */

/** @param {ConversationRow} c */
function rowContent(c) {
  const waiting = (c.pending_approvals || 0) > 0;
  const side = h('div', { class: 'chat-row-side' },
    // With approvals waiting, their count says more than "needs approval".
    waiting && c.status === 'awaiting_approval' ? null : statusBadge(c.status),
    waiting ? h('span', { class: 'badge awaiting_approval', 'data-test': 'chat-pending', 'data-status': c.status },
      c.pending_approvals + (c.pending_approvals === 1 ? ' approval' : ' approvals')) : null,
    h('span', { class: 'muted small chat-time', dataset: { ts: c.last_activity_at || '' }, title: dateTime(c.last_activity_at) }, relTime(c.last_activity_at)));
  return [
    h('div', { class: 'row-main' },
      h('div', { class: 'row-title' },
        c.pinned ? [h('span', { class: 'pin', title: 'Pinned', 'aria-hidden': 'true' }, '\u2605 '), h('span', { class: 'sr-only' }, 'Pinned: ')] : null,
        h('span', { class: 'title-text' }, conversationTitle(c)),
        // Claude is the default agent; another one is named on the row.
        c.backend && c.backend !== 'claude'
          ? h('span', { class: 'badge backend backend-' + c.backend, 'data-test': 'chat-row-backend', 'data-backend': c.backend }, agentLabel(c.backend))
          : null,
        c.archived ? badge('archived', 'archived') : null),
      c.status === 'retrying' ? h('div', { class: 'row-sub chat-retry', 'data-test': 'chat-retry' }, retryText(c.retry)) : null,
      c.last_message_preview ? h('div', { class: 'row-sub chat-preview' }, c.last_message_preview) : null,
      h('div', { class: 'row-sub chat-where' },
        // A server on its own sends no host.
        hostLabel(c) ? h('span', { class: 'host-tag', 'data-test': 'chat-row-host', title: 'Runs on host ' + hostLabel(c) }, hostLabel(c)) : null,
        h('span', { class: 'mono', title: c.cwd }, shortPath(c.cwd)))),
    side,
  ];
}

export class ConversationRowView {
  /** @param {string} id @param {(() => void) | null} onMenu the row menu (operators), or null */
  constructor(id, onMenu) {
    this.link = h('a', { class: 'row-link', href: '#/chats/' + encodeURIComponent(id) });
    this.menu = onMenu ? h('button', { type: 'button', class: 'icon-btn row-menu', 'data-test': 'chat-menu', onclick: onMenu }, '\u22EF') : null;
    this.li = h('li', { class: 'chat-row', 'data-test': 'chat-row', 'data-id': id }, this.link, this.menu);
  }

  /** @param {ConversationRow} c */
  update(c) {
    this.li.dataset.status = c.status || 'idle';
    render(this.link, ...rowContent(c));
    if (this.menu) this.menu.setAttribute('aria-label', 'Actions for ' + conversationTitle(c));
  }
}
