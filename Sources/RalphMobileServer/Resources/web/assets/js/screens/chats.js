// @ts-check
// Conversations with Claude Code (`#/chats`): pinned first, newest activity next, kept live by the global stream;
// "New conversation" and a row menu (pin, archive, rename, delete) for operators.

import { api } from '../api.js';
import { globalEvents } from '../stream.js';
import { h, render, showError, badge } from '../ui.js';
import { relTime, dateTime } from '../format.js';
import { conversationTitle, shortPath, retryText } from '../words/conversation.js';
import { statusBadge, newConversationSheet, conversationMenu } from '../components/conversation-sheets.js';

const PAGE = 30;

export async function mount(view, _params, app) {
  const operator = app.can('operator');
  const items = new Map(); // id → conversation
  const rows = new Map(); // id → {li, link, menu}
  let cursor = null;
  let hasMore = false;
  let showArchived = localStorage.getItem('ralph.chats.archived') === '1';
  let disposed = false;

  const list = h('ul', { class: 'list chat-list', 'aria-label': 'Conversations' });
  const empty = h('div', { class: 'empty', hidden: true });
  const loadMore = h('button', { type: 'button', class: 'btn ghost block', 'data-test': 'load-more', hidden: true }, 'Load more');
  const count = h('span', { class: 'muted small', role: 'status', 'aria-live': 'polite' });
  const archivedToggle = h('input', { type: 'checkbox', id: 'chats-show-archived', checked: showArchived, 'data-test': 'show-archived' });
  const newButton = operator
    ? h('button', {
      type: 'button', class: 'btn primary', 'data-test': 'new-chat',
      onclick: async () => {
        const created = await newConversationSheet(app);
        if (created) app.navigate('#/chats/' + encodeURIComponent(created.id));
      },
    }, '+ New conversation')
    : null;

  render(view,
    h('section', { class: 'chats', 'aria-labelledby': 'chats-heading' },
      h('h2', { id: 'chats-heading', class: 'sr-only' }, 'Conversations'),
      h('div', { class: 'toolbar' },
        newButton,
        h('label', { class: 'check grow', for: 'chats-show-archived' }, archivedToggle, 'Show archived'),
        count),
      h('div', { class: 'card chat-list-card' }, list, empty),
      loadMore));

  function sorted() {
    return [...items.values()]
      .filter((c) => showArchived || !c.archived)
      .sort((a, b) => (Number(b.pinned) - Number(a.pinned)) || String(b.last_activity_at).localeCompare(String(a.last_activity_at)));
  }

  function rowContent(c) {
    const title = conversationTitle(c);
    const waiting = c.pending_approvals > 0;
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
          h('span', { class: 'title-text' }, title),
          c.archived ? badge('archived', 'archived') : null),
        c.status === 'retrying' ? h('div', { class: 'row-sub chat-retry', 'data-test': 'chat-retry' }, retryText(c.retry)) : null,
        c.last_message_preview ? h('div', { class: 'row-sub chat-preview' }, c.last_message_preview) : null,
        h('div', { class: 'row-sub mono', title: c.cwd }, shortPath(c.cwd))),
      side,
    ];
  }

  function renderRow(c) {
    let row = rows.get(c.id);
    if (!row) {
      const link = h('a', { class: 'row-link', href: '#/chats/' + encodeURIComponent(c.id) });
      const menu = operator
        ? h('button', {
          type: 'button', class: 'icon-btn row-menu', 'data-test': 'chat-menu',
          onclick: () => conversationMenu(items.get(c.id) || c, (updated) => {
            if (updated) upsert(updated);
            else remove(c.id);
          }),
        }, '\u22EF')
        : null;
      const li = h('li', { class: 'chat-row', 'data-test': 'chat-row', 'data-id': c.id }, link, menu);
      row = { li, link, menu };
      rows.set(c.id, row);
    }
    row.li.dataset.status = c.status || 'idle';
    render(row.link, ...rowContent(c));
    if (row.menu) row.menu.setAttribute('aria-label', 'Actions for ' + conversationTitle(c));
    return row;
  }

  function draw() {
    const ordered = sorted();
    const wanted = ordered.map((c) => renderRow(c).li);
    // Move only what is out of place, so a focused menu button keeps its focus.
    const current = [...list.children];
    for (const li of current) if (!wanted.includes(li)) li.remove();
    wanted.forEach((li, index) => {
      if (list.children[index] !== li) list.insertBefore(li, list.children[index] || null);
    });
    const total = ordered.length;
    empty.hidden = total > 0;
    if (!total) {
      render(empty,
        h('p', {}, showArchived ? 'No conversations yet.' : 'No conversations yet (archived ones are hidden).'),
        operator ? h('p', {}, 'Start one with “New conversation”: pick a folder of the workspace and talk to Claude Code there.')
          : h('p', {}, 'An operator can start one; you will see it here.'));
    }
    count.textContent = total + (hasMore ? '+' : '') + (total === 1 ? ' conversation' : ' conversations');
    loadMore.hidden = !hasMore;
  }

  function upsert(c) {
    if (!c || !c.id) return;
    items.set(c.id, c);
    draw();
  }

  function remove(id) {
    items.delete(id);
    const row = rows.get(id);
    if (row) row.li.remove();
    rows.delete(id);
    draw();
  }

  async function load(reset = true) {
    const archived = showArchived ? '&archived=true' : '';
    if (reset) {
      const [pinned, page] = await Promise.all([
        api.get('/api/conversations?pinned=true&limit=200' + archived),
        api.get('/api/conversations?pinned=false&limit=' + PAGE + archived),
      ]);
      if (disposed) return;
      items.clear();
      for (const c of pinned.items) items.set(c.id, c);
      for (const c of page.items) items.set(c.id, c);
      cursor = page.next_cursor;
      hasMore = page.has_more;
    } else {
      const page = await api.get('/api/conversations?pinned=false&limit=' + PAGE + archived + '&cursor=' + encodeURIComponent(cursor));
      if (disposed) return;
      for (const c of page.items) if (!items.has(c.id)) items.set(c.id, c);
      cursor = page.next_cursor;
      hasMore = page.has_more;
    }
    draw();
  }

  loadMore.addEventListener('click', () => {
    loadMore.disabled = true;
    loadMore.textContent = 'Loading…';
    load(false).catch((error) => showError(error)).finally(() => {
      loadMore.disabled = false;
      loadMore.textContent = 'Load more';
    });
  });
  archivedToggle.addEventListener('change', () => {
    showArchived = archivedToggle.checked;
    localStorage.setItem('ralph.chats.archived', showArchived ? '1' : '0');
    load(true).catch((error) => showError(error));
  });

  const unsubscribe = [
    globalEvents.on('conversation.updated', (c) => {
      if (!c || !c.id) return;
      if (c.archived && !showArchived) {
        if (items.has(c.id)) remove(c.id);
        return;
      }
      upsert(c);
    }),
    globalEvents.on('conversation.removed', (data) => { if (data && data.id) remove(data.id); }),
    // After the live stream was lost, events may have been missed: read the list again.
    globalEvents.on('state', ({ state, attempts }) => {
      if (state === 'live' && attempts > 0) load(true).catch(() => {});
    }),
  ];
  const timer = setInterval(() => {
    for (const node of list.querySelectorAll('.chat-time')) node.textContent = relTime(node.dataset.ts);
  }, 30000);

  try {
    await load(true);
  } catch (error) {
    render(view, h('div', { class: 'banner error', role: 'alert' }, 'The conversations could not be loaded: ' + error.message),
      h('button', { type: 'button', class: 'btn', onclick: () => app.navigate('#/chats') }, 'Try again'));
  }

  return () => {
    disposed = true;
    clearInterval(timer);
    for (const off of unsubscribe) off();
  };
}
