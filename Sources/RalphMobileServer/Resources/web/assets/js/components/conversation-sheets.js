// @ts-check
// Conversation parts shared by the conversations list and the chat screen: the status badge, and the Rename and
// row-menu sheets (New conversation is ./new-conversation-sheet.js).

import { api, seg } from '../api.js';
import { h, toast, showError, openSheet, confirmDialog, badge, field } from '../ui.js';
import { STATUS_WORDS, conversationTitle } from '../words/conversation.js';

/** @param {string | null | undefined} status */
export function statusBadge(status) {
  const node = badge(STATUS_WORDS[status] || status || 'idle', status || 'idle');
  node.dataset.status = status || 'idle';
  return node;
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
