// @ts-check
// The auto-reply settings form (operators): a preset, the mode, the limits, the next prompt and the switches; checked
// here with the server's rules (../words/auto-reply.js) before Save, and the server's own complaints put on the fields
// they name. Save writes the settings (optionally as the folder's default).

import { api } from '../api.js';
import { h, render, showError, field } from '../ui.js';
import { MODES, PRESET_WORDS, settingsFromForm, serverProblems } from '../words/auto-reply.js';

/** @typedef {import('../words/auto-reply.js').AutoReplySettings} AutoReplySettings */

/** @param {string} tag @param {object} attributes @param {...any} children @returns {any} */
const el = (tag, attributes, ...children) => h(tag, attributes, ...children);

/** @param {string} name @param {string} label */
function check(name, label) {
  const input = el('input', { type: 'checkbox', id: 'ar-' + name, 'data-test': 'auto-reply-' + name.replace(/_/g, '-') });
  return { input, node: h('label', { class: 'check', for: 'ar-' + name }, input, label) };
}

export class AutoReplyForm {
  /** @param {{base: string, getSettings: () => AutoReplySettings | null, onSaved: (status: any) => void}} options */
  constructor({ base, getSettings, onSaved }) {
    this.base = base;
    this.getSettings = getSettings;
    this.onSaved = onSaved;
    this.dirty = false;
    /** @type {Record<string, AutoReplySettings>} */
    this.presets = {};
    this.buildInputs();
    this.element = this.buildForm();
  }

  buildInputs() {
    this.preset = el('select', { 'data-test': 'auto-reply-preset' }, h('option', { value: '' }, 'Choose a preset…'));
    this.mode = el('select', { 'data-test': 'auto-reply-mode' }, MODES.map(([value, label]) => h('option', { value }, label)));
    this.modeHint = h('span', {});
    this.maxIterations = el('input', { type: 'number', min: 1, max: 500, step: 1, inputmode: 'numeric', 'data-test': 'auto-reply-max-iterations' });
    this.maxMinutes = el('input', { type: 'number', min: 1, max: 480, step: 1, inputmode: 'numeric', 'data-test': 'auto-reply-max-minutes', placeholder: 'no limit' });
    this.maxMessages = el('input', { type: 'number', min: 1, max: 100, step: 1, inputmode: 'numeric', 'data-test': 'auto-reply-max-messages', placeholder: 'no limit' });
    this.minConfidence = el('input', { type: 'number', min: 0, max: 1, step: 0.05, inputmode: 'decimal', 'data-test': 'auto-reply-min-confidence' });
    this.prompt = el('textarea', { rows: 3, 'data-test': 'auto-reply-prompt', placeholder: 'Default: Continue with the task. If everything is finished and verified, say TASK COMPLETE…' });
    this.switches = {
      stop_on_error: check('stop_on_error', 'Stop when a turn fails'),
      require_confirmation: check('require_confirmation', 'Ask me before each next prompt'),
      allow_override: check('allow_override', 'Keep going when I write a message myself'),
      showstopper_detection: check('showstopper_detection', 'Pause when Claude needs a person'),
    };
    this.asDefault = check('as_default', 'Also use these settings for new conversations in this folder');
    /** @type {Record<string, any>} */
    this.fields = {
      mode: field('Mode', this.mode),
      max_iterations: field('Max cycles (1–500)', this.maxIterations),
      max_minutes: field('Max minutes (1–480)', this.maxMinutes, 'Time based and hybrid.'),
      max_messages: field('Max messages (1–100)', this.maxMessages, 'Message based and hybrid.'),
      min_confidence: field('Min confidence (0–1)', this.minConfidence, 'Smart stop stops at or above it.'),
      'next_prompt.text': field('Next prompt', this.prompt, 'What is sent after each reply. Empty: the default above.'),
    };
    this.fields.mode.querySelector('.field-error').before(h('div', { class: 'hint' }, this.modeHint));
    this.formError = h('div', { class: 'banner error', role: 'alert', hidden: true });
    this.save = el('button', { type: 'submit', class: 'btn primary', 'data-test': 'auto-reply-save', 'aria-label': 'Save auto-reply settings' }, 'Save settings');
    this.savedNote = h('span', { class: 'muted small', role: 'status', 'aria-live': 'polite' });
  }

  buildForm() {
    const f = this.fields;
    const s = this.switches;
    const element = h('form', { class: 'ar-form', novalidate: true, 'aria-label': 'Auto-reply settings' },
      h('h3', {}, 'Settings'),
      field('Preset', this.preset, 'Fills the form; Save or Start to use it.'),
      f.mode,
      h('div', { class: 'ar-grid' }, f.max_iterations, f.max_minutes, f.max_messages, f.min_confidence),
      f['next_prompt.text'],
      s.stop_on_error.node, s.require_confirmation.node, s.allow_override.node, s.showstopper_detection.node, this.asDefault.node,
      this.formError,
      h('div', { class: 'btn-row' }, this.save, this.savedNote));
    element.addEventListener('input', () => this.markDirty('Unsaved changes'));
    element.addEventListener('change', () => { this.markDirty('Unsaved changes'); this.setModeHint(); });
    this.preset.addEventListener('change', () => {
      const chosen = this.presets[this.preset.value];
      if (!chosen) return;
      this.fill(chosen);
      this.markDirty('Preset “' + this.preset.value + '” loaded: not saved yet');
    });
    element.addEventListener('submit', (event) => {
      event.preventDefault();
      this.submit();
    });
    return element;
  }

  /** @param {string} note */
  markDirty(note) {
    this.dirty = true;
    this.savedNote.textContent = note;
  }

  /** @param {string} [note] */
  markSaved(note = 'Saved') {
    this.dirty = false;
    this.savedNote.textContent = note;
  }

  setModeHint() {
    this.modeHint.textContent = (MODES.find((m) => m[0] === this.mode.value) || [])[2] || '';
  }

  /** @param {Record<string, AutoReplySettings>} presets */
  setPresets(presets) {
    this.presets = presets;
    for (const name of Object.keys(presets)) this.preset.append(h('option', { value: name }, PRESET_WORDS[name] || name));
  }

  /** @param {AutoReplySettings} s */
  fill(s) {
    this.mode.value = s.mode;
    this.maxIterations.value = s.max_iterations ?? '';
    this.maxMinutes.value = s.max_minutes ?? '';
    this.maxMessages.value = s.max_messages ?? '';
    this.minConfidence.value = s.min_confidence ?? '';
    this.prompt.value = (s.next_prompt && s.next_prompt.text) || '';
    for (const [name, sw] of Object.entries(this.switches)) sw.input.checked = !!(/** @type {any} */ (s))[name];
    this.setModeHint();
  }

  /// The settings in the form, or null after showing the problems.
  /** @returns {AutoReplySettings | null} */
  collect() {
    for (const f of Object.values(this.fields)) f.setError('');
    this.formError.hidden = true;
    const sw = this.switches;
    const result = settingsFromForm({
      mode: this.mode.value, max_iterations: this.maxIterations.value, max_minutes: this.maxMinutes.value,
      max_messages: this.maxMessages.value, min_confidence: this.minConfidence.value, prompt: this.prompt.value,
      stop_on_error: sw.stop_on_error.input.checked, require_confirmation: sw.require_confirmation.input.checked,
      allow_override: sw.allow_override.input.checked, showstopper_detection: sw.showstopper_detection.input.checked,
    }, this.getSettings());
    if ('problems' in result) {
      this.showProblems(result.problems);
      return null;
    }
    return result.settings;
  }

  /** @param {Array<[string | null, string]>} problems */
  showProblems(problems) {
    for (const [key, message] of problems) if (key && this.fields[key]) this.fields[key].setError(message);
    render(this.formError, h('strong', {}, 'Please fix: '), problems.map(([, m]) => m).join(' '));
    this.formError.hidden = false;
    const invalid = /** @type {HTMLElement | null} */ (this.element.querySelector('[aria-invalid="true"]'));
    if (invalid) invalid.focus();
  }

  /// Maps the server's `invalid_body: a; b` to the fields it names.
  /** @param {Error} error */
  serverProblems(error) {
    this.showProblems(serverProblems(error.message, Object.keys(this.fields)));
  }

  async submit() {
    const s = this.collect();
    if (!s) return;
    const asDefault = this.asDefault.input.checked;
    this.save.disabled = true;
    this.save.textContent = 'Saving…';
    try {
      const result = await api.put(this.base + '/auto-reply' + (asDefault ? '?default=true' : ''), s);
      this.markSaved('Saved' + (asDefault ? ' (also the default for this folder)' : ''));
      this.onSaved(result);
    } catch (error) {
      if (/** @type {any} */ (error).status === 400) this.serverProblems(/** @type {Error} */ (error));
      else showError(error, 'Auto-reply settings');
    } finally {
      this.save.disabled = false;
      this.save.textContent = 'Save settings';
    }
  }
}
