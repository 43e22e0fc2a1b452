// @ts-check
// The auto-reply panel of a conversation: the loop's progress (state, cycles, messages, time, confidence, why it
// paused or stopped, the prompt waiting for a go), Start / Pause / Resume / Stop for operators, and the settings form
// (presets, mode, limits, next prompt), or a read-only summary for viewers. Its `progress(p)` takes the conversation
// stream's `auto_reply` events.

import { api } from '../api.js';
import { h, render, toast, showError, confirmDialog, badge, field, busy } from '../ui.js';
import { duration, byteLength } from '../format.js';


const MODES = [
  ['smart_stop', 'Smart stop', 'Stops when a reply looks done (confidence ≥ the minimum) or says so.'],
  ['until_completion', 'Until completion', 'Stops only on an explicit “task complete” (limits still apply).'],
  ['time_based', 'Time based', 'Stops after the maximum minutes.'],
  ['message_based', 'Message based', 'Stops after the maximum number of auto-replies.'],
  ['hybrid', 'Hybrid', 'Stops at the first of time, messages and completion.'],
];
const REASONS = {
  manual: 'stopped by a person', completion: 'the task looks complete', time_limit: 'time limit reached',
  message_limit: 'message limit reached', iteration_limit: 'cycle limit reached', error: 'a turn failed',
  showstopper: 'needs a person', stuck: 'the replies repeat', low_confidence: 'low confidence', approval: 'waiting for an approval',
  confirmation: 'waiting for your go', override: 'you wrote a message', restart: 'the server restarted', deleted: 'conversation deleted',
};
const PRESET_WORDS = {
  careful: 'Careful — stops as soon as it is fairly sure it is done',
  overnight: 'Overnight — up to 8 h until an explicit “task complete”',
  quick: 'Quick — 5 auto-replies, then stop',
  supervised: 'Supervised — every next prompt waits for your go',
};

/** @param {{base: string, operator: boolean}} options */
export function buildAutoReply({ base, operator }) {
  let settings = null;
  let progress = null;
  let presets = {};
  let dirty = false;
  let refetchTimer = null;
  let tickTimer = null;
  let destroyed = false;

  const stateBadge = h('span', { class: 'ar-state' });
  const summaryText = h('span', { class: 'muted small ar-summary' });
  const progressBox = h('div', { class: 'ar-progress', 'data-test': 'auto-reply-progress', role: 'status', 'aria-live': 'polite' }, 'Loading…');
  const controls = h('div', { class: 'btn-row ar-controls' });
  // A disclosure (not <details>: its closed content still counts as "displayed" for WebDriver and checkers).
  const bodyId = 'auto-reply-body';
  const toggle = h('button', { type: 'button', class: 'ar-toggle', 'aria-expanded': 'false', 'aria-controls': bodyId, 'data-test': 'auto-reply-toggle' },
    h('span', { class: 'ar-title' }, 'Auto-reply'), stateBadge, summaryText, h('span', { class: 'ar-chevron', 'aria-hidden': 'true' }));
  const panelBody = h('div', { class: 'ar-body', id: bodyId, hidden: true }, progressBox);
  const panel = h('section', { class: 'card auto-reply', 'data-test': 'auto-reply', 'aria-label': 'Auto-reply' }, toggle, panelBody);
  if (operator) panelBody.append(controls);
  const setOpen = (open) => {
    panelBody.hidden = !open;
    toggle.setAttribute('aria-expanded', open ? 'true' : 'false');
    panel.classList.toggle('open', open);
  };
  setOpen(localStorage.getItem('ralph.chat.autoReplyOpen') === '1');
  toggle.addEventListener('click', () => {
    const open = panelBody.hidden;
    setOpen(open);
    localStorage.setItem('ralph.chat.autoReplyOpen', open ? '1' : '0');
  });

  // Settings form (operators) or summary (viewers).
  const form = operator ? buildForm() : null;
  const readOnly = operator ? null : h('dl', { class: 'kv ar-settings-view' });
  panelBody.append(form ? form.element : readOnly);

  function buildForm() {
    const preset = h('select', { 'data-test': 'auto-reply-preset' }, h('option', { value: '' }, 'Choose a preset…'));
    const mode = h('select', { 'data-test': 'auto-reply-mode' }, MODES.map(([value, label]) => h('option', { value }, label)));
    const modeHint = h('span', {});
    const maxIterations = h('input', { type: 'number', min: 1, max: 500, step: 1, inputmode: 'numeric', 'data-test': 'auto-reply-max-iterations' });
    const maxMinutes = h('input', { type: 'number', min: 1, max: 480, step: 1, inputmode: 'numeric', 'data-test': 'auto-reply-max-minutes', placeholder: 'no limit' });
    const maxMessages = h('input', { type: 'number', min: 1, max: 100, step: 1, inputmode: 'numeric', 'data-test': 'auto-reply-max-messages', placeholder: 'no limit' });
    const minConfidence = h('input', { type: 'number', min: 0, max: 1, step: 0.05, inputmode: 'decimal', 'data-test': 'auto-reply-min-confidence' });
    const prompt = h('textarea', { rows: 3, 'data-test': 'auto-reply-prompt', placeholder: 'Default: Continue with the task. If everything is finished and verified, say TASK COMPLETE…' });
    const check = (name, label) => {
      const input = h('input', { type: 'checkbox', id: 'ar-' + name, 'data-test': 'auto-reply-' + name.replace(/_/g, '-') });
      return { input, node: h('label', { class: 'check', for: 'ar-' + name }, input, label) };
    };
    const stopOnError = check('stop_on_error', 'Stop when a turn fails');
    const requireConfirmation = check('require_confirmation', 'Ask me before each next prompt');
    const allowOverride = check('allow_override', 'Keep going when I write a message myself');
    const showstopper = check('showstopper_detection', 'Pause when Claude needs a person');
    const asDefault = check('as_default', 'Also use these settings for new conversations in this folder');

    const fields = {
      mode: field('Mode', mode),
      max_iterations: field('Max cycles (1–500)', maxIterations),
      max_minutes: field('Max minutes (1–480)', maxMinutes, 'Time based and hybrid.'),
      max_messages: field('Max messages (1–100)', maxMessages, 'Message based and hybrid.'),
      min_confidence: field('Min confidence (0–1)', minConfidence, 'Smart stop stops at or above it.'),
      'next_prompt.text': field('Next prompt', prompt, 'What is sent after each reply. Empty: the default above.'),
    };
    fields.mode.querySelector('.field-error').before(h('div', { class: 'hint' }, modeHint));
    const formError = h('div', { class: 'banner error', role: 'alert', hidden: true });
    const save = h('button', { type: 'submit', class: 'btn primary', 'data-test': 'auto-reply-save', 'aria-label': 'Save auto-reply settings' }, 'Save settings');
    const savedNote = h('span', { class: 'muted small', role: 'status', 'aria-live': 'polite' });
    const element = h('form', { class: 'ar-form', novalidate: true, 'aria-label': 'Auto-reply settings' },
      h('h3', {}, 'Settings'),
      field('Preset', preset, 'Fills the form; Save or Start to use it.'),
      fields.mode,
      h('div', { class: 'ar-grid' }, fields.max_iterations, fields.max_minutes, fields.max_messages, fields.min_confidence),
      fields['next_prompt.text'],
      stopOnError.node, requireConfirmation.node, allowOverride.node, showstopper.node, asDefault.node,
      formError,
      h('div', { class: 'btn-row' }, save, savedNote));

    const setModeHint = () => { modeHint.textContent = (MODES.find((m) => m[0] === mode.value) || [])[2] || ''; };
    element.addEventListener('input', () => { dirty = true; savedNote.textContent = 'Unsaved changes'; });
    element.addEventListener('change', () => { dirty = true; savedNote.textContent = 'Unsaved changes'; setModeHint(); });
    preset.addEventListener('change', () => {
      const chosen = presets[preset.value];
      if (!chosen) return;
      fill(chosen);
      dirty = true;
      savedNote.textContent = 'Preset “' + preset.value + '” loaded: not saved yet';
    });

    function fill(s) {
      mode.value = s.mode;
      maxIterations.value = s.max_iterations ?? '';
      maxMinutes.value = s.max_minutes ?? '';
      maxMessages.value = s.max_messages ?? '';
      minConfidence.value = s.min_confidence ?? '';
      prompt.value = (s.next_prompt && s.next_prompt.text) || '';
      stopOnError.input.checked = !!s.stop_on_error;
      requireConfirmation.input.checked = !!s.require_confirmation;
      allowOverride.input.checked = !!s.allow_override;
      showstopper.input.checked = !!s.showstopper_detection;
      setModeHint();
    }

    function clearErrors() {
      for (const f of Object.values(fields)) f.setError('');
      formError.hidden = true;
    }

    function intOf(input) {
      const raw = input.value.trim();
      if (!raw) return null;
      const n = Number(raw);
      return Number.isInteger(n) ? n : NaN;
    }

    /// The settings in the form (keeping what it does not show, like the judge), or null after showing the problems.
    function collect() {
      clearErrors();
      const problems = [];
      const s = { ...(settings || {}) };
      s.mode = mode.value;
      const iterations = intOf(maxIterations);
      const minutes = intOf(maxMinutes);
      const messagesMax = intOf(maxMessages);
      const confidence = minConfidence.value.trim() === '' ? 0.8 : Number(minConfidence.value);
      if (iterations === null || Number.isNaN(iterations) || iterations < 1 || iterations > 500) problems.push(['max_iterations', 'A whole number from 1 to 500.']);
      if (Number.isNaN(minutes) || (minutes !== null && (minutes < 1 || minutes > 480))) problems.push(['max_minutes', 'A whole number from 1 to 480, or empty.']);
      if (Number.isNaN(messagesMax) || (messagesMax !== null && (messagesMax < 1 || messagesMax > 100))) problems.push(['max_messages', 'A whole number from 1 to 100, or empty.']);
      if (Number.isNaN(confidence) || confidence < 0 || confidence > 1) problems.push(['min_confidence', 'A number from 0 to 1.']);
      if (s.mode === 'time_based' && minutes === null) problems.push(['max_minutes', 'Time based needs max minutes.']);
      if (s.mode === 'message_based' && messagesMax === null) problems.push(['max_messages', 'Message based needs max messages.']);
      if (s.mode === 'hybrid' && minutes === null && messagesMax === null) problems.push(['max_minutes', 'Hybrid needs max minutes or max messages.']);
      if (byteLength(prompt.value) > 10000) problems.push(['next_prompt.text', 'At most 10 000 bytes.']);
      if (problems.length) {
        showProblems(problems);
        return null;
      }
      s.max_iterations = iterations;
      if (minutes === null) delete s.max_minutes; else s.max_minutes = minutes;
      if (messagesMax === null) delete s.max_messages; else s.max_messages = messagesMax;
      s.min_confidence = confidence;
      s.stop_on_error = stopOnError.input.checked;
      s.require_confirmation = requireConfirmation.input.checked;
      s.allow_override = allowOverride.input.checked;
      s.showstopper_detection = showstopper.input.checked;
      const strategy = (settings && settings.next_prompt && settings.next_prompt.strategy) || 'fixed';
      s.next_prompt = prompt.value.trim() ? { strategy, text: prompt.value } : { strategy };
      return s;
    }

    function showProblems(problems) {
      const loose = [];
      for (const [key, message] of problems) {
        if (fields[key]) fields[key].setError(message);
        else loose.push(message);
      }
      render(formError, h('strong', {}, 'Please fix: '), problems.map(([, m]) => m).join(' '));
      formError.hidden = false;
      const invalid = element.querySelector('[aria-invalid="true"]');
      if (invalid) invalid.focus();
    }

    /// Maps the server's `invalid_body: a; b` to the fields it names.
    function serverProblems(error) {
      const text = error.message.replace(/^[a-z_]+:\s*/, '');
      const problems = text.split(/;\s*/).filter(Boolean).map((problem) => {
        const key = Object.keys(fields).find((k) => problem.includes(k))
          || (/time_based|hybrid/.test(problem) ? 'max_minutes' : /message_based/.test(problem) ? 'max_messages' : /mode/.test(problem) ? 'mode' : null);
        return [key, problem];
      });
      showProblems(problems);
    }

    element.addEventListener('submit', async (event) => {
      event.preventDefault();
      const s = collect();
      if (!s) return;
      save.disabled = true;
      save.textContent = 'Saving…';
      try {
        const result = await api.put(base + '/auto-reply' + (asDefault.input.checked ? '?default=true' : ''), s);
        dirty = false;
        savedNote.textContent = 'Saved' + (asDefault.input.checked ? ' (also the default for this folder)' : '');
        apply(result, true);
      } catch (error) {
        if (error.status === 400) serverProblems(error);
        else showError(error, 'Auto-reply settings');
      } finally {
        save.disabled = false;
        save.textContent = 'Save settings';
      }
    });

    return { element, fill, collect, serverProblems, savedNote, presetSelect: preset };
  }

  function apply(status, force = false) {
    if (!status) return;
    if (status.settings) {
      settings = status.settings;
      if (form && (force || !dirty)) form.fill(settings);
      if (readOnly) drawReadOnly();
    }
    if (status.progress) setProgress(status.progress);
  }

  function drawReadOnly() {
    const s = settings;
    const mode = MODES.find((m) => m[0] === s.mode);
    render(readOnly,
      h('dt', {}, 'Mode'), h('dd', { 'data-test': 'auto-reply-mode-view' }, mode ? mode[1] : s.mode),
      h('dt', {}, 'Max cycles'), h('dd', {}, String(s.max_iterations)),
      h('dt', {}, 'Max minutes'), h('dd', {}, s.max_minutes ? String(s.max_minutes) : '—'),
      h('dt', {}, 'Max messages'), h('dd', {}, s.max_messages ? String(s.max_messages) : '—'),
      h('dt', {}, 'Min confidence'), h('dd', {}, String(s.min_confidence)),
      h('dt', {}, 'Next prompt'), h('dd', {}, (s.next_prompt && s.next_prompt.text) || 'the default'));
  }

  function elapsed(p) {
    let secs = p.elapsed_secs || 0;
    if (p.state === 'running' && p.updated_at) secs += Math.max(0, (Date.now() - new Date(p.updated_at).getTime()) / 1000);
    return secs;
  }

  function stat(label, value, test) {
    return h('div', { class: 'stat stat-' + label }, h('div', { class: 'stat-value', 'data-test': test || null }, value), h('div', { class: 'stat-label' }, label));
  }

  function setProgress(p) {
    progress = p;
    const state = p.state || 'stopped';
    render(stateBadge, badge(state, state === 'running' ? 'running' : state === 'paused' ? 'paused' : 'idle'));
    summaryText.textContent = state === 'stopped' && !p.started_at ? 'off'
      : p.iterations + '/' + p.max_iterations + ' cycles' + (p.confidence !== undefined && p.confidence !== null ? ' · ' + Math.round(p.confidence * 100) + '%' : '');
    const reason = state === 'paused' ? p.pause_reason : state === 'stopped' ? p.stop_reason : null;
    render(progressBox,
      h('div', { class: 'stats ar-stats' },
        stat('state', state, 'auto-reply-state'),
        stat('cycles', p.iterations + ' / ' + p.max_iterations),
        stat('messages', p.messages + (p.max_messages ? ' / ' + p.max_messages : '')),
        stat('time', duration(elapsed(p)) + (p.max_minutes ? ' / ' + p.max_minutes + 'm' : ''), 'auto-reply-elapsed'),
        stat('confidence', p.confidence !== undefined && p.confidence !== null ? Math.round(p.confidence * 100) + '%' : '—')),
      reason || p.detail ? h('p', { class: 'ar-reason ' + (state === 'paused' ? 'warn' : '') },
        h('strong', {}, (state === 'paused' ? 'Paused: ' : state === 'stopped' ? 'Stopped: ' : '') + (REASONS[reason] || reason || '')),
        p.detail && p.detail !== REASONS[reason] && !['manual', 'confirmation'].includes(reason) ? [reason ? ' — ' : '', p.detail] : null) : null,
      p.pending_prompt ? h('div', { class: 'ar-pending' }, h('div', { class: 'muted small' }, 'Next prompt, waiting for your go (Resume sends it):'), h('pre', {}, p.pending_prompt)) : null,
      state === 'stopped' && !p.started_at ? h('p', { class: 'muted small' }, operator
        ? 'Auto-reply answers Claude for you, on the server, until the task is done or a limit is reached. Pick the settings below and press Start.'
        : 'Auto-reply is off.') : null);
    if (operator) drawControls(state);
    clearInterval(tickTimer);
    if (state === 'running') {
      tickTimer = setInterval(() => {
        const node = progressBox.querySelector('[data-test="auto-reply-elapsed"]');
        if (node && progress) node.textContent = duration(elapsed(progress)) + (progress.max_minutes ? ' / ' + progress.max_minutes + 'm' : '');
      }, 1000);
    }
  }

  function control(verb, label, kind, test) {
    const button = h('button', { type: 'button', class: 'btn ' + kind, 'data-test': test, 'aria-label': label + ' auto-reply' }, label);
    button.addEventListener('click', () => busy(button, label + '…', async () => {
      let body;
      if (verb === 'start' && dirty && form) {
        body = form.collect();
        if (!body) return;
      }
      if (verb === 'stop') {
        const ok = await confirmDialog({ title: 'Stop auto-reply?', message: 'The loop stops; the running turn (if any) goes on. You can start it again later.', confirm: 'Stop', danger: true });
        if (!ok) return;
      }
      try {
        const result = await api.post(base + '/auto-reply/' + verb, body);
        if (body) { dirty = false; form.savedNote.textContent = 'Saved'; }
        apply(result, !!body);
      } catch (error) {
        if (error.status === 400 && form) form.serverProblems(error);
        else if (error.status === 409) { toast(error.message, 'info', 6000); refetch(); }
        else throw error;
      }
    }));
    return button;
  }

  function drawControls(state) {
    const buttons = [];
    if (state === 'stopped') buttons.push(control('start', 'Start', 'primary', 'auto-reply-start'));
    if (state === 'running') buttons.push(control('pause', 'Pause', '', 'auto-reply-pause'));
    if (state === 'paused') buttons.push(control('resume', progress && progress.pending_prompt ? 'Resume (send it)' : 'Resume', 'primary', 'auto-reply-resume'));
    if (state !== 'stopped') buttons.push(control('stop', 'Stop', 'danger', 'auto-reply-stop'));
    render(controls, ...buttons);
  }

  async function refetch() {
    try {
      apply(await api.get(base + '/auto-reply'));
    } catch (error) {
      if (!destroyed) render(progressBox, h('p', { class: 'field-error' }, 'Auto-reply: ' + error.message));
    }
  }

  return {
    element: panel,
    async load() {
      const [status, list] = await Promise.all([
        api.get(base + '/auto-reply').catch((error) => ({ error })),
        api.get('/api/auto-reply/presets').catch(() => ({})),
      ]);
      presets = list || {};
      if (form) {
        for (const name of Object.keys(presets)) {
          form.presetSelect.append(h('option', { value: name }, PRESET_WORDS[name] || name));
        }
      }
      if (status.error) render(progressBox, h('p', { class: 'field-error' }, 'Auto-reply: ' + status.error.message));
      else apply(status, true);
    },
    /// An `auto_reply` event: show it now, and read the settings again shortly after (a start may have changed them).
    progress(p) {
      setProgress(p);
      clearTimeout(refetchTimer);
      refetchTimer = setTimeout(refetch, 600);
    },
    destroy() {
      destroyed = true;
      clearTimeout(refetchTimer);
      clearInterval(tickTimer);
    },
  };
}
