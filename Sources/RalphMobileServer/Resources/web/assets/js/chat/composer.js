// @ts-check
// The chat composer (operators): the message box with its draft kept in localStorage, Send (queues behind a running
// turn), Steer (stops the running turn and sends this next) and Interrupt. Enter sends where there is a keyboard.
// What was sent goes to `onSent`, which shows it as queued until its turn starts.

import { api } from '../api.js';
import { h, toast, busy } from '../ui.js';
import { messageProblem } from '../words/conversation.js';

/** @param {string} tag @param {object} attributes @param {...any} children @returns {any} */
const el = (tag, attributes, ...children) => h(tag, attributes, ...children);

export class Composer {
  /**
   * @param {{id: string, base: string, isRemoved: () => boolean, agent?: string,
   *   onSent: (result: {turn_id: string, queued_position: number}, text: string, mode: string) => void}} options
   *   `agent`: who the messages go to, in words (Claude, Codex)
   */
  constructor({ id, base, isRemoved, onSent, agent = 'Claude' }) {
    this.base = base;
    this.isRemoved = isRemoved;
    this.onSent = onSent;
    this.draftKey = 'ralph.chat.draft.' + id;
    this.sending = false;
    /** @type {string | null} the turn the note is about */
    this.noteTurn = null;
    this.textarea = el('textarea', {
      'data-test': 'composer', id: 'composer-' + id, rows: 2, 'aria-label': 'Message to ' + agent,
      placeholder: 'Message ' + agent + '…', value: localStorage.getItem(this.draftKey) || '',
    });
    this.error = h('p', { class: 'field-error', role: 'alert', hidden: true });
    this.note = h('p', { class: 'composer-note muted small', role: 'status', 'aria-live': 'polite' });
    this.send = el('button', { type: 'submit', class: 'btn primary', 'data-test': 'send' }, 'Send');
    this.steer = el('button', {
      type: 'button', class: 'btn small', 'data-test': 'steer', hidden: true, onclick: () => this.submit('steer', this.steer),
      title: 'Stop the running turn and send this message next', 'aria-label': 'Steer: stop the running turn and send this next',
    }, 'Steer');
    this.interrupt = el('button', { type: 'button', class: 'btn small ghost', 'data-test': 'interrupt', hidden: true, onclick: () => this.interruptTurn() }, 'Interrupt');
    this.busyHint = h('p', { class: 'composer-busy muted small', hidden: true }, agent + ' is busy: Send queues your message; Steer stops the turn and sends it now.');
    // Enter sends where there is a keyboard; on touch screens (coarse pointer) it is a new line and the button sends.
    this.touch = window.matchMedia('(pointer: coarse)');
    const fine = !this.touch.matches;
    const hint = h('span', { class: 'composer-hint muted small' }, fine ? 'Enter sends · Shift+Enter new line' : '');
    this.textarea.placeholder = 'Message ' + agent + '…' + (fine ? ' (Enter sends)' : '');
    this.element = h('form', { class: 'composer', 'aria-label': 'Send a message', novalidate: true },
      this.note, this.busyHint, this.textarea, this.error,
      h('div', { class: 'composer-actions' }, this.interrupt, this.steer, h('span', { class: 'grow' }), this.send),
      hint);
    this.listen();
  }

  listen() {
    this.textarea.addEventListener('input', () => {
      localStorage.setItem(this.draftKey, this.textarea.value);
      if (!this.error.hidden) { this.error.hidden = true; this.textarea.setAttribute('aria-invalid', 'false'); }
      this.grow();
    });
    this.textarea.addEventListener('keydown', (/** @type {KeyboardEvent} */ event) => {
      if (event.key === 'Enter' && !event.shiftKey && !event.isComposing && !this.touch.matches) {
        event.preventDefault();
        this.submit('queue', this.send);
      }
    });
    this.element.addEventListener('submit', (event) => {
      event.preventDefault();
      this.submit('queue', this.send);
    });
  }

  grow() {
    const t = this.textarea;
    t.style.height = 'auto';
    t.style.height = Math.min(t.scrollHeight + 2, Math.round(window.innerHeight * 0.4)) + 'px';
  }

  /** @param {string} message */
  fail(message) {
    this.error.textContent = message;
    this.error.hidden = false;
    this.textarea.setAttribute('aria-invalid', 'true');
    this.textarea.focus();
  }

  /** @param {'queue' | 'steer'} mode @param {HTMLButtonElement} button */
  async submit(mode, button) {
    if (this.sending || this.isRemoved()) return;
    const text = this.textarea.value;
    const problem = messageProblem(text);
    if (problem) return this.fail(problem);
    this.sending = true;
    const original = button.textContent;
    button.disabled = true;
    button.textContent = mode === 'steer' ? 'Steering…' : 'Sending…';
    try {
      const result = await api.post(this.base + '/messages', { text, mode });
      this.textarea.value = '';
      localStorage.removeItem(this.draftKey);
      this.grow();
      this.onSent(result, text, mode);
      this.noteTurn = result.turn_id;
      this.note.textContent = result.queued_position > 0
        ? 'Queued as #' + result.queued_position + ': it is sent when the running turn ends.'
        : mode === 'steer' ? 'Steering: the running turn stops and your message goes next.' : '';
      window.scrollTo(0, document.documentElement.scrollHeight);
    } catch (failure) {
      this.fail(/** @type {Error} */ (failure).message);
    } finally {
      this.sending = false;
      button.disabled = false;
      button.textContent = original;
    }
  }

  interruptTurn() {
    busy(this.interrupt, 'Interrupting…', async () => {
      try {
        await api.post(this.base + '/interrupt');
        this.note.textContent = 'Interrupt sent.';
      } catch (failure) {
        if (/** @type {any} */ (failure).status === 409) toast('Nothing to interrupt: ' + /** @type {Error} */ (failure).message);
        else throw failure;
      }
    });
  }

  /** @param {string} turnId */
  turnStarted(turnId) {
    if (this.noteTurn === turnId) { this.note.textContent = ''; this.noteTurn = null; }
  }

  /** @param {boolean} running @param {number} queued messages waiting behind the running turn */
  setRunning(running, queued) {
    this.interrupt.hidden = !running;
    this.steer.hidden = !running;
    this.busyHint.hidden = !running;
    if (!running && !queued) this.note.textContent = '';
  }

  /** @param {string} message why nothing can be sent any more */
  disable(message) {
    this.textarea.disabled = true;
    this.send.disabled = true;
    this.steer.hidden = true;
    this.interrupt.hidden = true;
    this.note.textContent = message;
  }
}
