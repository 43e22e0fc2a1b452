// @ts-check
// The New conversation sheet: in a cluster the host whose agent runs it (this server by default; an offline host
// cannot be chosen), the agent (every backend the server lists; one it cannot run is shown disabled with the reason),
// folder, title, model, permission mode (the chosen agent's default plus exactly the modes it accepts) and an optional
// first message; checked (../words/conversation.js), created, then the first message sent.

import { api, seg } from '../api.js';
import { h, showError, openSheet, field, render } from '../ui.js';
import { conversationRequest, modesHint } from '../words/conversation.js';
import { agentsOf, agentLabel, agentName, isUsable, preferredBackend, modeOptions, defaultMode } from '../words/agents.js';
import { initialHostsState, reduceHosts, showsHosts, selfHost } from '../state/hosts.js';
import { hostOptionLabel } from '../words/hosts.js';

/** @typedef {import('../words/agents.js').AgentInfo} AgentInfo */

/** @param {string} tag @param {object} attributes @param {...any} children @returns {any} */
const el = (tag, attributes, ...children) => h(tag, attributes, ...children);

/// The agent CLIs conversations can run, as `GET /api/health` describes them (claude first): `{name, command,
/// version, permission_modes, error}` each; none when the server does not say.
/** @returns {Promise<AgentInfo[]>} */
export async function chatAgents() {
  return agentsOf(await api.get('/api/health'));
}

/// The claude agent (the first listed), or null when the server does not say.
export async function chatAgent() {
  return (await chatAgents())[0] || null;
}

/** @type {Record<string, {hint: string, models: string[]}>} */
const MODEL_HINTS = {
  claude: { hint: 'A model name or alias the claude CLI accepts, e.g. sonnet.', models: ['sonnet', 'opus', 'haiku'] },
  codex: { hint: 'A model name the codex CLI accepts, e.g. gpt-5.5; its own configuration decides when empty.', models: [] },
};

class NewConversationForm {
  /** @param {string} cwd @param {(created: any) => void} onCreated */
  constructor(cwd, onCreated) {
    this.onCreated = onCreated;
    /** @type {AgentInfo[]} */
    this.agents = [];
    /// The agent chosen: its name, and what health says of it (null until read, or from an older server).
    this.backend = 'claude';
    /** @type {AgentInfo | null} */
    this.agent = null;
    this.cwd = el('input', { type: 'text', 'data-test': 'chat-cwd', value: cwd, autocomplete: 'off', autocapitalize: 'off', spellcheck: 'false', required: true });
    this.title = el('input', { type: 'text', 'data-test': 'chat-title', maxlength: 200, placeholder: 'Named after the first message when empty' });
    this.model = el('input', { type: 'text', list: 'chat-model-list', autocomplete: 'off', autocapitalize: 'off', spellcheck: 'false', placeholder: 'The CLI default' });
    this.modelList = h('datalist', { id: 'chat-model-list' });
    this.mode = el('select', { 'data-test': 'chat-permission-mode' });
    this.message = el('textarea', { rows: 3, 'data-test': 'chat-first-message' });
    this.host = el('select', { 'data-test': 'chat-host' });
    /** @type {string | null} this server's host id, in a cluster */
    this.selfHostId = null;
    this.backendChoices = h('div', { class: 'backend-options' });
    this.backendHint = h('p', { class: 'hint', id: 'chat-backend-hint' }, 'Asking the server which agents it has…');
    this.backendField = h('fieldset', { class: 'field backend-field', 'data-test': 'chat-backends', 'aria-describedby': 'chat-backend-hint' },
      h('legend', { class: 'label' }, 'Agent'), this.backendChoices, this.backendHint);
    /** @type {Record<string, any>} */
    this.fields = {
      host: field('Host', this.host, 'The server of the cluster whose agent runs the conversation; the folder is in its workspace.'),
      cwd: field('Working directory', this.cwd, 'Relative to the workspace root ("." is the root itself), or an absolute path inside it.'),
      title: field('Title (optional)', this.title),
      model: field('Model (optional)', this.model, MODEL_HINTS.claude.hint),
      mode: field('Permission mode', this.mode, 'Asking the server which modes its claude accepts…'),
      message: field('First message (optional)', this.message),
    };
    this.formError = h('p', { class: 'field-error', role: 'alert', hidden: true });
    this.submit = el('button', { type: 'submit', class: 'btn primary block', 'data-test': 'chat-create' }, 'Create conversation');
    const f = this.fields;
    // A server on its own has no host to choose.
    f.host.hidden = true;
    f.host.dataset.test = 'chat-host-field';
    this.element = h('form', { class: 'new-chat-form', novalidate: true },
      f.host, this.backendField, f.cwd, f.title, f.model, this.modelList, f.mode, f.message, this.formError, this.submit);
    this.element.addEventListener('submit', (/** @type {Event} */ event) => {
      event.preventDefault();
      this.create();
    });
    this.choose('claude', null);
    this.fields.mode.querySelector('.hint').textContent = 'Asking the server which modes its agents accept…';
    this.loadAgents();
    this.loadHosts();
  }

  /// The hosts of the cluster (this server chosen); nothing to choose for a server on its own.
  async loadHosts() {
    let hosts;
    try {
      hosts = reduceHosts(initialHostsState(), { type: 'fetched', list: await api.get('/api/hosts') });
    } catch {
      return;
    }
    if (!showsHosts(hosts)) return;
    const self = selfHost(hosts);
    this.selfHostId = self ? self.id : null;
    render(this.host, hosts.hosts.map((host) => h('option', { value: host.id, disabled: !host.online && !host.is_self, selected: host.is_self,
      'data-host-name': host.name }, hostOptionLabel(host))));
    if (self) this.host.value = self.id;
    this.fields.host.hidden = false;
  }

  /// The agents and their modes, read from /api/health once the sheet is open.
  async loadAgents() {
    try {
      this.agents = await chatAgents();
    } catch (error) {
      this.backendHint.textContent = 'The agents could not be read (' + /** @type {Error} */ (error).message + '): Claude Code is used.';
      this.fields.mode.querySelector('.hint').textContent = 'The modes could not be read (' + /** @type {Error} */ (error).message + '): only default is offered.';
      return;
    }
    if (!this.agents.length) {
      // An older server: one agent, claude, and it does not say which modes it accepts.
      this.backendField.hidden = true;
      this.choose('claude', null);
      return;
    }
    render(this.backendChoices, this.agents.map((agent) => this.backendOption(agent)));
    const usable = this.agents.filter(isUsable).length;
    this.backendHint.textContent = usable === this.agents.length ? 'Every agent this server runs.'
      : usable ? 'An agent the server cannot run is shown greyed out, with the reason.'
        : 'The server cannot run any agent: creating a conversation will fail.';
    const backend = preferredBackend(this.agents);
    const radio = /** @type {HTMLInputElement | null} */ (this.backendChoices.querySelector('input[value="' + CSS.escape(backend) + '"]'));
    if (radio) radio.checked = true;
    this.choose(backend, this.agents.find((a) => a.name === backend) || null);
  }

  /** @param {AgentInfo} agent */
  backendOption(agent) {
    const id = 'chat-backend-' + agent.name.replace(/[^a-zA-Z0-9_-]/g, '');
    const usable = isUsable(agent);
    const input = el('input', {
      type: 'radio', name: 'chat-backend', id, value: agent.name, 'data-test': 'chat-backend', disabled: !usable,
      'aria-describedby': usable ? null : id + '-sub',
      onchange: () => { if (input.checked) this.choose(agent.name, agent); },
    });
    return h('label', { class: 'backend-option', for: id, 'data-test': 'chat-backend-option', 'data-backend': agent.name, 'data-usable': usable ? 'true' : 'false' },
      input,
      h('span', { class: 'backend-text' },
        h('span', { class: 'backend-name' }, agentLabel(agent.name), agent.version ? h('span', { class: 'muted small mono' }, ' ' + agent.version) : null),
        usable ? null : h('span', { class: 'backend-sub small backend-error', id: id + '-sub', 'data-test': 'chat-backend-error' },
          'Not available: ' + agent.error)));
  }

  /// The agent chosen: its permission modes (its default first), and the words that name it.
  /** @param {string} backend @param {AgentInfo | null} agent */
  choose(backend, agent) {
    this.backend = backend;
    this.agent = agent;
    const options = modeOptions(agent || (backend === 'claude' ? null : { name: backend }));
    render(this.mode, options.map((o) => h('option', { value: o.value }, o.label)));
    this.mode.value = options[0].value;
    this.fields.mode.querySelector('.hint').textContent = agent ? modesHint(agent, options.slice(1).map((o) => o.value))
      : modesHint(null, []);
    const models = MODEL_HINTS[backend] || { hint: 'A model name the ' + backend + ' CLI accepts.', models: [] };
    this.fields.model.querySelector('.hint').textContent = models.hint;
    render(this.modelList, models.models.map((m) => h('option', { value: m })));
    this.message.placeholder = 'Optional: what ' + agentName(backend) + ' should do first';
  }

  async create() {
    for (const f of Object.values(this.fields)) if (f !== this.fields.mode) f.setError('');
    this.formError.hidden = true;
    const text = this.message.value;
    const result = conversationRequest({ cwd: this.cwd.value, title: this.title.value, model: this.model.value, mode: this.mode.value, text,
      backend: this.backend, defaultMode: defaultMode(this.agent || (this.backend === 'claude' ? null : { name: this.backend })),
      // This server's own conversations are made as before (no host in the request).
      host: this.selfHostId && this.host.value && this.host.value !== this.selfHostId ? this.host.value : null });
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
    if (/host_offline|no host/.test(message)) this.fields.host.setError(message);
    else if (/cwd|invalid_path/.test(message)) this.fields.cwd.setError(message);
    else if (/title/.test(message)) this.fields.title.setError(message);
    else if (/model/.test(message) && !/backend/.test(message)) this.fields.model.setError(message);
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
