// @ts-check
// Words for ralph 2.9–2.10's signals in a session detail: guidance and its acknowledgement, agent waves, RObot
// check-ins, and the wave badge of an event. Pure functions of the wire JSON (tested by node --test).

/**
 * @typedef {{text: string, sent_at?: string | null, event_id: number, state: string, ack?: string | null,
 *   acked_at?: string | null, ack_event_id?: number | null}} GuidanceItem
 * @typedef {{id: string, total: number, done: number, indices?: number[], hats?: string[], iteration?: number | null,
 *   events: number, first_event_id: number, last_event_id: number, started_at?: string | null, last_at?: string | null}} WaveGroup
 */

/// One guidance line as a row: what was asked, where it stands, and what ralph said it will do.
/** @param {GuidanceItem} g @returns {{text: string, state: 'pending' | 'acknowledged' | 'other', label: string, ack: string}} */
export function guidanceRow(g) {
  const state = g.state === 'pending' ? 'pending' : g.state === 'acknowledged' ? 'acknowledged' : 'other';
  const label = state === 'pending' ? 'Pending: ralph has not acknowledged it yet'
    : state === 'acknowledged' ? 'Acknowledged' : String(g.state || 'unknown');
  return { text: String(g.text || ''), state, label, ack: state === 'acknowledged' ? String(g.ack || '') : '' };
}

/// A summary line for the guidance card: how many wait, and that the loop will not complete meanwhile.
/** @param {GuidanceItem[] | undefined | null} list */
export function guidanceSummary(list) {
  const items = Array.isArray(list) ? list : [];
  if (!items.length) return 'No guidance sent to this run.';
  const pending = items.filter((g) => g.state === 'pending').length;
  if (!pending) return items.length === 1 ? 'The guidance was acknowledged.' : 'All ' + items.length + ' guidance messages were acknowledged.';
  return pending + (pending === 1 ? ' guidance message waits' : ' guidance messages wait') +
    ' for ralph\'s acknowledgement; the loop does not complete until it is acknowledged.';
}

/// "Wave w-0a1b: 2 of 3 workers done" (the id shortened).
/** @param {WaveGroup} w */
export function waveTitle(w) {
  const total = Number(w.total) || 0;
  const done = Number(w.done) || 0;
  const id = String(w.id || '');
  return 'Wave ' + (id.length > 10 ? id.slice(0, 10) + '…' : id) + ': ' +
    (total ? done + ' of ' + total + ' workers' + (done >= total ? ' done' : ' so far') : done + (done === 1 ? ' worker' : ' workers'));
}

/// The badge of a wave line in the event stream: "wave 2/3" (the worker's 0-based index shown 1-based), or null.
/** @param {any} event */
export function waveBadge(event) {
  if (!event || typeof event.wave_id !== 'string' || !event.wave_id) return null;
  const index = Number.isInteger(event.wave_index) ? event.wave_index + 1 : null;
  const total = Number.isInteger(event.wave_total) ? event.wave_total : null;
  return 'wave ' + (index === null ? '?' : index) + (total === null ? '' : '/' + total);
}

/// The RObot check-in as one line, or null when there is none.
/** @param {any} c */
export function checkinLine(c) {
  if (!c || typeof c !== 'object') return null;
  const parts = [];
  if (c.iteration !== null && c.iteration !== undefined) parts.push('iteration ' + c.iteration);
  if (c.current_hat) parts.push('hat ' + c.current_hat);
  if (c.elapsed_seconds !== null && c.elapsed_seconds !== undefined) parts.push(c.elapsed_seconds + ' s in');
  if (c.open_tasks !== null && c.open_tasks !== undefined) parts.push(c.open_tasks + ' open / ' + (c.closed_tasks ?? 0) + ' closed tasks');
  if (c.cumulative_cost !== null && c.cumulative_cost !== undefined) parts.push('$' + Number(c.cumulative_cost).toFixed(2));
  return 'RObot check-in: ' + (parts.length ? parts.join(' · ') : 'no details');
}
