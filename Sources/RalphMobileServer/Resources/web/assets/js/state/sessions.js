// @ts-check
// The sessions list as a value, kept live from the global stream (`session.added`, `session.updated`,
// `session.removed`) and re-read with `GET /api/sessions`. Frames that arrive while a read is in flight are kept and
// applied again on top of its answer: they are at least as new as it. In a cluster the list may be narrowed to one
// host (../state/hosts.js), on this side, so that live frames are filtered the same way as the read. Pure: no DOM.

import { filterByHost } from './hosts.js';

/** @typedef {import('./session.js').SessionSummary} SessionSummary */

/**
 * @typedef {object} SessionsState
 * @property {Map<string, SessionSummary>} sessions By id.
 * @property {boolean} loaded Whether a list was read at least once.
 * @property {Array<[string, SessionSummary]> | null} buffered Frames seen during the read in flight, else null.
 */

/**
 * @typedef {{type: 'frame', name: string, data: SessionSummary}
 *   | {type: 'fetching'}
 *   | {type: 'fetched', list: SessionSummary[]}
 *   | {type: 'failed'}
 * } SessionsAction
 */

/** @returns {SessionsState} */
export function initialSessionsState() {
  return { sessions: new Map(), loaded: false, buffered: null };
}

/// One global frame applied to the map (a new map; updates may carry only the fields that changed).
/** @param {Map<string, SessionSummary>} sessions @param {string} name @param {SessionSummary} data */
export function applySessionFrame(sessions, name, data) {
  if (!data || !data.id) return sessions;
  const next = new Map(sessions);
  if (name === 'session.removed') next.delete(data.id);
  else next.set(data.id, { ...(sessions.get(data.id) || {}), ...data });
  return next;
}

/** @param {SessionsState} state @param {SessionsAction} action @returns {SessionsState} */
export function reduceSessions(state, action) {
  switch (action.type) {
    case 'frame': {
      if (!action.data || !action.data.id) return state;
      const buffered = state.buffered ? [...state.buffered, /** @type {[string, SessionSummary]} */ ([action.name, action.data])] : null;
      return { ...state, sessions: applySessionFrame(state.sessions, action.name, action.data), buffered };
    }
    case 'fetching':
      return { ...state, buffered: [] };
    case 'fetched': {
      let sessions = new Map();
      for (const s of Array.isArray(action.list) ? action.list : []) sessions.set(s.id, s);
      for (const [name, data] of state.buffered || []) sessions = applySessionFrame(sessions, name, data);
      return { sessions, loaded: true, buffered: null };
    }
    case 'failed':
      return { ...state, buffered: null };
    default:
      return state;
  }
}

/// Live, paused or starting: a run still going.
/** @param {SessionSummary} s */
export const isActiveSession = (s) => s.mode === 'live' || s.mode === 'paused' || s.mode === 'suspended' || s.status === 'starting';

/// Newest first (by start time, then id).
/** @param {SessionSummary} a @param {SessionSummary} b */
export function byNewest(a, b) {
  const ta = Date.parse(a.started_at || '') || 0;
  const tb = Date.parse(b.started_at || '') || 0;
  if (tb !== ta) return tb - ta;
  return String(a.id).localeCompare(String(b.id));
}

/// A run of a cluster host that is offline: neither live nor done (what it does now is not known).
/** @param {SessionSummary} s */
export const isUnreachableSession = (s) => s.reachable === false || s.mode === 'unreachable';

/// The list's filters: all, live, done (an unreachable run is under All only).
export const FILTERS = [
  { key: 'all', label: 'All', test: (/** @type {SessionSummary} */ _s) => true },
  { key: 'live', label: 'Live', test: (/** @type {SessionSummary} */ s) => !isUnreachableSession(s) && isActiveSession(s) },
  { key: 'done', label: 'Done', test: (/** @type {SessionSummary} */ s) => !isUnreachableSession(s) && !isActiveSession(s) },
];

/// The runs newest first (only those of the host `hostFilter` names, unless `all`), and how many each filter shows.
/** @param {SessionsState} state @param {string} [hostFilter] @returns {{all: SessionSummary[], counts: Record<string, number>, live: number}} */
export function sessionsView(state, hostFilter = 'all') {
  const all = filterByHost([...state.sessions.values()], hostFilter).sort(byNewest);
  /** @type {Record<string, number>} */
  const counts = {};
  for (const f of FILTERS) counts[f.key] = all.filter(f.test).length;
  return { all, counts, live: counts.live };
}
