// @ts-check
// The session screen's Event stream card: the connection, the counts, the end banner and the events (newest first),
// drawn from the state's event log. Rows are kept by key and moved, never rebuilt, so an open payload stays open.

import { h, hatBadge } from '../ui.js';
import { clockTime, dateTime, oneLine, payloadText } from '../format.js';
import { EVENT_LOG_LIMITS } from '../state/event-log.js';
import { hatColor } from '../state/session.js';
import { isUnreachable } from '../words/hosts.js';
import { waveBadge } from '../words/signals.js';

/** @typedef {import('../state/session.js').SessionState} SessionState */
/** @typedef {import('../state/event-log.js').ShownEvent} ShownEvent */

/** @param {ShownEvent} row @param {SessionState} state */
function eventRow(row, state) {
  const e = row.event;
  const text = payloadText(e);
  const multi = text.length > 90 || text.includes('\n');
  return h('li', { 'data-test': 'event', 'data-event-id': row.line, class: 'sd-ev' },
    h('div', { class: 'sd-ev-head' },
      h('span', { class: 'mono muted sd-ev-id' }, '#' + row.line),
      h('span', { class: 'topic sd-topic' }, e.topic || '(no topic)'),
      e.hat ? hatBadge(e.hat, hatColor(state, e.hat)) : null,
      e.triggered ? h('span', { class: 'muted small' }, '\u2192 ' + e.triggered) : null,
      waveBadge(e) ? h('span', { class: 'badge sd-wave-badge', title: 'Agent wave ' + e.wave_id }, /** @type {string} */ (waveBadge(e))) : null,
      h('span', { class: 'grow' }),
      h('time', { class: 'muted small', datetime: e.ts || '', title: dateTime(e.ts) }, clockTime(e.ts))),
    !text ? null
      : multi
        ? h('details', { class: 'sd-payload' },
          h('summary', {}, h('span', { class: 'sd-preview' }, oneLine(text, 70)), h('span', { class: 'sr-only' }, ' (show the whole payload)')),
          h('pre', {}, text))
        : h('div', { class: 'sd-payload-line' }, text));
}

export class EventStreamView {
  constructor() {
    this.stateEl = h('span', { 'data-test': 'stream-state' }, 'connecting');
    this.connEl = h('span', { class: 'conn sd-conn', 'data-state': 'connecting', title: 'Stream connection' },
      h('span', { class: 'conn-dot', 'aria-hidden': 'true' }), this.stateEl);
    this.countEl = h('span', { 'data-test': 'event-count' }, '0');
    this.reconnectsEl = h('span', { 'data-test': 'reconnects' }, '0');
    this.endedEl = h('p', { class: 'banner info sd-ended', role: 'status', hidden: true });
    this.emptyEl = h('p', { class: 'muted sd-empty' }, 'Waiting for events…');
    this.list = h('ul', { class: 'list sd-events', 'data-test': 'event-list', 'aria-label': 'Events, newest first' });
    /** @type {Map<string, {row: ShownEvent, li: HTMLElement}>} */
    this.rows = new Map();
    this.element = h('section', { class: 'card sd-stream', 'aria-labelledby': 'sd-stream-title' },
      h('div', { class: 'card-head' }, h('h2', { id: 'sd-stream-title' }, 'Event stream'), this.connEl),
      h('p', { class: 'muted small sd-counts', role: 'status', 'aria-live': 'polite' },
        this.countEl, ' events received · ', this.reconnectsEl, ' reconnects · newest first, the latest ' + EVENT_LOG_LIMITS.shown + ' kept'),
      this.endedEl,
      this.emptyEl,
      this.list);
  }

  /** @param {SessionState} state */
  update(state) {
    const { stream, log } = state;
    // The stream of a run whose cluster host is offline stays open, but nothing comes until the host is back.
    const waiting = stream.state === 'live' && isUnreachable(state.detail);
    this.stateEl.textContent = waiting ? 'waiting for its host' : stream.state;
    this.connEl.dataset.state = waiting ? 'reconnecting' : stream.state;
    this.reconnectsEl.textContent = String(stream.attempts);
    this.countEl.textContent = String(log.received);
    if (stream.end) {
      const end = /** @type {any} */ (stream.end);
      this.endedEl.hidden = false;
      this.endedEl.textContent = 'run ended: ' + (end.reason || end.status || 'ended');
    }
    this.emptyEl.hidden = log.shown.length > 0;
    if (!log.shown.length) this.emptyEl.textContent = stream.end && log.received === 0 ? 'This run has no events.' : 'Waiting for events…';
    this.drawRows(state);
  }

  /** @param {SessionState} state */
  drawRows(state) {
    const keep = new Set(state.log.shown.map((row) => row.key));
    for (const [key, entry] of this.rows) {
      if (!keep.has(key)) {
        entry.li.remove();
        this.rows.delete(key);
      }
    }
    /** @type {ChildNode | null} */
    let expected = this.list.firstChild;
    for (const row of state.log.shown) {
      let entry = this.rows.get(row.key);
      if (!entry || entry.row !== row) {
        const li = eventRow(row, state);
        if (entry) entry.li.replaceWith(li);
        entry = { row, li };
        this.rows.set(row.key, entry);
      }
      if (expected !== entry.li) this.list.insertBefore(entry.li, expected);
      expected = entry.li.nextSibling;
    }
  }
}
