// Conversations with Claude Code (`#/chats`): pinned first, newest activity next, kept live by the global stream;
// "New conversation" and a row menu (pin, archive, rename, delete) for operators.

import { api, seg, globalEvents } from '../api.js';
import { h, render, toast, showError, openSheet, confirmDialog, badge, relTime, dateTime, field } from '../ui.js';

const PAGE = 30;

export const STATUS_WORDS = {
  idle: 'idle',
  running: 'running',
  awaiting_approval: 'needs approval',
  stalled: 'stalled',
  retrying: 'retrying',
};

export function statusBadge(status) {
  const node = badge(STATUS_WORDS[status] || status || 'idle', status || 'idle');
  node.dataset.status = status || 'idle';
  return node;
}

/// The last two parts of a path ("…/app/api"); the whole path goes into the element's title.
export function shortPath(path) {
  const parts = String(path || '').split('/').filter(Boolean);
  if (parts.length <= 2) return String(path || '');
  return '…/' + parts.slice(-2).join('/');
}

export function conversationTitle(c) {
  if (c && c.title && c.title.trim()) return c.title.trim();
  return 'Untitled conversation';
}

/// What the status line says while the agent CLI retries the model API, e.g. "Retrying the model API (attempt 3 of 10,
/// HTTP 529): overloaded".
export function retryText(retry) {
  if (!retry) return 'Retrying the model API…';
  const parts = [];
  if (retry.attempt) parts.push('attempt ' + retry.attempt + (retry.max_retries ? ' of ' + retry.max_retries : ''));
  if (retry.error_status) parts.push('HTTP ' + retry.error_status);
  return 'Retrying the model API' + (parts.length ? ' (' + parts.join(', ') + ')' : '') + (retry.error ? ': ' + retry.error : '');
}

/// Words for the permission modes Claude Code knows; the modes offered are only those the server's claude accepts.
const MODE_WORDS = {
  default: 'asks before edits, commands and network',
  manual: 'the same as default, under its newer name',
  acceptEdits: 'file edits and simple file commands run without asking',
  plan: 'reads and plans only, no changes',
  auto: 'a classifier model approves instead of you',
  dontAsk: 'whatever is not already allowed is refused, nobody is asked',
  bypassPermissions: 'every tool runs without asking (risky)',
};

export function permissionModeLabel(mode) {
  return MODE_WORDS[mode] ? mode + ' — ' + MODE_WORDS[mode] : mode;
}

/// The agent CLI conversations run, as `GET /api/health` describes it: `{name, command, version, permission_modes,
/// error}`, or null when the server does not say.
export async function chatAgent() {
  const health = await api.get('/api/health');
  return (health && Array.isArray(health.agents) && health.agents[0]) || null;
}

/// The "New conversation" sheet; resolves with the new conversation (and sends the first message when given).
export function newConversationSheet(app, { cwd = '.' } = {}) {
  return new Promise((resolve) => {
    let created = null;
    openSheet({
      title: 'New conversation',
      onClose: () => resolve(created),
      build: (close) => {
        const cwdInput = h('input', { type: 'text', 'data-test': 'chat-cwd', value: cwd, autocomplete: 'off', autocapitalize: 'off', spellcheck: 'false', required: true });
        const titleInput = h('input', { type: 'text', 'data-test': 'chat-title', maxlength: 200, placeholder: 'Named after the first message when empty' });
        const modelInput = h('input', { type: 'text', list: 'chat-model-list', autocomplete: 'off', autocapitalize: 'off', spellcheck: 'false', placeholder: 'The CLI default' });
        const modelList = h('datalist', { id: 'chat-model-list' }, ['sonnet', 'opus', 'haiku'].map((m) => h('option', { value: m })));
        // `default` plus exactly the modes the server's claude accepts (read from /api/health once the sheet is open).
        const modeSelect = h('select', { 'data-test': 'chat-permission-mode' }, h('option', { value: 'default' }, permissionModeLabel('default')));
        const firstMessage = h('textarea', { rows: 3, 'data-test': 'chat-first-message', placeholder: 'Optional: what Claude should do first' });
        const cwdField = field('Working directory', cwdInput, 'Relative to the workspace root ("." is the root itself), or an absolute path inside it.');
        const titleField = field('Title (optional)', titleInput);
        const modelField = field('Model (optional)', modelInput, 'A model name or alias the claude CLI accepts, e.g. sonnet.');
        const modeField = field('Permission mode', modeSelect, 'Asking the server which modes its claude accepts…');
        const modeHint = modeField.querySelector('.hint');
        chatAgent().then((agent) => {
          const modes = agent && Array.isArray(agent.permission_modes) ? agent.permission_modes.filter((m) => m !== 'default') : [];
          for (const mode of modes) modeSelect.append(h('option', { value: mode }, permissionModeLabel(mode)));
          modeHint.textContent = !agent ? 'The server does not say which modes its claude accepts: only default is offered.'
            : agent.error ? 'The server could not ask ' + agent.name + ' about itself (' + agent.error + ')' + (modes.length ? '; these are the modes it expects.' : ': only default is offered.')
              : 'The modes ' + agent.name + (agent.version ? ' ' + agent.version : '') + ' accepts.';
        }).catch((error) => {
          modeHint.textContent = 'The modes could not be read (' + error.message + '): only default is offered.';
        });
        const messageField = field('First message (optional)', firstMessage);
        const formError = h('p', { class: 'field-error', role: 'alert', hidden: true });
        const submit = h('button', { type: 'submit', class: 'btn primary block', 'data-test': 'chat-create' }, 'Create conversation');
        const form = h('form', { class: 'new-chat-form', novalidate: true },
          cwdField, titleField, modelField, modelList, modeField, messageField, formError, submit);
        form.addEventListener('submit', async (event) => {
          event.preventDefault();
          for (const f of [cwdField, titleField, modelField, messageField]) f.setError('');
          formError.hidden = true;
          const body = { cwd: cwdInput.value.trim() };
          const title = titleInput.value.trim();
          const model = modelInput.value.trim();
          const text = firstMessage.value;
          let bad = false;
          if (!body.cwd) { cwdField.setError('Enter a directory ("." for the workspace root).'); bad = true; }
          if (title.length > 200) { titleField.setError('At most 200 characters.'); bad = true; }
          if (model && (/\s/.test(model) || model.startsWith('-') || model.length > 100)) {
            modelField.setError('A short name without spaces that does not start with "-".');
            bad = true;
          }
          if (new TextEncoder().encode(text).length > 100000) { messageField.setError('At most 100 000 bytes.'); bad = true; }
          if (bad) {
            const invalid = form.querySelector('[aria-invalid="true"]');
            if (invalid) invalid.focus();
            return;
          }
          if (title) body.title = title;
          if (model) body.model = model;
          if (modeSelect.value && modeSelect.value !== 'default') body.permission_mode = modeSelect.value;
          submit.disabled = true;
          submit.textContent = 'Creating…';
          try {
            created = await api.post('/api/conversations', body);
            if (text.trim()) {
              try {
                await api.post('/api/conversations/' + seg(created.id) + '/messages', { text });
              } catch (error) {
                showError(error, 'The conversation was created but the first message was not sent');
              }
            }
            close(created);
          } catch (error) {
            const message = error.message || String(error);
            if (/cwd|invalid_path/.test(message)) cwdField.setError(message);
            else if (/title/.test(message)) titleField.setError(message);
            else if (/model/.test(message)) modelField.setError(message);
            else {
              formError.textContent = message;
              formError.hidden = false;
            }
          } finally {
            submit.disabled = false;
            submit.textContent = 'Create conversation';
          }
        });
        return form;
      },
    });
  });
}

/// The rename sheet; resolves with the updated conversation or null.
export function renameSheet(conversation) {
  return new Promise((resolve) => {
    let updated = null;
    openSheet({
      title: 'Rename conversation',
      onClose: () => resolve(updated),
      build: (close) => {
        const input = h('input', { type: 'text', value: conversation.title || '', maxlength: 200, 'data-test': 'rename-input' });
        const f = field('Title', input);
        const submit = h('button', { type: 'submit', class: 'btn primary block', 'data-test': 'rename-save' }, 'Save');
        const form = h('form', { novalidate: true }, f, submit);
        form.addEventListener('submit', async (event) => {
          event.preventDefault();
          const title = input.value.trim();
          if (!title) { f.setError('Enter a title.'); input.focus(); return; }
          if (title.length > 200) { f.setError('At most 200 characters.'); input.focus(); return; }
          submit.disabled = true;
          try {
            updated = await api.patch('/api/conversations/' + seg(conversation.id), { title });
            close(updated);
          } catch (error) {
            f.setError(error.message);
          } finally {
            submit.disabled = false;
          }
        });
        return form;
      },
    });
  });
}

/// Pin / archive / rename / delete for one conversation. `onChange(conversation | null)`: null when deleted.
export function conversationMenu(conversation, onChange) {
  const patch = async (body, done) => {
    try {
      const updated = await api.patch('/api/conversations/' + seg(conversation.id), body);
      toast(done);
      onChange(updated);
    } catch (error) {
      showError(error);
    }
  };
  openSheet({
    title: conversationTitle(conversation),
    build: (close) => h('div', { class: 'menu-list' },
      h('button', { type: 'button', class: 'btn block', 'data-test': 'chat-pin', onclick: () => { close(); patch({ pinned: !conversation.pinned }, conversation.pinned ? 'Unpinned' : 'Pinned'); } },
        conversation.pinned ? 'Unpin' : 'Pin to the top'),
      h('button', { type: 'button', class: 'btn block', 'data-test': 'chat-rename', onclick: async () => { close(); const updated = await renameSheet(conversation); if (updated) { toast('Renamed'); onChange(updated); } } },
        'Rename'),
      h('button', { type: 'button', class: 'btn block', 'data-test': 'chat-archive', onclick: () => { close(); patch({ archived: !conversation.archived }, conversation.archived ? 'Moved back from the archive' : 'Archived'); } },
        conversation.archived ? 'Unarchive' : 'Archive'),
      h('button', {
        type: 'button', class: 'btn danger block', 'data-test': 'chat-delete',
        onclick: async () => {
          close();
          const ok = await confirmDialog({
            title: 'Delete this conversation?',
            message: `“${conversationTitle(conversation)}” and all its messages, tool calls and approvals are removed from the server, and its Claude process is stopped. This cannot be undone.`,
            confirm: 'Delete', danger: true,
          });
          if (!ok) return;
          try {
            await api.del('/api/conversations/' + seg(conversation.id));
            toast('Conversation deleted');
            onChange(null);
          } catch (error) {
            showError(error);
          }
        },
      }, 'Delete…')),
  });
}

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
