// @ts-check
// Words for tool calls and approvals, shared by the approval sheet, the approvals inbox and the chat state: a call in
// one line, a decision in words, one shape for an approval from the list or from an event. Pure (no DOM).

/**
 * @typedef {object} Approval A tool call waiting for (or given) a person's decision, as `GET /api/approvals` lists it
 *   or a `permission_required` event announces it.
 * @property {string} id
 * @property {string | null} conversation_id
 * @property {string} [turn_id]
 * @property {string} [tool_use_id]
 * @property {string} tool_name
 * @property {unknown} input
 * @property {{display?: string} | null} session_rule
 * @property {string} [state] pending, allowed, denied, cancelled
 * @property {string} [decision]
 * @property {string} [decided_by]
 * @property {string} [message]
 * @property {string} [reason]
 * @property {import('../diff/file-diff.js').FileDiff[]} [diffs] A file edit's: one diff per file against the file as it
 *   is now (recomputed for a pending approval each time the list is read).
 * @property {string} [created_at]
 */

/// Pretty JSON for display (strings stay as they are).
/** @param {unknown} value @returns {string} */
export function prettyJSON(value) {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return String(value);
  }
}

/** @param {unknown} text @param {number} [max] */
function firstLine(text, max = 140) {
  const line = String(text ?? '').split('\n').find((l) => l.trim()) || '';
  const trimmed = line.trim();
  return trimmed.length > max ? trimmed.slice(0, max - 1) + '…' : trimmed;
}

/// One line that says what a tool call does: the command of Bash, the file of Read/Write/Edit, the pattern of
/// Grep/Glob, the URL of WebFetch …; otherwise the first short string of its input, or its JSON.
/** @param {string | undefined} name @param {unknown} input @returns {string} */
export function toolSummary(name, input) {
  const object = input && typeof input === 'object' && !Array.isArray(input) ? input : null;
  if (!object) return firstLine(input === undefined || input === null ? '' : prettyJSON(input));
  const keys = ['command', 'file_path', 'notebook_path', 'path', 'pattern', 'url', 'query', 'description', 'prompt'];
  // Codex's apply_patch: the files it changes.
  if (Array.isArray(object.paths) && object.paths.length && object.paths.every((p) => typeof p === 'string')) {
    return firstLine(object.paths.join(', '));
  }
  for (const key of keys) {
    if (typeof object[key] === 'string' && object[key].trim()) {
      let text = object[key];
      if (key === 'pattern' && typeof object.path === 'string') text += '  in ' + object.path;
      return firstLine(text);
    }
  }
  for (const value of Object.values(object)) {
    if (typeof value === 'string' && value.trim()) return firstLine(value);
  }
  const json = JSON.stringify(object);
  return json.length > 140 ? json.slice(0, 139) + '…' : json;
}

/// A call in one line for lists: a file edit by the files it changes as its diffs name them (relative to the
/// conversation's directory), anything else as toolSummary says.
/** @param {{tool_name?: string, input?: unknown, diffs?: Array<{path: string}>}} call @param {(d: any) => string} pathOf */
export function callSummary(call, pathOf) {
  const diffs = Array.isArray(call.diffs) ? call.diffs.filter((d) => d && typeof d.path === 'string') : [];
  return diffs.length ? firstLine(diffs.map((d) => pathOf(d)).join(', ')) : toolSummary(call.tool_name, call.input);
}

/** @type {Record<string, string>} */
const DECISION_WORDS = {
  allow: 'allowed',
  allow_session: 'allowed for the session',
  deny: 'denied',
  cancelled: 'cancelled (its turn ended)',
};

/** @param {string | null | undefined} decision */
export function decisionWords(decision) {
  return DECISION_WORDS[decision] || String(decision || 'answered');
}

/// Normalizes an approval from `GET /api/approvals` or a `permission_required` event to one shape.
/**
 * @param {Partial<Approval> & {approval_id?: string, name?: string}} approval
 * @param {string | null} [conversationId]
 * @returns {Approval}
 */
export function normalizeApproval(approval, conversationId) {
  return {
    ...approval,
    id: approval.id || approval.approval_id,
    conversation_id: approval.conversation_id || conversationId || null,
    tool_name: approval.tool_name || approval.name || 'Tool',
    input: approval.input,
    session_rule: approval.session_rule || null,
  };
}

/// What "allow for this session" grants, as a person reads it (`Bash(touch a.txt)`), or null when the approval does
/// not say. The CLI's own `suggestions` are never this: the server does not apply them (they include switching to
/// accept-edits mode and whole directories).
/** @param {Approval | null | undefined} approval @returns {string | null} */
export function sessionRuleText(approval) {
  const rule = approval && approval.session_rule;
  return rule && typeof rule.display === 'string' && rule.display.trim() ? rule.display : null;
}
