// @ts-check
// Tool calls in the chat state: one record per `tool_use_id`, merged from the stored message, `tool_start`,
// `tool_end`, approvals and their decisions; and the one state a call is shown in. Pure: no DOM.

/** @typedef {import('../words/approval.js').Approval} Approval */

/**
 * @typedef {object} ToolCall
 * @property {string} tool_use_id
 * @property {string} [name]
 * @property {unknown} [input]
 * @property {string | null} [output] Present (a string) once the call returned.
 * @property {boolean} [is_error]
 * @property {import('../diff/file-diff.js').FileDiff[]} [diffs] A file edit's: what it changed once it ran.
 * @property {string | null} turn The turn the call belongs to.
 * @property {Approval | null} [approval] The pending approval it waits for.
 * @property {string} [decision] allow, allow_session, deny, cancelled
 * @property {string} [decided_by]
 * @property {string} [decision_message]
 * @property {boolean} [stale] Its turn ended without a result: none will come.
 */

/** @typedef {{decision: string, decided_by?: string, decision_message?: string}} ToolDecision */

/// How a call is shown: running, awaiting (an approval), done, error, denied, cancelled, stale (no result).
/** @param {ToolCall} call @returns {'running' | 'awaiting' | 'done' | 'error' | 'denied' | 'cancelled' | 'stale'} */
export function toolState(call) {
  if (call.output !== undefined && call.output !== null) {
    if (call.is_error) return call.decision === 'deny' ? 'denied' : 'error';
    return 'done';
  }
  if (call.decision === 'deny') return 'denied';
  if (call.decision === 'cancelled') return 'cancelled';
  if (call.approval) return 'awaiting';
  if (call.stale) return 'stale';
  return 'running';
}

/// Whether the call has its result.
/** @param {ToolCall} call */
export const hasOutput = (call) => call.output !== undefined && call.output !== null;

/// `call` with the fields of `change` that are not undefined (null clears a field, as for `approval`).
/** @param {ToolCall} call @param {Partial<ToolCall>} change @returns {ToolCall} */
export function mergeTool(call, change) {
  const defined = Object.fromEntries(Object.entries(change).filter(([, v]) => v !== undefined));
  return { ...call, ...defined };
}

/// Replaces one call in the record (a new record).
/** @param {Record<string, ToolCall>} tools @param {ToolCall} call */
export function putTool(tools, call) {
  return { ...tools, [call.tool_use_id]: call };
}

/// Marks the calls of `turnId` that never got a result (and wait for no approval) as stale: its turn ended.
/** @param {Record<string, ToolCall>} tools @param {(call: ToolCall) => boolean} test @returns {Record<string, ToolCall>} */
export function markStale(tools, test) {
  let next = tools;
  for (const call of Object.values(tools)) {
    if (!hasOutput(call) && !call.approval && !call.stale && test(call)) next = putTool(next, { ...call, stale: true });
  }
  return next;
}
