// One conversation with Claude Code (`#/chats/<id>`): the transcript (newest page, "Load earlier" for older ones),
// the live stream of the running turn (text deltas, tool calls, approvals, cost, API retries), the composer with
// queue / steer / interrupt for operators, the approval sheet, the permissions panel (mode, CLI version, session rules
// with Revoke) and the auto-reply panel. A turn the agent starts by itself opens with a system note.
//
// The stream starts right after the page of messages it was read with (`last_event_id`) and resumes after the last
// event seen (ids only grow), so a reconnect or a server restart shows nothing twice and loses nothing.

import { api, seg } from '../api.js';
import { openStream, globalEvents } from '../stream.js';
import { h, render, toast, showError, confirmDialog, badge, field, busy } from '../ui.js';
import { clockTime, dateTime, duration, number } from '../format.js';
import { openApprovalSheet } from '../components/approval-sheet.js';
import { toolSummary, prettyJSON, normalizeApproval, decisionWords } from '../words/approval.js';
import { conversationTitle, retryText } from '../words/conversation.js';
import { statusBadge, conversationMenu, renameSheet } from '../components/conversation-sheets.js';
import { buildPermissionsPanel } from '../components/permissions-panel.js';

const MAX_TEXT_BYTES = 100000;
const OUTPUT_PREVIEW = 4000;
const NOTE_PREVIEW = 400;

// MARK: - Rendering helpers

/// Light formatting of a reply: ``` fenced blocks become code blocks, `inline code` and **bold** are kept; the rest is
/// text with its line breaks. Built with DOM nodes only (never parsed as HTML).
function formatText(text) {
  const out = [];
  const fence = /```([^\n`]*)\n?([\s\S]*?)(?:```|$)/g;
  let last = 0;
  let match;
  while ((match = fence.exec(text)) !== null) {
    if (match.index > last) out.push(...paragraphs(text.slice(last, match.index)));
    out.push(h('pre', { class: 'code-block', 'data-lang': match[1].trim() || null }, h('code', {}, match[2].replace(/\n$/, ''))));
    last = fence.lastIndex;
    if (match[0].length === 0) break;
  }
  if (last < text.length) out.push(...paragraphs(text.slice(last)));
  return out;
}

function paragraphs(text) {
  return text.split(/\n{2,}/).filter((p) => p.trim()).map((p) => h('p', {}, inline(p.replace(/^\n+|\n+$/g, ''))));
}

function inline(text) {
  const parts = [];
  const pattern = /`([^`\n]+)`|\*\*([^*\n]+)\*\*/g;
  let last = 0;
  let match;
  while ((match = pattern.exec(text)) !== null) {
    if (match.index > last) parts.push(text.slice(last, match.index));
    parts.push(match[1] !== undefined ? h('code', {}, match[1]) : h('strong', {}, match[2]));
    last = pattern.lastIndex;
  }
  if (last < text.length) parts.push(text.slice(last));
  return parts;
}

function money(usd) {
  if (usd === null || usd === undefined || Number.isNaN(Number(usd))) return null;
  const n = Number(usd);
  return '$' + (n < 0.01 ? n.toFixed(4) : n.toFixed(2));
}

function tokens(usage) {
  if (!usage) return null;
  const total = (usage.input_tokens || 0) + (usage.output_tokens || 0) + (usage.cache_creation_input_tokens || 0) + (usage.cache_read_input_tokens || 0);
  return total ? number(total) + ' tokens' : null;
}

function bytes(text) {
  return new TextEncoder().encode(text).length;
}

const TOOL_STATES = {
  running: ['running', 'running'],
  awaiting: ['needs approval', 'awaiting_approval'],
  done: ['done', 'complete'],
  error: ['error', 'error'],
  denied: ['denied', 'denied'],
  cancelled: ['cancelled', 'stopped'],
  stale: ['no result', 'stopped'],
};

// MARK: - Screen

export async function mount(view, params, app) {
  const id = params[0];
  const operator = app.can('operator');
  const base = '/api/conversations/' + seg(id);

  let conversation;
  let page;
  try {
    [conversation, page] = await Promise.all([api.get(base), api.get(base + '/messages')]);
  } catch (error) {
    if (error.status === 404) {
      app.setTitle('Conversation not found');
      render(view, h('div', { class: 'empty' },
        h('p', {}, 'This conversation does not exist any more (it may have been deleted).'),
        h('a', { class: 'btn', href: '#/chats' }, 'All conversations')));
      return undefined;
    }
    throw error;
  }

  // State.
  const messages = new Map(); // message id → article
  const tools = new Map(); // tool_use_id → tool block api
  const streams = new Map(); // turn id → {article, textNode, text, partial}
  const pendingByTurn = new Map(); // turn id → article of a message not started yet (queued)
  const userByTurn = new Map(); // turn id → user article
  const pendingApprovals = new Map(); // approval id → approval
  const allowedByRule = new Map(); // tool_use_id → decision, for a call a rule allowed before its tool_start arrived
  const dismissedApprovals = new Set();
  const boundaries = new Set(); // turns whose segment start this page saw
  const loadedWhileRunning = conversation.status !== 'idle';
  let status = conversation.status || 'idle';
  let queued = conversation.queued || 0;
  let silentSecs = null;
  let retry = conversation.retry || null;
  let cursor = page.next_cursor;
  let removed = false;
  let stream = null;
  let sheet = null; // the open approval sheet
  const cleanups = [];

  // MARK: Header

  const titleText = h('span', { class: 'chat-title-text' }, conversationTitle(conversation));
  const statusSlot = h('span', { 'data-test': 'chat-status', class: 'chat-status' });
  const queuedText = h('span', { class: 'muted small', 'data-test': 'chat-queued' });
  const streamState = h('span', { class: 'stream-state', 'data-test': 'stream-state' }, 'connecting');
  const streamDot = h('span', { class: 'conn-dot', 'aria-hidden': 'true' });
  const streamBox = h('span', { class: 'conn stream-conn', 'data-state': 'connecting', title: 'Live updates of this conversation' },
    streamDot, h('span', { class: 'sr-only' }, 'Stream: '), streamState);
  const reconnects = h('span', { class: 'muted small', 'data-test': 'reconnects', hidden: true });
  const costText = h('span', { class: 'muted small', 'data-test': 'chat-cost' });
  const metaLine = h('div', { class: 'chat-meta muted small' });
  const titleEdit = operator
    ? h('button', {
      type: 'button', class: 'icon-btn small-icon', 'aria-label': 'Rename conversation', 'data-test': 'chat-rename-button',
      onclick: async () => {
        const updated = await renameSheet(conversation);
        if (updated) applyConversation(updated);
      },
    }, '\u270E')
    : null;
  const moreButton = operator
    ? h('button', {
      type: 'button', class: 'btn small ghost', 'aria-label': 'Conversation actions: pin, archive, delete', 'data-test': 'chat-actions',
      onclick: () => conversationMenu(conversation, (updated) => {
        if (updated) applyConversation(updated);
        else app.navigate('#/chats');
      }),
    }, 'More \u22EF')
    : null;
  const header = h('header', { class: 'card chat-head' },
    h('div', { class: 'chat-head-row' },
      h('h2', { class: 'chat-title' }, titleText),
      titleEdit,
      moreButton),
    metaLine,
    h('div', { class: 'chat-head-row chat-state' }, statusSlot, queuedText, h('span', { class: 'grow' }), costText, streamBox, reconnects));

  function applyConversation(c) {
    conversation = { ...conversation, ...c };
    titleText.textContent = conversationTitle(conversation);
    app.setTitle(conversationTitle(conversation));
    render(metaLine,
      h('span', { class: 'mono', title: conversation.cwd }, conversation.cwd),
      conversation.model ? [' · ', 'model ', conversation.model] : null,
      (conversation.agent_permission_mode || conversation.permission_mode || 'default') !== 'default'
        ? [' · ', conversation.agent_permission_mode || conversation.permission_mode] : null,
      conversation.pinned ? [' · ', h('span', {}, '\u2605 pinned')] : null,
      conversation.archived ? [' · ', badge('archived', 'archived')] : null);
    const cost = money(conversation.total_cost_usd);
    costText.textContent = conversation.total_cost_usd ? 'total ' + cost : '';
  }

  function setStatus(next, info = {}) {
    status = next || 'idle';
    if (info.queued !== undefined) queued = info.queued;
    silentSecs = info.silent_secs ?? null;
    retry = status === 'retrying' ? info.retry || retry : null;
    render(statusSlot, statusBadge(status));
    queuedText.textContent = queued > 0 ? queued + ' queued' : '';
    const running = status !== 'idle';
    streamingBar.hidden = !running;
    streamingLabel.textContent = status === 'awaiting_approval' ? 'Waiting for an approval…'
      : status === 'stalled' ? 'No output for ' + duration(silentSecs || 0) + ' — the turn may be stuck; you can interrupt it.'
        : status === 'retrying' ? retryText(retry)
          : 'Claude is working…';
    streamingBar.dataset.status = status;
    transcript.setAttribute('aria-busy', running && status === 'running' ? 'true' : 'false');
    if (composer) composer.setRunning(running);
  }

  // MARK: Transcript

  const transcript = h('div', { class: 'transcript', 'data-test': 'messages', role: 'log', 'aria-label': 'Messages', 'aria-live': 'polite', 'aria-relevant': 'additions' });
  const emptyNote = h('p', { class: 'empty chat-empty' }, operator ? 'No messages yet. Write the first one below.' : 'No messages yet.');
  const loadEarlier = h('button', { type: 'button', class: 'btn ghost block', 'data-test': 'load-earlier', hidden: !page.has_more }, 'Load earlier messages');
  const streamingLabel = h('span', { 'data-test': 'status-line' }, 'Claude is working…');
  const streamingBar = h('div', { class: 'streaming', 'data-test': 'streaming', role: 'status', hidden: true },
    h('span', { class: 'dots', 'aria-hidden': 'true' }, h('span', {}), h('span', {}), h('span', {})), streamingLabel);
  const announcer = h('div', { class: 'sr-only', role: 'status', 'aria-live': 'polite' });
  // Messages sent but not started yet (queued behind the running turn): they join the transcript when their turn starts.
  const queueBox = h('div', { class: 'queue-box', role: 'group', 'aria-label': 'Queued messages' });

  function nearBottom() {
    return window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 160;
  }
  function toBottom() {
    window.scrollTo(0, document.documentElement.scrollHeight);
  }
  /// Runs a DOM change, then follows the end of the transcript if the reader was already there.
  function follow(change) {
    const stick = nearBottom();
    const result = change();
    emptyNote.hidden = transcript.children.length > 0;
    if (stick) toBottom();
    return result;
  }

  function metaFor(m) {
    const bits = [h('time', { datetime: m.created_at || '', title: dateTime(m.created_at) }, clockTime(m.created_at))];
    const cost = money(m.cost_usd);
    if (cost) bits.push(' · ', cost);
    const t = tokens(m.usage);
    if (t) bits.push(' · ', t);
    return bits;
  }

  /// A turn the agent started by itself (its text says what woke it), or another stored system message: a small note.
  function systemNote(m) {
    const full = m.text || '';
    const shown = h('span', { class: 'system-note-text' }, full.length > NOTE_PREVIEW ? full.slice(0, NOTE_PREVIEW) + '…' : full);
    const article = h('article', {
      class: 'msg msg-system', 'data-test': 'message', 'data-role': 'system', 'data-id': m.id || null, 'data-turn': m.turn_id || null,
      'aria-label': 'Note',
    },
    h('div', { class: 'system-note', 'data-test': 'system-note', role: 'note' },
      h('span', { class: 'system-note-icon', 'aria-hidden': 'true' }, '\u21BB'), shown),
    h('div', { class: 'msg-meta' }, metaFor(m), ' · ', 'Claude went on by itself'));
    if (full.length > NOTE_PREVIEW) {
      article.querySelector('.system-note').append(h('button', {
        type: 'button', class: 'btn small ghost', 'aria-label': 'Show the whole note',
        onclick: (event) => { shown.textContent = full; event.currentTarget.remove(); },
      }, 'Show all'));
    }
    article._text = full;
    if (m.id) messages.set(m.id, article);
    return article;
  }

  function messageArticle(m) {
    if (m.role === 'system') return systemNote(m);
    const role = m.role === 'user' ? 'user' : m.role === 'assistant' ? 'assistant' : 'system';
    const body = h('div', { class: 'msg-text' });
    if (m.text) body.append(...(role === 'assistant' ? formatText(m.text) : [m.text]));
    const article = h('article', {
      class: 'msg msg-' + role, 'data-test': 'message', 'data-role': role, 'data-id': m.id || null, 'data-turn': m.turn_id || null,
      'aria-label': role === 'user' ? 'You' : role === 'assistant' ? 'Claude' : 'System',
    },
    h('div', { class: 'msg-bubble', hidden: !m.text }, body),
    h('div', { class: 'msg-tools' }),
    h('div', { class: 'msg-meta' }, metaFor(m)));
    article._text = m.text || '';
    for (const call of m.tool_calls || []) addTool(article, call);
    if (m.id) messages.set(m.id, article);
    if (role === 'user' && m.turn_id) userByTurn.set(m.turn_id, article);
    return article;
  }

  function setArticleText(article, text, formatted = true) {
    article._text = text;
    const bubble = article.querySelector('.msg-bubble');
    const body = article.querySelector('.msg-text');
    render(body, ...(formatted && article.dataset.role === 'assistant' ? formatText(text) : [text]));
    bubble.hidden = !text;
  }

  function lastAssistantOfTurn(turnId) {
    const all = transcript.querySelectorAll('article.msg-assistant[data-turn="' + CSS.escape(turnId) + '"]');
    return all.length ? all[all.length - 1] : null;
  }

  /// The article of a stored assistant message; created (empty) when a tool call arrives for a segment without text.
  function ensureAssistant(messageId, turnId) {
    if (messageId && messages.has(messageId)) return messages.get(messageId);
    const s = streams.get(turnId);
    if (s) {
      finishSegment(turnId, messageId);
      if (messageId && messages.has(messageId)) return messages.get(messageId);
    }
    return follow(() => {
      const article = messageArticle({ id: messageId, role: 'assistant', text: '', turn_id: turnId, created_at: new Date().toISOString() });
      transcript.append(article);
      return article;
    });
  }

  // Tool blocks.

  function addTool(article, call) {
    const key = call.tool_use_id;
    if (key && tools.has(key)) {
      const existing = tools.get(key);
      existing.update(call);
      return existing;
    }
    const summaryText = h('span', { class: 'tool-sum mono' });
    const stateSlot = h('span', { class: 'tool-state' });
    const inputPre = h('pre', { class: 'json' });
    const outputBox = h('div', { class: 'tool-output-box' });
    const approvalBar = h('div', { class: 'tool-approval', hidden: true });
    const details = h('details', { class: 'tool-details' },
      h('summary', {}, h('span', { class: 'tool-icon', 'aria-hidden': 'true' }, '\u2699'), h('span', { class: 'tool-name' }, call.name || 'tool'), summaryText, stateSlot),
      h('div', { class: 'tool-body' }, h('h4', {}, 'Input'), inputPre, outputBox));
    const block = h('div', { class: 'tool', 'data-test': 'tool-call', 'data-tool-use-id': key || '' }, details, approvalBar);
    const data = { ...call, ...(allowedByRule.get(key) || {}), turn: call.turn_id || article.dataset.turn || null };
    allowedByRule.delete(key);
    const api_ = {
      element: block,
      data,
      update(next) {
        Object.assign(data, Object.fromEntries(Object.entries(next).filter(([, v]) => v !== undefined)));
        draw();
      },
      setApproval(approval) {
        data.approval = approval;
        draw();
      },
    };
    function state() {
      if (data.output !== undefined && data.output !== null) {
        if (data.is_error) return data.decision === 'deny' ? 'denied' : 'error';
        return 'done';
      }
      if (data.decision === 'deny') return 'denied';
      if (data.decision === 'cancelled') return 'cancelled';
      if (data.approval) return 'awaiting';
      if (data.stale) return 'stale';
      return 'running';
    }
    function draw() {
      const s = state();
      block.dataset.state = s;
      summaryText.textContent = toolSummary(data.name, data.input);
      const [word, kind] = TOOL_STATES[s];
      render(stateSlot, badge(word, kind));
      inputPre.textContent = prettyJSON(data.input) || '(no input)';
      render(outputBox);
      if (data.decision && typeof data.decided_by === 'string' && data.decided_by.startsWith('rule ')) {
        outputBox.append(h('p', { class: 'tool-decision small muted', 'data-test': 'tool-decision' },
          'Approval: not asked — ' + (data.decision_message || 'allowed by a session rule') + '.'));
      } else if (data.decision) {
        outputBox.append(h('p', { class: 'tool-decision small muted', 'data-test': 'tool-decision' },
          'Approval: ' + decisionWords(data.decision) + (data.decided_by && data.decided_by !== 'system' ? ' by ' + data.decided_by : ''),
          data.decision_message ? ' — “' + data.decision_message + '”' : ''));
      }
      if (data.output !== undefined && data.output !== null) {
        const full = String(data.output);
        const pre = h('pre', { class: 'tool-output' + (data.is_error ? ' is-error' : '') }, full.length > OUTPUT_PREVIEW ? full.slice(0, OUTPUT_PREVIEW) + '\n…' : full || '(empty)');
        outputBox.append(h('h4', {}, data.is_error ? 'Error' : 'Output'), pre);
        if (full.length > OUTPUT_PREVIEW) {
          outputBox.append(h('button', {
            type: 'button', class: 'btn small ghost', 'aria-label': 'Show the whole output of ' + (data.name || 'the tool'),
            onclick: (event) => { pre.textContent = full; event.currentTarget.remove(); },
          }, 'Show all ' + number(full.length) + ' characters'));
        }
      }
      approvalBar.hidden = s !== 'awaiting';
      if (s === 'awaiting') {
        render(approvalBar,
          h('span', {}, operator ? 'Claude waits for your approval.' : 'Waiting for an operator to approve this.'),
          operator ? h('button', {
            type: 'button', class: 'btn small primary', 'data-test': 'review-approval',
            onclick: () => showApproval(data.approval, true),
          }, 'Review') : null);
      }
    }
    draw();
    if (key) tools.set(key, api_);
    article.querySelector('.msg-tools').append(block);
    return api_;
  }

  // Streaming text.

  function streamFor(turnId) {
    let s = streams.get(turnId);
    if (s) return s;
    const article = messageArticle({ role: 'assistant', text: '', turn_id: turnId, created_at: new Date().toISOString() });
    article.dataset.streaming = 'true';
    const textNode = document.createTextNode('');
    const body = article.querySelector('.msg-text');
    render(body, textNode);
    body.classList.add('plain');
    s = { article, textNode, text: '', partial: loadedWhileRunning && !boundaries.has(turnId) };
    if (s.partial) article.classList.add('partial');
    streams.set(turnId, s);
    transcript.append(article);
    return s;
  }

  /// The text streamed so far is the stored message `messageId`.
  function finishSegment(turnId, messageId, { failed = false } = {}) {
    const s = streams.get(turnId);
    if (!s) return null;
    streams.delete(turnId);
    const { article } = s;
    delete article.dataset.streaming;
    article.querySelector('.msg-text').classList.remove('plain');
    if (messageId && messages.has(messageId) && messages.get(messageId) !== article) {
      // Already on the page (read with the first page): keep that one.
      article.remove();
      return messages.get(messageId);
    }
    if (messageId) {
      article.dataset.id = messageId;
      messages.set(messageId, article);
    }
    setArticleText(article, s.text);
    if (failed) article.classList.add('incomplete');
    if (s.partial && messageId) reconcile([messageId]);
    return article;
  }

  /// The page joined a turn in the middle of a segment: read the stored text of those messages.
  async function reconcile(ids) {
    try {
      const fresh = await api.get(base + '/messages?limit=20');
      for (const m of fresh.items) {
        if (!ids.includes(m.id)) continue;
        const article = messages.get(m.id);
        if (article) {
          article.classList.remove('partial');
          setArticleText(article, m.text);
        }
      }
    } catch { /* the streamed part stays */ }
  }

  function addTurnMeta(turnId, info) {
    const bits = [];
    if (info.stop_reason && info.stop_reason !== 'end_turn') bits.push(info.stop_reason === 'interrupted' ? 'interrupted' : info.stop_reason);
    const cost = money(info.cost_usd);
    if (cost) bits.push(cost);
    if (info.duration_ms !== undefined && info.duration_ms !== null) bits.push((info.duration_ms / 1000).toFixed(1) + ' s');
    const t = tokens(info.usage);
    if (t) bits.push(t);
    if (!bits.length) return;
    const target = (info.message_id && messages.get(info.message_id)) || lastAssistantOfTurn(turnId);
    const line = h('div', { class: 'turn-meta', 'data-test': 'turn-meta' }, bits.join(' · '));
    if (target) {
      render(target.querySelector('.msg-meta'),
        h('time', { datetime: '', title: dateTime(new Date().toISOString()) }, clockTime(new Date().toISOString())), ' · ', line);
    } else {
      follow(() => transcript.append(h('div', { class: 'msg-aside' }, line)));
    }
  }

  /// A turn ended: its tool calls that never got a result will not get one.
  function endTurnTools(turnId) {
    for (const block of tools.values()) {
      if (block.data.turn === turnId && (block.data.output === undefined || block.data.output === null) && !block.data.approval) {
        block.update({ stale: true });
      }
    }
  }

  // MARK: Stream events

  const handlers = {
    turn_start(d) {
      boundaries.add(d.turn_id);
      if (d.message_id && messages.has(d.message_id)) return;
      if (d.origin === 'agent') {
        // Nobody sent this: the agent went on by itself (a background task finished).
        follow(() => transcript.append(messageArticle({ id: d.message_id, role: 'system', text: d.text, turn_id: d.turn_id, created_at: new Date().toISOString() })));
        announcer.textContent = 'Claude went on by itself: ' + d.text;
        return;
      }
      follow(() => {
        const pending = pendingByTurn.get(d.turn_id);
        pendingByTurn.delete(d.turn_id);
        if (pending) pending.remove();
        composer?.turnStarted(d.turn_id);
        const existing = userByTurn.get(d.turn_id);
        if (existing && existing.isConnected) return;
        transcript.append(messageArticle({ id: d.message_id, role: 'user', text: d.text, turn_id: d.turn_id, created_at: new Date().toISOString() }));
      });
    },
    chunk(d) {
      follow(() => {
        const s = streamFor(d.turn_id);
        s.text += d.text;
        s.textNode.data = s.text;
        s.article.querySelector('.msg-bubble').hidden = !s.text;
      });
    },
    segment_end(d) {
      const had = streams.has(d.turn_id);
      const wasBoundary = boundaries.has(d.turn_id);
      boundaries.add(d.turn_id);
      if (had) finishSegment(d.turn_id, d.message_id);
      else if (loadedWhileRunning && !wasBoundary && d.message_id && !messages.has(d.message_id)) {
        // Joined after the last chunk of this segment: show its stored text.
        const article = ensureAssistant(d.message_id, d.turn_id);
        article.classList.add('partial');
        reconcile([d.message_id]);
      }
    },
    tool_start(d) {
      follow(() => {
        const article = ensureAssistant(d.message_id, d.turn_id);
        addTool(article, { tool_use_id: d.tool_use_id, name: d.name, input: d.input, turn_id: d.turn_id });
      });
    },
    tool_end(d) {
      follow(() => {
        const existing = tools.get(d.tool_use_id);
        if (existing) existing.update({ name: d.name, input: d.input, output: d.output ?? '', is_error: d.is_error, approval: null });
        else addTool(ensureAssistant(d.message_id, d.turn_id), { tool_use_id: d.tool_use_id, name: d.name, input: d.input, output: d.output ?? '', is_error: d.is_error, turn_id: d.turn_id });
      });
    },
    permission_required(d) {
      const approval = normalizeApproval({ ...d, state: 'pending', created_at: d.created_at || new Date().toISOString() }, id);
      pendingApprovals.set(approval.id, approval);
      const block = d.tool_use_id && tools.get(d.tool_use_id);
      if (block) block.setApproval(approval);
      announcer.textContent = 'Claude asks to use ' + approval.tool_name + '.';
      if (operator) {
        // The list has its reason; the event does not.
        api.get('/api/approvals?conversation=' + encodeURIComponent(id)).then((list) => {
          const full = list.approvals.find((a) => a.id === approval.id);
          if (full && pendingApprovals.has(full.id)) pendingApprovals.set(full.id, { ...approval, ...full });
        }).catch(() => {}).finally(() => nextApproval());
      }
    },
    permission_resolved(d) {
      const approval = pendingApprovals.get(d.approval_id);
      pendingApprovals.delete(d.approval_id);
      if (!approval && typeof d.by === 'string' && d.by.startsWith('rule ')) {
        // Allowed by a session rule, without asking: say so on its tool call.
        markAllowedByRule(d);
        return;
      }
      for (const block of tools.values()) {
        if (block.data.approval && block.data.approval.id === d.approval_id) {
          block.update({ decision: d.decision, decided_by: d.by, decision_message: d.message });
          block.setApproval(null);
        }
      }
      if (sheet && sheet.id === d.approval_id) sheet.resolved(d);
      if (approval) announcer.textContent = approval.tool_name + ' ' + decisionWords(d.decision) + '.';
    },
    complete(d) {
      if (streams.has(d.turn_id)) finishSegment(d.turn_id, d.message_id);
      endTurnTools(d.turn_id);
      follow(() => addTurnMeta(d.turn_id, d));
      announcer.textContent = 'Claude finished' + (d.stop_reason === 'interrupted' ? ' (interrupted).' : '.');
    },
    error(d) {
      if (d.turn_id && streams.has(d.turn_id)) finishSegment(d.turn_id, null, { failed: true });
      if (d.turn_id) endTurnTools(d.turn_id);
      follow(() => transcript.append(h('div', { class: 'banner error turn-error', role: 'alert', 'data-test': 'turn-error' },
        h('strong', {}, 'The turn failed: '), d.message || 'unknown error',
        d.recoverable ? h('div', { class: 'small' }, 'Send another message to carry on (the session is resumed).') : null)));
    },
    title_update(d) {
      if (d && d.title) applyConversation({ title: d.title });
    },
    status(d) {
      setStatus(d.status, d);
    },
    auto_reply(d) {
      autoReply.progress(d);
    },
    permissions(d) {
      permissionsPanel.permissions(d);
      if (d.permission_mode) applyConversation({ agent_permission_mode: d.permission_mode });
    },
  };

  /// A call a session rule allowed: the event names its approval, not its tool call; the approval does.
  async function markAllowedByRule(d) {
    try {
      const list = await api.get('/api/approvals?state=allowed&conversation=' + encodeURIComponent(id));
      const found = list.approvals.find((a) => a.id === d.approval_id);
      if (!found || !found.tool_use_id) return;
      const decision = { decision: d.decision, decided_by: d.by, decision_message: d.message || found.message };
      const block = tools.get(found.tool_use_id);
      if (block) block.update(decision);
      else allowedByRule.set(found.tool_use_id, decision); // its tool_start is still to come
    } catch { /* the call still shows; reloading the page says how it was allowed */ }
  }

  // MARK: Approvals

  function showApproval(approval, explicit = false) {
    if (!approval || !operator) return;
    if (sheet && sheet.id === approval.id) return;
    if (sheet) sheet.close();
    if (explicit) dismissedApprovals.delete(approval.id);
    sheet = openApprovalSheet(approval, app, (result) => {
      sheet = null;
      if (result.dismissed) dismissedApprovals.add(approval.id);
      if (result.decided || result.conflict || result.resolved) pendingApprovals.delete(approval.id);
      setTimeout(nextApproval, 0);
    });
  }

  function nextApproval() {
    if (sheet || !operator || removed) return;
    const next = [...pendingApprovals.values()].find((a) => !dismissedApprovals.has(a.id));
    if (next) showApproval(next);
  }

  // MARK: Composer

  let composer = null;
  if (operator) composer = buildComposer();

  function buildComposer() {
    const draftKey = 'ralph.chat.draft.' + id;
    const textarea = h('textarea', {
      'data-test': 'composer', id: 'composer-' + id, rows: 2, 'aria-label': 'Message to Claude',
      placeholder: 'Message Claude…', value: localStorage.getItem(draftKey) || '',
    });
    const error = h('p', { class: 'field-error', role: 'alert', hidden: true });
    const note = h('p', { class: 'composer-note muted small', role: 'status', 'aria-live': 'polite' });
    const send = h('button', { type: 'submit', class: 'btn primary', 'data-test': 'send' }, 'Send');
    const steer = h('button', {
      type: 'button', class: 'btn small', 'data-test': 'steer', hidden: true,
      title: 'Stop the running turn and send this message next', 'aria-label': 'Steer: stop the running turn and send this next',
    }, 'Steer');
    const interrupt = h('button', { type: 'button', class: 'btn small ghost', 'data-test': 'interrupt', hidden: true }, 'Interrupt');
    // Enter sends where there is a keyboard; on touch screens (coarse pointer) it is a new line and the button sends.
    const touch = window.matchMedia('(pointer: coarse)');
    const fine = { get matches() { return !touch.matches; } };
    const hint = h('span', { class: 'composer-hint muted small' });
    const busyHint = h('p', { class: 'composer-busy muted small', hidden: true }, 'Claude is busy: Send queues your message; Steer stops the turn and sends it now.');
    const updateHint = () => {
      hint.textContent = fine.matches ? 'Enter sends · Shift+Enter new line' : '';
      textarea.placeholder = fine.matches ? 'Message Claude… (Enter sends)' : 'Message Claude…';
    };
    updateHint();
    const form = h('form', { class: 'composer', 'aria-label': 'Send a message', novalidate: true },
      note,
      busyHint,
      textarea,
      error,
      h('div', { class: 'composer-actions' }, interrupt, steer, h('span', { class: 'grow' }), send),
      hint);

    const grow = () => {
      textarea.style.height = 'auto';
      textarea.style.height = Math.min(textarea.scrollHeight + 2, Math.round(window.innerHeight * 0.4)) + 'px';
    };
    textarea.addEventListener('input', () => {
      localStorage.setItem(draftKey, textarea.value);
      if (!error.hidden) { error.hidden = true; textarea.setAttribute('aria-invalid', 'false'); }
      grow();
    });
    textarea.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && !event.shiftKey && !event.isComposing && fine.matches) {
        event.preventDefault();
        submit('queue', send);
      }
    });

    function fail(message) {
      error.textContent = message;
      error.hidden = false;
      textarea.setAttribute('aria-invalid', 'true');
      textarea.focus();
    }

    let sending = false;
    let noteTurn = null;
    async function submit(mode, button) {
      if (sending || removed) return;
      const text = textarea.value;
      if (!text.trim()) return fail('Write a message first.');
      if (bytes(text) > MAX_TEXT_BYTES) return fail('The message is too long: at most 100 000 bytes (it has ' + number(bytes(text)) + ').');
      if (text.includes('\u0000')) return fail('The message contains a NUL character.');
      sending = true;
      const original = button.textContent;
      button.disabled = true;
      button.textContent = mode === 'steer' ? 'Steering…' : 'Sending…';
      try {
        const result = await api.post(base + '/messages', { text, mode });
        textarea.value = '';
        localStorage.removeItem(draftKey);
        grow();
        if (!userByTurn.has(result.turn_id) && !boundaries.has(result.turn_id)) {
          follow(() => {
            const article = messageArticle({ role: 'user', text, turn_id: result.turn_id, created_at: new Date().toISOString() });
            article.classList.add('pending');
            article.dataset.pending = 'true';
            article.querySelector('.msg-meta').append(' · ', h('span', { class: 'queued-label' },
              result.queued_position > 0 ? 'queued #' + result.queued_position : mode === 'steer' ? 'steering…' : 'sending…'));
            pendingByTurn.set(result.turn_id, article);
            queueBox.append(article);
          });
        }
        noteTurn = result.turn_id;
        note.textContent = result.queued_position > 0
          ? 'Queued as #' + result.queued_position + ': it is sent when the running turn ends.'
          : mode === 'steer' ? 'Steering: the running turn stops and your message goes next.' : '';
        toBottom();
      } catch (failure) {
        fail(failure.message);
      } finally {
        sending = false;
        button.disabled = false;
        button.textContent = original;
      }
    }

    form.addEventListener('submit', (event) => {
      event.preventDefault();
      submit('queue', send);
    });
    steer.addEventListener('click', () => submit('steer', steer));
    interrupt.addEventListener('click', () => busy(interrupt, 'Interrupting…', async () => {
      try {
        await api.post(base + '/interrupt');
        note.textContent = 'Interrupt sent.';
      } catch (failure) {
        if (failure.status === 409) toast('Nothing to interrupt: ' + failure.message);
        else throw failure;
      }
    }));

    return {
      element: form,
      textarea,
      turnStarted(turnId) {
        if (noteTurn === turnId) { note.textContent = ''; noteTurn = null; }
      },
      setRunning(running) {
        interrupt.hidden = !running;
        steer.hidden = !running;
        busyHint.hidden = !running;
        if (!running && !queued) note.textContent = '';
      },
      disable(message) {
        textarea.disabled = true;
        send.disabled = true;
        steer.hidden = true;
        interrupt.hidden = true;
        note.textContent = message;
      },
    };
  }

  // MARK: Auto-reply panel

  const autoReply = buildAutoReply({ id, base, app, operator });
  const permissionsPanel = buildPermissionsPanel({ base, conversation, operator, me: app.whoami && app.whoami.key_id });

  // MARK: Layout

  render(view, h('section', { class: 'chat', 'aria-label': 'Conversation' },
    header,
    permissionsPanel.element,
    autoReply.element,
    loadEarlier,
    emptyNote,
    transcript,
    streamingBar,
    queueBox,
    announcer,
    composer ? composer.element : h('p', { class: 'muted small viewer-note' }, 'You can read this conversation; sending messages needs an operator key.')));

  applyConversation(conversation);
  for (const m of page.items) transcript.append(messageArticle(m));
  emptyNote.hidden = page.items.length > 0;
  setStatus(status, { queued, retry });
  toBottom();

  loadEarlier.addEventListener('click', async () => {
    if (!cursor) return;
    loadEarlier.disabled = true;
    loadEarlier.textContent = 'Loading…';
    try {
      const older = await api.get(base + '/messages?before=' + encodeURIComponent(cursor));
      const anchor = transcript.firstElementChild;
      const top = anchor ? anchor.getBoundingClientRect().top : 0;
      const fragment = document.createDocumentFragment();
      for (const m of older.items) if (!m.id || !messages.has(m.id)) fragment.append(messageArticle(m));
      transcript.insertBefore(fragment, transcript.firstChild);
      if (anchor) window.scrollBy(0, anchor.getBoundingClientRect().top - top);
      cursor = older.next_cursor;
      loadEarlier.hidden = !older.has_more;
      emptyNote.hidden = transcript.children.length > 0;
    } catch (error) {
      showError(error, 'Earlier messages');
    } finally {
      loadEarlier.disabled = false;
      loadEarlier.textContent = 'Load earlier messages';
    }
  });

  // Approvals of this conversation: the pending ones (asked before the page was opened) open the sheet; the decided
  // ones say on their tool call who allowed or denied it.
  try {
    const list = await api.get('/api/approvals?state=all&conversation=' + encodeURIComponent(id));
    for (const a of list.approvals) {
      const block = a.tool_use_id && tools.get(a.tool_use_id);
      if (a.state === 'pending') {
        const approval = normalizeApproval(a, id);
        pendingApprovals.set(approval.id, approval);
        if (block) block.setApproval(approval);
      } else if (block) {
        block.update({ decision: a.state === 'cancelled' ? 'cancelled' : a.decision, decided_by: a.decided_by, decision_message: a.message });
      }
    }
  } catch (error) {
    showError(error, 'Approvals');
  }

  // Tool calls of the history without a result: only the last turn's can still be running.
  {
    const articles = transcript.querySelectorAll('article.msg[data-turn]');
    const lastTurn = articles.length ? articles[articles.length - 1].dataset.turn : null;
    for (const block of tools.values()) {
      const open = block.data.output === undefined || block.data.output === null;
      if (open && !block.data.approval && (status === 'idle' || block.data.turn !== lastTurn)) block.update({ stale: true });
    }
  }

  // MARK: Live

  let lastInfo = { attempts: 0 };
  const showStreamState = (state, attempts) => {
    streamState.textContent = state;
    streamBox.dataset.state = state;
    reconnects.hidden = !attempts;
    reconnects.textContent = String(attempts);
    reconnects.title = attempts + ' reconnects';
  };
  // The conversation's own `error` event (a failed turn) arrives here like any other; openStream keeps EventSource's
  // connection errors, which share the name, out of it.
  const events = Object.fromEntries(Object.entries(handlers).map(([name, fn]) => [name, (data) => {
    try { fn(data || {}); } catch (error) { console.error(name, error); }
  }]));
  let resumeAfter = page.last_event_id ?? 0;
  let attemptsBefore = 0;
  const startStream = () => {
    stream = openStream(base + '/events?after=' + resumeAfter, {
      events,
      onState(state, info) {
        lastInfo = { ...info, attempts: attemptsBefore + info.attempts };
        showStreamState(state, lastInfo.attempts);
      },
      onEnd() {
        composer?.disable('This conversation has ended.');
      },
    });
  };
  startStream();
  // A page kept in the back/forward cache would keep its stream open, and a few of those use up the browser's
  // connections to the server: close it when the page is hidden that way, resume after the last event on return.
  const onPageHide = () => {
    if (!stream) return;
    if (typeof stream.lastId === 'number') resumeAfter = Math.max(resumeAfter, stream.lastId);
    attemptsBefore = lastInfo.attempts;
    stream.close();
    stream = null;
  };
  const onPageShow = (event) => {
    if (event.persisted && !stream && !removed) startStream();
  };
  window.addEventListener('pagehide', onPageHide);
  window.addEventListener('pageshow', onPageShow);
  cleanups.push(() => {
    window.removeEventListener('pagehide', onPageHide);
    window.removeEventListener('pageshow', onPageShow);
  });

  cleanups.push(globalEvents.on('conversation.updated', (c) => {
    // Title, pin, archive and cost; the status comes from this conversation's own stream (in order with its events).
    if (c && c.id === id) {
      applyConversation(c);
      permissionsPanel.conversationUpdated(c);
    }
  }));
  cleanups.push(globalEvents.on('conversation.removed', (data) => {
    if (!data || data.id !== id) return;
    removed = true;
    stream?.close();
    sheet?.close();
    view.prepend(h('div', { class: 'banner error', role: 'alert' }, 'This conversation was deleted. ', h('a', { href: '#/chats' }, 'All conversations')));
    composer?.disable('The conversation was deleted.');
  }));

  await autoReply.load();
  nextApproval();

  return () => {
    removed = true;
    stream?.close();
    sheet?.close();
    autoReply.destroy();
    permissionsPanel.destroy();
    for (const off of cleanups) off();
  };
}

// MARK: - Auto-reply

const MODES = [
  ['smart_stop', 'Smart stop', 'Stops when a reply looks done (confidence ≥ the minimum) or says so.'],
  ['until_completion', 'Until completion', 'Stops only on an explicit “task complete” (limits still apply).'],
  ['time_based', 'Time based', 'Stops after the maximum minutes.'],
  ['message_based', 'Message based', 'Stops after the maximum number of auto-replies.'],
  ['hybrid', 'Hybrid', 'Stops at the first of time, messages and completion.'],
];
const REASONS = {
  manual: 'stopped by a person', completion: 'the task looks complete', time_limit: 'time limit reached',
  message_limit: 'message limit reached', iteration_limit: 'cycle limit reached', error: 'a turn failed',
  showstopper: 'needs a person', stuck: 'the replies repeat', low_confidence: 'low confidence', approval: 'waiting for an approval',
  confirmation: 'waiting for your go', override: 'you wrote a message', restart: 'the server restarted', deleted: 'conversation deleted',
};
const PRESET_WORDS = {
  careful: 'Careful — stops as soon as it is fairly sure it is done',
  overnight: 'Overnight — up to 8 h until an explicit “task complete”',
  quick: 'Quick — 5 auto-replies, then stop',
  supervised: 'Supervised — every next prompt waits for your go',
};

function buildAutoReply({ base, app, operator }) {
  let settings = null;
  let progress = null;
  let presets = {};
  let dirty = false;
  let refetchTimer = null;
  let tickTimer = null;
  let destroyed = false;

  const stateBadge = h('span', { class: 'ar-state' });
  const summaryText = h('span', { class: 'muted small ar-summary' });
  const progressBox = h('div', { class: 'ar-progress', 'data-test': 'auto-reply-progress', role: 'status', 'aria-live': 'polite' }, 'Loading…');
  const controls = h('div', { class: 'btn-row ar-controls' });
  // A disclosure (not <details>: its closed content still counts as "displayed" for WebDriver and checkers).
  const bodyId = 'auto-reply-body';
  const toggle = h('button', { type: 'button', class: 'ar-toggle', 'aria-expanded': 'false', 'aria-controls': bodyId, 'data-test': 'auto-reply-toggle' },
    h('span', { class: 'ar-title' }, 'Auto-reply'), stateBadge, summaryText, h('span', { class: 'ar-chevron', 'aria-hidden': 'true' }));
  const panelBody = h('div', { class: 'ar-body', id: bodyId, hidden: true }, progressBox);
  const panel = h('section', { class: 'card auto-reply', 'data-test': 'auto-reply', 'aria-label': 'Auto-reply' }, toggle, panelBody);
  if (operator) panelBody.append(controls);
  const setOpen = (open) => {
    panelBody.hidden = !open;
    toggle.setAttribute('aria-expanded', open ? 'true' : 'false');
    panel.classList.toggle('open', open);
  };
  setOpen(localStorage.getItem('ralph.chat.autoReplyOpen') === '1');
  toggle.addEventListener('click', () => {
    const open = panelBody.hidden;
    setOpen(open);
    localStorage.setItem('ralph.chat.autoReplyOpen', open ? '1' : '0');
  });

  // Settings form (operators) or summary (viewers).
  const form = operator ? buildForm() : null;
  const readOnly = operator ? null : h('dl', { class: 'kv ar-settings-view' });
  panelBody.append(form ? form.element : readOnly);

  function buildForm() {
    const preset = h('select', { 'data-test': 'auto-reply-preset' }, h('option', { value: '' }, 'Choose a preset…'));
    const mode = h('select', { 'data-test': 'auto-reply-mode' }, MODES.map(([value, label]) => h('option', { value }, label)));
    const modeHint = h('span', {});
    const maxIterations = h('input', { type: 'number', min: 1, max: 500, step: 1, inputmode: 'numeric', 'data-test': 'auto-reply-max-iterations' });
    const maxMinutes = h('input', { type: 'number', min: 1, max: 480, step: 1, inputmode: 'numeric', 'data-test': 'auto-reply-max-minutes', placeholder: 'no limit' });
    const maxMessages = h('input', { type: 'number', min: 1, max: 100, step: 1, inputmode: 'numeric', 'data-test': 'auto-reply-max-messages', placeholder: 'no limit' });
    const minConfidence = h('input', { type: 'number', min: 0, max: 1, step: 0.05, inputmode: 'decimal', 'data-test': 'auto-reply-min-confidence' });
    const prompt = h('textarea', { rows: 3, 'data-test': 'auto-reply-prompt', placeholder: 'Default: Continue with the task. If everything is finished and verified, say TASK COMPLETE…' });
    const check = (name, label) => {
      const input = h('input', { type: 'checkbox', id: 'ar-' + name, 'data-test': 'auto-reply-' + name.replace(/_/g, '-') });
      return { input, node: h('label', { class: 'check', for: 'ar-' + name }, input, label) };
    };
    const stopOnError = check('stop_on_error', 'Stop when a turn fails');
    const requireConfirmation = check('require_confirmation', 'Ask me before each next prompt');
    const allowOverride = check('allow_override', 'Keep going when I write a message myself');
    const showstopper = check('showstopper_detection', 'Pause when Claude needs a person');
    const asDefault = check('as_default', 'Also use these settings for new conversations in this folder');

    const fields = {
      mode: field('Mode', mode),
      max_iterations: field('Max cycles (1–500)', maxIterations),
      max_minutes: field('Max minutes (1–480)', maxMinutes, 'Time based and hybrid.'),
      max_messages: field('Max messages (1–100)', maxMessages, 'Message based and hybrid.'),
      min_confidence: field('Min confidence (0–1)', minConfidence, 'Smart stop stops at or above it.'),
      'next_prompt.text': field('Next prompt', prompt, 'What is sent after each reply. Empty: the default above.'),
    };
    fields.mode.querySelector('.field-error').before(h('div', { class: 'hint' }, modeHint));
    const formError = h('div', { class: 'banner error', role: 'alert', hidden: true });
    const save = h('button', { type: 'submit', class: 'btn primary', 'data-test': 'auto-reply-save', 'aria-label': 'Save auto-reply settings' }, 'Save settings');
    const savedNote = h('span', { class: 'muted small', role: 'status', 'aria-live': 'polite' });
    const element = h('form', { class: 'ar-form', novalidate: true, 'aria-label': 'Auto-reply settings' },
      h('h3', {}, 'Settings'),
      field('Preset', preset, 'Fills the form; Save or Start to use it.'),
      fields.mode,
      h('div', { class: 'ar-grid' }, fields.max_iterations, fields.max_minutes, fields.max_messages, fields.min_confidence),
      fields['next_prompt.text'],
      stopOnError.node, requireConfirmation.node, allowOverride.node, showstopper.node, asDefault.node,
      formError,
      h('div', { class: 'btn-row' }, save, savedNote));

    const setModeHint = () => { modeHint.textContent = (MODES.find((m) => m[0] === mode.value) || [])[2] || ''; };
    element.addEventListener('input', () => { dirty = true; savedNote.textContent = 'Unsaved changes'; });
    element.addEventListener('change', () => { dirty = true; savedNote.textContent = 'Unsaved changes'; setModeHint(); });
    preset.addEventListener('change', () => {
      const chosen = presets[preset.value];
      if (!chosen) return;
      fill(chosen);
      dirty = true;
      savedNote.textContent = 'Preset “' + preset.value + '” loaded: not saved yet';
    });

    function fill(s) {
      mode.value = s.mode;
      maxIterations.value = s.max_iterations ?? '';
      maxMinutes.value = s.max_minutes ?? '';
      maxMessages.value = s.max_messages ?? '';
      minConfidence.value = s.min_confidence ?? '';
      prompt.value = (s.next_prompt && s.next_prompt.text) || '';
      stopOnError.input.checked = !!s.stop_on_error;
      requireConfirmation.input.checked = !!s.require_confirmation;
      allowOverride.input.checked = !!s.allow_override;
      showstopper.input.checked = !!s.showstopper_detection;
      setModeHint();
    }

    function clearErrors() {
      for (const f of Object.values(fields)) f.setError('');
      formError.hidden = true;
    }

    function intOf(input) {
      const raw = input.value.trim();
      if (!raw) return null;
      const n = Number(raw);
      return Number.isInteger(n) ? n : NaN;
    }

    /// The settings in the form (keeping what it does not show, like the judge), or null after showing the problems.
    function collect() {
      clearErrors();
      const problems = [];
      const s = { ...(settings || {}) };
      s.mode = mode.value;
      const iterations = intOf(maxIterations);
      const minutes = intOf(maxMinutes);
      const messagesMax = intOf(maxMessages);
      const confidence = minConfidence.value.trim() === '' ? 0.8 : Number(minConfidence.value);
      if (iterations === null || Number.isNaN(iterations) || iterations < 1 || iterations > 500) problems.push(['max_iterations', 'A whole number from 1 to 500.']);
      if (Number.isNaN(minutes) || (minutes !== null && (minutes < 1 || minutes > 480))) problems.push(['max_minutes', 'A whole number from 1 to 480, or empty.']);
      if (Number.isNaN(messagesMax) || (messagesMax !== null && (messagesMax < 1 || messagesMax > 100))) problems.push(['max_messages', 'A whole number from 1 to 100, or empty.']);
      if (Number.isNaN(confidence) || confidence < 0 || confidence > 1) problems.push(['min_confidence', 'A number from 0 to 1.']);
      if (s.mode === 'time_based' && minutes === null) problems.push(['max_minutes', 'Time based needs max minutes.']);
      if (s.mode === 'message_based' && messagesMax === null) problems.push(['max_messages', 'Message based needs max messages.']);
      if (s.mode === 'hybrid' && minutes === null && messagesMax === null) problems.push(['max_minutes', 'Hybrid needs max minutes or max messages.']);
      if (bytes(prompt.value) > 10000) problems.push(['next_prompt.text', 'At most 10 000 bytes.']);
      if (problems.length) {
        showProblems(problems);
        return null;
      }
      s.max_iterations = iterations;
      if (minutes === null) delete s.max_minutes; else s.max_minutes = minutes;
      if (messagesMax === null) delete s.max_messages; else s.max_messages = messagesMax;
      s.min_confidence = confidence;
      s.stop_on_error = stopOnError.input.checked;
      s.require_confirmation = requireConfirmation.input.checked;
      s.allow_override = allowOverride.input.checked;
      s.showstopper_detection = showstopper.input.checked;
      const strategy = (settings && settings.next_prompt && settings.next_prompt.strategy) || 'fixed';
      s.next_prompt = prompt.value.trim() ? { strategy, text: prompt.value } : { strategy };
      return s;
    }

    function showProblems(problems) {
      const loose = [];
      for (const [key, message] of problems) {
        if (fields[key]) fields[key].setError(message);
        else loose.push(message);
      }
      render(formError, h('strong', {}, 'Please fix: '), problems.map(([, m]) => m).join(' '));
      formError.hidden = false;
      const invalid = element.querySelector('[aria-invalid="true"]');
      if (invalid) invalid.focus();
    }

    /// Maps the server's `invalid_body: a; b` to the fields it names.
    function serverProblems(error) {
      const text = error.message.replace(/^[a-z_]+:\s*/, '');
      const problems = text.split(/;\s*/).filter(Boolean).map((problem) => {
        const key = Object.keys(fields).find((k) => problem.includes(k))
          || (/time_based|hybrid/.test(problem) ? 'max_minutes' : /message_based/.test(problem) ? 'max_messages' : /mode/.test(problem) ? 'mode' : null);
        return [key, problem];
      });
      showProblems(problems);
    }

    element.addEventListener('submit', async (event) => {
      event.preventDefault();
      const s = collect();
      if (!s) return;
      save.disabled = true;
      save.textContent = 'Saving…';
      try {
        const result = await api.put(base + '/auto-reply' + (asDefault.input.checked ? '?default=true' : ''), s);
        dirty = false;
        savedNote.textContent = 'Saved' + (asDefault.input.checked ? ' (also the default for this folder)' : '');
        apply(result, true);
      } catch (error) {
        if (error.status === 400) serverProblems(error);
        else showError(error, 'Auto-reply settings');
      } finally {
        save.disabled = false;
        save.textContent = 'Save settings';
      }
    });

    return { element, fill, collect, serverProblems, savedNote, presetSelect: preset };
  }

  function apply(status, force = false) {
    if (!status) return;
    if (status.settings) {
      settings = status.settings;
      if (form && (force || !dirty)) form.fill(settings);
      if (readOnly) drawReadOnly();
    }
    if (status.progress) setProgress(status.progress);
  }

  function drawReadOnly() {
    const s = settings;
    const mode = MODES.find((m) => m[0] === s.mode);
    render(readOnly,
      h('dt', {}, 'Mode'), h('dd', { 'data-test': 'auto-reply-mode-view' }, mode ? mode[1] : s.mode),
      h('dt', {}, 'Max cycles'), h('dd', {}, String(s.max_iterations)),
      h('dt', {}, 'Max minutes'), h('dd', {}, s.max_minutes ? String(s.max_minutes) : '—'),
      h('dt', {}, 'Max messages'), h('dd', {}, s.max_messages ? String(s.max_messages) : '—'),
      h('dt', {}, 'Min confidence'), h('dd', {}, String(s.min_confidence)),
      h('dt', {}, 'Next prompt'), h('dd', {}, (s.next_prompt && s.next_prompt.text) || 'the default'));
  }

  function elapsed(p) {
    let secs = p.elapsed_secs || 0;
    if (p.state === 'running' && p.updated_at) secs += Math.max(0, (Date.now() - new Date(p.updated_at).getTime()) / 1000);
    return secs;
  }

  function stat(label, value, test) {
    return h('div', { class: 'stat stat-' + label }, h('div', { class: 'stat-value', 'data-test': test || null }, value), h('div', { class: 'stat-label' }, label));
  }

  function setProgress(p) {
    progress = p;
    const state = p.state || 'stopped';
    render(stateBadge, badge(state, state === 'running' ? 'running' : state === 'paused' ? 'paused' : 'idle'));
    summaryText.textContent = state === 'stopped' && !p.started_at ? 'off'
      : p.iterations + '/' + p.max_iterations + ' cycles' + (p.confidence !== undefined && p.confidence !== null ? ' · ' + Math.round(p.confidence * 100) + '%' : '');
    const reason = state === 'paused' ? p.pause_reason : state === 'stopped' ? p.stop_reason : null;
    render(progressBox,
      h('div', { class: 'stats ar-stats' },
        stat('state', state, 'auto-reply-state'),
        stat('cycles', p.iterations + ' / ' + p.max_iterations),
        stat('messages', p.messages + (p.max_messages ? ' / ' + p.max_messages : '')),
        stat('time', duration(elapsed(p)) + (p.max_minutes ? ' / ' + p.max_minutes + 'm' : ''), 'auto-reply-elapsed'),
        stat('confidence', p.confidence !== undefined && p.confidence !== null ? Math.round(p.confidence * 100) + '%' : '—')),
      reason || p.detail ? h('p', { class: 'ar-reason ' + (state === 'paused' ? 'warn' : '') },
        h('strong', {}, (state === 'paused' ? 'Paused: ' : state === 'stopped' ? 'Stopped: ' : '') + (REASONS[reason] || reason || '')),
        p.detail && p.detail !== REASONS[reason] && !['manual', 'confirmation'].includes(reason) ? [reason ? ' — ' : '', p.detail] : null) : null,
      p.pending_prompt ? h('div', { class: 'ar-pending' }, h('div', { class: 'muted small' }, 'Next prompt, waiting for your go (Resume sends it):'), h('pre', {}, p.pending_prompt)) : null,
      state === 'stopped' && !p.started_at ? h('p', { class: 'muted small' }, operator
        ? 'Auto-reply answers Claude for you, on the server, until the task is done or a limit is reached. Pick the settings below and press Start.'
        : 'Auto-reply is off.') : null);
    if (operator) drawControls(state);
    clearInterval(tickTimer);
    if (state === 'running') {
      tickTimer = setInterval(() => {
        const node = progressBox.querySelector('[data-test="auto-reply-elapsed"]');
        if (node && progress) node.textContent = duration(elapsed(progress)) + (progress.max_minutes ? ' / ' + progress.max_minutes + 'm' : '');
      }, 1000);
    }
  }

  function control(verb, label, kind, test) {
    const button = h('button', { type: 'button', class: 'btn ' + kind, 'data-test': test, 'aria-label': label + ' auto-reply' }, label);
    button.addEventListener('click', () => busy(button, label + '…', async () => {
      let body;
      if (verb === 'start' && dirty && form) {
        body = form.collect();
        if (!body) return;
      }
      if (verb === 'stop') {
        const ok = await confirmDialog({ title: 'Stop auto-reply?', message: 'The loop stops; the running turn (if any) goes on. You can start it again later.', confirm: 'Stop', danger: true });
        if (!ok) return;
      }
      try {
        const result = await api.post(base + '/auto-reply/' + verb, body);
        if (body) { dirty = false; form.savedNote.textContent = 'Saved'; }
        apply(result, !!body);
      } catch (error) {
        if (error.status === 400 && form) form.serverProblems(error);
        else if (error.status === 409) { toast(error.message, 'info', 6000); refetch(); }
        else throw error;
      }
    }));
    return button;
  }

  function drawControls(state) {
    const buttons = [];
    if (state === 'stopped') buttons.push(control('start', 'Start', 'primary', 'auto-reply-start'));
    if (state === 'running') buttons.push(control('pause', 'Pause', '', 'auto-reply-pause'));
    if (state === 'paused') buttons.push(control('resume', progress && progress.pending_prompt ? 'Resume (send it)' : 'Resume', 'primary', 'auto-reply-resume'));
    if (state !== 'stopped') buttons.push(control('stop', 'Stop', 'danger', 'auto-reply-stop'));
    render(controls, ...buttons);
  }

  async function refetch() {
    try {
      apply(await api.get(base + '/auto-reply'));
    } catch (error) {
      if (!destroyed) render(progressBox, h('p', { class: 'field-error' }, 'Auto-reply: ' + error.message));
    }
  }

  return {
    element: panel,
    async load() {
      const [status, list] = await Promise.all([
        api.get(base + '/auto-reply').catch((error) => ({ error })),
        api.get('/api/auto-reply/presets').catch(() => ({})),
      ]);
      presets = list || {};
      if (form) {
        for (const name of Object.keys(presets)) {
          form.presetSelect.append(h('option', { value: name }, PRESET_WORDS[name] || name));
        }
      }
      if (status.error) render(progressBox, h('p', { class: 'field-error' }, 'Auto-reply: ' + status.error.message));
      else apply(status, true);
    },
    /// An `auto_reply` event: show it now, and read the settings again shortly after (a start may have changed them).
    progress(p) {
      setProgress(p);
      clearTimeout(refetchTimer);
      refetchTimer = setTimeout(refetch, 600);
    },
    destroy() {
      destroyed = true;
      clearTimeout(refetchTimer);
      clearInterval(tickTimer);
    },
  };
}
