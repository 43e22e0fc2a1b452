// @ts-check
// The session screen's Guidance card (guidance → acknowledgement, RObot check-in) and Waves card (agent waves).

import { h, render, hatBadge } from '../ui.js';
import { clockTime, dateTime } from '../format.js';
import { hatColor } from '../state/session.js';
import { guidanceRow, guidanceSummary, waveTitle, checkinLine } from '../words/signals.js';

/** @typedef {import('../state/session.js').SessionState} SessionState */
/** @typedef {import('./cards.js').Memo} Memo */

/// Guidance sent to the run, newest first, pending or acknowledged with ralph's words; the latest check-in.
/** @param {HTMLElement} body @param {SessionState} state @param {Memo} memo */
export function renderGuidance(body, state, memo) {
  const d = /** @type {any} */ (state.detail);
  const list = Array.isArray(d.guidance) ? d.guidance : [];
  if (!memo.changed('guidance', [list, d.checkin])) return;
  const checkin = checkinLine(d.checkin);
  render(body,
    h('p', { class: 'muted small', 'data-test': 'guidance-summary' }, guidanceSummary(list)),
    list.length ? h('ul', { class: 'list sd-guidance' }, list.slice().reverse().map((/** @type {any} */ g) => {
      const row = guidanceRow(g);
      return h('li', { class: 'sd-guidance-row', 'data-test': 'guidance', 'data-state': row.state },
        h('div', { class: 'sd-ev-head' },
          h('span', { class: 'badge ' + (row.state === 'acknowledged' ? 'live' : 'paused') }, row.label),
          h('span', { class: 'grow' }),
          h('time', { class: 'muted small', datetime: g.sent_at || '', title: dateTime(g.sent_at) }, clockTime(g.sent_at))),
        h('div', {}, row.text),
        row.ack ? h('div', { class: 'row-sub', 'data-test': 'guidance-ack' }, '\u21b3 ralph: ' + row.ack) : null);
    })) : null,
    checkin ? h('p', { class: 'muted small', 'data-test': 'checkin' }, checkin) : null);
}

/// Agent waves, newest first: the workers seen of the total, the hats, the iteration.
/** @param {HTMLElement} body @param {SessionState} state @param {Memo} memo */
export function renderWaves(body, state, memo) {
  const d = /** @type {any} */ (state.detail);
  const waves = Array.isArray(d.waves) ? d.waves : [];
  if (!memo.changed('waves', [waves, state.hats.length])) return;
  if (!waves.length) {
    render(body, h('p', { class: 'muted' }, 'No agent waves in this run.'));
    return;
  }
  render(body, h('ul', { class: 'list sd-waves' }, waves.slice().reverse().map((/** @type {any} */ w) => h('li', { class: 'sd-wave', 'data-test': 'wave' },
    h('div', { class: 'sd-ev-head' },
      h('span', {}, waveTitle(w)),
      (w.hats || []).map((/** @type {string} */ hat) => hatBadge(hat, hatColor(state, hat))),
      h('span', { class: 'grow' }),
      h('span', { class: 'muted small' }, (w.iteration ? 'it ' + w.iteration + ' · ' : '') + 'events #' + w.first_event_id + '–#' + w.last_event_id))))));
}
