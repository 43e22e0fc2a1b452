// @ts-check
// The New run form: a config (or preset) with a preview, a prompt (a file from prompts/ or typed text), optionally a
// working directory (the lists are read from it), max iterations and backend; checked (./run-request.js), then
// `POST /api/sessions` and on to the run. "Start a run with this" in the Library hands over a config or a prompt path
// through sessionStorage ('ralph.new.config', 'ralph.new.prompt'), taken once.

import { api, encodePath } from '../api.js';
import { h, render, toast, field } from '../ui.js';
import { runRequest, MAX_ITERATIONS } from './run-request.js';

const BACKENDS = ['claude', 'kiro', 'gemini', 'codex', 'amp', 'copilot', 'opencode'];
const MODE_STORE = 'ralph.create.promptMode';

/** @param {string} tag @param {object} attributes @param {...any} children @returns {any} */
const el = (tag, attributes, ...children) => h(tag, attributes, ...children);

/** @param {number} n @param {string} title @param {...any} body */
const step = (n, title, ...body) => h('fieldset', { class: 'card cr-step' },
  h('legend', { class: 'cr-legend' }, h('span', { class: 'cr-num', 'aria-hidden': 'true' }, String(n)), h('span', { class: 'sr-only' }, 'Step ' + n + ': '), title),
  ...body);

/** @param {{path: string, description?: string}} c */
const configOption = (c) => h('option', { value: c.path }, c.path + (c.description ? ' — ' + c.description : ''));

export class CreateRunForm {
  /** @param {HTMLElement} view @param {any} app */
  constructor(view, app) {
    this.app = app;
    this.disposed = false;
    this.workspace = ''; // the directory the lists were read from ('' = the first root)
    /** @type {Map<string, any>} */
    this.previews = new Map();
    this.handedConfig = sessionStorage.getItem('ralph.new.config');
    this.handedPrompt = sessionStorage.getItem('ralph.new.prompt');
    sessionStorage.removeItem('ralph.new.config');
    sessionStorage.removeItem('ralph.new.prompt');
    this.buildControls();
    render(view, this.buildForm());
    this.setPromptMode(this.handedPrompt || localStorage.getItem(MODE_STORE) === 'file' ? 'file' : 'text');
    this.listen();
  }

  buildControls() {
    this.configSelect = el('select', { 'data-test': 'create-config', name: 'config' }, h('option', { value: '' }, 'Loading…'));
    this.configField = field('Config or preset', this.configSelect, 'ralph.yml of the directory, or a preset from presets/.');
    this.configPreview = h('div', { class: 'cr-preview', 'aria-live': 'polite' });
    this.modeFile = el('button', { type: 'button', 'data-test': 'create-prompt-mode-file', onclick: () => this.setPromptMode('file') }, 'Prompt file');
    this.modeText = el('button', { type: 'button', 'data-test': 'create-prompt-mode-text', onclick: () => this.setPromptMode('text') }, 'Write text');
    this.promptSelect = el('select', { 'data-test': 'create-prompt-file', name: 'prompt_path' }, h('option', { value: '' }, 'Loading…'));
    this.promptFileField = field('Prompt file', this.promptSelect, 'Markdown files under prompts/.');
    this.promptPreview = h('div', { class: 'cr-preview', 'aria-live': 'polite' });
    this.promptText = el('textarea', { 'data-test': 'create-prompt-text', name: 'prompt', rows: 5, placeholder: 'What should ralph do? e.g. Add a --json flag to the export command, with tests.' });
    this.promptTextField = field('Prompt', this.promptText, 'Passed to ralph with -p.');
    this.filePart = h('div', {}, this.promptFileField, this.promptPreview);
    this.textPart = h('div', {}, this.promptTextField);
    this.workdirInput = el('input', { type: 'text', 'data-test': 'create-workdir', name: 'working_dir', autocomplete: 'off', autocapitalize: 'off', spellcheck: 'false', placeholder: '. (the workspace root)' });
    this.workdirField = field('Working directory (optional)', this.workdirInput, 'Relative to the workspace root; it must stay inside it. Configs and prompts above are listed from this directory.');
    this.maxInput = el('input', { type: 'number', 'data-test': 'create-max-iterations', name: 'max_iterations', min: 1, max: MAX_ITERATIONS, step: 1, inputmode: 'numeric', placeholder: 'from the config' });
    this.maxField = field('Max iterations (optional)', this.maxInput, 'Overrides event_loop.max_iterations.');
    this.backendSelect = el('select', { 'data-test': 'create-backend', name: 'backend' },
      h('option', { value: '' }, 'As the config says'), BACKENDS.map((b) => h('option', { value: b }, b)));
    this.backendField = field('Backend (optional)', this.backendSelect);
    this.errorBanner = el('div', { class: 'banner error', role: 'alert', hidden: true, tabindex: '-1' });
    this.submit = el('button', { type: 'submit', class: 'btn primary block', 'data-test': 'create-submit' }, 'Start run');
  }

  buildForm() {
    const form = h('form', { class: 'create-run', novalidate: true, 'aria-label': 'Start a ralph run' },
      this.errorBanner,
      step(1, 'Config', this.configField, this.configPreview),
      step(2, 'Prompt',
        h('div', { class: 'segmented cr-mode', role: 'group', 'aria-label': 'Prompt source' }, this.modeFile, this.modeText),
        this.filePart, this.textPart),
      step(3, 'Where and how', this.workdirField, h('div', { class: 'cr-row' }, this.maxField, this.backendField)),
      this.submit,
      h('p', { class: 'muted small cr-note' }, 'The server runs ', h('code', {}, 'ralph run -c <config> -p|-P … --autonomous --no-tui'),
        ' in that directory; the run shows up in Sessions.'));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.start();
    });
    return form;
  }

  listen() {
    this.configSelect.addEventListener('change', () => { this.configField.setError(''); this.showConfigPreview(); });
    this.promptSelect.addEventListener('change', () => { this.promptFileField.setError(''); this.showPromptPreview(); });
    this.promptText.addEventListener('input', () => this.promptTextField.setError(''));
    this.maxInput.addEventListener('input', () => this.maxField.setError(''));
    this.workdirInput.addEventListener('input', () => this.workdirField.setError(''));
    this.workdirInput.addEventListener('change', () => {
      const dir = this.workdirInput.value.trim();
      if (dir === this.workspace) return;
      this.workspace = dir;
      this.loadLists().catch((error) => this.workdirField.setError('The lists could not be read: ' + error.message));
    });
  }

  /** @param {'file' | 'text'} mode */
  setPromptMode(mode) {
    this.promptMode = mode;
    localStorage.setItem(MODE_STORE, mode);
    this.modeFile.setAttribute('aria-pressed', String(mode === 'file'));
    this.modeText.setAttribute('aria-pressed', String(mode === 'text'));
    this.filePart.hidden = mode !== 'file';
    this.textPart.hidden = mode !== 'text';
    this.promptFileField.setError('');
    this.promptTextField.setError('');
  }

  query() {
    return this.workspace ? '?workspace=' + encodeURIComponent(this.workspace) : '';
  }

  // --- Lists and previews ---------------------------------------------------------------------------------------

  async loadLists() {
    const previousConfig = this.configSelect.value || this.handedConfig || '';
    const previousPrompt = this.promptSelect.value || this.handedPrompt || '';
    this.configSelect.disabled = true;
    this.promptSelect.disabled = true;
    const q = this.query();
    const [configs, presets, prompts] = await Promise.allSettled([
      api.get('/api/configs' + q), api.get('/api/presets' + q), api.get('/api/prompts' + q),
    ]);
    if (this.disposed) return;
    this.configSelect.disabled = false;
    this.promptSelect.disabled = false;
    if (this.workspace && configs.status === 'rejected' && prompts.status === 'rejected') {
      // The directory itself is the problem (outside the roots, missing): say so there, keep the lists we had.
      this.workdirField.setError('This directory cannot be used: ' + configs.reason.message);
      return;
    }
    this.workdirField.setError('');
    this.fillConfigs(configs, presets, previousConfig);
    this.fillPrompts(prompts, previousPrompt);
    this.showConfigPreview();
    this.showPromptPreview();
  }

  /// Configs: ralph.yml first, then the presets (the configs list already holds them; the presets list adds names).
  /** @param {PromiseSettledResult<any>} configs @param {PromiseSettledResult<any>} presets @param {string} previous */
  fillConfigs(configs, presets, previous) {
    if (configs.status === 'rejected' && presets.status === 'rejected') {
      render(this.configSelect, h('option', { value: '' }, 'Could not load configs'));
      this.configField.setError(configs.reason.message);
      return;
    }
    this.configField.setError('');
    /** @type {Map<string, {path: string, description?: string}>} */
    const items = new Map();
    for (const c of configs.status === 'fulfilled' ? configs.value.configs || [] : []) items.set(c.path, c);
    for (const p of presets.status === 'fulfilled' ? presets.value.presets || [] : []) if (!items.has(p.path)) items.set(p.path, p);
    const all = [...items.values()];
    const main = all.filter((c) => !c.path.startsWith('presets/'));
    const extra = all.filter((c) => c.path.startsWith('presets/'));
    render(this.configSelect,
      h('option', { value: '' }, all.length ? 'Choose a config…' : 'No config here (add ralph.yml or presets/*.yml)'),
      main.length ? h('optgroup', { label: 'Workspace config' }, main.map(configOption)) : null,
      extra.length ? h('optgroup', { label: 'Presets' }, extra.map(configOption)) : null);
    const wanted = items.has(previous) ? previous : (main.find((c) => /^ralph\.ya?ml$/.test(c.path)) || { path: '' }).path;
    this.configSelect.value = wanted || '';
  }

  /** @param {PromiseSettledResult<any>} prompts @param {string} previous */
  fillPrompts(prompts, previous) {
    if (prompts.status === 'rejected') {
      render(this.promptSelect, h('option', { value: '' }, 'Could not load prompts'));
      this.promptFileField.setError(prompts.reason.message);
      return;
    }
    /** @type {Array<{path: string, preview?: string}>} */
    const list = prompts.value.prompts || [];
    render(this.promptSelect,
      h('option', { value: '' }, list.length ? 'Choose a prompt file…' : 'No prompt files in prompts/'),
      list.map((p) => h('option', { value: p.path }, p.path + (p.preview ? ' — ' + p.preview : ''))));
    this.promptSelect.value = list.some((p) => p.path === previous) ? previous : '';
  }

  /** @param {'configs' | 'prompts'} kind @param {string} path @param {HTMLElement} target */
  async preview(kind, path, target) {
    if (!path) {
      render(target);
      return;
    }
    const key = kind + '|' + this.workspace + '|' + path;
    render(target, h('p', { class: 'muted small' }, 'Loading preview…'));
    try {
      if (!this.previews.has(key)) this.previews.set(key, await api.get('/api/' + kind + '/' + encodePath(path) + this.query()));
      if (this.disposed || (kind === 'configs' ? this.configSelect.value : this.promptSelect.value) !== path) return;
      const file = this.previews.get(key);
      render(target, h('div', { class: 'cr-preview-box' },
        h('div', { class: 'muted small' }, 'Preview of ', h('code', {}, file.path || path)),
        h('pre', { class: 'cr-pre', tabindex: '0', 'aria-label': 'Content of ' + path }, file.content || '(empty file)')));
    } catch (error) {
      if (!this.disposed) render(target, h('p', { class: 'banner warn small' }, 'No preview: ' + /** @type {Error} */ (error).message));
    }
  }

  showConfigPreview() { return this.preview('configs', this.configSelect.value, this.configPreview); }

  showPromptPreview() { return this.preview('prompts', this.promptSelect.value, this.promptPreview); }

  // --- Submit -----------------------------------------------------------------------------------------------------

  /// The request, or null after showing the problems (the first problem's control gets the focus).
  validate() {
    /** @type {Record<string, [any, HTMLElement]>} field name → [field, control] */
    const fields = {
      config: [this.configField, this.configSelect], promptFile: [this.promptFileField, this.promptSelect],
      promptText: [this.promptTextField, this.promptText], workdir: [this.workdirField, this.workdirInput],
      max: [this.maxField, this.maxInput], backend: [this.backendField, this.backendSelect],
    };
    for (const name of ['config', 'promptFile', 'promptText', 'max']) fields[name][0].setError('');
    const result = runRequest({
      config: this.configSelect.value, promptMode: /** @type {'file' | 'text'} */ (this.promptMode), promptPath: this.promptSelect.value,
      promptText: this.promptText.value, workdir: this.workdirInput.value, max: this.maxInput.value,
      maxBadInput: !!(this.maxInput.validity && this.maxInput.validity.badInput), backend: this.backendSelect.value,
    });
    if ('body' in result) return result.body;
    for (const [name, message] of result.problems) fields[name][0].setError(message);
    fields[result.problems[0][0]][1].focus();
    return null;
  }

  /** @param {any} error */
  showServerError(error) {
    const code = error.code;
    if (code === 'config_not_found') this.configField.setError(error.message);
    else if (code === 'prompt_not_found') this.promptFileField.setError(error.message);
    else if (code === 'invalid_path' && /working_dir/.test(error.message)) this.workdirField.setError(error.message);
    render(this.errorBanner,
      h('strong', {}, error.status === 403 ? 'Not allowed: ' : code === 'failed_to_spawn' ? 'ralph did not start: ' : 'The run was not started: '),
      h('pre', { class: 'cr-error-text' }, error.message));
    this.errorBanner.hidden = false;
    this.errorBanner.focus();
  }

  async start() {
    this.errorBanner.hidden = true;
    const body = this.validate();
    if (!body) return;
    const submit = this.submit;
    submit.disabled = true;
    submit.textContent = 'Starting ralph…';
    submit.setAttribute('aria-busy', 'true');
    try {
      const result = await api.post('/api/sessions', body);
      if (this.disposed) return;
      toast(result && result.pending ? 'ralph is starting; the run appears in a moment' : 'Run started');
      this.app.navigate('#/sessions/' + encodeURIComponent(result.id));
    } catch (error) {
      if (!this.disposed) this.showServerError(error);
    } finally {
      submit.disabled = false;
      submit.textContent = 'Start run';
      submit.removeAttribute('aria-busy');
    }
  }
}
