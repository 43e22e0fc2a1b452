// @ts-check
// Auto-reply in words and rules, shared by its panel and its tests: the modes, why a loop paused or stopped, the
// presets, the settings form's checks (the same limits the server applies) and the progress summary. Pure: no DOM.

import { byteLength } from '../format.js';

/** @type {Array<[string, string, string]>} value, label, what it does */
export const MODES = [
  ['smart_stop', 'Smart stop', 'Stops when a reply looks done (confidence ≥ the minimum) or says so.'],
  ['until_completion', 'Until completion', 'Stops only on an explicit “task complete” (limits still apply).'],
  ['time_based', 'Time based', 'Stops after the maximum minutes.'],
  ['message_based', 'Message based', 'Stops after the maximum number of auto-replies.'],
  ['hybrid', 'Hybrid', 'Stops at the first of time, messages and completion.'],
];

/** @type {Record<string, string>} */
export const REASONS = {
  manual: 'stopped by a person', completion: 'the task looks complete', time_limit: 'time limit reached',
  message_limit: 'message limit reached', iteration_limit: 'cycle limit reached', error: 'a turn failed',
  showstopper: 'needs a person', stuck: 'the replies repeat', low_confidence: 'low confidence', approval: 'waiting for an approval',
  confirmation: 'waiting for your go', override: 'you wrote a message', restart: 'the server restarted', deleted: 'conversation deleted',
};

/** @type {Record<string, string>} */
export const PRESET_WORDS = {
  careful: 'Careful — stops as soon as it is fairly sure it is done',
  overnight: 'Overnight — up to 8 h until an explicit “task complete”',
  quick: 'Quick — 5 auto-replies, then stop',
  supervised: 'Supervised — every next prompt waits for your go',
};

/**
 * @typedef {object} AutoReplySettings The loop's settings (`GET/PUT /api/conversations/{id}/auto-reply`).
 * @property {string} mode
 * @property {number} max_iterations
 * @property {number} [max_minutes]
 * @property {number} [max_messages]
 * @property {number} min_confidence
 * @property {boolean} [stop_on_error]
 * @property {boolean} [require_confirmation]
 * @property {boolean} [allow_override]
 * @property {boolean} [showstopper_detection]
 * @property {{strategy?: string, text?: string}} [next_prompt]
 */

/**
 * @typedef {object} AutoReplyProgress The loop's progress (`auto_reply` events).
 * @property {string} [state] running, paused, stopped
 * @property {number} iterations
 * @property {number} max_iterations
 * @property {number} messages
 * @property {number} [max_messages]
 * @property {number} [max_minutes]
 * @property {number} [elapsed_secs]
 * @property {string} [updated_at]
 * @property {string} [started_at]
 * @property {number | null} [confidence]
 * @property {string} [pause_reason]
 * @property {string} [stop_reason]
 * @property {string} [detail]
 * @property {string} [pending_prompt]
 */

/**
 * @typedef {object} AutoReplyForm What the settings form holds: numbers as typed, checkboxes as booleans.
 * @property {string} mode
 * @property {string} max_iterations
 * @property {string} max_minutes
 * @property {string} max_messages
 * @property {string} min_confidence
 * @property {string} prompt
 * @property {boolean} stop_on_error
 * @property {boolean} require_confirmation
 * @property {boolean} allow_override
 * @property {boolean} showstopper_detection
 */

/// A whole number typed in a field: null when empty, NaN when not whole.
/** @param {string} raw */
function intOf(raw) {
  const text = raw.trim();
  if (!text) return null;
  const n = Number(text);
  return Number.isInteger(n) ? n : NaN;
}

/// The settings the form describes (keeping what it does not show, like the judge), or the problems by field.
/**
 * @param {AutoReplyForm} form @param {AutoReplySettings | null} current
 * @returns {{settings: AutoReplySettings} | {problems: Array<[string, string]>}}
 */
export function settingsFromForm(form, current) {
  /** @type {Array<[string, string]>} */
  const problems = [];
  const iterations = intOf(form.max_iterations);
  const minutes = intOf(form.max_minutes);
  const messages = intOf(form.max_messages);
  const confidence = form.min_confidence.trim() === '' ? 0.8 : Number(form.min_confidence);
  if (iterations === null || Number.isNaN(iterations) || iterations < 1 || iterations > 500) problems.push(['max_iterations', 'A whole number from 1 to 500.']);
  if (Number.isNaN(minutes) || (minutes !== null && (minutes < 1 || minutes > 480))) problems.push(['max_minutes', 'A whole number from 1 to 480, or empty.']);
  if (Number.isNaN(messages) || (messages !== null && (messages < 1 || messages > 100))) problems.push(['max_messages', 'A whole number from 1 to 100, or empty.']);
  if (Number.isNaN(confidence) || confidence < 0 || confidence > 1) problems.push(['min_confidence', 'A number from 0 to 1.']);
  if (form.mode === 'time_based' && minutes === null) problems.push(['max_minutes', 'Time based needs max minutes.']);
  if (form.mode === 'message_based' && messages === null) problems.push(['max_messages', 'Message based needs max messages.']);
  if (form.mode === 'hybrid' && minutes === null && messages === null) problems.push(['max_minutes', 'Hybrid needs max minutes or max messages.']);
  if (byteLength(form.prompt) > 10000) problems.push(['next_prompt.text', 'At most 10 000 bytes.']);
  if (problems.length) return { problems };
  /** @type {AutoReplySettings} */
  const s = { ...(current || {}), mode: form.mode, max_iterations: /** @type {number} */ (iterations), min_confidence: confidence };
  if (minutes === null) delete s.max_minutes; else s.max_minutes = minutes;
  if (messages === null) delete s.max_messages; else s.max_messages = messages;
  s.stop_on_error = form.stop_on_error;
  s.require_confirmation = form.require_confirmation;
  s.allow_override = form.allow_override;
  s.showstopper_detection = form.showstopper_detection;
  const strategy = (current && current.next_prompt && current.next_prompt.strategy) || 'fixed';
  s.next_prompt = form.prompt.trim() ? { strategy, text: form.prompt } : { strategy };
  return { settings: s };
}

/// The server's `invalid_body: a; b` split into problems, each with the form field it names (or null).
/** @param {string} message @param {string[]} fields @returns {Array<[string | null, string]>} */
export function serverProblems(message, fields) {
  const text = message.replace(/^[a-z_]+:\s*/, '');
  return text.split(/;\s*/).filter(Boolean).map((problem) => {
    const key = fields.find((k) => problem.includes(k))
      || (/time_based|hybrid/.test(problem) ? 'max_minutes' : /message_based/.test(problem) ? 'max_messages' : /mode/.test(problem) ? 'mode' : null);
    return [key, problem];
  });
}

/// Seconds the loop has run: the last report's, plus the time since it while it runs.
/** @param {AutoReplyProgress} p @param {number} now */
export function elapsedSecs(p, now) {
  let secs = p.elapsed_secs || 0;
  if (p.state === 'running' && p.updated_at) secs += Math.max(0, (now - new Date(p.updated_at).getTime()) / 1000);
  return secs;
}

/// The one-line summary beside the panel's title: "off", or "3/20 cycles · 85%".
/** @param {AutoReplyProgress} p */
export function progressSummary(p) {
  const state = p.state || 'stopped';
  if (state === 'stopped' && !p.started_at) return 'off';
  return p.iterations + '/' + p.max_iterations + ' cycles' + (p.confidence !== undefined && p.confidence !== null ? ' · ' + Math.round(p.confidence * 100) + '%' : '');
}
