// @ts-check
// The chat transcript drawn from the chat state: one element per item (kept by its key and updated in place, never
// rebuilt while it lives, so focus, open details and scroll anchors survive), the tool calls in their messages, and
// the queued messages below the transcript.

import { h, render } from '../ui.js';
import { clockTime, dateTime, money, tokensText } from '../format.js';
import { formatText } from './rich-text.js';
import { ToolView } from './tool-view.js';
import { agentName } from '../words/agents.js';

/** @typedef {import('../state/chat.js').ChatState} ChatState */
/** @typedef {import('../state/chat-items.js').ChatItem} ChatItem */
/** @typedef {import('../state/chat-items.js').MessageItem} MessageItem */
/** @typedef {import('../state/chat-items.js').QueuedMessage} QueuedMessage */
/** @typedef {import('../words/approval.js').Approval} Approval */

const NOTE_PREVIEW = 400;
/** @param {'user' | 'assistant' | 'system'} role @param {string} agent who answers: Claude, Codex */
const roleLabel = (role, agent) => (role === 'user' ? 'You' : role === 'assistant' ? agent : 'System');

/** @param {MessageItem} m */
function metaFor(m) {
  /** @type {Array<string | Node>} */
  const bits = [h('time', { datetime: m.created_at || '', title: dateTime(m.created_at) }, clockTime(m.created_at))];
  const cost = money(m.cost_usd);
  if (cost) bits.push(' · ', cost);
  const tokens = tokensText(m.usage);
  if (tokens) bits.push(' · ', tokens);
  return bits;
}

/// A turn the agent started by itself (its text says what woke it), or another stored system message: a small note.
/** @param {MessageItem} m @param {string} agent */
function systemNote(m, agent) {
  const full = m.text || '';
  const shown = h('span', { class: 'system-note-text' }, full.length > NOTE_PREVIEW ? full.slice(0, NOTE_PREVIEW) + '…' : full);
  const note = h('div', { class: 'system-note', 'data-test': 'system-note', role: 'note' },
    h('span', { class: 'system-note-icon', 'aria-hidden': 'true' }, '\u21BB'), shown);
  if (full.length > NOTE_PREVIEW) {
    note.append(h('button', {
      type: 'button', class: 'btn small ghost', 'aria-label': 'Show the whole note',
      onclick: (/** @type {Event} */ event) => { shown.textContent = full; /** @type {HTMLElement} */ (event.currentTarget).remove(); },
    }, 'Show all'));
  }
  return h('article', {
    class: 'msg msg-system', 'data-test': 'message', 'data-role': 'system', 'data-id': m.id || null, 'data-turn': m.turn_id || null,
    'aria-label': 'Note',
  }, note, h('div', { class: 'msg-meta' }, metaFor(m), ' · ', agent + ' went on by itself'));
}

/** @param {MessageItem} m @param {string} agent */
function messageArticle(m, agent) {
  if (m.role === 'system') return systemNote(m, agent);
  return h('article', {
    class: 'msg msg-' + m.role, 'data-test': 'message', 'data-role': m.role, 'data-turn': m.turn_id || null, 'aria-label': roleLabel(m.role, agent),
  },
  h('div', { class: 'msg-bubble' }, h('div', { class: 'msg-text' })),
  h('div', { class: 'msg-tools' }),
  h('div', { class: 'msg-meta' }));
}

/// Brings a message's element up to date with its item.
/** @param {HTMLElement} article @param {MessageItem} m @param {MessageItem | null} before */
function updateArticle(article, m, before) {
  if (m.id) article.dataset.id = m.id;
  else delete article.dataset.id;
  if (m.streaming) article.dataset.streaming = 'true';
  else delete article.dataset.streaming;
  article.classList.toggle('partial', m.partial);
  article.classList.toggle('incomplete', m.incomplete);
  const body = /** @type {HTMLElement} */ (article.querySelector('.msg-text'));
  if (!before || before.text !== m.text || before.streaming !== m.streaming) {
    body.classList.toggle('plain', m.streaming);
    // While streaming, plain text (a chunk may cut a fence in two); formatted once the segment is stored.
    render(body, ...(m.streaming || m.role !== 'assistant' ? [m.text] : formatText(m.text)));
    /** @type {HTMLElement} */ (article.querySelector('.msg-bubble')).hidden = !m.text;
  }
  if (!before || before.turnMeta !== m.turnMeta || before.created_at !== m.created_at || before.cost_usd !== m.cost_usd) {
    const meta = /** @type {HTMLElement} */ (article.querySelector('.msg-meta'));
    if (m.turnMeta) {
      render(meta, h('time', { datetime: '', title: dateTime(m.turnMeta.at) }, clockTime(m.turnMeta.at)), ' · ',
        h('div', { class: 'turn-meta', 'data-test': 'turn-meta' }, m.turnMeta.text));
    } else {
      render(meta, metaFor(m));
    }
  }
}

/** @param {ChatItem} item */
function otherItem(item) {
  if (item.kind === 'error') {
    return h('div', { class: 'banner error turn-error', role: 'alert', 'data-test': 'turn-error' },
      h('strong', {}, 'The turn failed: '), item.message,
      item.recoverable ? h('div', { class: 'small' }, 'Send another message to carry on (the session is resumed).') : null);
  }
  return h('div', { class: 'msg-aside' }, h('div', { class: 'turn-meta', 'data-test': 'turn-meta' }, /** @type {any} */ (item).text));
}

/** @param {QueuedMessage} q @param {string} agent */
function queuedArticle(q, agent) {
  const m = /** @type {MessageItem} */ ({ key: '', kind: 'message', role: 'user', text: q.text, turn_id: q.turn_id, created_at: q.created_at,
    toolIds: [], streaming: false, partial: false, incomplete: false, turnMeta: null, id: undefined });
  const article = messageArticle(m, agent);
  updateArticle(article, m, null);
  article.classList.add('pending');
  article.dataset.pending = 'true';
  /** @type {HTMLElement} */ (article.querySelector('.msg-meta')).append(' · ', h('span', { class: 'queued-label' }, q.label));
  return article;
}

export class TranscriptView {
  /** @param {{operator: boolean, onReview: (approval: Approval) => void, backend?: string}} options */
  constructor(options) {
    this.agent = agentName(options.backend);
    this.options = { ...options, agent: this.agent };
    this.element = h('div', { class: 'transcript', 'data-test': 'messages', role: 'log', 'aria-label': 'Messages', 'aria-live': 'polite', 'aria-relevant': 'additions' });
    // Messages sent but not started yet (queued behind the running turn): they join the transcript when their turn starts.
    this.queueBox = h('div', { class: 'queue-box', role: 'group', 'aria-label': 'Queued messages' });
    /** @type {Map<string, {item: ChatItem, element: HTMLElement}>} */
    this.entries = new Map();
    /** @type {Map<string, ToolView>} */
    this.tools = new Map();
    /** @type {Map<string, {q: QueuedMessage, element: HTMLElement}>} */
    this.queued = new Map();
  }

  /** @param {ChatState} state */
  update(state) {
    const keep = new Set(state.items.map((item) => item.key));
    for (const [key, entry] of this.entries) {
      if (!keep.has(key)) {
        entry.element.remove();
        this.entries.delete(key);
      }
    }
    /** @type {ChildNode | null} */
    let expected = this.element.firstChild;
    for (const item of state.items) {
      const element = this.drawItem(item);
      if (expected !== element) this.element.insertBefore(element, expected);
      expected = element.nextSibling;
      if (item.kind === 'message') this.drawTools(item, element, state);
    }
    this.drawQueue(state.queue);
  }

  /** @param {ChatItem} item @returns {HTMLElement} */
  drawItem(item) {
    const entry = this.entries.get(item.key);
    if (entry && entry.item === item) return entry.element;
    let element = entry ? entry.element : null;
    if (item.kind === 'message' && item.role !== 'system') {
      if (!element) element = messageArticle(item, this.agent);
      updateArticle(element, item, entry ? /** @type {MessageItem} */ (entry.item) : null);
    } else {
      const fresh = item.kind === 'message' ? systemNote(item, this.agent) : otherItem(item);
      if (element) element.replaceWith(fresh);
      element = fresh;
    }
    this.entries.set(item.key, { item, element });
    return element;
  }

  /** @param {MessageItem} item @param {HTMLElement} article @param {ChatState} state */
  drawTools(item, article, state) {
    const box = article.querySelector('.msg-tools');
    if (!box) return;
    for (const id of item.toolIds) {
      const call = state.tools[id];
      if (!call) continue;
      let view = this.tools.get(id);
      if (!view) {
        view = new ToolView(call, this.options);
        this.tools.set(id, view);
      } else {
        view.update(call);
      }
      if (view.element.parentNode !== box) box.append(view.element);
    }
  }

  /** @param {QueuedMessage[]} queue */
  drawQueue(queue) {
    const keep = new Set(queue.map((q) => q.turn_id));
    for (const [turn, entry] of this.queued) {
      if (!keep.has(turn)) {
        entry.element.remove();
        this.queued.delete(turn);
      }
    }
    for (const q of queue) {
      if (this.queued.has(q.turn_id)) continue;
      const element = queuedArticle(q, this.agent);
      this.queued.set(q.turn_id, { q, element });
      this.queueBox.append(element);
    }
  }
}
