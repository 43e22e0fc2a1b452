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

/// Words for the permission modes Claude Code knows and Codex's approval policies; the modes offered are only those
/// the server's agent accepts.
/** @type {Record<string, string>} */
const MODE_WORDS = {
  untrusted: 'asks before any command that is not known to be safe',
  'on-request': 'the model decides when to ask you',
  never: 'never asks: every command and edit runs (risky)',
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

/// The server's limit on a message's text, in bytes.
export const MAX_MESSAGE_BYTES = 100000;

/// What is wrong with a message before it is sent (the server's rules), or null.
/** @param {string} text @returns {string | null} */
export function messageProblem(text) {
  if (!text.trim()) return 'Write a message first.';
  const size = new TextEncoder().encode(text).length;
  if (size > MAX_MESSAGE_BYTES) return 'The message is too long: at most 100 000 bytes (it has ' + size.toLocaleString() + ').';
  if (text.includes('\u0000')) return 'The message contains a NUL character.';
  return null;
}

/**
 * @typedef {object} NewConversation What the New conversation form holds.
 * @property {string} cwd
 * @property {string} title
 * @property {string} model
 * @property {string} mode the permission mode chosen ('default' or one the agent accepts)
 * @property {string} text the first message (may be empty)
 * @property {string} [backend] the agent chosen (claude when not given: then it is not sent)
 * @property {string} [defaultMode] the agent's own default mode, not sent ('default' when not given)
 * @property {string | null} [host] in a cluster, another host to create it on (its id or name); none for this server
 */

/// The `POST /api/conversations` body the form describes, or the problems by field (cwd, title, model, message).
/** @param {NewConversation} form @returns {{body: {cwd: string, backend?: string, title?: string, model?: string, permission_mode?: string, host?: string}} | {problems: Array<[string, string]>}} */
export function conversationRequest(form) {
  /** @type {Array<[string, string]>} */
  const problems = [];
  const cwd = form.cwd.trim();
  const title = form.title.trim();
  const model = form.model.trim();
  if (!cwd) problems.push(['cwd', 'Enter a directory ("." for the workspace root).']);
  if (title.length > 200) problems.push(['title', 'At most 200 characters.']);
  if (model && (/\s/.test(model) || model.startsWith('-') || model.length > 100)) problems.push(['model', 'A short name without spaces that does not start with "-".']);
  if (new TextEncoder().encode(form.text).length > MAX_MESSAGE_BYTES) problems.push(['message', 'At most 100 000 bytes.']);
  if (problems.length) return { problems };
  /** @type {{cwd: string, backend?: string, title?: string, model?: string, permission_mode?: string, host?: string}} */
  const body = { cwd };
  if (form.host) body.host = form.host;
  if (form.backend && form.backend !== 'claude') body.backend = form.backend;
  if (title) body.title = title;
  if (model) body.model = model;
  if (form.mode && form.mode !== (form.defaultMode || 'default')) body.permission_mode = form.mode;
  return { body };
}

/// What the form says about the permission modes offered, from the agent `GET /api/health` describes.
/** @param {{name: string, version?: string, error?: string} | null} agent @param {string[]} modes the modes offered besides default */
export function modesHint(agent, modes) {
  if (!agent) return 'The server does not say which modes its claude accepts: only default is offered.';
  if (agent.error) return 'The server could not ask ' + agent.name + ' about itself (' + agent.error + ')' + (modes.length ? '; these are the modes it expects.' : ': only default is offered.');
  return 'The modes ' + agent.name + (agent.version ? ' ' + agent.version : '') + ' accepts.';
}
