// @ts-check
// A notification's button, carried out by the service worker: POST `{token, text?}` to this server's
// `/api/notifications/actions` (no key: the single-use token is the credential), then the words that replace the
// notification — what was done, or why nothing was. The HTTP call takes `fetch` as a parameter so tests can run it.

/** @typedef {import('./message.js').NotificationMessage} NotificationMessage */
/**
 * @typedef {{ok: true, detail: string, action: string}
 *   | {ok: false, status: number, code: string, message: string}} ActionResult
 */

export const ACTIONS_PATH = '/api/notifications/actions';

/** @type {Record<string, string>} why an action did nothing, by the contract's prefix */
const FAILURE_TITLES = {
  action_token_used: 'Already done',
  action_token_expired: 'Too late to act here',
  action_token_unknown: 'This action is not known',
  forbidden: 'Not allowed',
  conflict: 'Already decided',
  question_not_found: 'The question is gone',
  not_found: 'It is gone',
  invalid_body: 'Not sent',
  unreachable: 'Server unreachable',
};

/// Sends the action; never throws: a refusal or an unreachable server comes back as `{ok: false}` with the server's
/// own sentence.
/**
 * @param {(url: string, init: any) => Promise<{ok: boolean, status: number, text: () => Promise<string>}>} fetchFn
 * @param {string} origin this server (the service worker's own origin)
 * @param {string} token @param {string | undefined} text
 * @returns {Promise<ActionResult>}
 */
export async function sendAction(fetchFn, origin, token, text) {
  const body = text === undefined ? { token } : { token, text };
  let response;
  try {
    response = await fetchFn(new URL(ACTIONS_PATH, origin).href, {
      method: 'POST', credentials: 'omit', headers: { 'Content-Type': 'application/json', Accept: 'application/json' }, body: JSON.stringify(body),
    });
  } catch (error) {
    return { ok: false, status: 0, code: 'unreachable', message: 'unreachable: cannot reach the server (' + (error instanceof Error ? error.message : String(error)) + ')' };
  }
  const raw = await response.text().catch(() => '');
  let data = null;
  try { data = raw ? JSON.parse(raw) : null; } catch { data = null; }
  if (response.ok && data && typeof data.detail === 'string') return { ok: true, detail: data.detail, action: String(data.action || '') };
  const message = data && typeof data.error === 'string' ? data.error : response.status + ' ' + (raw.slice(0, 200) || 'no answer');
  const colon = message.indexOf(':');
  return { ok: false, status: response.status, code: colon > 0 ? message.slice(0, colon).trim() : 'error', message };
}

/// The notification that replaces the acted-on one: the outcome (shown briefly, silently), or why nothing was done
/// (kept, so it is read; a tap opens the page to decide there).
/** @param {NotificationMessage} message @param {ActionResult} result */
export function outcomeDisplay(message, result) {
  const data = { ...message, actions: [], outcome: result.ok ? 'done' : result.code };
  if (result.ok) {
    return { title: result.detail, brief: true, options: { body: message.title, tag: message.tag, data, silent: true, icon: '/assets/icons/icon-192.png' } };
  }
  const title = FAILURE_TITLES[result.code] || 'The action failed';
  return {
    title, brief: false,
    options: { body: result.message + '\n' + message.title, tag: message.tag, data, silent: true, icon: '/assets/icons/icon-192.png' },
  };
}

/// What a click on a notification does: `open` the dashboard at the message's path (a tap on the body, "Answer…" where
/// a typed reply is not possible, an Answer sent empty), or `send` one of its actions with its token.
/**
 * @param {NotificationMessage | null | undefined} message @param {string} action the clicked button ('' for the body)
 * @param {string | null | undefined} reply the typed text of a `type: 'text'` action
 * @returns {{kind: 'open', path: string} | {kind: 'send', token: string, text: string | undefined}}
 */
export function clickPlan(message, action, reply) {
  const path = message && typeof message.path === 'string' ? message.path : '/#/sessions';
  if (!message || !action || action === 'answer-open') return { kind: 'open', path };
  const offered = (message.actions || []).find((a) => a.action === action);
  if (!offered) return { kind: 'open', path };
  if (offered.input && action === 'answer') {
    const text = (reply || '').trim();
    return text ? { kind: 'send', token: offered.token, text } : { kind: 'open', path };
  }
  return { kind: 'send', token: offered.token, text: undefined };
}
