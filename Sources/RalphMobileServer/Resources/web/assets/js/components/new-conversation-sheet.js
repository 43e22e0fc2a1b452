// @ts-check
// The New conversation sheet: folder, title, model, permission mode (default plus the modes the server's claude
// accepts) and an optional first message; checked (../words/conversation.js), created, then the first message sent.

import { api, seg } from '../api.js';
import { h, showError, openSheet, field } from '../ui.js';
import { permissionModeLabel, conversationRequest, modesHint } from '../words/conversation.js';

/** @param {string} tag @param {object} attributes @param {...any} children @returns {any} */
const el = (tag, attributes, ...children) => h(tag, attributes, ...children);

/// The agent CLI conversations run, as `GET /api/health` describes it: `{name, command, version, permission_modes,
/// error}`, or null when the server does not say.
export async function chatAgent() {
  const health = await api.get('/api/health');
  return (health && Array.isArray(health.agents) && health.agents[0]) || null;
}

class NewConversationForm {
  /** @param {string} cwd @param {(created: any) => void} onCreated */
  constructor(cwd, onCreated) {
    this.onCreated = onCreated;
    this.cwd = el('input', { type: 'text', 'data-test': 'chat-cwd', value: cwd, autocomplete: 'off', autocapitalize: 'off', spellcheck: 'false', required: true });
    this.title = el('input', { type: 'text', 'data-test': 'chat-title', maxlength: 200, placeholder: 'Named after the first message when empty' });
    this.model = el('input', { type: 'text', list: 'chat-model-list', autocomplete: 'off', autocapitalize: 'off', spellcheck: 'false', placeholder: 'The CLI default' });
    this.mode = el('select', { 'data-test': 'chat-permission-mode' }, h('option', { value: 'default' }, permissionModeLabel('default')));
    this.message = el('textarea', { rows: 3, 'data-test': 'chat-first-message', placeholder: 'Optional: what Claude should do first' });
    /** @type {Record<string, any>} */
    this.fields = {
      cwd: field('Working directory', this.cwd, 'Relative to the workspace root ("." is the root itself), or an absolute path inside it.'),
      title: field('Title (optional)', this.title),
      model: field('Model (optional)', this.model, 'A model name or alias the claude CLI accepts, e.g. sonnet.'),
      mode: field('Permission mode', this.mode, 'Asking the server which modes its claude accepts…'),
      message: field('First message (optional)', this.message),
    };
    this.formError = h('p', { class: 'field-error', role: 'alert', hidden: true });
    this.submit = el('button', { type: 'submit', class: 'btn primary block', 'data-test': 'chat-create' }, 'Create conversation');
    const f = this.fields;
    this.element = h('form', { class: 'new-chat-form', novalidate: true },
      f.cwd, f.title, f.model, h('datalist', { id: 'chat-model-list' }, ['sonnet', 'opus', 'haiku'].map((m) => h('option', { value: m }))),
      f.mode, f.message, this.formError, this.submit);
    this.element.addEventListener('submit', (/** @type {Event} */ event) => {
      event.preventDefault();
      this.create();
    });
    this.loadModes();
  }

  /// `default` plus exactly the modes the server's claude accepts (read from /api/health once the sheet is open).
  async loadModes() {
    const hint = this.fields.mode.querySelector('.hint');
    try {
      const agent = await chatAgent();
      /** @type {string[]} */
      const modes = agent && Array.isArray(agent.permission_modes) ? agent.permission_modes.filter((/** @type {string} */ m) => m !== 'default') : [];
      for (const mode of modes) this.mode.append(h('option', { value: mode }, permissionModeLabel(mode)));
      hint.textContent = modesHint(agent, modes);
    } catch (error) {
      hint.textContent = 'The modes could not be read (' + /** @type {Error} */ (error).message + '): only default is offered.';
    }
  }

  async create() {
    for (const f of Object.values(this.fields)) if (f !== this.fields.mode) f.setError('');
    this.formError.hidden = true;
    const text = this.message.value;
    const result = conversationRequest({ cwd: this.cwd.value, title: this.title.value, model: this.model.value, mode: this.mode.value, text });
    if ('problems' in result) {
      for (const [name, message] of result.problems) this.fields[name].setError(message);
      const invalid = /** @type {HTMLElement | null} */ (this.element.querySelector('[aria-invalid="true"]'));
      if (invalid) invalid.focus();
      return;
    }
    this.submit.disabled = true;
    this.submit.textContent = 'Creating…';
    try {
      const created = await api.post('/api/conversations', result.body);
      if (text.trim()) {
        try {
          await api.post('/api/conversations/' + seg(created.id) + '/messages', { text });
        } catch (error) {
          showError(error, 'The conversation was created but the first message was not sent');
        }
      }
      this.onCreated(created);
    } catch (error) {
      this.showServerError(/** @type {Error} */ (error).message || String(error));
    } finally {
      this.submit.disabled = false;
      this.submit.textContent = 'Create conversation';
    }
  }

  /** @param {string} message */
  showServerError(message) {
    if (/cwd|invalid_path/.test(message)) this.fields.cwd.setError(message);
    else if (/title/.test(message)) this.fields.title.setError(message);
    else if (/model/.test(message)) this.fields.model.setError(message);
    else {
      this.formError.textContent = message;
      this.formError.hidden = false;
    }
  }
}

/// The "New conversation" sheet; resolves with the new conversation (and sends the first message when given).
/** @param {any} _app @param {{cwd?: string}} [options] @returns {Promise<any>} */
export function newConversationSheet(_app, { cwd = '.' } = {}) {
  return new Promise((resolve) => {
    /** @type {any} */
    let created = null;
    openSheet({
      title: 'New conversation',
      onClose: () => resolve(created),
      build: (/** @type {(result: unknown) => void} */ close) => new NewConversationForm(cwd, (c) => {
        created = c;
        close(c);
      }).element,
    });
  });
}
