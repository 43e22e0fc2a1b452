// @ts-check
// The session screen's state as a value, and the one reducer that changes it: the run's detail (from
// `GET /api/sessions/{id}`, then from the session stream's `state` frames, and merged with the global stream's
// `session.updated`), the event log, the stream's connection, the hats and iterations read beside it.
//
// With `?state=1` the server sends the detail itself whenever it changes, so the screen never re-reads it during a
// live stream; `needsDetailRefresh` says when it still must (a server that sends no `state` frame). Pure: no DOM, no
// clock (times come in the actions).

import { emptyEventLog, foldWorkflow, resetEventLog } from './event-log.js';

/** @typedef {import('./event-log.js').EventLog} EventLog */

/**
 * @typedef {object} StopReason
 * @property {string} reason
 * @property {string} [message]
 * @property {string} [at]
 */

/**
 * @typedef {object} PendingQuestion A question ralph asked a person (RObot), waiting for an answer.
 * @property {string} id
 * @property {string} question_text
 * @property {string} [hat]
 * @property {number} iteration
 * @property {string} asked_at
 * @property {string} [timeout_at]
 * @property {boolean} [timeout_estimated]
 */

/**
 * @typedef {object} SessionSummary A run as `GET /api/sessions` lists it and `session.*` global frames carry it
 *   (an update may carry only the fields that changed).
 * @property {string} id
 * @property {string} [mode] live, paused, suspended, complete; `unreachable` while its cluster host is offline
 * @property {string} [status]
 * @property {string} [task_name]
 * @property {number} [iteration]
 * @property {number} [total]
 * @property {string} [hat]
 * @property {string} [started_at]
 * @property {string} [last_event_at]
 * @property {number} [elapsed_secs]
 * @property {number} [event_count]
 * @property {string} [workspace]
 * @property {string} [path]
 * @property {number} [pid]
 * @property {{kind: string, at: string} | null} [stop_requested] a stop asked: graceful (pending until the iteration ends) or forced
 * @property {{hook_name: string, phase: string, reason?: string | null, suspend_mode: string, since?: string | null} | null} [suspension]
 *   set while a lifecycle hook holds the loop suspended (mode `suspended`)
 * @property {string | null} [paused_by] `server` when the mode is `paused` (our SIGSTOP)
 * @property {string} [host] in a cluster: the name of the host the run is on
 * @property {string} [host_id] in a cluster: that host's id
 * @property {boolean} [reachable] in a cluster: false while its host is offline (mode and status are then `unreachable`)
 */

/**
 * @typedef {SessionSummary & {
 *   stop_reason?: StopReason | null,
 *   hat_flow?: Array<{from?: string, to: string, topic: string, iteration: number, at?: string}>,
 *   hat_transitions?: number,
 *   hat_usage?: Array<{hat: string, iterations: number, events: number}>,
 *   iteration_stats?: {count?: number, current?: number, total?: number, average_duration_secs?: number | null,
 *     estimated_remaining_secs?: number | null},
 *   backpressure?: object | null,
 *   tokens?: object | null,
 *   recent_events?: import('../format.js').WorkflowEvent[],
 *   pending_question?: PendingQuestion | null,
 *   line_count?: number,
 *   malformed_lines?: number,
 * }} SessionDetail The detail `GET /api/sessions/{id}` answers and a `state` frame carries.
 */

/**
 * @typedef {object} StreamInfo
 * @property {string} state connecting, live, reconnecting, ended
 * @property {number} attempts reconnects so far
 * @property {object | null} end the `end` frame's data, once ended
 */

/**
 * @typedef {object} SessionState
 * @property {SessionDetail} detail
 * @property {number} detailAt When the detail was last read (ms), for the elapsed counter of a live run.
 * @property {number} stateFrames `state` frames received.
 * @property {boolean} stateless The stream went live (or ended) without a `state` frame in time: an older server, whose
 *   detail the screen re-reads itself.
 * @property {boolean} gone The run was removed from the server.
 * @property {{mode: string, status?: string, until: number} | null} heldMode A mode this page just set (pause, resume,
 *   stop): until `until` (ms), a detail that still says otherwise was read before the change and does not undo it.
 * @property {EventLog} log
 * @property {StreamInfo} stream
 * @property {object[]} hats The hats of the run's workspace (name, id, color …).
 * @property {boolean} hatsLoaded Whether `hats` was read (an empty list then means the config defines none).
 * @property {{iterations: object[]} | null} iterations null until read.
 */

/**
 * @typedef {{type: 'detail', detail: SessionDetail, at: number}
 *   | {type: 'state', detail: SessionDetail, at: number}
 *   | {type: 'global', session: SessionSummary, at: number}
 *   | {type: 'removed', id: string}
 *   | {type: 'gone'}
 *   | {type: 'mode', mode: string, status?: string, at: number}
 *   | {type: 'workflow', data: unknown, id?: string}
 *   | {type: 'reset'}
 *   | {type: 'stream', state: string, attempts: number}
 *   | {type: 'end', data: any}
 *   | {type: 'no_state_frames'}
 *   | {type: 'hats', hats: object[]}
 *   | {type: 'iterations', iterations: {iterations: object[]}}
 * } SessionAction
 */

/** @param {SessionDetail} detail @param {number} at @returns {SessionState} */
export function initialSessionState(detail, at) {
  return {
    detail,
    detailAt: at,
    stateFrames: 0,
    stateless: false,
    gone: false,
    heldMode: null,
    log: emptyEventLog(),
    stream: { state: 'connecting', attempts: 0, end: null },
    hats: [],
    hatsLoaded: false,
    iterations: null,
  };
}

/** @param {SessionState} state @param {SessionAction} action @returns {SessionState} */
export function reduceSession(state, action) {
  switch (action.type) {
    case 'detail':
      return withDetail(state, action.detail, action.at);
    case 'state':
      return { ...withDetail(state, action.detail, action.at), stateFrames: state.stateFrames + 1 };
    case 'global':
      // The global frames may carry only what changed: merged into the detail, which keeps its other fields.
      if (!action.session || action.session.id !== state.detail.id) return state;
      return withDetail(state, { ...state.detail, ...action.session }, action.at);
    case 'removed':
      return action.id === state.detail.id ? { ...state, gone: true } : state;
    case 'gone':
      return { ...state, gone: true };
    case 'mode':
      return {
        ...state, detail: withMode(state.detail, action.mode, action.status),
        heldMode: { mode: action.mode, status: action.status, until: action.at + MODE_HOLD_MS },
      };
    case 'workflow': {
      const log = foldWorkflow(state.log, action.data, action.id);
      return log === state.log ? state : { ...state, log };
    }
    case 'reset':
      return { ...state, log: resetEventLog(state.log) };
    case 'stream':
      if (action.state === 'closed') return state;
      return { ...state, stream: { ...state.stream, state: action.state, attempts: action.attempts } };
    case 'end': {
      const data = action.data || {};
      const ended = { ...state, stream: { ...state.stream, state: 'ended', end: data } };
      return data.mode ? { ...ended, detail: withMode(ended.detail, data.mode, data.status) } : ended;
    }
    case 'no_state_frames':
      return state.stateFrames === 0 && !state.stateless ? { ...state, stateless: true } : state;
    case 'hats':
      return { ...state, hats: action.hats, hatsLoaded: true };
    case 'iterations':
      return { ...state, iterations: action.iterations };
    default:
      return state;
  }
}

/// How long a mode this page set holds against details that still say otherwise (they were read before the change).
export const MODE_HOLD_MS = 3000;

/// A newer detail, except for the mode this page just set, which a detail read before the change does not undo.
/** @param {SessionState} state @param {SessionDetail} detail @param {number} at @returns {SessionState} */
function withDetail(state, detail, at) {
  const held = state.heldMode;
  if (!held) return { ...state, detail, detailAt: at };
  if (detail.mode === held.mode || at >= held.until) return { ...state, detail, detailAt: at, heldMode: null };
  return { ...state, detail: withMode(detail, held.mode, held.status), detailAt: at };
}

/** @param {SessionDetail} detail @param {string} mode @param {string} [status] @returns {SessionDetail} */
function withMode(detail, mode, status) {
  return status ? { ...detail, mode, status } : { ...detail, mode };
}

/// The run's mode; a detail without one is a finished run.
/** @param {SessionState} state */
export const modeOf = (state) => state.detail.mode || 'complete';

/// Live, paused (by us) or suspended (by a hook): the run can still be controlled.
/** @param {string} mode */
export const isActiveMode = (mode) => mode === 'live' || mode === 'paused' || mode === 'suspended';

/// Whether the screen must re-read the detail itself: only when the server sends no `state` frame (an older server:
/// none came in time). Once frames flow, they carry every change; while the first one is awaited, nothing is read.
/** @param {SessionState} state */
export const needsDetailRefresh = (state) => state.stateless && state.stateFrames === 0;

/// The color the workspace config gives a hat, if any.
/** @param {SessionState} state @param {string | null | undefined} name @returns {string | undefined} */
export function hatColor(state, name) {
  const key = String(name || '').toLowerCase();
  const hat = /** @type {Array<{id?: string, name?: string, color?: string}>} */ (state.hats)
    .find((x) => String(x.id).toLowerCase() === key || String(x.name).toLowerCase() === key);
  return hat ? hat.color : undefined;
}
