// @ts-check
// Conversations with Claude Code (`#/chats`): pinned first, newest activity next, kept live by the global stream
// (folded by ../state/conversations.js); "New conversation" and a row menu (pin, archive, rename, delete) for operators.

import { api } from '../api.js';
import { globalEvents } from '../stream.js';
import { h, render, showError, arrange } from '../ui.js';
import { relTime } from '../format.js';
import { conversationMenu } from '../components/conversation-sheets.js';
import { newConversationSheet } from '../components/new-conversation-sheet.js';
import { ConversationRowView } from '../components/conversation-row.js';
import { initialConversations, reduceConversations, orderedConversations } from '../state/conversations.js';

/** @typedef {import('../state/conversations.js').ConversationsAction} ConversationsAction */

const PAGE = 30;
const ARCHIVED_STORE = 'ralph.chats.archived';

/** @param {HTMLElement} view @param {unknown} _params @param {any} app */
export async function mount(view, _params, app) {
  const screen = new ChatsScreen(view, app);
  try {
    await screen.load(true);
  } catch (error) {
    render(view, h('div', { class: 'banner error', role: 'alert' }, 'The conversations could not be loaded: ' + /** @type {Error} */ (error).message),
      h('button', { type: 'button', class: 'btn', onclick: () => app.navigate('#/chats') }, 'Try again'));
  }
  return () => screen.dispose();
}

class ChatsScreen {
  /** @param {HTMLElement} view @param {any} app */
  constructor(view, app) {
    this.app = app;
    this.operator = app.can('operator');
    this.state = initialConversations(localStorage.getItem(ARCHIVED_STORE) === '1');
    /** @type {Map<string, ConversationRowView>} */
    this.rows = new Map();
    this.disposed = false;
    this.layout(view);
    this.unsubscribe = [
      globalEvents.on('conversation.updated', (c) => this.dispatch({ type: 'updated', conversation: c })),
      globalEvents.on('conversation.removed', (data) => { if (data && data.id) this.dispatch({ type: 'removed', id: data.id }); }),
      // After the live stream was lost, events may have been missed: read the list again.
      globalEvents.on('state', ({ state, attempts }) => {
        if (state === 'live' && attempts > 0) this.load(true).catch((error) => console.warn('conversations not read again:', error));
      }),
    ];
    this.timer = setInterval(() => {
      for (const node of this.list.querySelectorAll('.chat-time')) node.textContent = relTime(/** @type {HTMLElement} */ (node).dataset.ts);
    }, 30000);
  }

  dispose() {
    this.disposed = true;
    clearInterval(this.timer);
    for (const off of this.unsubscribe) off();
  }

  /** @param {HTMLElement} view */
  layout(view) {
    this.list = h('ul', { class: 'list chat-list', 'aria-label': 'Conversations' });
    this.empty = h('div', { class: 'empty', hidden: true });
    this.loadMore = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', class: 'btn ghost block', 'data-test': 'load-more', hidden: true, onclick: () => this.more() }, 'Load more'));
    this.count = h('span', { class: 'muted small', role: 'status', 'aria-live': 'polite' });
    const archivedToggle = /** @type {HTMLInputElement} */ (h('input', { type: 'checkbox', id: 'chats-show-archived', checked: this.state.showArchived, 'data-test': 'show-archived' }));
    archivedToggle.addEventListener('change', () => {
      this.state = reduceConversations(this.state, { type: 'archived', show: archivedToggle.checked });
      localStorage.setItem(ARCHIVED_STORE, archivedToggle.checked ? '1' : '0');
      this.load(true).catch((error) => showError(error));
    });
    const newButton = this.operator ? h('button', {
      type: 'button', class: 'btn primary', 'data-test': 'new-chat',
      onclick: async () => {
        const created = await newConversationSheet(this.app);
        if (created) this.app.navigate('#/chats/' + encodeURIComponent(created.id));
      },
    }, '+ New conversation') : null;
    render(view,
      h('section', { class: 'chats', 'aria-labelledby': 'chats-heading' },
        h('h2', { id: 'chats-heading', class: 'sr-only' }, 'Conversations'),
        h('div', { class: 'toolbar' }, newButton, h('label', { class: 'check grow', for: 'chats-show-archived' }, archivedToggle, 'Show archived'), this.count),
        h('div', { class: 'card chat-list-card' }, this.list, this.empty),
        this.loadMore));
  }

  /** @param {ConversationsAction} action */
  dispatch(action) {
    const next = reduceConversations(this.state, action);
    if (next === this.state) return;
    this.state = next;
    this.draw();
  }

  /** @param {import('../state/conversations.js').ConversationRow} c */
  rowOf(c) {
    let row = this.rows.get(c.id);
    if (!row) {
      const onMenu = this.operator ? () => conversationMenu(this.state.items.get(c.id) || c, (/** @type {any} */ updated) => {
        if (updated) this.dispatch({ type: 'updated', conversation: updated });
        else this.dispatch({ type: 'removed', id: c.id });
      }) : null;
      row = new ConversationRowView(c.id, onMenu);
      this.rows.set(c.id, row);
    }
    row.update(c);
    return row;
  }

  draw() {
    const ordered = orderedConversations(this.state);
    // Only what is out of place moves, so a focused menu button keeps its focus.
    arrange(this.list, ordered.map((c) => this.rowOf(c).li));
    for (const id of [...this.rows.keys()]) if (!this.state.items.has(id)) this.rows.delete(id);
    const total = ordered.length;
    this.empty.hidden = total > 0;
    if (!total) {
      render(this.empty,
        h('p', {}, this.state.showArchived ? 'No conversations yet.' : 'No conversations yet (archived ones are hidden).'),
        this.operator ? h('p', {}, 'Start one with “New conversation”: pick a folder of the workspace and talk to Claude Code there.')
          : h('p', {}, 'An operator can start one; you will see it here.'));
    }
    this.count.textContent = total + (this.state.hasMore ? '+' : '') + (total === 1 ? ' conversation' : ' conversations');
    this.loadMore.hidden = !this.state.hasMore;
  }

  /** @param {boolean} reset the pinned ones and the first page again, or the next page */
  async load(reset) {
    const archived = this.state.showArchived ? '&archived=true' : '';
    if (reset) {
      const [pinned, page] = await Promise.all([
        api.get('/api/conversations?pinned=true&limit=200' + archived),
        api.get('/api/conversations?pinned=false&limit=' + PAGE + archived),
      ]);
      if (!this.disposed) this.dispatch({ type: 'loaded', pinned: pinned.items, page });
    } else {
      const page = await api.get('/api/conversations?pinned=false&limit=' + PAGE + archived + '&cursor=' + encodeURIComponent(this.state.cursor || ''));
      if (!this.disposed) this.dispatch({ type: 'more', page });
    }
    this.draw();
  }

  more() {
    this.loadMore.disabled = true;
    this.loadMore.textContent = 'Loading…';
    this.load(false).catch((error) => showError(error)).finally(() => {
      this.loadMore.disabled = false;
      this.loadMore.textContent = 'Load more';
    });
  }
}
