// @ts-check
// What a push becomes on screen: the service worker (/sw.js) parses the decrypted `NotificationMessage` and turns it
// into `showNotification(title, options)`, or into closing the notification it withdraws. Pure: what the browser can
// do (text replies, how many buttons) is passed in, so node tests cover every case.

/**
 * A notification's button as the server sends it (`NotificationAction`).
 * @typedef {{action: string, title: string, token: string, url: string, input: boolean}} MessageAction
 */
/**
 * What a device receives (`NotificationMessage`, snake_case as on the wire).
 * @typedef {{id: string, kind: string, subject: string, subject_id: string, title: string, body: string, tag: string,
 *   path: string, actions: MessageAction[], count?: number, expires_at?: string, withdraw?: boolean, quiet?: boolean,
 *   created_at: string}} NotificationMessage
 */
/**
 * What the browser offers: `textReply` (NotificationEvent has `reply`: `type: 'text'` actions work), `maxActions`
 * (Notification.maxActions; 2 when unknown).
 * @typedef {{textReply: boolean, maxActions: number}} Abilities
 */
/**
 * What to do with one push.
 * @typedef {{show: false, withdraw: string} | {show: true, title: string, options: Record<string, any>}} Display
 */

/// Parses a push's text; throws an Error saying what is wrong (the service worker shows that instead).
/** @param {string} text @returns {NotificationMessage} */
export function parseMessage(text) {
  let data;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new Error('the push is not JSON (' + (error instanceof Error ? error.message : String(error)) + ')');
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) throw new Error('the push is not a JSON object');
  for (const field of ['tag', 'title']) {
    if (typeof data[field] !== 'string' || !data[field]) throw new Error('the push has no ' + field);
  }
  if (data.actions !== undefined && !Array.isArray(data.actions)) throw new Error('the push\u2019s actions are not a list');
  return { ...data, actions: data.actions || [], body: typeof data.body === 'string' ? data.body : '' };
}

/// The buttons of `message` as Notification actions: Allow / Deny as plain buttons; Answer as a text field where the
/// browser takes a typed reply, else a button that opens the page (its action name says so: `answer-open`).
/** @param {NotificationMessage} message @param {Abilities} abilities */
export function notificationActions(message, abilities) {
  const limit = Math.max(0, Number.isFinite(abilities.maxActions) ? abilities.maxActions : 2);
  return message.actions.slice(0, limit).map((action) => {
    if (action.input && action.action === 'answer') {
      return abilities.textReply
        ? { action: action.action, title: action.title, type: 'text', placeholder: 'Your answer' }
        : { action: 'answer-open', title: action.title + '\u2026' };
    }
    return { action: action.action, title: action.title };
  });
}

/// What one push does: withdraw (close the notification with its tag, show nothing) or show. `replacing` is true when
/// a notification with the same tag is on screen: the update buzzes again (`renotify`) unless it is quiet (silent and
/// renotify together are refused by browsers).
/** @param {NotificationMessage} message @param {Abilities} abilities @param {boolean} replacing @returns {Display} */
export function displayFor(message, abilities, replacing) {
  if (message.withdraw) return { show: false, withdraw: message.tag };
  const quiet = message.quiet === true;
  /** @type {Record<string, any>} */
  const options = {
    body: message.body,
    tag: message.tag,
    data: message,
    icon: '/assets/icons/icon-192.png',
    badge: '/assets/icons/icon-192.png',
    silent: quiet,
    renotify: replacing && !quiet,
    // Something waits for the person: keep it until it is dealt with (or withdrawn).
    requireInteraction: message.kind === 'approval' || message.kind === 'question' || message.kind === 'run_suspended',
    actions: notificationActions(message, abilities),
  };
  if (message.created_at) {
    const at = Date.parse(message.created_at);
    if (Number.isFinite(at)) options.timestamp = at;
  }
  return { show: true, title: message.title, options };
}

/// The page a tap opens: the message's dashboard path, kept on this origin (a path from elsewhere opens the start).
/** @param {unknown} path @param {string} origin @returns {string} an absolute URL on `origin` */
export function openURL(path, origin) {
  if (typeof path === 'string' && path.startsWith('/') && !path.startsWith('//')) {
    try {
      const url = new URL(path, origin);
      if (url.origin === origin) return url.href;
    } catch { /* not a URL: the start page */ }
  }
  return new URL('/#/sessions', origin).href;
}
