// @ts-check
// The card of a question ralph is asking (RObot), with the answer form for operators. Redrawn only when the question
// changes, so what is being typed survives updates of the detail.

import { api } from '../api.js';
import { h, render, toast, hatBadge, field, busy } from '../ui.js';
import { relTime, until } from '../format.js';
import { modeOf, isActiveMode, hatColor } from '../state/session.js';

/** @typedef {import('../state/session.js').SessionState} SessionState */

export class QuestionView {
  /** @param {{canOperate: boolean, onAnswered: () => void}} options */
  constructor({ canOperate, onAnswered }) {
    this.canOperate = canOperate;
    this.onAnswered = onAnswered;
    /** @type {string | null} */
    this.questionId = null;
    /** @type {HTMLElement | null} */
    this.timeoutEl = null;
    this.element = h('section', { class: 'card sd-question', 'aria-labelledby': 'sd-q-title', hidden: true });
  }

  /** @param {SessionState} state */
  update(state) {
    const q = state.detail.pending_question;
    if (!q || !isActiveMode(modeOf(state))) {
      this.element.hidden = true;
      this.questionId = null;
      this.timeoutEl = null;
      this.element.replaceChildren();
      return;
    }
    if (q.id === this.questionId) return; // keep what is being typed
    this.questionId = q.id;
    this.element.hidden = false;
    this.timeoutEl = h('span', {}, until(q.timeout_at));
    render(this.element,
      h('div', { class: 'card-head' }, h('h2', { id: 'sd-q-title' }, 'ralph is asking'), q.hat ? hatBadge(q.hat, hatColor(state, q.hat)) : null),
      h('p', { class: 'sd-question-text' }, q.question_text),
      h('p', { class: 'muted small' }, 'Asked ', h('time', { 'data-rel': q.asked_at, datetime: q.asked_at }, relTime(q.asked_at)),
        ' · iteration ', String(q.iteration), ' · times out ', this.timeoutEl, q.timeout_estimated ? ' (estimated)' : ''),
      this.canOperate ? this.answerForm(q.id) : h('p', { class: 'muted small' }, 'An operator can answer it.'));
  }

  /// Refreshes the "times out in …" text.
  /** @param {SessionState} state */
  tick(state) {
    const q = state.detail.pending_question;
    if (this.timeoutEl && q) this.timeoutEl.textContent = until(q.timeout_at);
  }

  /** @param {string} questionId */
  answerForm(questionId) {
    const answer = /** @type {HTMLTextAreaElement} */ (h('textarea', { rows: 3, 'data-test': 'question-answer', placeholder: 'Your answer' }));
    const answerField = field('Your answer', answer);
    const send = /** @type {HTMLButtonElement} */ (h('button', { type: 'submit', class: 'btn primary', 'data-test': 'question-submit' }, 'Send answer'));
    const form = h('form', { class: 'sd-form', novalidate: true }, answerField, send);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const text = answer.value.trim();
      if (!text) {
        answerField.setError('Write an answer first.');
        answer.focus();
        return;
      }
      answerField.setError('');
      busy(send, 'Sending…', async () => {
        try {
          await api.post('/api/robot/response', { question_id: questionId, response_text: text });
        } catch (error) {
          if (/** @type {any} */ (error).status === 404) {
            toast('ralph no longer waits for this answer (' + /** @type {Error} */ (error).message + ')', 'error', 7000);
            this.onAnswered();
            return;
          }
          throw error;
        }
        answer.value = '';
        toast('Answer sent: ralph reads it in its next iteration');
        this.onAnswered();
      });
    });
    return form;
  }
}
