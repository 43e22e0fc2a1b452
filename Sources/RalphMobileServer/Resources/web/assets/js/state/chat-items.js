// @ts-check
// The transcript of the chat state: items (messages, turn errors, asides) oldest first, the reply being streamed per
// turn, and the tool calls each assistant message holds. Helpers of ./chat.js; every function returns a new state and
// never changes the one it is given. Pure: no DOM.

import { putTool, mergeTool } from './chat-tools.js';

/** @typedef {import('./chat-wire.js').ChatMessageWire} ChatMessageWire */
/** @typedef {import('./chat-wire.js').ToolCallWire} ToolCallWire */
/** @typedef {import('./chat-tools.js').ToolCall} ToolCall */
/** @typedef {import('./chat-tools.js').ToolDecision} ToolDecision */

/**
 * @typedef {object} MessageItem A message of the transcript: stored, or being streamed (`streaming`).
 * @property {string} key Stable for the item's life (the view keys its element by it).
 * @property {'message'} kind
 * @property {string | undefined} id The stored message's id; none while streaming or for an unsaved segment.
 * @property {'user' | 'assistant' | 'system'} role system: a note (a turn the agent started by itself).
 * @property {string} text
 * @property {string | null} turn_id
 * @property {string | null} created_at
 * @property {number | null} [cost_usd]
 * @property {import('../format.js').Usage | null} [usage]
 * @property {string[]} toolIds Its tool calls, in order.
 * @property {boolean} streaming Text still arriving (`chunk`).
 * @property {boolean} partial The page joined the segment in the middle: its stored text is to be read.
 * @property {boolean} incomplete The turn failed while it was streamed.
 * @property {{text: string, at: string} | null} turnMeta The turn's cost, time and tokens, once it completed.
 */

/** @typedef {{key: string, kind: 'error', message: string, recoverable: boolean}} ErrorItem A failed turn. */
/** @typedef {{key: string, kind: 'aside', text: string}} AsideItem A turn's meta line without a message to hold it. */
/** @typedef {MessageItem | ErrorItem | AsideItem} ChatItem */

/**
 * @typedef {object} QueuedMessage A message sent while a turn runs: shown below the transcript until its turn starts.
 * @property {string} turn_id
 * @property {string} text
 * @property {string} label queued #n, steering…, sending…
 * @property {string} created_at
 */

/**
 * @typedef {object} Transcript The parts of the chat state this module changes.
 * @property {ChatItem[]} items
 * @property {Record<string, ToolCall>} tools By tool_use_id.
 * @property {Record<string, string>} streams Turn id → key of the item being streamed.
 * @property {Record<string, true>} boundaries Turns whose segment start the page saw.
 * @property {Record<string, ToolDecision>} allowedByRule Decisions for calls whose `tool_start` is still to come.
 * @property {boolean} loadedWhileRunning The page was read while a turn ran: its first segment may be partial.
 * @property {number} nextKey
 */

/** @param {string | undefined} role @returns {'user' | 'assistant' | 'system'} */
const roleOf = (role) => (role === 'user' ? 'user' : role === 'assistant' ? 'assistant' : 'system');

/** @param {ChatItem} item @returns {item is MessageItem} */
export const isMessage = (item) => item.kind === 'message';

/// The index of the stored message `id`, or -1.
/** @param {ChatItem[]} items @param {string | undefined | null} id */
export function findMessage(items, id) {
  if (!id) return -1;
  return items.findIndex((item) => isMessage(item) && item.id === id);
}

/// A message item (no tool calls yet) for a stored message or one the events describe.
/** @param {string} key @param {Partial<ChatMessageWire>} m @returns {MessageItem} */
export function messageItem(key, m) {
  return {
    key, kind: 'message', id: m.id || undefined, role: roleOf(m.role), text: m.text || '', turn_id: m.turn_id || null,
    created_at: m.created_at || null, cost_usd: m.cost_usd, usage: m.usage, toolIds: [], streaming: false, partial: false,
    incomplete: false, turnMeta: null,
  };
}

/** @template {Transcript} S @param {S} state @param {ChatItem} item @returns {S} */
export function appendItem(state, item) {
  return { ...state, items: [...state.items, item], nextKey: state.nextKey + 1 };
}

/** @template {Transcript} S @param {S} state @param {number} index @param {Partial<MessageItem>} change @returns {S} */
export function updateItem(state, index, change) {
  const items = state.items.slice();
  items[index] = /** @type {ChatItem} */ ({ ...items[index], ...change });
  return { ...state, items };
}

/// Adds a tool call to the message at `index`; a call already known is updated where it is instead.
/** @template {Transcript} S @param {S} state @param {number} index @param {ToolCallWire} call @returns {S} */
export function addTool(state, index, call) {
  const id = call.tool_use_id || 'tool-' + state.nextKey;
  const known = state.tools[id];
  if (known) return { ...state, tools: putTool(state.tools, mergeTool(known, { ...call, tool_use_id: id })) };
  const item = /** @type {MessageItem} */ (state.items[index]);
  const { [id]: allowed, ...allowedByRule } = state.allowedByRule;
  /** @type {ToolCall} */
  const tool = { ...call, ...(allowed || {}), tool_use_id: id, turn: call.turn_id || item.turn_id || null };
  const next = updateItem(state, index, { toolIds: [...item.toolIds, id] });
  return { ...next, tools: putTool(state.tools, tool), allowedByRule, nextKey: next.nextKey + (call.tool_use_id ? 0 : 1) };
}

/// A stored message appended to (or, `prepend`, put before) the transcript, with its tool calls.
/** @template {Transcript} S @param {S} state @param {ChatMessageWire} m @param {boolean} [prepend] @returns {S} */
export function addStoredMessage(state, m, prepend = false) {
  const item = messageItem('k' + state.nextKey, m);
  let next = prepend
    ? { ...state, items: [item, ...state.items], nextKey: state.nextKey + 1 }
    : appendItem(state, item);
  const index = prepend ? 0 : next.items.length - 1;
  for (const call of m.tool_calls || []) next = addTool(next, index, call);
  return next;
}

/// The item the reply of `turnId` streams into, created (empty) on its first chunk.
/** @template {Transcript} S @param {S} state @param {string} turnId @param {string} at @returns {[S, number]} */
export function streamFor(state, turnId, at) {
  const key = state.streams[turnId];
  if (key) return [state, state.items.findIndex((item) => item.key === key)];
  const item = messageItem('k' + state.nextKey, { role: 'assistant', turn_id: turnId, created_at: at });
  item.streaming = true;
  item.partial = state.loadedWhileRunning && !state.boundaries[turnId];
  const next = appendItem(state, item);
  return [{ ...next, streams: { ...next.streams, [turnId]: item.key } }, next.items.length - 1];
}

/// The text streamed so far for `turnId` is the stored message `messageId` (or, failed, what is left of a turn that
/// failed). When that message is on the page already (read with the first page), the streamed copy goes away.
/** @template {Transcript} S @param {S} state @param {string} turnId @param {string | null | undefined} messageId @param {boolean} [failed] @returns {S} */
export function finishSegment(state, turnId, messageId, failed = false) {
  const key = state.streams[turnId];
  if (!key) return state;
  const { [turnId]: _finished, ...streams } = state.streams;
  let next = { ...state, streams };
  const index = next.items.findIndex((item) => item.key === key);
  const stored = findMessage(next.items, messageId);
  if (stored >= 0 && stored !== index) return { ...next, items: next.items.filter((_, i) => i !== index) };
  const item = /** @type {MessageItem} */ (next.items[index]);
  next = updateItem(next, index, { streaming: false, id: messageId || item.id, incomplete: item.incomplete || failed });
  return next;
}

/// The assistant message `messageId` of `turnId`: the one on the page, the one being streamed (finished now), or a new
/// empty one (a tool call in a segment without text).
/** @template {Transcript} S @param {S} state @param {string | undefined} messageId @param {string} turnId @param {string} at @returns {[S, number]} */
export function ensureAssistant(state, messageId, turnId, at) {
  let index = findMessage(state.items, messageId);
  if (index >= 0) return [state, index];
  let next = state;
  if (next.streams[turnId]) {
    next = finishSegment(next, turnId, messageId);
    index = findMessage(next.items, messageId);
    if (index >= 0) return [next, index];
  }
  next = appendItem(next, messageItem('k' + next.nextKey, { id: messageId, role: 'assistant', turn_id: turnId, created_at: at }));
  return [next, next.items.length - 1];
}

/// The last assistant message of `turnId`, or -1.
/** @param {ChatItem[]} items @param {string} turnId */
export function lastAssistantOf(items, turnId) {
  for (let i = items.length - 1; i >= 0; i -= 1) {
    const item = items[i];
    if (isMessage(item) && item.role === 'assistant' && item.turn_id === turnId) return i;
  }
  return -1;
}
