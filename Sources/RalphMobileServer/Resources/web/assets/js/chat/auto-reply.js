// @ts-check
// The auto-reply panel of a conversation: the loop's progress (state, cycles, messages, time, confidence, why it
// paused or stopped, the prompt waiting for a go), Start / Pause / Resume / Stop for operators, and the settings form
// (./auto-reply-form.js), or a read-only summary for viewers. Its `progress(p)` takes the conversation stream's
// `auto_reply` events.

import { api } from '../api.js';
import { h, render, toast, confirmDialog, badge, busy, rememberedDisclosure } from '../ui.js';
import { duration } from '../format.js';
import { MODES, REASONS, elapsedSecs, progressSummary } from '../words/auto-reply.js';
import { AutoReplyForm } from './auto-reply-form.js';

/** @typedef {import('../words/auto-reply.js').AutoReplySettings} AutoReplySettings */
/** @typedef {import('../words/auto-reply.js').AutoReplyProgress} AutoReplyProgress */

const OPEN_STORE = 'ralph.chat.autoReplyOpen';

/** @param {string} label @param {string} value @param {string} [test] */
function stat(label, value, test) {
  return h('div', { class: 'stat stat-' + label }, h('div', { class: 'stat-value', 'data-test': test || null }, value), h('div', { class: 'stat-label' }, label));
}

/** @param {AutoReplyProgress} p */
const timeText = (p) => duration(elapsedSecs(p, Date.now())) + (p.max_minutes ? ' / ' + p.max_minutes + 'm' : '');

/// Why the loop paused or stopped, and the detail the server gave.
/** @param {AutoReplyProgress} p @param {string} state */
function reasonLine(p, state) {
  const reason = state === 'paused' ? p.pause_reason : state === 'stopped' ? p.stop_reason : null;
  if (!reason && !p.detail) return null;
  const words = reason ? REASONS[reason] || reason : '';
  return h('p', { class: 'ar-reason ' + (state === 'paused' ? 'warn' : '') },
    h('strong', {}, (state === 'paused' ? 'Paused: ' : state === 'stopped' ? 'Stopped: ' : '') + words),
    p.detail && p.detail !== (reason && REASONS[reason]) && !['manual', 'confirmation'].includes(String(reason)) ? [reason ? ' — ' : '', p.detail] : null);
}

export class AutoReplyPanel {
  /** @param {{base: string, operator: boolean}} options */
  constructor({ base, operator }) {
    this.base = base;
    this.operator = operator;
    /** @type {AutoReplySettings | null} */
    this.settings = null;
    /** @type {AutoReplyProgress | null} */
    this.current = null;
    /** @type {any} */
    this.refetchTimer = null;
    /** @type {any} */
    this.tickTimer = null;
    this.destroyed = false;
    this.stateBadge = h('span', { class: 'ar-state' });
    this.summaryText = h('span', { class: 'muted small ar-summary' });
    this.progressBox = h('div', { class: 'ar-progress', 'data-test': 'auto-reply-progress', role: 'status', 'aria-live': 'polite' }, 'Loading…');
    this.controls = h('div', { class: 'btn-row ar-controls' });
    this.form = operator ? new AutoReplyForm({ base, getSettings: () => this.settings, onSaved: (status) => this.apply(status, true) }) : null;
    this.readOnly = operator ? null : h('dl', { class: 'kv ar-settings-view' });
    this.element = this.buildPanel();
  }

  buildPanel() {
    const bodyId = 'auto-reply-body';
    const toggle = h('button', { type: 'button', class: 'ar-toggle', 'aria-expanded': 'false', 'aria-controls': bodyId, 'data-test': 'auto-reply-toggle' },
      h('span', { class: 'ar-title' }, 'Auto-reply'), this.stateBadge, this.summaryText, h('span', { class: 'ar-chevron', 'aria-hidden': 'true' }));
    const body = h('div', { class: 'ar-body', id: bodyId, hidden: true }, this.progressBox,
      this.operator ? this.controls : null, this.form ? this.form.element : this.readOnly);
    const panel = h('section', { class: 'card auto-reply', 'data-test': 'auto-reply', 'aria-label': 'Auto-reply' }, toggle, body);
    rememberedDisclosure(panel, toggle, body, OPEN_STORE);
    return panel;
  }

  /// Reads the settings, progress and presets.
  async load() {
    const [status, presets] = await Promise.all([
      api.get(this.base + '/auto-reply').catch((error) => ({ error })),
      api.get('/api/auto-reply/presets').catch((error) => {
        console.warn('auto-reply presets not read:', error);
        return {};
      }),
    ]);
    if (this.form) this.form.setPresets(presets || {});
    if (status.error) render(this.progressBox, h('p', { class: 'field-error' }, 'Auto-reply: ' + status.error.message));
    else this.apply(status, true);
  }

  /// An `auto_reply` event: show it now, and read the settings again shortly after (a start may have changed them).
  /** @param {AutoReplyProgress} p */
  progress(p) {
    this.setProgress(p);
    clearTimeout(this.refetchTimer);
    this.refetchTimer = setTimeout(() => this.refetch(), 600);
  }

  destroy() {
    this.destroyed = true;
    clearTimeout(this.refetchTimer);
    clearInterval(this.tickTimer);
  }

  /** @param {{settings?: AutoReplySettings, progress?: AutoReplyProgress}} status @param {boolean} [force] */
  apply(status, force = false) {
    if (!status) return;
    if (status.settings) {
      this.settings = status.settings;
      if (this.form && (force || !this.form.dirty)) this.form.fill(this.settings);
      if (this.readOnly) this.drawReadOnly(this.settings);
    }
    if (status.progress) this.setProgress(status.progress);
  }

  /** @param {AutoReplySettings} s */
  drawReadOnly(s) {
    const mode = MODES.find((m) => m[0] === s.mode);
    render(/** @type {HTMLElement} */ (this.readOnly),
      h('dt', {}, 'Mode'), h('dd', { 'data-test': 'auto-reply-mode-view' }, mode ? mode[1] : s.mode),
      h('dt', {}, 'Max cycles'), h('dd', {}, String(s.max_iterations)),
      h('dt', {}, 'Max minutes'), h('dd', {}, s.max_minutes ? String(s.max_minutes) : '—'),
      h('dt', {}, 'Max messages'), h('dd', {}, s.max_messages ? String(s.max_messages) : '—'),
      h('dt', {}, 'Min confidence'), h('dd', {}, String(s.min_confidence)),
      h('dt', {}, 'Next prompt'), h('dd', {}, (s.next_prompt && s.next_prompt.text) || 'the default'));
  }

  /** @param {AutoReplyProgress} p */
  setProgress(p) {
    this.current = p;
    const state = p.state || 'stopped';
    render(this.stateBadge, badge(state, state === 'running' ? 'running' : state === 'paused' ? 'paused' : 'idle'));
    this.summaryText.textContent = progressSummary(p);
    render(this.progressBox,
      h('div', { class: 'stats ar-stats' },
        stat('state', state, 'auto-reply-state'),
        stat('cycles', p.iterations + ' / ' + p.max_iterations),
        stat('messages', p.messages + (p.max_messages ? ' / ' + p.max_messages : '')),
        stat('time', timeText(p), 'auto-reply-elapsed'),
        stat('confidence', p.confidence !== undefined && p.confidence !== null ? Math.round(p.confidence * 100) + '%' : '—')),
      reasonLine(p, state),
      p.pending_prompt ? h('div', { class: 'ar-pending' }, h('div', { class: 'muted small' }, 'Next prompt, waiting for your go (Resume sends it):'), h('pre', {}, p.pending_prompt)) : null,
      state === 'stopped' && !p.started_at ? h('p', { class: 'muted small' }, this.operator
        ? 'Auto-reply answers Claude for you, on the server, until the task is done or a limit is reached. Pick the settings below and press Start.'
        : 'Auto-reply is off.') : null);
    if (this.operator) this.drawControls(state);
    clearInterval(this.tickTimer);
    if (state === 'running') {
      this.tickTimer = setInterval(() => {
        const node = this.progressBox.querySelector('[data-test="auto-reply-elapsed"]');
        if (node && this.current) node.textContent = timeText(this.current);
      }, 1000);
    }
  }

  /** @param {string} state */
  drawControls(state) {
    const buttons = [];
    if (state === 'stopped') buttons.push(this.control('start', 'Start', 'primary', 'auto-reply-start'));
    if (state === 'running') buttons.push(this.control('pause', 'Pause', '', 'auto-reply-pause'));
    if (state === 'paused') buttons.push(this.control('resume', this.current && this.current.pending_prompt ? 'Resume (send it)' : 'Resume', 'primary', 'auto-reply-resume'));
    if (state !== 'stopped') buttons.push(this.control('stop', 'Stop', 'danger', 'auto-reply-stop'));
    render(this.controls, ...buttons);
  }

  /** @param {string} verb @param {string} label @param {string} kind @param {string} test */
  control(verb, label, kind, test) {
    const button = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', class: 'btn ' + kind, 'data-test': test, 'aria-label': label + ' auto-reply' }, label));
    button.addEventListener('click', () => busy(button, label + '…', () => this.run(verb)));
    return button;
  }

  /// Start (with the form's settings when they changed), pause, resume or stop (after a confirmation).
  /** @param {string} verb */
  async run(verb) {
    const form = this.form;
    let body;
    if (verb === 'start' && form && form.dirty) {
      body = form.collect();
      if (!body) return;
    }
    if (verb === 'stop') {
      const ok = await confirmDialog({ title: 'Stop auto-reply?', message: 'The loop stops; the running turn (if any) goes on. You can start it again later.', confirm: 'Stop', danger: true });
      if (!ok) return;
    }
    try {
      const result = await api.post(this.base + '/auto-reply/' + verb, body);
      if (body && form) form.markSaved();
      this.apply(result, !!body);
    } catch (error) {
      const status = /** @type {any} */ (error).status;
      if (status === 400 && form) form.serverProblems(/** @type {Error} */ (error));
      else if (status === 409) { toast(/** @type {Error} */ (error).message, 'info', 6000); this.refetch(); }
      else throw error;
    }
  }

  async refetch() {
    try {
      this.apply(await api.get(this.base + '/auto-reply'));
    } catch (error) {
      if (!this.destroyed) render(this.progressBox, h('p', { class: 'field-error' }, 'Auto-reply: ' + /** @type {Error} */ (error).message));
    }
  }
}
