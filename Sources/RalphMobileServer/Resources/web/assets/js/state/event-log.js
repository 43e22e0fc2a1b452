// @ts-check
// The session screen's event stream as a value: the events shown (newest first, the latest few hundred), the ones
// kept for the JSON export, and the counts. Folded from the session stream's `workflow` frames; a `reset` frame (the
// run's file was replaced) starts it again. Pure: no DOM, no clock.

/** @typedef {import('../format.js').WorkflowEvent} WorkflowEvent */

/**
 * @typedef {object} ShownEvent One event in the list.
 * @property {string} key The stream id (`<line>:<check>`) or, without one, the event's own id: unique in the list.
 * @property {string} line The line number shown as `#line`.
 * @property {WorkflowEvent} event
 */

/**
 * @typedef {object} EventLog
 * @property {ShownEvent[]} shown Newest first, at most `limits.shown`.
 * @property {WorkflowEvent[]} exported Oldest first, at most `limits.exported`.
 * @property {number} dropped Events that fell out of `exported`.
 * @property {number} received Events folded since the screen opened (a reset does not clear it).
 * @property {number | null} lastOrder The line of the newest event folded; ids only grow until a reset.
 */

/** @typedef {{shown: number, exported: number}} EventLogLimits */

/** @type {EventLogLimits} */
export const EVENT_LOG_LIMITS = { shown: 300, exported: 5000 };

/** @returns {EventLog} */
export function emptyEventLog() {
  return { shown: [], exported: [], dropped: 0, received: 0, lastOrder: null };
}

/// The order of a stream id: the line it starts with (`17` of `17:3fa2c901`), else NaN.
/** @param {string} id */
export function lineOf(id) {
  return /^\d+(:[0-9a-f]{8})?$/.test(id) ? parseInt(id, 10) : NaN;
}

/// Folds one `workflow` frame. An event at or below the newest line already folded is one the list has (a replay
/// overlapping what was shown): it is dropped, as is anything that is not an event object.
/**
 * @param {EventLog} log
 * @param {unknown} data the frame's parsed JSON
 * @param {string | undefined} id the frame's `id:` line
 * @param {EventLogLimits} [limits]
 * @returns {EventLog}
 */
export function foldWorkflow(log, data, id, limits = EVENT_LOG_LIMITS) {
  if (!data || typeof data !== 'object' || Array.isArray(data)) return log;
  const event = /** @type {WorkflowEvent} */ (data);
  const key = String(id !== undefined && id !== '' ? id : event.id);
  const order = lineOf(key);
  if (Number.isFinite(order)) {
    if (log.lastOrder !== null && order <= log.lastOrder) return log;
  } else if (log.shown.some((row) => row.key === key)) {
    return log;
  }
  const line = event.id !== undefined ? String(event.id) : key.split(':')[0];
  const exported = [...log.exported, event];
  const overflow = Math.max(0, exported.length - limits.exported);
  return {
    shown: [{ key, line, event }, ...log.shown].slice(0, limits.shown),
    exported: overflow ? exported.slice(overflow) : exported,
    dropped: log.dropped + overflow,
    received: log.received + 1,
    lastOrder: Number.isFinite(order) ? order : log.lastOrder,
  };
}

/// The run's file was replaced or rewritten: what is shown no longer exists, and ids start again from 1. The export
/// keeps what was received (it is a record of what this page saw).
/** @param {EventLog} log @returns {EventLog} */
export function resetEventLog(log) {
  return { ...log, shown: [], lastOrder: null };
}
