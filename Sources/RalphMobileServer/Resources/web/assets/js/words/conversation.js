// @ts-check
// Words for conversations, shared by the chat screens, the approvals inbox and the chat state: titles, statuses,
// API retries, permission modes. Pure (no DOM).

/**
 * @typedef {object} ApiRetry The model API retry the agent CLI reported last (`retry` of a conversation or a status).
 * @property {number} [attempt]
 * @property {number} [max_retries]
 * @property {number} [error_status]
 * @property {string} [error]
 */

/** @type {Record<string, string>} */
export const STATUS_WORDS = {
  idle: 'idle',
  running: 'running',
  awaiting_approval: 'needs approval',
  stalled: 'stalled',
  retrying: 'retrying',
};

/// The last two parts of a path ("…/app/api"); the whole path goes into the element's title.
/** @param {string | null | undefined} path */
export function shortPath(path) {
  const parts = String(path || '').split('/').filter(Boolean);
  if (parts.length <= 2) return String(path || '');
  return '…/' + parts.slice(-2).join('/');
}

/** @param {{title?: string} | null | undefined} c */
export function conversationTitle(c) {
  if (c && c.title && c.title.trim()) return c.title.trim();
  return 'Untitled conversation';
}

/// What the status line says while the agent CLI retries the model API, e.g. "Retrying the model API (attempt 3 of 10,
/// HTTP 529): overloaded".
/** @param {ApiRetry | null | undefined} retry */
export function retryText(retry) {
  if (!retry) return 'Retrying the model API…';
  const parts = [];
  if (retry.attempt) parts.push('attempt ' + retry.attempt + (retry.max_retries ? ' of ' + retry.max_retries : ''));
  if (retry.error_status) parts.push('HTTP ' + retry.error_status);
  return 'Retrying the model API' + (parts.length ? ' (' + parts.join(', ') + ')' : '') + (retry.error ? ': ' + retry.error : '');
}

/// Words for the permission modes Claude Code knows; the modes offered are only those the server's claude accepts.
/** @type {Record<string, string>} */
const MODE_WORDS = {
  default: 'asks before edits, commands and network',
  manual: 'the same as default, under its newer name',
  acceptEdits: 'file edits and simple file commands run without asking',
  plan: 'reads and plans only, no changes',
  auto: 'a classifier model approves instead of you',
  dontAsk: 'whatever is not already allowed is refused, nobody is asked',
  bypassPermissions: 'every tool runs without asking (risky)',
};

/** @param {string} mode */
export function permissionModeLabel(mode) {
  return MODE_WORDS[mode] ? mode + ' — ' + MODE_WORDS[mode] : mode;
}
