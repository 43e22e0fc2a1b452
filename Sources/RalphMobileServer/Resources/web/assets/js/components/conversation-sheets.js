// @ts-check
// Conversation parts shared by the conversations list and the chat screen: the status badge, the agent CLI's
// description, and the New conversation, Rename and row-menu sheets.

import { api, seg } from '../api.js';
import { h, toast, showError, openSheet, confirmDialog, badge, field } from '../ui.js';
import { STATUS_WORDS, conversationTitle, permissionModeLabel } from '../words/conversation.js';

/** @param {string | null | undefined} status */
export function statusBadge(status) {
  const node = badge(STATUS_WORDS[status] || status || 'idle', status || 'idle');
  node.dataset.status = status || 'idle';
  return node;
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
