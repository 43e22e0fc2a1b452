// @ts-check
// Words for the hosts of a cluster, shared by the sessions list, a run's screen, the conversations and the New
// conversation sheet: which host a run is on, a run whose host is offline ("unreachable — host offline", never live),
// a host's state, and what a control that got `503 host_offline` says. A server on its own sends no host: then
// nothing here shows anything. Pure (no DOM).

import { relTime } from '../format.js';

/** @typedef {import('../state/hosts.js').HostInfo} HostInfo */
/** @typedef {{mode?: string, status?: string, host?: string, host_id?: string, reachable?: boolean}} HostedSession */

/// The host label a row shows: its host's name (its id's start when only that is known); null for a server on its own.
/** @param {{host?: string | null, host_id?: string | null}} item @returns {string | null} */
export function hostLabel(item) {
  if (!item) return null;
  if (item.host) return item.host;
  if (item.host_id) return String(item.host_id).slice(0, 8);
  return null;
}

/// Whether a run's host is offline: it is shown as unreachable, never as live or running.
/** @param {HostedSession} s */
export function isUnreachable(s) {
  return !!s && (s.reachable === false || s.mode === 'unreachable' || s.status === 'unreachable');
}

/// The state a row shows for a run whose host is offline.
export const UNREACHABLE_LABEL = 'unreachable — host offline';

/// The sentence a run's screen and row say while its host is offline.
/** @param {HostedSession} s */
export function unreachableLine(s) {
  const host = hostLabel(s);
  return (host ? 'Host ' + host + ' is offline' : 'Its host is offline')
    + ': this run cannot be paused, stopped, steered or sent events until the host is back. What is shown is its last known state.';
}

/// What the controls of a run whose host is offline say (the screen's header already says why).
/** @param {HostedSession} s */
export function unreachableControlsLine(s) {
  const host = hostLabel(s);
  return 'The controls come back when ' + (host ? 'host ' + host : 'its host') + ' is online again.';
}

/// A host's state in a few words: "this server", "online", or "offline · last seen 5m ago".
/** @param {HostInfo} host @param {number} [now] */
export function hostStateText(host, now = Date.now()) {
  if (host.online) return host.is_self ? 'this server' : 'online';
  return 'offline' + (host.last_heartbeat_at ? ' · last seen ' + relTime(host.last_heartbeat_at, now) : '');
}

/// A host's chip as a screen reader hears it: "alpha, offline, last heartbeat 5m ago, 2 runs".
/** @param {HostInfo} host @param {number} count @param {number} [now] */
export function hostChipLabel(host, count, now = Date.now()) {
  const state = host.online ? (host.is_self ? 'online, this server' : 'online')
    : 'offline' + (host.last_heartbeat_at ? ', last heartbeat ' + relTime(host.last_heartbeat_at, now) : '');
  return host.name + ', ' + state + ', ' + count + (count === 1 ? ' run' : ' runs');
}

/// Whether an API error is the cluster's `503 host_offline`.
/** @param {unknown} error */
export function isHostOffline(error) {
  const e = /** @type {{status?: number, code?: string} | null} */ (error);
  return !!e && (e.code === 'host_offline' || (e.status === 503 && /host_offline/.test(String(/** @type {any} */ (e).message || ''))));
}

/// What a control says when the run's host did not take the request: the server's own sentence (it says whether the
/// request may still have been carried out), after the prefix.
/** @param {unknown} error @param {HostedSession} [s] */
export function hostOfflineMessage(error, s) {
  const message = String((/** @type {any} */ (error) || {}).message || '');
  const detail = message.replace(/^host_offline:?\s*/, '').trim();
  if (detail) return detail.charAt(0).toUpperCase() + detail.slice(1) + (/[.!?]$/.test(detail) ? '' : '.');
  const host = s ? hostLabel(s) : null;
  return (host ? 'Host ' + host : 'The run\u2019s host') + ' is offline: it cannot be reached until it is back.';
}

/// The label of a host in the New conversation sheet's host choice: "bravo (this server)", "alpha — offline".
/** @param {HostInfo} host */
export function hostOptionLabel(host) {
  return host.name + (host.is_self ? ' (this server)' : '') + (host.online ? '' : ' \u2014 offline');
}
