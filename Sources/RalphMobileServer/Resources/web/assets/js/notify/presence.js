// @ts-check
// Presence: what this page tells the server while it is in the foreground (`POST /api/notifications/presence`), so
// that the person looking at a conversation or a run is not buzzed for it. The payloads are pure (tested); the
// reporter below runs them on a timer, on route changes and when the page is hidden or left.

/** Seconds one report counts on the server (`PresenceReport.refreshSeconds`): reports come this often. */
export const REFRESH_SECONDS = 30;
export const PRESENCE_PATH = '/api/notifications/presence';

/**
 * `PresenceReport` as sent.
 * @typedef {{foreground: boolean, device_id?: string, screen?: string, subject_id?: string}} PresenceReport
 */

/** @type {Array<[RegExp, string]>} a dashboard path → the screen it shows (the first group is its subject) */
const SCREENS = [
  [/^\/sessions\/([^/]+)$/, 'session'],
  [/^\/chats\/([^/]+)$/, 'conversation'],
  [/^\/sessions\/?$/, 'sessions'],
  [/^\/chats\/?$/, 'chats'],
  [/^\/approvals\/?$/, 'approvals'],
  [/^\/library(?:\/[a-z]+)?\/?$/, 'library'],
  [/^\/new\/?$/, 'create'],
  [/^\/settings\/?$/, 'settings'],
];

/// The report for a page in the foreground showing `hash` (`#/chats/c1`): `session` / `conversation` with the id,
/// another screen by its name, `other` for a path the dashboard does not know.
/** @param {string} hash @param {string | null | undefined} deviceId @returns {PresenceReport} */
export function foregroundReport(hash, deviceId) {
  const path = String(hash || '').replace(/^#/, '') || '/sessions';
  /** @type {PresenceReport} */
  const report = { foreground: true, screen: 'other' };
  if (deviceId) report.device_id = deviceId;
  for (const [pattern, screen] of SCREENS) {
    const match = path.match(pattern);
    if (!match) continue;
    report.screen = screen;
    if (match[1] !== undefined) {
      let subject = match[1];
      try { subject = decodeURIComponent(subject); } catch { /* kept as written */ }
      report.subject_id = subject.slice(0, 200);
    }
    break;
  }
  return report;
}

/// The report for a page that was hidden or left.
/** @param {string | null | undefined} deviceId @returns {PresenceReport} */
export function backgroundReport(deviceId) {
  return deviceId ? { foreground: false, device_id: deviceId } : { foreground: false };
}

/// Reports presence for the page: on each route change (the caller's `routeChanged`, also for the first route) and
/// every REFRESH_SECONDS after it while visible, again when the page is shown, and
/// `foreground: false` when hidden or left (a keepalive fetch: it carries the login cookie and outlives the page;
/// sendBeacon cannot send the JSON content type the server requires of a browser). A failure is logged and shown once
/// on the page by `onProblem`, then retried on the next tick.
/**
 * @param {{deviceId: () => string | null, onProblem: (message: string) => void}} options
 * @returns {{routeChanged: () => void, stop: (report: boolean) => Promise<void>}}
 */
export function startPresence({ deviceId, onProblem }) {
  let timer = /** @type {any} */ (null);
  let stopped = false;
  let failing = false;
  /** @type {Set<Promise<void>>} reports on their way (a logout waits for them: after it they would be refused) */
  const inflight = new Set();

  /** @param {PresenceReport} report @param {boolean} leaving */
  const send = (report, leaving) => {
    const sending = post(report, leaving).finally(() => inflight.delete(sending));
    inflight.add(sending);
    return sending;
  };
  /** @param {PresenceReport} report @param {boolean} leaving */
  const post = async (report, leaving) => {
    try {
      const response = await fetch(PRESENCE_PATH, {
        method: 'POST', credentials: 'same-origin', keepalive: leaving,
        headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(report),
      });
      if (!response.ok && response.status !== 401) {
        const text = await response.text().catch(() => '');
        throw new Error(response.status + ' ' + (text.slice(0, 200) || response.statusText));
      }
      failing = false;
    } catch (error) {
      if (leaving) return; // the page is going away: no one to tell
      console.warn('presence not reported:', error);
      if (!failing) onProblem('The server was not told that this page is open (' + (error instanceof Error ? error.message : String(error)) + '): notifications about what you look at may still buzz.');
      failing = true;
    }
  };
  const tick = () => {
    clearTimeout(timer);
    if (stopped || document.visibilityState !== 'visible') return;
    send(foregroundReport(location.hash, deviceId()), false);
    timer = setTimeout(tick, REFRESH_SECONDS * 1000);
  };
  const leave = () => {
    clearTimeout(timer);
    return stopped ? Promise.resolve() : send(backgroundReport(deviceId()), true);
  };
  const onVisibility = () => (document.visibilityState === 'visible' ? tick() : leave());
  document.addEventListener('visibilitychange', onVisibility);
  window.addEventListener('pagehide', leave);
  window.addEventListener('pageshow', tick);
  return {
    routeChanged: tick,
    /// Stops reporting; `report` says the page left first (false when the login is already gone: it would be refused).
    /** @param {boolean} report */
    async stop(report) {
      const left = report ? leave() : Promise.resolve();
      clearTimeout(timer);
      stopped = true;
      document.removeEventListener('visibilitychange', onVisibility);
      window.removeEventListener('pagehide', leave);
      window.removeEventListener('pageshow', tick);
      await left;
      await Promise.all([...inflight]);
    },
  };
}
