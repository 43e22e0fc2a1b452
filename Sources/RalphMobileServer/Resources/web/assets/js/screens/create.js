// New run (`#/new`, admin only): pick a config (or preset) with a preview, a prompt (a file from prompts/ or typed
// text), optionally a working directory, max iterations and backend, then `POST /api/sessions` and go to the run.

import { api, encodePath } from '../api.js';
import { h, render, toast, field } from '../ui.js';

const BACKENDS = ['claude', 'kiro', 'gemini', 'codex', 'amp', 'copilot', 'opencode'];
const NAME_RULE = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_ITERATIONS = 100000;

export async function mount(view, params, app) {
  app.setTitle('New run');
  app.setBack('#/sessions');
  if (!app.can('admin')) {
    render(view, h('div', { class: 'card cr-denied', role: 'alert' },
      h('h2', {}, 'Starting runs needs admin'),
      h('p', {}, 'You are logged in with ' + (app.role === 'operator' ? 'an' : 'a') + ' ' + app.role + ' key. Starting a ralph run on this machine needs an admin key.'),
      h('p', { class: 'muted small' }, 'Create one on the server with: ', h('code', {}, 'ralph-mobile-server keys create --role admin')),
      h('a', { class: 'btn', href: '#/sessions' }, 'Back to the sessions')));
    return undefined;
  }

  let disposed = false;
  let promptMode = localStorage.getItem('ralph.create.promptMode') === 'file' ? 'file' : 'text';
  let workspace = ''; // the directory the lists were read from ('' = the first root)
  const previews = new Map();

  // --- Controls --------------------------------------------------------------------------------------------------
  const configSelect = h('select', { 'data-test': 'create-config', name: 'config' }, h('option', { value: '' }, 'Loading…'));
  const configField = field('Config or preset', configSelect, 'ralph.yml of the directory, or a preset from presets/.');
  const configPreview = h('div', { class: 'cr-preview', 'aria-live': 'polite' });

  const modeFile = h('button', { type: 'button', 'data-test': 'create-prompt-mode-file', onclick: () => setPromptMode('file') }, 'Prompt file');
  const modeText = h('button', { type: 'button', 'data-test': 'create-prompt-mode-text', onclick: () => setPromptMode('text') }, 'Write text');
  const promptSelect = h('select', { 'data-test': 'create-prompt-file', name: 'prompt_path' }, h('option', { value: '' }, 'Loading…'));
  const promptFileField = field('Prompt file', promptSelect, 'Markdown files under prompts/.');
  const promptPreview = h('div', { class: 'cr-preview', 'aria-live': 'polite' });
  const promptText = h('textarea', { 'data-test': 'create-prompt-text', name: 'prompt', rows: 5, placeholder: 'What should ralph do? e.g. Add a --json flag to the export command, with tests.' });
  const promptTextField = field('Prompt', promptText, 'Passed to ralph with -p.');
  const filePart = h('div', {}, promptFileField, promptPreview);
  const textPart = h('div', {}, promptTextField);

  const workdirInput = h('input', { type: 'text', 'data-test': 'create-workdir', name: 'working_dir', autocomplete: 'off', autocapitalize: 'off', spellcheck: 'false', placeholder: '. (the workspace root)' });
  const workdirField = field('Working directory (optional)', workdirInput, 'Relative to the workspace root; it must stay inside it. Configs and prompts above are listed from this directory.');
  const maxInput = h('input', { type: 'number', 'data-test': 'create-max-iterations', name: 'max_iterations', min: 1, max: MAX_ITERATIONS, step: 1, inputmode: 'numeric', placeholder: 'from the config' });
  const maxField = field('Max iterations (optional)', maxInput, 'Overrides event_loop.max_iterations.');
  const backendSelect = h('select', { 'data-test': 'create-backend', name: 'backend' },
    h('option', { value: '' }, 'As the config says'), BACKENDS.map((b) => h('option', { value: b }, b)));
  const backendField = field('Backend (optional)', backendSelect);

  const errorBanner = h('div', { class: 'banner error', role: 'alert', hidden: true, tabindex: '-1' });
  const submit = h('button', { type: 'submit', class: 'btn primary block', 'data-test': 'create-submit' }, 'Start run');

  const step = (n, title, ...body) => h('fieldset', { class: 'card cr-step' },
    h('legend', { class: 'cr-legend' }, h('span', { class: 'cr-num', 'aria-hidden': 'true' }, String(n)), h('span', { class: 'sr-only' }, 'Step ' + n + ': '), title),
    ...body);

  const form = h('form', { class: 'create-run', novalidate: true, 'aria-label': 'Start a ralph run' },
    errorBanner,
    step(1, 'Config', configField, configPreview),
    step(2, 'Prompt',
      h('div', { class: 'segmented cr-mode', role: 'group', 'aria-label': 'Prompt source' }, modeFile, modeText),
      filePart, textPart),
    step(3, 'Where and how', workdirField, h('div', { class: 'cr-row' }, maxField, backendField)),
    submit,
    h('p', { class: 'muted small cr-note' }, 'The server runs ', h('code', {}, 'ralph run -c <config> -p|-P … --autonomous --no-tui'),
      ' in that directory; the run shows up in Sessions.'));
  render(view, form);

  function setPromptMode(mode) {
    promptMode = mode;
    localStorage.setItem('ralph.create.promptMode', mode);
    modeFile.setAttribute('aria-pressed', String(mode === 'file'));
    modeText.setAttribute('aria-pressed', String(mode === 'text'));
    filePart.hidden = mode !== 'file';
    textPart.hidden = mode !== 'text';
    promptFileField.setError('');
    promptTextField.setError('');
  }
  setPromptMode(promptMode);

  // --- Lists and previews -----------------------------------------------------------------------------------------
  const query = () => (workspace ? '?workspace=' + encodeURIComponent(workspace) : '');

  // "Start a run with this" in the Library hands over a config or a prompt path; taken once.
  const handedConfig = sessionStorage.getItem('ralph.new.config');
  const handedPrompt = sessionStorage.getItem('ralph.new.prompt');
  sessionStorage.removeItem('ralph.new.config');
  sessionStorage.removeItem('ralph.new.prompt');
  if (handedPrompt) setPromptMode('file');

  async function loadLists() {
    const previousConfig = configSelect.value || handedConfig || '';
    const previousPrompt = promptSelect.value || handedPrompt || '';
    configSelect.disabled = true;
    promptSelect.disabled = true;
    const [configs, presets, prompts] = await Promise.allSettled([
      api.get('/api/configs' + query()), api.get('/api/presets' + query()), api.get('/api/prompts' + query()),
    ]);
    if (disposed) return;
    configSelect.disabled = false;
    promptSelect.disabled = false;
    if (workspace && configs.status === 'rejected' && prompts.status === 'rejected') {
      // The directory itself is the problem (outside the roots, missing): say so there, keep the lists we had.
      workdirField.setError('This directory cannot be used: ' + configs.reason.message);
      return;
    }
    workdirField.setError('');

    // Configs: ralph.yml first, then the presets (the configs list already holds them; the presets list adds names).
    if (configs.status === 'rejected' && presets.status === 'rejected') {
      render(configSelect, h('option', { value: '' }, 'Could not load configs'));
      configField.setError(configs.reason.message);
    } else {
      configField.setError('');
      const items = new Map();
      for (const c of configs.status === 'fulfilled' ? configs.value.configs || [] : []) items.set(c.path, c);
      for (const p of presets.status === 'fulfilled' ? presets.value.presets || [] : []) if (!items.has(p.path)) items.set(p.path, p);
      const all = [...items.values()];
      const main = all.filter((c) => !c.path.startsWith('presets/'));
      const extra = all.filter((c) => c.path.startsWith('presets/'));
      const option = (c) => h('option', { value: c.path }, c.path + (c.description ? ' — ' + c.description : ''));
      render(configSelect,
        h('option', { value: '' }, all.length ? 'Choose a config…' : 'No config here (add ralph.yml or presets/*.yml)'),
        main.length ? h('optgroup', { label: 'Workspace config' }, main.map(option)) : null,
        extra.length ? h('optgroup', { label: 'Presets' }, extra.map(option)) : null);
      const wanted = items.has(previousConfig) ? previousConfig : (main.find((c) => /^ralph\.ya?ml$/.test(c.path)) || {}).path;
      configSelect.value = wanted || '';
    }

    if (prompts.status === 'rejected') {
      render(promptSelect, h('option', { value: '' }, 'Could not load prompts'));
      promptFileField.setError(prompts.reason.message);
    } else {
      const list = prompts.value.prompts || [];
      render(promptSelect,
        h('option', { value: '' }, list.length ? 'Choose a prompt file…' : 'No prompt files in prompts/'),
        list.map((p) => h('option', { value: p.path }, p.path + (p.preview ? ' — ' + p.preview : ''))));
      promptSelect.value = list.some((p) => p.path === previousPrompt) ? previousPrompt : '';
    }
    showConfigPreview();
    showPromptPreview();
  }

  async function preview(kind, path, target) {
    if (!path) {
      render(target);
      return;
    }
    const key = kind + '|' + workspace + '|' + path;
    render(target, h('p', { class: 'muted small' }, 'Loading preview…'));
    try {
      if (!previews.has(key)) previews.set(key, await api.get('/api/' + kind + '/' + encodePath(path) + query()));
      if (disposed || (kind === 'configs' ? configSelect.value : promptSelect.value) !== path) return;
      const file = previews.get(key);
      render(target, h('div', { class: 'cr-preview-box' },
        h('div', { class: 'muted small' }, 'Preview of ', h('code', {}, file.path || path)),
        h('pre', { class: 'cr-pre', tabindex: '0', 'aria-label': 'Content of ' + path }, file.content || '(empty file)')));
    } catch (error) {
      if (!disposed) render(target, h('p', { class: 'banner warn small' }, 'No preview: ' + error.message));
    }
  }
  const showConfigPreview = () => preview('configs', configSelect.value, configPreview);
  const showPromptPreview = () => preview('prompts', promptSelect.value, promptPreview);

  configSelect.addEventListener('change', () => { configField.setError(''); showConfigPreview(); });
  promptSelect.addEventListener('change', () => { promptFileField.setError(''); showPromptPreview(); });
  promptText.addEventListener('input', () => promptTextField.setError(''));
  maxInput.addEventListener('input', () => maxField.setError(''));
  workdirInput.addEventListener('input', () => workdirField.setError(''));
  workdirInput.addEventListener('change', () => {
    const dir = workdirInput.value.trim();
    if (dir === workspace) return;
    workspace = dir;
    loadLists().catch(() => {});
  });

  // --- Submit ------------------------------------------------------------------------------------------------------
  function validate() {
    let firstBad = null;
    const bad = (f, control, message) => {
      f.setError(message);
      if (!firstBad) firstBad = control;
    };
    const body = {};
    if (!configSelect.value) bad(configField, configSelect, 'Choose a config.');
    else { configField.setError(''); body.config_path = configSelect.value; }
    if (promptMode === 'file') {
      if (!promptSelect.value) bad(promptFileField, promptSelect, 'Choose a prompt file, or switch to Write text.');
      else { promptFileField.setError(''); body.prompt_path = promptSelect.value; }
    } else if (!promptText.value.trim()) {
      bad(promptTextField, promptText, 'Write what ralph should do.');
    } else {
      promptTextField.setError('');
      body.prompt = promptText.value.trim();
    }
    const dir = workdirInput.value.trim();
    if (dir) {
      if (dir.includes('\0')) bad(workdirField, workdirInput, 'This path is not valid.');
      else body.working_dir = dir;
    }
    const max = maxInput.value.trim();
    if (max || (maxInput.validity && maxInput.validity.badInput)) {
      const n = Number(max);
      if (!Number.isInteger(n) || n < 1 || n > MAX_ITERATIONS) bad(maxField, maxInput, 'A whole number from 1 to ' + MAX_ITERATIONS + '.');
      else { maxField.setError(''); body.max_iterations = n; }
    } else {
      maxField.setError('');
    }
    if (backendSelect.value) {
      if (!NAME_RULE.test(backendSelect.value)) bad(backendField, backendSelect, 'Not a backend name.');
      else body.backend = backendSelect.value;
    }
    if (firstBad) {
      firstBad.focus();
      return null;
    }
    return body;
  }

  function showServerError(error) {
    const code = error.code;
    if (code === 'config_not_found') configField.setError(error.message);
    else if (code === 'prompt_not_found') promptFileField.setError(error.message);
    else if (code === 'invalid_path' && /working_dir/.test(error.message)) workdirField.setError(error.message);
    render(errorBanner,
      h('strong', {}, error.status === 403 ? 'Not allowed: ' : code === 'failed_to_spawn' ? 'ralph did not start: ' : 'The run was not started: '),
      h('pre', { class: 'cr-error-text' }, error.message));
    errorBanner.hidden = false;
    errorBanner.focus();
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    errorBanner.hidden = true;
    const body = validate();
    if (!body) return;
    submit.disabled = true;
    submit.textContent = 'Starting ralph…';
    submit.setAttribute('aria-busy', 'true');
    try {
      const result = await api.post('/api/sessions', body);
      if (disposed) return;
      toast(result && result.pending ? 'ralph is starting; the run appears in a moment' : 'Run started');
      app.navigate('#/sessions/' + encodeURIComponent(result.id));
    } catch (error) {
      if (!disposed) showServerError(error);
    } finally {
      submit.disabled = false;
      submit.textContent = 'Start run';
      submit.removeAttribute('aria-busy');
    }
  });

  await loadLists();
  return () => { disposed = true; };
}
