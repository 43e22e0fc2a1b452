// @ts-check
// The words of stops, hook suspensions and pauses, as every client says them (RalphMobileKit's ControlWords): a
// graceful stop is "stopping at the end of this iteration"; a second stop forces; a hook's suspension is not our pause.

/** @typedef {{kind?: string, at?: string}} StopRequest */
/** @typedef {{hook_name?: string, phase?: string, reason?: string | null, suspend_mode?: string, since?: string | null}} Suspension */
/** @typedef {{mode?: string, stop_requested?: StopRequest | null, suspension?: Suspension | null, paused_by?: string | null}} ControlledSession */

export const GRACEFUL_MESSAGE = 'stopping at the end of this iteration';

/// Whether the session is still going on (not complete).
/** @param {ControlledSession} s */
const going = (s) => (s.mode || 'complete') !== 'complete';

/// Whether the next stop forces: a graceful one is pending.
/** @param {ControlledSession} s @returns {boolean} */
export function nextStopForces(s) {
  return !!(s.stop_requested && s.stop_requested.kind === 'graceful' && going(s));
}

/// The stop button's label.
/** @param {ControlledSession} s @returns {string} */
export function stopButtonLabel(s) {
  return nextStopForces(s) ? 'Force stop' : 'Stop at end of iteration';
}

/// The session's stop in words: pending while it runs, which stop it was after the end; null when none was asked.
/** @param {ControlledSession} s @returns {string | null} */
export function stopLine(s) {
  const request = s.stop_requested;
  if (!request) return null;
  if (request.kind === 'graceful') return going(s) ? GRACEFUL_MESSAGE : 'stopped at the end of an iteration (graceful stop)';
  return going(s) ? 'force-stopping' : 'force-stopped';
}

/// Who holds the run: "Suspended by hook ci-gate: <reason>" or "Paused by the server (SIGSTOP)"; null when nobody.
/** @param {ControlledSession} s @returns {string | null} */
export function holdLine(s) {
  if (s.mode === 'paused') return s.paused_by === 'server' ? 'Paused by the server (SIGSTOP)' : 'Paused';
  if (s.mode === 'suspended' && s.suspension) {
    return 'Suspended by hook ' + (s.suspension.hook_name || '?') + (s.suspension.reason ? ': ' + s.suspension.reason : '');
  }
  return null;
}

/// What a stop answer (`DELETE /api/sessions/{id}`) means.
/** @param {{status?: string, message?: string | null, signal?: string | null, pid?: number | null, terminated?: boolean} | null} answer @returns {string} */
export function stopAnswerText(answer) {
  if (!answer) return 'Stop asked';
  if (answer.status === 'stopping') return answer.message || GRACEFUL_MESSAGE;
  return 'Stopped with ' + (answer.signal || 'a signal') + (answer.terminated === false ? ' (ralph did not write loop.terminate)' : '');
}

/// What a resume answer means: a SIGCONT of our pause, or a resume request to a suspended loop.
/** @param {{status?: string, pid?: number} | null} answer @returns {string} */
export function resumeAnswerText(answer) {
  const pid = answer && answer.pid ? ' (pid ' + answer.pid + ')' : '';
  return answer && answer.status === 'resume_requested' ? 'Resume requested: the suspended loop goes on' + pid : 'Resumed' + pid;
}
