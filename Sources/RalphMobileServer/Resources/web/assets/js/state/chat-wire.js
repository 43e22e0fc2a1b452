// @ts-check
// JSDoc types of the conversation wire objects the chat state folds (see Sources/RalphAPI/ChatEvents.swift and
// Chat.swift for the server's side). Types only: this module exports nothing at run time.

/**
 * @typedef {object} ToolCallWire A tool call of a stored message (`tool_calls`) or of a `tool_start`/`tool_end` event.
 * @property {string} tool_use_id
 * @property {string} [name]
 * @property {unknown} [input]
 * @property {string | null} [output]
 * @property {boolean} [is_error]
 * @property {string} [turn_id]
 * @property {string} [message_id]
 * @property {import('../diff/file-diff.js').FileDiff[]} [diffs] A file edit's: what it changed once it ran.
 */

/**
 * @typedef {object} ChatMessageWire A stored message (`GET /api/conversations/{id}/messages` item).
 * @property {string} id
 * @property {string} [turn_id]
 * @property {string} role user, assistant, system
 * @property {string} [text]
 * @property {string} [created_at]
 * @property {number | null} [cost_usd]
 * @property {import('../format.js').Usage | null} [usage]
 * @property {ToolCallWire[]} [tool_calls]
 */

/**
 * @typedef {object} MessagePage
 * @property {ChatMessageWire[]} items Oldest first.
 * @property {boolean} [has_more]
 * @property {string | null} [next_cursor]
 * @property {number | null} [last_event_id] The stream's id the page was read at: the stream resumes after it.
 */

/**
 * @typedef {object} Conversation `GET /api/conversations/{id}` and `conversation.updated` (partial) frames.
 * @property {string} id
 * @property {string} [title]
 * @property {string} [cwd]
 * @property {string} [backend] The agent it runs: claude, codex (none from an older server: claude).
 * @property {string} [host] In a cluster: the name of the host whose agent runs it.
 * @property {string} [host_id] In a cluster: that host's id.
 * @property {string} [model]
 * @property {string} [status] idle, running, awaiting_approval, stalled, retrying
 * @property {number} [queued]
 * @property {import('../words/conversation.js').ApiRetry | null} [retry]
 * @property {string} [permission_mode]
 * @property {string} [agent_permission_mode]
 * @property {boolean} [pinned]
 * @property {boolean} [archived]
 * @property {number} [total_cost_usd]
 * @property {object[]} [session_rules]
 */

/**
 * @typedef {object} TurnStartEvent
 * @property {string} turn_id
 * @property {string} [message_id]
 * @property {string} [text]
 * @property {string} [origin] `agent` when nobody sent it (the agent went on by itself)
 */

/** @typedef {{turn_id: string, text: string}} ChunkEvent */
/** @typedef {{turn_id: string, message_id?: string}} SegmentEndEvent */

/**
 * @typedef {object} PermissionRequiredEvent
 * @property {string} approval_id
 * @property {string} [turn_id]
 * @property {string} [tool_use_id]
 * @property {string} [tool_name]
 * @property {unknown} [input]
 * @property {import('../diff/file-diff.js').FileDiff[]} [diffs] A file edit's: what it will change.
 * @property {string} [created_at]
 */

/**
 * @typedef {object} PermissionResolvedEvent
 * @property {string} approval_id
 * @property {string} decision allow, allow_session, deny, cancelled
 * @property {string} [by] who decided: a key's name, `system`, or `rule …` (a session rule allowed it unasked)
 * @property {string} [message]
 */

/**
 * @typedef {object} CompleteEvent
 * @property {string} turn_id
 * @property {string} [message_id]
 * @property {string} [stop_reason]
 * @property {number | null} [cost_usd]
 * @property {number | null} [duration_ms]
 * @property {import('../format.js').Usage | null} [usage]
 */

/** @typedef {{turn_id?: string, message?: string, recoverable?: boolean}} ChatErrorEvent */

/**
 * @typedef {object} StatusEvent
 * @property {string} status
 * @property {number} [queued]
 * @property {number} [silent_secs]
 * @property {import('../words/conversation.js').ApiRetry} [retry]
 * @property {string} [turn_id]
 */

export {};
