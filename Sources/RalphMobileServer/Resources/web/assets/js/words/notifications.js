// @ts-check
// Words of the Notifications settings: kinds, channels, a test delivery's outcome, why subscribing failed, and the
// device a browser registers as. Pure (tested in Tests/Web/notifications-words.test.mjs).

/** @type {Array<{kind: string, label: string, hint: string}>} every `NotificationKind`, in the order shown */
export const KINDS = [
  { kind: 'approval', label: 'Approvals', hint: 'A tool call waits for Allow or Deny' },
  { kind: 'question', label: 'Questions', hint: 'A run\u2019s RObot question waits for an answer' },
  { kind: 'run_finished', label: 'Runs finished', hint: 'Completed, failed or stopped, with the reason' },
  { kind: 'auto_reply', label: 'Auto-reply stopped', hint: 'A conversation\u2019s auto-reply loop stopped or paused' },
  { kind: 'turn_stalled', label: 'Turn stalled', hint: 'A running chat turn has had no output for a while' },
  { kind: 'run_silent', label: 'Run silent', hint: 'A live run has written no event for a while' },
  { kind: 'run_suspended', label: 'Run suspended', hint: 'A lifecycle hook suspended a run; it waits for Resume' },
];

/** @type {Record<string, string>} */
export const CHANNEL_NAMES = { web_push: 'Web Push (browsers)', apns: 'APNs (iOS app)', ntfy: 'ntfy', webhook: 'Webhook' };

/// One channel of `GET /api/notifications`, in words.
/** @param {{channel: string, available: boolean, reason?: string}} state */
export function channelText(state) {
  const name = CHANNEL_NAMES[state.channel] || state.channel;
  if (!state.available) return name + ': not available \u2014 ' + (state.reason || 'the server gave no reason');
  return name + ': available' + (state.reason ? ' (' + state.reason + ')' : '');
}

/// What `POST /api/notifications/devices/{id}/test` answered (a `NotificationDelivery`), in words, and whether it is good.
/** @param {{outcome: string, status?: number | null, detail?: string | null}} delivery @returns {{ok: boolean, text: string}} */
export function testOutcomeText(delivery) {
  const status = delivery.status ? ' (HTTP ' + delivery.status + ')' : '';
  const detail = delivery.detail ? ': ' + delivery.detail : '';
  switch (delivery.outcome) {
    case 'delivered': return { ok: true, text: 'Test sent: the receiving service accepted it' + status + '. It should appear on the device now.' };
    case 'expired': return { ok: false, text: 'The subscription is gone' + status + detail };
    case 'failed': return { ok: false, text: 'The test was not delivered' + status + detail };
    default: return { ok: false, text: 'Test: ' + delivery.outcome + status + detail };
  }
}

/// Why a step of subscribing failed, in words a person can act on. `step` is what was being done.
/** @param {'permission' | 'worker' | 'subscribe' | 'key' | 'register'} step @param {any} error */
export function subscribeProblem(step, error) {
  const name = error && error.name ? String(error.name) : '';
  const message = error && error.message ? String(error.message) : String(error);
  switch (step) {
    case 'permission':
      return message === 'denied'
        ? 'Notifications are blocked for this site. Allow them in the browser\u2019s site settings (the icon left of the address), then subscribe again.'
        : 'Notification permission was not given (' + message + '). Subscribe again and choose Allow.';
    case 'worker':
      return 'The service worker that shows notifications could not be installed: ' + message;
    case 'key':
      return 'The server\u2019s push key could not be read: ' + message;
    case 'subscribe':
      if (name === 'NotAllowedError') return 'The browser refused to subscribe: ' + message;
      return 'The browser\u2019s push service did not give a subscription (' + (name ? name + ': ' : '') + message + '). ' +
        'Some browsers have no push service (headless, de-Googled or privacy-hardened builds).';
    case 'register':
      return 'The server did not register this browser: ' + message;
    default:
      return message;
  }
}

/// What this browser cannot do, or null when it can subscribe to Web Push. `env` is what the page sees.
/**
 * @param {{secure: boolean, serviceWorker: boolean, pushManager: boolean, notification: boolean, ios: boolean, standalone: boolean}} env
 * @returns {string | null}
 */
export function unsupportedReason(env) {
  if (!env.secure) return 'Push needs HTTPS (or localhost): open the dashboard over HTTPS to subscribe.';
  if (env.ios && !env.standalone && !env.pushManager) {
    return 'On iPhone and iPad, push works for the dashboard added to the Home Screen (Share \u2192 Add to Home Screen, iOS 16.4 or later): open it from there.';
  }
  if (!env.serviceWorker) return 'This browser has no service workers, which show notifications.';
  if (!env.pushManager || !env.notification) return 'This browser does not support Web Push notifications.';
  return null;
}

/// A name for this browser's device ("Chrome on Android"), from its user agent.
/** @param {string} userAgent */
export function deviceName(userAgent) {
  const ua = String(userAgent || '');
  const browser = /Edg\//.test(ua) ? 'Edge' : /Firefox\//.test(ua) ? 'Firefox' : /(Chrome|Chromium|CriOS)\//.test(ua) ? 'Chrome'
    : /Safari\//.test(ua) ? 'Safari' : 'Browser';
  const system = /iPhone/.test(ua) ? 'iPhone' : /iPad/.test(ua) ? 'iPad' : /Android/.test(ua) ? 'Android' : /Mac OS X/.test(ua) ? 'Mac'
    : /Windows/.test(ua) ? 'Windows' : /Linux/.test(ua) ? 'Linux' : '';
  return system ? browser + ' on ' + system : browser;
}

/// Checks a quiet hours window as typed: both `HH:MM` or both empty (none). Returns the problem or null.
/** @param {string} start @param {string} end */
export function quietHoursProblem(start, end) {
  const valid = (/** @type {string} */ t) => /^([01]\d|2[0-3]):[0-5]\d$/.test(t);
  if (!start && !end) return null;
  if (!start || !end) return 'Give both the start and the end, or neither.';
  if (!valid(start) || !valid(end)) return 'Times are HH:MM, 24-hour.';
  if (start === end) return 'The start and the end are the same: the window would be empty.';
  return null;
}

/// The PATCH body for a device's settings as edited: kinds, privacy and the quiet window (cleared when empty).
/**
 * @param {{kinds: string[], privacy: string, start: string, end: string, timeZone: string}} edited
 * @returns {Record<string, any>}
 */
export function updateRequest(edited) {
  /** @type {Record<string, any>} */
  const body = { kinds: KINDS.map((k) => k.kind).filter((k) => edited.kinds.includes(k)), privacy: edited.privacy };
  if (edited.start && edited.end) body.quiet_hours = { start: edited.start, end: edited.end, time_zone: edited.timeZone || undefined };
  else body.clear_quiet_hours = true;
  return body;
}
