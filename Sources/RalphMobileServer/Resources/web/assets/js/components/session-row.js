// @ts-check
// One row of the sessions list, kept per run id and updated in place (never rebuilt), so focus and element references
// survive live updates. In a cluster the row names the run's host; a run whose host is offline is shown as
// "unreachable — host offline", never as live.

import { h, render, hatBadge, setRelativeTime } from '../ui.js';
import { id8 } from '../format.js';
import { holdLine, stopLine } from '../words/control.js';
import { hostLabel, isUnreachable, UNREACHABLE_LABEL } from '../words/hosts.js';

/** @typedef {import('../state/session.js').SessionSummary} SessionSummary */

export class SessionRow {
  /** @param {string} id */
  constructor(id) {
    this.mode = h('span', { class: 'badge', 'data-test': 'mode' });
    this.status = h('span', { class: 'badge', 'data-test': 'status' });
    this.task = h('div', { class: 'row-title', 'data-test': 'task' });
    this.iteration = h('span', { 'data-test': 'iteration', title: 'Iteration (current/total)' });
    this.hat = h('span', { 'data-test': 'hat' });
    this.started = h('time', {});
    this.last = h('time', {});
    this.ws = h('span', { class: 'sl-ws' });
    this.host = h('span', { class: 'sl-host host-tag', 'data-test': 'host', hidden: true });
    this.unreachable = h('div', { class: 'row-sub sl-unreachable-note', 'data-test': 'unreachable-note', hidden: true });
    this.note = h('div', { class: 'row-sub sl-control warn', 'data-test': 'control-note', hidden: true });
    const link = h('a', { class: 'row-link', href: '#/sessions/' + encodeURIComponent(id) },
      h('div', { class: 'sl-badges' }, this.mode, this.status),
      h('div', { class: 'row-main' },
        this.task,
        this.unreachable,
        h('div', { class: 'row-sub sl-line' }, this.host, h('span', { class: 'mono' }, id8(id)), h('span', {}, h('span', { class: 'sl-label' }, 'it '), this.iteration), this.hat),
        h('div', { class: 'row-sub sl-line' }, h('span', {}, 'started ', this.started), h('span', {}, 'last ', this.last)),
        this.note,
        h('div', { class: 'row-sub' }, this.ws)),
      h('span', { class: 'sl-chevron', 'aria-hidden': 'true' }, '\u203A'));
    this.li = h('li', { 'data-test': 'session-row', 'data-id': id, class: 'sl-row' }, link);
    this.key = '';
  }

  /** @param {SessionSummary} s */
  update(s) {
    const key = JSON.stringify([s.mode, s.status, s.iteration, s.total, s.hat, s.task_name, s.started_at, s.last_event_at, s.workspace, s.path,
      s.stop_requested, s.suspension, s.paused_by, s.host, s.host_id, s.reachable]);
    if (key === this.key) return;
    this.key = key;
    const unreachable = isUnreachable(s);
    const mode = unreachable ? 'unreachable' : s.mode || 'complete';
    const status = unreachable ? 'unreachable' : s.status || '';
    const task = s.task_name || '(no task)';
    this.li.className = 'sl-row sl-' + mode;
    this.mode.className = 'badge ' + mode;
    this.mode.textContent = mode;
    // The status badge only when it says more than the mode (live + running says nothing new).
    const showStatus = status && status !== mode && !(mode === 'live' && status === 'running');
    this.status.className = showStatus ? 'badge ' + status : 'sr-only';
    this.status.textContent = status;
    this.task.textContent = task;
    this.task.title = task;
    this.iteration.textContent = (s.iteration ?? 0) + (s.total ? '/' + s.total : '');
    render(this.hat, s.hat ? hatBadge(s.hat) : h('span', { class: 'muted', title: 'No hat yet' }, '\u2014'));
    setRelativeTime(this.started, s.started_at);
    setRelativeTime(this.last, s.last_event_at);
    const note = [holdLine(s), stopLine(s)].filter(Boolean).join(' \u00B7 ');
    this.note.textContent = note;
    this.note.hidden = !note;
    const host = hostLabel(s);
    this.host.hidden = !host;
    this.host.textContent = host || '';
    this.host.title = host ? 'On host ' + host + (unreachable ? ' (offline)' : '') : '';
    this.host.dataset.online = String(!unreachable);
    this.unreachable.hidden = !unreachable;
    this.unreachable.textContent = unreachable ? UNREACHABLE_LABEL : '';
    this.ws.textContent = s.workspace === '.' || !s.workspace ? 'workspace root' : s.workspace;
    this.ws.title = s.path || '';
  }
}
