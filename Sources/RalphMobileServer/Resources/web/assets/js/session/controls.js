// @ts-check
// The session screen's controls for operators: Mode & control (pause, resume, stop for admins) and Actions (steer
// with guidance, emit an event). Shown only to the roles that may use them; redrawn from the state's mode. A run whose
// cluster host is offline keeps its buttons, disabled; a control the host did not take (`503 host_offline`) says so in
// the card until a control succeeds or the host is back.

import { api } from '../api.js';
import { h, toast, confirmDialog, field, busy } from '../ui.js';
import { modeOf, isActiveMode } from '../state/session.js';
import { stopButtonLabel, stopLine, holdLine, nextStopForces, stopAnswerText, resumeAnswerText } from '../words/control.js';
import { steerNotice } from '../words/rpc.js';
import { isHostOffline, hostOfflineMessage, unreachableControlsLine } from '../words/hosts.js';

/** @typedef {import('../state/session.js').SessionState} SessionState */

const TOPIC_RULE = /^[A-Za-z0-9._-]{1,128}$/;

/// What a topic typed in the emit form is missing, or null when the server accepts it.
/** @param {string} topic @returns {string | null} */
export function topicProblem(topic) {
  if (!topic) return 'Enter a topic, e.g. build.task.';
  if (topic.length > 128) return 'A topic has at most 128 characters (this one has ' + topic.length + ').';
  if (!TOPIC_RULE.test(topic)) return 'Only letters, digits, ".", "_" and "-" are allowed (no spaces).';
  return null;
}

/// The payload typed in the emit form: JSON when it starts with { or [, else text (none when empty).
/** @param {string} raw @returns {{payload?: unknown, error?: string}} */
export function parsePayload(raw) {
  const trimmed = raw.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      return { payload: JSON.parse(trimmed) };
    } catch (error) {
      return { error: 'This looks like JSON but does not parse: ' + /** @type {Error} */ (error).message };
    }
  }
  return raw.length ? { payload: raw } : {};
}

/** @param {string} tag @param {object} attributes @param {...any} children @returns {any} */
const el = (tag, attributes, ...children) => h(tag, attributes, ...children);

export class ControlsView {
  /**
   * @param {{base: string, canAdmin: boolean, isDisposed: () => boolean,
   *   onMode: (mode: string, status: string) => void}} options
   */
  constructor({ base, canAdmin, isDisposed, onMode }) {
    this.base = base;
    this.isDisposed = isDisposed;
    this.onMode = onMode;
    this.modeBadge = el('span', { class: 'badge' });
    this.modeNote = el('p', { class: 'muted small sd-mode-note' });
    this.holdNote = el('p', { class: 'small sd-hold warn', 'data-test': 'hold' });
    this.stopNote = el('p', { class: 'small sd-stop-note', 'data-test': 'stop-note' });
    this.offlineNote = el('p', { class: 'banner error small sd-offline-note', role: 'alert', 'data-test': 'host-offline-note', hidden: true });
    this.pauseButton = el('button', { type: 'button', class: 'btn', 'data-test': 'pause', onclick: () => this.pause() }, 'Pause');
    this.resumeButton = el('button', { type: 'button', class: 'btn primary', 'data-test': 'resume', onclick: () => this.resume() }, 'Resume');
    this.stopButton = canAdmin ? el('button', { type: 'button', class: 'btn danger', 'data-test': 'stop', onclick: () => this.stop() }, 'Stop at end of iteration') : null;
    const modeCard = h('section', { class: 'card sd-mode', 'aria-labelledby': 'sd-mode-title' },
      h('div', { class: 'card-head' }, h('h2', { id: 'sd-mode-title' }, 'Mode & control'), this.modeBadge),
      this.modeNote, this.holdNote, this.stopNote, this.offlineNote,
      h('div', { class: 'btn-row' }, this.pauseButton, this.resumeButton, this.stopButton),
      canAdmin ? null : h('p', { class: 'muted small' }, 'Stopping a run needs an admin key.'));
    this.actionsCard = h('section', { class: 'card sd-actions', 'aria-labelledby': 'sd-actions-title' },
      h('div', { class: 'card-head' }, h('h2', { id: 'sd-actions-title' }, 'Actions')),
      this.buildSteer(), this.buildEmit());
    this.element = h('div', { class: 'sd-controls', 'data-test': 'controls' }, modeCard, this.actionsCard);
    this.mode = 'complete';
    /** @type {import('../words/control.js').ControlledSession} */
    this.session = {};
  }

  buildSteer() {
    this.steerText = el('textarea', { rows: 2, 'data-test': 'steer-text', placeholder: 'e.g. Focus on the failing test first' });
    this.steerField = field('Guidance', this.steerText, 'Next iteration: ralph adds it to its next prompt. Now: ralph steers the iteration in progress (runs started here).');
    this.steerButton = el('button', { type: 'submit', class: 'btn primary', 'data-test': 'steer-submit' }, 'Send guidance');
    // "Now" is ralph's urgent steer (runs the server started in RPC mode); the server says why when it cannot.
    this.steerNext = el('input', { type: 'radio', name: 'sd-steer-when', value: 'next', checked: true, 'data-test': 'steer-next' });
    this.steerNow = el('input', { type: 'radio', name: 'sd-steer-when', value: 'now', 'data-test': 'steer-now' });
    const when = h('fieldset', { class: 'sd-when' }, h('legend', {}, 'When'),
      h('label', {}, this.steerNow, ' Now (this iteration)'), h('label', {}, this.steerNext, ' Next iteration'));
    const form = h('form', { class: 'sd-form', novalidate: true, 'aria-labelledby': 'sd-steer-title' },
      h('h3', { id: 'sd-steer-title' }, 'Steer'), this.steerField, when, this.steerButton);
    form.addEventListener('submit', (event) => { event.preventDefault(); this.steer(); });
    this.steerText.addEventListener('input', () => this.steerField.setError(''));
    return form;
  }

  buildEmit() {
    this.emitTopic = el('input', { type: 'text', 'data-test': 'emit-topic', autocomplete: 'off', autocapitalize: 'off', spellcheck: 'false',
      maxlength: 200, placeholder: 'build.task' });
    this.emitPayload = el('textarea', { rows: 3, 'data-test': 'emit-payload', spellcheck: 'false', placeholder: 'Text, or JSON such as {"task": "…"}' });
    this.topicField = field('Topic', this.emitTopic, 'Letters, digits, . _ - (at most 128).');
    this.payloadField = field('Payload (optional)', this.emitPayload, 'Starting with { or [ it must be valid JSON and is sent as JSON; anything else is sent as text.');
    this.emitButton = el('button', { type: 'submit', class: 'btn primary', 'data-test': 'emit-submit' }, 'Emit event');
    const form = h('form', { class: 'sd-form', novalidate: true, 'aria-labelledby': 'sd-emit-title' },
      h('h3', { id: 'sd-emit-title' }, 'Emit an event'), this.topicField, this.payloadField, this.emitButton);
    form.addEventListener('submit', (event) => { event.preventDefault(); this.emit(); });
    this.emitTopic.addEventListener('input', () => this.topicField.setError(''));
    this.emitPayload.addEventListener('input', () => this.payloadField.setError(''));
    return form;
  }

  /** @param {SessionState} state */
  update(state) {
    const wasUnreachable = this.mode === 'unreachable';
    this.mode = modeOf(state);
    this.session = /** @type {any} */ (state.detail);
    // The host is back: what it did not take then may be tried again now.
    if (wasUnreachable && this.mode !== 'unreachable') this.showOffline(null);
    this.redraw();
  }

  /// Carries out a control; a `503 host_offline` is also said in the card (the toast goes away, this stays).
  /** @template T @param {() => Promise<T>} action @returns {Promise<T>} */
  async control(action) {
    try {
      const result = await action();
      this.showOffline(null);
      return result;
    } catch (error) {
      if (isHostOffline(error)) this.showOffline(hostOfflineMessage(error, this.session));
      throw error;
    }
  }

  /** @param {string | null} message */
  showOffline(message) {
    this.offlineNote.textContent = message || '';
    this.offlineNote.hidden = !message;
  }

  redraw() {
    const mode = this.mode;
    if (mode === 'unreachable') {
      this.redrawUnreachable();
      return;
    }
    this.pauseButton.disabled = false;
    if (this.stopButton) this.stopButton.disabled = false;
    const active = isActiveMode(mode);
    this.modeBadge.className = 'badge ' + mode;
    this.modeBadge.textContent = mode;
    this.modeNote.textContent = /** @type {Record<string, string>} */ ({
      live: 'ralph is running. Pausing stops its processes (SIGSTOP) until you resume.',
      paused: 'Paused by the server: ralph\u2019s processes are stopped (SIGSTOP). Resume to let it continue.',
      suspended: 'A lifecycle hook suspended the loop. Resume asks ralph to go on (.ralph/resume-requested).',
    })[mode] || 'This run is over: it can no longer be paused, stopped, steered or sent events. Export JSON (at the top) still works.';
    this.pauseButton.hidden = mode !== 'live';
    this.resumeButton.hidden = mode !== 'paused' && mode !== 'suspended';
    const session = { ...this.session, mode };
    const hold = holdLine(session);
    this.holdNote.textContent = hold || '';
    this.holdNote.hidden = !hold;
    const stop = stopLine(session);
    this.stopNote.textContent = stop ? 'Stop: ' + stop : '';
    this.stopNote.hidden = !stop;
    if (this.stopButton) {
      this.stopButton.hidden = !active;
      this.stopButton.textContent = stopButtonLabel(session);
    }
    // A finished run takes no more events or guidance: its actions card goes away.
    this.actionsCard.hidden = !active;
    this.steerButton.disabled = !active;
    this.emitButton.disabled = !active;
  }

  /// Its host is offline: nothing can be done to it until the host is back; the buttons stay, disabled.
  redrawUnreachable() {
    this.modeBadge.className = 'badge unreachable';
    this.modeBadge.textContent = 'unreachable';
    this.modeNote.textContent = unreachableControlsLine(this.session);
    this.holdNote.hidden = true;
    this.stopNote.hidden = true;
    this.pauseButton.hidden = false;
    this.pauseButton.disabled = true;
    this.resumeButton.hidden = true;
    if (this.stopButton) {
      this.stopButton.hidden = false;
      this.stopButton.disabled = true;
      this.stopButton.textContent = 'Stop at end of iteration';
    }
    this.actionsCard.hidden = true;
    this.steerButton.disabled = true;
    this.emitButton.disabled = true;
  }

  pause() {
    busy(this.pauseButton, 'Pausing…', async () => {
      const result = await this.control(() => api.post(this.base + '/pause'));
      toast('Paused' + (result && result.pid ? ' (pid ' + result.pid + ')' : ''));
      this.onMode('paused', 'paused');
    }).then(() => this.redraw());
  }

  resume() {
    busy(this.resumeButton, 'Resuming…', async () => {
      const suspended = this.mode === 'suspended';
      const result = await this.control(() => api.post(this.base + '/resume'));
      toast(resumeAnswerText(result));
      // A suspended loop goes on once ralph consumes the request: the next state frame says so.
      if (!suspended) this.onMode('live', 'running');
    }).then(() => this.redraw());
  }

  async stop() {
    const force = nextStopForces({ ...this.session, mode: this.mode });
    const ok = await confirmDialog(force ? {
      title: 'Force-stop this run?',
      message: 'A stop at the end of the iteration is already pending. Forcing sends ralph SIGTERM and a few seconds to write loop.terminate and exit; then it is killed.',
      confirm: 'Force stop',
      danger: true,
    } : {
      title: 'Stop this run?',
      message: 'ralph finishes this iteration, then stops and records it (its own loop.terminate). The run cannot be resumed.',
      confirm: 'Stop at end of iteration',
      danger: true,
    });
    if (!ok || this.isDisposed()) return;
    await busy(this.stopButton, 'Stopping…', async () => {
      const result = await this.control(() => api.del(this.base + (force ? '?force=true' : '')));
      toast(stopAnswerText(result));
      if (result && result.status === 'stopping') {
        this.session = { ...this.session, stop_requested: { kind: 'graceful', at: new Date().toISOString() } };
      } else {
        this.onMode('complete', 'stopped');
      }
    });
    this.redraw();
  }

  steer() {
    const message = this.steerText.value.trim();
    if (!message) {
      this.steerField.setError('Write the guidance first.');
      this.steerText.focus();
      return;
    }
    this.steerField.setError('');
    busy(this.steerButton, 'Sending…', async () => {
      const urgent = /** @type {HTMLInputElement} */ (this.steerNow).checked;
      const result = await this.control(() => api.post(this.base + '/steer', urgent ? { message, urgent: true } : { message }));
      this.steerText.value = '';
      toast(steerNotice(result || {}));
    }).then(() => this.redraw());
  }

  emit() {
    const topic = this.emitTopic.value.trim();
    const problem = topicProblem(topic);
    this.topicField.setError(problem || '');
    const { payload, error } = parsePayload(this.emitPayload.value);
    this.payloadField.setError(error || '');
    if (problem || error) {
      (this.emitTopic.getAttribute('aria-invalid') === 'true' ? this.emitTopic : this.emitPayload).focus();
      return;
    }
    const body = payload === undefined ? { topic } : { topic, payload };
    busy(this.emitButton, 'Emitting…', async () => {
      try {
        const result = await this.control(() => api.post(this.base + '/emit', body));
        this.emitPayload.value = '';
        toast('Emitted ' + topic + (result && result.id ? ' as event #' + result.id : ''));
      } catch (failure) {
        if (/** @type {any} */ (failure).code === 'invalid_topic') this.topicField.setError(/** @type {Error} */ (failure).message);
        throw failure;
      }
    }).then(() => this.redraw());
  }
}
