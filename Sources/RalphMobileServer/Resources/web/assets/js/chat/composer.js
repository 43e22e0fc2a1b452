// @ts-check
// The chat composer (operators): the message box with its draft kept in localStorage, Send (queues behind a running
// turn), Steer (stops the running turn and sends this next) and Interrupt. Enter sends where there is a keyboard.
// What was sent goes to `onSent`, which shows it as queued until its turn starts.

import { api } from '../api.js';
import { h, toast, busy } from '../ui.js';
import { number, byteLength } from '../format.js';

const MAX_TEXT_BYTES = 100000;

/**
 * @param {{id: string, base: string, isRemoved: () => boolean,
 *   onSent: (result: {turn_id: string, queued_position: number}, text: string, mode: string) => void}} options
 */
export function buildComposer({ id, base, isRemoved, onSent }) {
  const draftKey = 'ralph.chat.draft.' + id;
  const textarea = h('textarea', {
    'data-test': 'composer', id: 'composer-' + id, rows: 2, 'aria-label': 'Message to Claude',
    placeholder: 'Message Claude…', value: localStorage.getItem(draftKey) || '',
  });
  const error = h('p', { class: 'field-error', role: 'alert', hidden: true });
  const note = h('p', { class: 'composer-note muted small', role: 'status', 'aria-live': 'polite' });
  const send = h('button', { type: 'submit', class: 'btn primary', 'data-test': 'send' }, 'Send');
  const steer = h('button', {
    type: 'button', class: 'btn small', 'data-test': 'steer', hidden: true,
    title: 'Stop the running turn and send this message next', 'aria-label': 'Steer: stop the running turn and send this next',
  }, 'Steer');
  const interrupt = h('button', { type: 'button', class: 'btn small ghost', 'data-test': 'interrupt', hidden: true }, 'Interrupt');
  // Enter sends where there is a keyboard; on touch screens (coarse pointer) it is a new line and the button sends.
  const touch = window.matchMedia('(pointer: coarse)');
  const fine = { get matches() { return !touch.matches; } };
  const hint = h('span', { class: 'composer-hint muted small' });
  const busyHint = h('p', { class: 'composer-busy muted small', hidden: true }, 'Claude is busy: Send queues your message; Steer stops the turn and sends it now.');
  const updateHint = () => {
    hint.textContent = fine.matches ? 'Enter sends · Shift+Enter new line' : '';
    textarea.placeholder = fine.matches ? 'Message Claude… (Enter sends)' : 'Message Claude…';
  };
  updateHint();
  const form = h('form', { class: 'composer', 'aria-label': 'Send a message', novalidate: true },
    note,
    busyHint,
    textarea,
    error,
    h('div', { class: 'composer-actions' }, interrupt, steer, h('span', { class: 'grow' }), send),
    hint);

  const grow = () => {
    textarea.style.height = 'auto';
    textarea.style.height = Math.min(textarea.scrollHeight + 2, Math.round(window.innerHeight * 0.4)) + 'px';
  };
  textarea.addEventListener('input', () => {
    localStorage.setItem(draftKey, textarea.value);
    if (!error.hidden) { error.hidden = true; textarea.setAttribute('aria-invalid', 'false'); }
    grow();
  });
  textarea.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing && fine.matches) {
      event.preventDefault();
      submit('queue', send);
    }
  });

  function fail(message) {
    error.textContent = message;
    error.hidden = false;
    textarea.setAttribute('aria-invalid', 'true');
    textarea.focus();
  }

  let sending = false;
  let noteTurn = null;
  async function submit(mode, button) {
    if (sending || isRemoved()) return;
    const text = textarea.value;
    if (!text.trim()) return fail('Write a message first.');
    if (byteLength(text) > MAX_TEXT_BYTES) return fail('The message is too long: at most 100 000 bytes (it has ' + number(byteLength(text)) + ').');
    if (text.includes('\u0000')) return fail('The message contains a NUL character.');
    sending = true;
    const original = button.textContent;
    button.disabled = true;
    button.textContent = mode === 'steer' ? 'Steering…' : 'Sending…';
    try {
      const result = await api.post(base + '/messages', { text, mode });
      textarea.value = '';
      localStorage.removeItem(draftKey);
      grow();
      onSent(result, text, mode);
      noteTurn = result.turn_id;
      note.textContent = result.queued_position > 0
        ? 'Queued as #' + result.queued_position + ': it is sent when the running turn ends.'
        : mode === 'steer' ? 'Steering: the running turn stops and your message goes next.' : '';
      window.scrollTo(0, document.documentElement.scrollHeight);
    } catch (failure) {
      fail(failure.message);
    } finally {
      sending = false;
      button.disabled = false;
      button.textContent = original;
    }
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    submit('queue', send);
  });
  steer.addEventListener('click', () => submit('steer', steer));
  interrupt.addEventListener('click', () => busy(interrupt, 'Interrupting…', async () => {
    try {
      await api.post(base + '/interrupt');
      note.textContent = 'Interrupt sent.';
    } catch (failure) {
      if (failure.status === 409) toast('Nothing to interrupt: ' + failure.message);
      else throw failure;
    }
  }));

  return {
    element: form,
    textarea,
    turnStarted(turnId) {
      if (noteTurn === turnId) { note.textContent = ''; noteTurn = null; }
    },
    /** @param {boolean} running @param {number} queued messages waiting behind the running turn */
    setRunning(running, queued) {
      interrupt.hidden = !running;
      steer.hidden = !running;
      busyHint.hidden = !running;
      if (!running && !queued) note.textContent = '';
    },
    disable(message) {
      textarea.disabled = true;
      send.disabled = true;
      steer.hidden = true;
      interrupt.hidden = true;
      note.textContent = message;
    },
  };
}
