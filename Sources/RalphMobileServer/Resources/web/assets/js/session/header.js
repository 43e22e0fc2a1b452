// @ts-check
// The session screen's status header (mode, status, task, id, iteration, hat, elapsed, times, workspace), built once
// and updated in place from the state: the badges and buttons keep their identity (focus, test references).

import { h, render, hatBadge, copyText, setRelativeTime } from '../ui.js';
import { id8, dateTime, duration, number, oneLine } from '../format.js';
import { modeOf, isActiveMode, hatColor } from '../state/session.js';
import { hostLabel, isUnreachable, unreachableLine } from '../words/hosts.js';

/** @typedef {import('../state/session.js').SessionState} SessionState */

/// The elapsed time of the run: the detail's, plus the time since it was read while the run is live.
/** @param {SessionState} state @param {number} now */
export function elapsedText(state, now) {
  const d = state.detail;
  if (d.elapsed_secs === undefined || d.elapsed_secs === null) return '—';
  const extra = modeOf(state) === 'live' ? (now - state.detailAt) / 1000 : 0;
  return duration(d.elapsed_secs + extra);
}

/// The title a run's screen has: its task, else its short id.
/** @param {SessionState} state */
export function screenTitle(state) {
  const d = state.detail;
  return d.task_name ? oneLine(d.task_name, 40) : 'Session ' + id8(d.id);
}

export class HeaderView {
  /** @param {{onExport: () => void, getId: () => string}} actions */
  constructor(actions) {
    const x = this;
    this.mode = h('span', { class: 'badge', 'data-test': 'mode' });
    this.status = h('span', { class: 'badge', 'data-test': 'status' });
    this.task = h('h2', { class: 'sd-task' });
    this.reason = h('p', { class: 'sd-reason', hidden: true });
    this.id = h('code', {});
    this.copy = h('button', { type: 'button', class: 'btn small ghost sd-copy', onclick: () => copyText(actions.getId(), 'Id copied') }, 'Copy id');
    this.iteration = h('dd', {});
    this.hat = h('dd', {});
    this.hatKey = '';
    this.started = h('span', {});
    this.startedRel = h('time', {});
    this.lastRel = h('time', {});
    this.events = h('span', { 'data-test': 'detail-event-count' });
    this.workspace = h('dd', {});
    this.hostTerm = h('dt', { hidden: true }, 'Host');
    this.host = h('dd', { hidden: true }, h('span', { class: 'host-tag', 'data-test': 'detail-host' }));
    this.offline = h('p', { class: 'banner warn sd-offline', role: 'status', 'data-test': 'unreachable-banner', hidden: true });
    this.elapsed = h('span', {});
    this.element = h('section', { class: 'card accent sd-header', 'aria-label': 'Status' },
      h('div', { class: 'sd-head-top' }, x.mode, x.status, h('span', { class: 'grow' }),
        h('button', { type: 'button', class: 'btn small ghost', 'data-test': 'export', onclick: actions.onExport }, 'Export JSON')),
      x.task,
      x.offline,
      x.reason,
      h('dl', { class: 'kv sd-kv' },
        h('dt', {}, 'Id'), h('dd', {}, x.id, ' ', x.copy),
        h('dt', {}, 'Iteration'), x.iteration,
        h('dt', {}, 'Hat'), x.hat,
        h('dt', {}, 'Elapsed'), h('dd', {}, this.elapsed),
        h('dt', {}, 'Started'), h('dd', {}, x.started, ' · ', x.startedRel),
        h('dt', {}, 'Last event'), h('dd', {}, x.lastRel, ' · ', x.events),
        h('dt', {}, 'Workspace'), x.workspace,
        x.hostTerm, x.host));
  }

  /** @param {SessionState} state @param {number} now */
  update(state, now) {
    const d = state.detail;
    const mode = modeOf(state);
    const status = d.status || '';
    const reason = d.stop_reason;
    const unreachable = isUnreachable(d);
    this.mode.className = 'badge ' + mode;
    this.mode.textContent = mode;
    // Unreachable twice says nothing more.
    this.status.className = unreachable && status === mode ? 'sr-only' : 'badge ' + status;
    this.status.textContent = status;
    this.offline.hidden = !unreachable;
    this.offline.textContent = unreachable ? unreachableLine(d) : '';
    const host = hostLabel(d);
    this.hostTerm.hidden = !host;
    this.host.hidden = !host;
    const tag = /** @type {HTMLElement} */ (this.host.firstChild);
    tag.textContent = host ? host + (unreachable ? ' · offline' : '') : '';
    tag.dataset.online = String(!unreachable);
    this.task.textContent = d.task_name || '(no task)';
    this.reason.hidden = !(reason && !isActiveMode(mode));
    if (reason && !this.reason.hidden) {
      render(this.reason, 'Ended: ', h('strong', {}, reason.reason), reason.message ? ' \u2014 ' + reason.message : '',
        reason.at ? h('span', { class: 'muted' }, ' · ' + dateTime(reason.at)) : null);
    }
    this.id.textContent = id8(d.id);
    this.id.title = d.id;
    this.copy.setAttribute('aria-label', 'Copy id (the full id ' + d.id + ')');
    this.iteration.textContent = String(d.iteration ?? 0) + (d.total ? ' / ' + d.total : '');
    const color = hatColor(state, d.hat);
    const hatKey = (d.hat || '') + '|' + (color || '');
    if (this.hatKey !== hatKey) {
      this.hatKey = hatKey;
      render(this.hat, d.hat ? hatBadge(d.hat, color) : h('span', { class: 'muted' }, 'none yet'));
    }
    this.elapsed.textContent = elapsedText(state, now);
    this.started.textContent = dateTime(d.started_at);
    setRelativeTime(this.startedRel, d.started_at);
    setRelativeTime(this.lastRel, d.last_event_at);
    this.events.textContent = number(d.event_count) + ' events';
    render(this.workspace, h('code', {}, !d.workspace || d.workspace === '.' ? 'root' : d.workspace),
      d.pid ? h('span', { class: 'muted' }, ' · pid ' + d.pid) : null);
  }
}
