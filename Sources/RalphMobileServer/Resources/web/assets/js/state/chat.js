// @ts-check
// A conversation as the chat screen shows it, as a value, and the reducer that folds the conversation stream's events
// into it: turns (the person's message, or a note when the agent went on by itself), streamed text and its stored
// messages, tool calls with their results, approvals and their decisions, turn costs, failed turns, the status line.
// Actions of the page itself (a message sent, an earlier page, the approvals list, stored text read again) go through
// the same reducer. The native app folds the same events (Sources/RalphMobileKit/Models/ConversationModel.swift).
// Pure: no DOM, no clock (times come in the actions).

import { normalizeApproval, decisionWords } from '../words/approval.js';
import { agentName } from '../words/agents.js';
import { money, tokensText } from '../format.js';
import { putTool, mergeTool, markStale } from './chat-tools.js';
import {
  isMessage, findMessage, messageItem, appendItem, updateItem, addTool, addStoredMessage, streamFor, finishSegment,
  ensureAssistant, lastAssistantOf,
} from './chat-items.js';

/** @typedef {import('./chat-wire.js').Conversation} Conversation */
/** @typedef {import('./chat-wire.js').MessagePage} MessagePage */
/** @typedef {import('./chat-wire.js').ChatMessageWire} ChatMessageWire */
/** @typedef {import('./chat-items.js').ChatItem} ChatItem */
/** @typedef {import('./chat-items.js').MessageItem} MessageItem */
/** @typedef {import('./chat-items.js').QueuedMessage} QueuedMessage */
/** @typedef {import('./chat-tools.js').ToolCall} ToolCall */
/** @typedef {import('./chat-tools.js').ToolDecision} ToolDecision */
/** @typedef {import('../words/approval.js').Approval} Approval */

/**
 * @typedef {import('./chat-items.js').Transcript & {
 *   conversation: Conversation,
 *   status: string,
 *   queued: number,
 *   silentSecs: number | null,
 *   retry: import('../words/conversation.js').ApiRetry | null,
 *   queue: QueuedMessage[],
 *   pendingApprovals: Approval[],
 *   cursor: string | null,
 *   hasMore: boolean,
 * }} ChatState
 */

/**
 * @typedef {{type: 'event', name: string, data: any, at: string}
 *   | {type: 'conversation', conversation: Partial<Conversation>}
 *   | {type: 'sent', turn_id: string, text: string, mode: string, queued_position: number, at: string}
 *   | {type: 'earlier', page: MessagePage}
 *   | {type: 'approvals', approvals: Approval[]}
 *   | {type: 'settle'}
 *   | {type: 'approval_details', approval: Approval}
 *   | {type: 'approval_closed', id: string}
 *   | {type: 'allowed_by_rule', tool_use_id: string, decision: ToolDecision}
 *   | {type: 'reconciled', ids: string[], items: ChatMessageWire[]}
 * } ChatAction
 */

/// The state of a conversation read with its newest page of messages.
/** @param {Conversation} conversation @param {MessagePage} page @returns {ChatState} */
export function initialChatState(conversation, page) {
  const status = conversation.status || 'idle';
  /** @type {ChatState} */
  let state = {
    conversation, status, queued: conversation.queued || 0, silentSecs: null,
    retry: status === 'retrying' ? conversation.retry || null : null,
    loadedWhileRunning: conversation.status !== 'idle',
    items: [], tools: {}, streams: {}, boundaries: {}, allowedByRule: {}, nextKey: 1,
    queue: [], pendingApprovals: [], cursor: page.next_cursor ?? null, hasMore: !!page.has_more,
  };
  for (const m of page.items || []) state = addStoredMessage(state, m);
  return state;
}

/** @param {ChatState} state @param {ChatAction} action @returns {ChatState} */
export function reduceChat(state, action) {
  switch (action.type) {
    case 'event': return applyChatEvent(state, action.name, action.data || {}, action.at);
    case 'conversation': return { ...state, conversation: { ...state.conversation, ...action.conversation } };
    case 'sent': return sent(state, action);
    case 'earlier': {
      let next = state;
      for (const m of [...(action.page.items || [])].reverse()) {
        if (!m.id || findMessage(next.items, m.id) < 0) next = addStoredMessage(next, m, true);
      }
      return { ...next, cursor: action.page.next_cursor ?? null, hasMore: !!action.page.has_more };
    }
    case 'approvals': return approvalsListed(state, action.approvals);
    case 'settle': return settleHistory(state);
    case 'approval_details': {
      const index = state.pendingApprovals.findIndex((a) => a.id === action.approval.id);
      if (index < 0) return state;
      const pendingApprovals = state.pendingApprovals.slice();
      pendingApprovals[index] = { ...pendingApprovals[index], ...action.approval };
      return { ...state, pendingApprovals };
    }
    case 'approval_closed': return { ...state, pendingApprovals: state.pendingApprovals.filter((a) => a.id !== action.id) };
    case 'allowed_by_rule': {
      const known = state.tools[action.tool_use_id];
      if (known) return { ...state, tools: putTool(state.tools, mergeTool(known, action.decision)) };
      return { ...state, allowedByRule: { ...state.allowedByRule, [action.tool_use_id]: action.decision } };
    }
    case 'reconciled': {
      let next = state;
      for (const m of action.items) {
        const index = action.ids.includes(m.id) ? findMessage(next.items, m.id) : -1;
        if (index >= 0) next = updateItem(next, index, { partial: false, text: m.text || '' });
      }
      return next;
    }
    default: return state;
  }
}

/// One event of the conversation stream.
/** @param {ChatState} state @param {string} name @param {any} d @param {string} at @returns {ChatState} */
export function applyChatEvent(state, name, d, at) {
  switch (name) {
    case 'turn_start': return turnStarted(state, d, at);
    case 'chunk': {
      const [next, index] = streamFor(state, d.turn_id, at);
      const item = /** @type {MessageItem} */ (next.items[index]);
      return updateItem(next, index, { text: item.text + (d.text || '') });
    }
    case 'segment_end': return segmentEnded(state, d, at);
    case 'tool_start': {
      const [next, index] = ensureAssistant(state, d.message_id, d.turn_id, at);
      return addTool(next, index, { tool_use_id: d.tool_use_id, name: d.name, input: d.input, turn_id: d.turn_id });
    }
    case 'tool_end': return toolEnded(state, d, at);
    case 'permission_required': return permissionRequired(state, d, at);
    case 'permission_resolved': return permissionResolved(state, d);
    case 'complete': return turnCompleted(state, d, at);
    case 'error': {
      let next = d.turn_id ? finishSegment(state, d.turn_id, null, true) : state;
      if (d.turn_id) next = { ...next, tools: markStale(next.tools, (call) => call.turn === d.turn_id) };
      return appendItem(next, { key: 'k' + next.nextKey, kind: 'error', message: d.message || 'unknown error', recoverable: !!d.recoverable });
    }
    case 'title_update':
      return d.title ? { ...state, conversation: { ...state.conversation, title: d.title } } : state;
    case 'status': {
      const status = d.status || 'idle';
      return {
        ...state, status, queued: d.queued !== undefined ? d.queued : state.queued, silentSecs: d.silent_secs ?? null,
        retry: status === 'retrying' ? d.retry || state.retry : null,
      };
    }
    case 'permissions':
      return d.permission_mode ? { ...state, conversation: { ...state.conversation, agent_permission_mode: d.permission_mode } } : state;
    default:
      return state; // auto_reply: the auto-reply panel's, not the transcript's
  }
}

/** @param {ChatState} state @param {import('./chat-wire.js').TurnStartEvent} d @param {string} at @returns {ChatState} */
function turnStarted(state, d, at) {
  let next = { ...state, boundaries: { ...state.boundaries, [d.turn_id]: /** @type {true} */ (true) } };
  if (findMessage(next.items, d.message_id) >= 0) return next;
  if (d.origin === 'agent') {
    // Nobody sent this: the agent went on by itself (a background task finished). A note, not the person's words.
    return appendItem(next, messageItem('k' + next.nextKey, { id: d.message_id, role: 'system', text: d.text, turn_id: d.turn_id, created_at: at }));
  }
  next = { ...next, queue: next.queue.filter((q) => q.turn_id !== d.turn_id) };
  if (next.items.some((item) => isMessage(item) && item.role === 'user' && item.turn_id === d.turn_id)) return next;
  return appendItem(next, messageItem('k' + next.nextKey, { id: d.message_id, role: 'user', text: d.text, turn_id: d.turn_id, created_at: at }));
}

/** @param {ChatState} state @param {import('./chat-wire.js').SegmentEndEvent} d @param {string} at @returns {ChatState} */
function segmentEnded(state, d, at) {
  const had = !!state.streams[d.turn_id];
  const wasBoundary = !!state.boundaries[d.turn_id];
  const next = { ...state, boundaries: { ...state.boundaries, [d.turn_id]: /** @type {true} */ (true) } };
  if (had) return finishSegment(next, d.turn_id, d.message_id);
  if (next.loadedWhileRunning && !wasBoundary && d.message_id && findMessage(next.items, d.message_id) < 0) {
    // Joined after the last chunk of this segment: its stored text is to be read.
    const [joined, index] = ensureAssistant(next, d.message_id, d.turn_id, at);
    return updateItem(joined, index, { partial: true });
  }
  return next;
}

/** @param {ChatState} state @param {import('./chat-wire.js').ToolCallWire} d @param {string} at @returns {ChatState} */
function toolEnded(state, d, at) {
  const result = { name: d.name, input: d.input, output: d.output ?? '', is_error: d.is_error, diffs: d.diffs };
  const known = state.tools[d.tool_use_id];
  if (known) return { ...state, tools: putTool(state.tools, mergeTool(known, { ...result, approval: null })) };
  const [next, index] = ensureAssistant(state, d.message_id, /** @type {string} */ (d.turn_id), at);
  return addTool(next, index, { tool_use_id: d.tool_use_id, ...result, turn_id: d.turn_id });
}

/** @param {ChatState} state @param {import('./chat-wire.js').PermissionRequiredEvent} d @param {string} at @returns {ChatState} */
function permissionRequired(state, d, at) {
  const approval = normalizeApproval({ ...d, state: 'pending', created_at: d.created_at || at }, state.conversation.id);
  const pendingApprovals = [...state.pendingApprovals.filter((a) => a.id !== approval.id), approval];
  const call = d.tool_use_id ? state.tools[d.tool_use_id] : undefined;
  const tools = call ? putTool(state.tools, { ...call, approval }) : state.tools;
  return { ...state, pendingApprovals, tools };
}

/// Whether a `permission_resolved` is a session rule allowing a call nobody was asked about: the event names the
/// approval, not the call, so the page reads the approval to find the call (`allowed_by_rule` then).
/** @param {ChatState} state @param {import('./chat-wire.js').PermissionResolvedEvent} d */
export function isRuleAllowance(state, d) {
  return !state.pendingApprovals.some((a) => a.id === d.approval_id) && typeof d.by === 'string' && d.by.startsWith('rule ');
}

/** @param {ChatState} state @param {import('./chat-wire.js').PermissionResolvedEvent} d @returns {ChatState} */
function permissionResolved(state, d) {
  if (isRuleAllowance(state, d)) return state;
  const pendingApprovals = state.pendingApprovals.filter((a) => a.id !== d.approval_id);
  let tools = state.tools;
  for (const call of Object.values(state.tools)) {
    if (call.approval && call.approval.id === d.approval_id) {
      tools = putTool(tools, { ...mergeTool(call, { decision: d.decision, decided_by: d.by, decision_message: d.message }), approval: null });
    }
  }
  return { ...state, pendingApprovals, tools };
}

/// The meta line of a completed turn: why it stopped (when not the normal end), cost, time, tokens; null when empty.
/** @param {import('./chat-wire.js').CompleteEvent} info @returns {string | null} */
export function turnMetaText(info) {
  const bits = [];
  if (info.stop_reason && info.stop_reason !== 'end_turn') bits.push(info.stop_reason);
  const cost = money(info.cost_usd);
  if (cost) bits.push(cost);
  if (info.duration_ms !== undefined && info.duration_ms !== null) bits.push((info.duration_ms / 1000).toFixed(1) + ' s');
  const tokens = tokensText(info.usage);
  if (tokens) bits.push(tokens);
  return bits.length ? bits.join(' · ') : null;
}

/** @param {ChatState} state @param {import('./chat-wire.js').CompleteEvent} d @param {string} at @returns {ChatState} */
function turnCompleted(state, d, at) {
  let next = finishSegment(state, d.turn_id, d.message_id);
  next = { ...next, tools: markStale(next.tools, (call) => call.turn === d.turn_id) };
  const text = turnMetaText(d);
  if (!text) return next;
  const stored = findMessage(next.items, d.message_id);
  const target = stored >= 0 ? stored : lastAssistantOf(next.items, d.turn_id);
  if (target >= 0) return updateItem(next, target, { turnMeta: { text, at } });
  return appendItem(next, { key: 'k' + next.nextKey, kind: 'aside', text });
}

/** @param {ChatState} state @param {{type: 'sent', turn_id: string, text: string, mode: string, queued_position: number, at: string}} a @returns {ChatState} */
function sent(state, a) {
  const shown = state.items.some((item) => isMessage(item) && item.role === 'user' && item.turn_id === a.turn_id)
    || state.queue.some((q) => q.turn_id === a.turn_id) || state.boundaries[a.turn_id];
  if (shown) return state;
  const label = a.queued_position > 0 ? 'queued #' + a.queued_position : a.mode === 'steer' ? 'steering…' : 'sending…';
  return { ...state, queue: [...state.queue, { turn_id: a.turn_id, text: a.text, label, created_at: a.at }] };
}

/// The approvals of the conversation as listed when the page opened: the pending ones wait on their calls, the decided
/// ones say on their calls who allowed or denied them.
/** @param {ChatState} state @param {Approval[]} approvals @returns {ChatState} */
function approvalsListed(state, approvals) {
  let next = state;
  for (const a of approvals) {
    const call = a.tool_use_id ? next.tools[a.tool_use_id] : undefined;
    if (a.state === 'pending') {
      const approval = normalizeApproval(a, state.conversation.id);
      next = { ...next, pendingApprovals: [...next.pendingApprovals.filter((p) => p.id !== approval.id), approval] };
      if (call) next = { ...next, tools: putTool(next.tools, { ...call, approval }) };
    } else if (call) {
      const decision = { decision: a.state === 'cancelled' ? 'cancelled' : a.decision, decided_by: a.decided_by, decision_message: a.message };
      next = { ...next, tools: putTool(next.tools, mergeTool(call, decision)) };
    }
  }
  return next;
}

/// Tool calls of the history without a result: only the last turn's can still be running (and none when idle).
/** @param {ChatState} state @returns {ChatState} */
function settleHistory(state) {
  let lastTurn = null;
  for (const item of state.items) if (isMessage(item) && item.turn_id) lastTurn = item.turn_id;
  return { ...state, tools: markStale(state.tools, (call) => state.status === 'idle' || call.turn !== lastTurn) };
}

/// The message ids whose stored text the page must read: items that became partial with an id (joined mid-segment).
/** @param {ChatState} before @param {ChatState} after @returns {string[]} */
export function idsToReconcile(before, after) {
  /** @type {Map<string, ChatItem>} */
  const old = new Map(before.items.map((item) => [item.key, item]));
  const ids = [];
  for (const item of after.items) {
    if (!isMessage(item) || !item.partial || item.streaming || !item.id) continue;
    const was = old.get(item.key);
    if (!was || !isMessage(was) || !was.partial || was.streaming || !was.id) ids.push(item.id);
  }
  return ids;
}

/// What a screen reader hears about an event, or null.
/** @param {ChatState} before @param {string} name @param {any} d */
export function announcementFor(before, name, d) {
  const agent = agentName(before.conversation.backend);
  switch (name) {
    case 'turn_start':
      return d.origin === 'agent' && findMessage(before.items, d.message_id) < 0 ? agent + ' went on by itself: ' + d.text : null;
    case 'permission_required':
      return agent + ' asks to use ' + (d.tool_name || d.name || 'Tool') + '.';
    case 'permission_resolved': {
      const approval = before.pendingApprovals.find((a) => a.id === d.approval_id);
      return approval ? approval.tool_name + ' ' + decisionWords(d.decision) + '.' : null;
    }
    case 'complete':
      return agent + ' finished' + (d.stop_reason === 'interrupted' ? ' (interrupted).' : '.');
    default:
      return null;
  }
}

/// Whether a turn is running or queued (the composer shows Steer and Interrupt).
/** @param {ChatState} state */
export const isRunning = (state) => state.status !== 'idle';

/// The first pending approval not dismissed, to open the sheet for.
/** @param {ChatState} state @param {Set<string>} dismissed @returns {Approval | undefined} */
export function nextApproval(state, dismissed) {
  return state.pendingApprovals.find((a) => !dismissed.has(a.id));
}
