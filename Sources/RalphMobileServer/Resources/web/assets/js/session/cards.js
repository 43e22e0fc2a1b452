// @ts-check
// The session screen's summary cards, each drawn from the screen's state: tokens, hat flow, backpressure, iteration
// stats, recent events and the hats reference. A card is redrawn only when what it shows changed.

import { h, render, hatBadge, sparkline } from '../ui.js';
import { relTime, clockTime, dateTime, duration, number, oneLine, payloadText } from '../format.js';
import { modeOf, isActiveMode, hatColor } from '../state/session.js';

/** @typedef {import('../state/session.js').SessionState} SessionState */

/// Remembers what each card last drew, so a card is redrawn only when its data changed.
export class Memo {
  constructor() {
    /** @type {Map<string, string>} */
    this.drawn = new Map();
  }

  /** @param {string} name @param {unknown} value @returns {boolean} true when `value` differs from the last one */
  changed(name, value) {
    const key = JSON.stringify(value === undefined ? null : value);
    if (this.drawn.get(name) === key) return false;
    this.drawn.set(name, key);
    return true;
  }
}

/** @param {string} label @param {string} value */
export function stat(label, value) {
  return h('div', { class: 'stat' }, h('div', { class: 'stat-value' }, value), h('div', { class: 'stat-label' }, label));
}

/** @param {unknown} list */
function topics(list) {
  if (!Array.isArray(list) || !list.length) return h('span', {}, 'nothing');
  return list.map((t, i) => [i ? ', ' : '', h('code', {}, t)]);
}

/// Tokens: totals, cost, and a sparkline of the last reports.
/** @param {HTMLElement} body @param {SessionState} state @param {Memo} memo */
export function renderTokens(body, state, memo) {
  const t = /** @type {any} */ (state.detail.tokens);
  if (!memo.changed('tokens', t)) return;
  if (!t || !t.reports) {
    render(body, h('p', { class: 'muted' }, 'This agent reports no token usage.'));
    return;
  }
  const samples = (t.samples || []).map((/** @type {any} */ s) => (s.input_tokens || 0) + (s.output_tokens || 0));
  render(body,
    h('div', { class: 'stats' },
      stat('Input', number(t.input_tokens)),
      stat('Output', number(t.output_tokens)),
      stat('Cache read', number(t.cache_read_tokens)),
      stat('Cache write', number(t.cache_creation_tokens)),
      stat('Cost', t.cost_usd === null || t.cost_usd === undefined ? '—' : '$' + Number(t.cost_usd).toFixed(4)),
      stat('Reports', number(t.reports))),
    samples.length >= 2
      ? h('div', { class: 'sd-spark' },
        sparkline(samples, 'Tokens (input + output) of the last ' + samples.length + ' reports, from ' + number(Math.min(...samples)) + ' to ' + number(Math.max(...samples))),
        h('p', { class: 'muted small' }, 'Tokens per report, last ' + samples.length))
      : h('p', { class: 'muted small' }, 'The sparkline appears after two usage reports.'));
}

/// Hat flow: usage chips and the hat changes, newest first (the last 8, or all when `expanded`).
/**
 * @param {HTMLElement} body @param {SessionState} state @param {Memo} memo
 * @param {boolean} expanded @param {() => void} onToggle
 */
export function renderFlow(body, state, memo, expanded, onToggle) {
  const d = state.detail;
  if (!memo.changed('flow', [d.hat_flow, d.hat_usage, d.hat_transitions, expanded, state.hats.length])) return;
  const flow = Array.isArray(d.hat_flow) ? d.hat_flow : [];
  const usage = Array.isArray(d.hat_usage) ? d.hat_usage : [];
  if (!flow.length) {
    render(body, h('p', { class: 'muted' }, 'No hat has been at work yet.'));
    return;
  }
  const color = (/** @type {string | undefined} */ name) => hatColor(state, name);
  const shown = flow.slice(-(expanded ? flow.length : 8)).reverse();
  const total = d.hat_transitions || flow.length;
  render(body,
    usage.length ? h('ul', { class: 'sd-chips', 'aria-label': 'Hat usage' }, usage.map((u) => h('li', { class: 'sd-chip' },
      hatBadge(u.hat, color(u.hat)), h('span', { class: 'muted small' }, ' ' + u.iterations + ' it · ' + u.events + ' ev')))) : null,
    h('p', { class: 'muted small' }, number(total) + (total === 1 ? ' hat change' : ' hat changes') + ', newest first'),
    h('ul', { class: 'list sd-flow' }, shown.map((t) => h('li', { class: 'sd-flow-row' },
      h('div', { class: 'sd-flow-hats' },
        t.from ? hatBadge(t.from, color(t.from)) : h('span', { class: 'muted' }, 'start'),
        h('span', { class: 'sd-arrow', 'aria-label': 'to' }, '\u2192'),
        hatBadge(t.to, color(t.to))),
      h('div', { class: 'row-sub' }, h('code', {}, t.topic), ' · it ' + t.iteration + ' · ',
        h('time', { datetime: t.at || '', title: dateTime(t.at) }, clockTime(t.at)))))),
    flow.length > 8
      ? h('button', { type: 'button', class: 'btn small ghost', 'aria-expanded': String(expanded), onclick: onToggle },
        expanded ? 'Show fewer' : 'Show all ' + flow.length)
      : null);
}

/// Backpressure: tests, lint, typecheck and other checks from the last build.done / build.blocked.
/** @param {HTMLElement} body @param {SessionState} state @param {Memo} memo */
export function renderBackpressure(body, state, memo) {
  const b = /** @type {any} */ (state.detail.backpressure);
  if (!memo.changed('backpressure', b)) return;
  if (!b) {
    render(body, h('p', { class: 'muted' }, 'No build.done or build.blocked yet: tests, lint and typecheck results show here once a hat reports them.'));
    return;
  }
  /** @type {Array<{name: string, passed?: boolean, result?: string}>} */
  const checks = b.checks || [];
  const main = [['tests', b.tests], ['lint', b.lint], ['typecheck', b.typecheck]];
  const others = checks.filter((c) => !['tests', 'lint', 'typecheck'].includes(c.name));
  const resultFor = (/** @type {string} */ name) => checks.find((c) => c.name === name);
  const row = (/** @type {string} */ name, /** @type {boolean | null | undefined} */ passed, /** @type {string | undefined} */ word) => h('li', { class: 'sd-check' },
    h('span', { class: 'sd-check-name' }, name),
    passed === null || passed === undefined
      ? h('span', { class: 'sd-result none' }, 'not reported')
      : h('span', { class: 'sd-result ' + (passed ? 'pass' : 'fail') }, (passed ? '\u2713 ' : '\u2717 ') + (word || (passed ? 'pass' : 'fail'))));
  render(body,
    h('ul', { class: 'list sd-checks' },
      main.map(([name, passed]) => row(name, passed, resultFor(name)?.result)),
      others.map((c) => row(c.name, c.passed, c.result))),
    h('p', { class: 'muted small' }, 'From ', h('code', {}, b.topic), ' (event #' + b.event_id + ', iteration ' + b.iteration + ') ',
      h('time', { 'data-rel': b.at || '', datetime: b.at || '', title: dateTime(b.at) }, relTime(b.at)), ' · ',
      number(b.done_count) + ' done · ' + number(b.blocked_events) + ' blocked',
      b.blocked_count !== null && b.blocked_count !== undefined ? ' (blocked count ' + b.blocked_count + ')' : ''));
}

/// Iteration stats and the latest iterations.
/** @param {HTMLElement} body @param {SessionState} state @param {Memo} memo */
export function renderStats(body, state, memo) {
  const d = state.detail;
  const s = d.iteration_stats || {};
  const mode = modeOf(state);
  if (!memo.changed('stats', [s, d.total, d.iteration, mode, state.iterations, state.hats.length])) return;
  const total = s.total ?? d.total;
  const remaining = s.estimated_remaining_secs;
  /** @type {any[] | null} */
  const items = state.iterations && Array.isArray(state.iterations.iterations) ? state.iterations.iterations.slice(-8).reverse() : null;
  render(body,
    h('div', { class: 'stats' },
      stat('Iterations', number(s.count ?? 0)),
      stat('Current', (s.current ?? d.iteration ?? 0) + (total ? ' / ' + total : '')),
      stat('Average', s.average_duration_secs === null || s.average_duration_secs === undefined ? '—' : duration(s.average_duration_secs)),
      stat('Remaining', remaining === null || remaining === undefined ? (isActiveMode(mode) ? 'unknown' : '—') : '\u2248 ' + duration(remaining))),
    items === null
      ? h('p', { class: 'muted small' }, 'Loading iterations…')
      : items.length === 0
        ? h('p', { class: 'muted small' }, 'No iteration finished yet.')
        : h('div', {},
          h('h3', { class: 'sd-subhead' }, 'Latest iterations'),
          h('ul', { class: 'list sd-iters' }, items.map((it) => h('li', { class: 'sd-iter' },
            h('span', { class: 'mono' }, '#' + it.number),
            it.hat ? hatBadge(it.hat, hatColor(state, it.hat)) : h('span', { class: 'muted' }, '—'),
            h('span', { class: 'grow' }),
            h('span', { class: 'muted small' }, duration(it.duration_secs) + ' · ' + it.event_count + (it.event_count === 1 ? ' event' : ' events')))))));
}

/// The detail's recent events, newest first (the last 10).
/** @param {HTMLElement} body @param {SessionState} state @param {Memo} memo */
export function renderRecent(body, state, memo) {
  const recent = Array.isArray(state.detail.recent_events) ? state.detail.recent_events.slice(-10).reverse() : [];
  if (!memo.changed('recent', [recent.map((e) => e.id), state.hats.length])) return;
  if (!recent.length) {
    render(body, h('p', { class: 'muted' }, 'No events yet.'));
    return;
  }
  render(body, h('ul', { class: 'list sd-recent' }, recent.map((e) => {
    const text = payloadText(e);
    return h('li', { class: 'sd-recent-row' },
      h('div', { class: 'sd-ev-head' },
        h('span', { class: 'mono muted' }, '#' + e.id),
        h('span', { class: 'sd-topic' }, e.topic || '(no topic)'),
        e.hat ? hatBadge(e.hat, hatColor(state, e.hat)) : null,
        h('span', { class: 'grow' }),
        h('time', { class: 'muted small', datetime: e.ts || '', title: dateTime(e.ts) }, clockTime(e.ts))),
      text ? h('div', { class: 'row-sub' }, oneLine(text)) : null);
  })));
}

/// The hats of the run's workspace, the one at work marked.
/** @param {HTMLElement} body @param {SessionState} state @param {Memo} memo */
export function renderHats(body, state, memo) {
  /** @type {any[]} */
  const hats = state.hats;
  if (!memo.changed('hats', [hats, state.detail.hat])) return;
  if (!hats.length) {
    render(body, h('p', { class: 'muted' }, 'The workspace config defines no hats.'));
    return;
  }
  const current = String(state.detail.hat || '').toLowerCase();
  render(body, h('ul', { class: 'list sd-hats' }, hats.map((hat) => h('li', { class: 'sd-hat' },
    h('div', { class: 'sd-hat-head' },
      hat.emoji ? h('span', { 'aria-hidden': 'true' }, hat.emoji) : null,
      hatBadge(hat.name || hat.id, hat.color),
      hat.id && hat.name && hat.id !== hat.name ? h('code', { class: 'muted small' }, hat.id) : null,
      current && (current === String(hat.id).toLowerCase() || current === String(hat.name).toLowerCase())
        ? h('span', { class: 'badge live' }, 'at work') : null),
    hat.description ? h('p', { class: 'small' }, hat.description) : null,
    h('p', { class: 'small muted sd-topics' }, 'triggers ', topics(hat.triggers), ' \u2192 publishes ', topics(hat.publishes)),
    hat.sources && hat.sources.length ? h('p', { class: 'small muted' }, 'from ' + hat.sources.join(', ')) : null))));
}
