// Approvals inbox (`#/approvals`): every tool call waiting for a person, across conversations, kept live by the
// global stream. Tap one for the approval sheet; operators can allow or deny several at once.

import { api, seg } from '../api.js';
import { globalEvents } from '../stream.js';
import { h, render, toast, showError, openSheet, badge } from '../ui.js';
import { relTime, dateTime } from '../format.js';
import { openApprovalSheet } from '../components/approval-sheet.js';
import { toolSummary, decisionWords } from '../words/approval.js';
import { conversationTitle } from '../words/conversation.js';

const STATE_BADGE = { pending: 'awaiting_approval', allowed: 'complete', denied: 'denied', cancelled: 'stopped' };

export async function mount(view, _params, app) {
  const operator = app.can('operator');
  const approvals = new Map(); // id → approval
  const rows = new Map(); // id → {li, checkbox, main, state}
  const selected = new Set();
  const conversations = new Map(); // id → conversation | {missing: true} | Promise
  let filter = 'pending';
  let sheet = null;
  let loading = null;
  let disposed = false;
  let loadToken = 0;

  const list = h('ul', { class: 'list approval-list', 'aria-label': 'Approvals' });
  const empty = h('div', { class: 'empty', hidden: true });
  const counter = h('span', { class: 'muted small', role: 'status', 'aria-live': 'polite' });
  const results = h('div', { class: 'card batch-results', hidden: true, role: 'status', 'aria-live': 'polite' });
  const filterButtons = [['pending', 'Waiting'], ['all', 'All, with decided']].map(([value, label]) => h('button', {
    type: 'button', 'aria-pressed': value === filter ? 'true' : 'false', 'data-test': 'approval-filter-' + value,
    onclick: () => setFilter(value),
  }, label));
  const selectAll = h('input', { type: 'checkbox', id: 'approvals-select-all', 'data-test': 'approval-select-all' });
  const allowSelected = h('button', { type: 'button', class: 'btn primary small', 'data-test': 'approve-selected', disabled: true }, 'Allow selected');
  const denySelected = h('button', { type: 'button', class: 'btn danger small', 'data-test': 'deny-selected', disabled: true }, 'Deny selected');
  const batchBar = operator
    ? h('div', { class: 'batch-bar' },
      h('label', { class: 'check', for: 'approvals-select-all' }, selectAll, 'Select all'),
      h('span', { class: 'grow' }),
      allowSelected, denySelected)
    : null;

  render(view,
    h('section', { class: 'approvals', 'aria-labelledby': 'approvals-heading' },
      h('h2', { id: 'approvals-heading', class: 'sr-only' }, 'Approvals'),
      h('div', { class: 'toolbar' },
        h('div', { class: 'segmented grow', role: 'group', 'aria-label': 'Which approvals' }, filterButtons),
        counter),
      batchBar,
      results,
      h('div', { class: 'card approval-card' }, list, empty)));

  // Conversation titles, read once each.
  function conversationOf(id) {
    if (!id) return null;
    const known = conversations.get(id);
    if (known && !(known instanceof Promise)) return known;
    if (!known) {
      const promise = api.get('/api/conversations/' + seg(id))
        .then((c) => { conversations.set(id, c); })
        .catch(() => { conversations.set(id, { id, missing: true }); })
        .finally(() => { for (const a of approvals.values()) if (a.conversation_id === id) drawRow(a); });
      conversations.set(id, promise);
    }
    return null;
  }

  function titleOf(a) {
    const c = conversationOf(a.conversation_id);
    if (!c) return 'a conversation';
    if (c.missing) return 'a deleted conversation';
    return conversationTitle(c);
  }

  function visible() {
    return [...approvals.values()]
      .filter((a) => filter === 'all' || a.state === 'pending')
      .sort((x, y) => String(y.created_at).localeCompare(String(x.created_at)));
  }

  function drawRow(a) {
    let row = rows.get(a.id);
    if (!row) {
      const checkbox = operator ? h('input', { type: 'checkbox', 'data-test': 'approval-select', id: 'sel-' + a.id }) : null;
      checkbox?.addEventListener('change', () => {
        if (checkbox.checked) selected.add(a.id); else selected.delete(a.id);
        updateBatch();
      });
      const main = h('button', { type: 'button', class: 'row-link approval-open', onclick: () => open(a.id) });
      const link = h('a', { class: 'icon-btn approval-chat-link', href: '#/chats/' + encodeURIComponent(a.conversation_id || '') }, '\u2192');
      const li = h('li', { class: 'approval-row', 'data-test': 'approval-row', 'data-id': a.id },
        checkbox ? h('label', { class: 'approval-check', for: checkbox.id }, checkbox, h('span', { class: 'sr-only' }, 'Select')) : null,
        main, link);
      row = { li, checkbox, main, link };
      rows.set(a.id, row);
    }
    const title = titleOf(a);
    const summary = toolSummary(a.tool_name, a.input);
    row.li.dataset.state = a.state;
    render(row.main,
      h('div', { class: 'row-main' },
        h('div', { class: 'row-title' }, h('span', { class: 'tool-name' }, a.tool_name), ' ', h('span', { class: 'mono approval-sum' }, summary)),
        h('div', { class: 'row-sub' }, title, ' · ', h('span', { class: 'approval-age', dataset: { ts: a.created_at || '' }, title: dateTime(a.created_at) }, relTime(a.created_at)))),
      a.state !== 'pending' ? badge(a.state === 'allowed' && a.decision === 'allow_session'
        ? (String(a.decided_by || '').startsWith('rule ') ? 'allowed by a rule' : 'allowed (session)') : a.state, STATE_BADGE[a.state] || a.state) : null);
    row.main.setAttribute('aria-label', a.tool_name + ': ' + summary + ', in ' + title + ', ' + relTime(a.created_at) + (a.state !== 'pending' ? ', ' + a.state : '') + '. Open details');
    row.link.setAttribute('aria-label', 'Open the conversation ' + title);
    row.link.hidden = !a.conversation_id;
    if (row.checkbox) {
      const pending = a.state === 'pending';
      row.checkbox.closest('label').hidden = !pending;
      if (!pending) { row.checkbox.checked = false; selected.delete(a.id); }
      row.checkbox.setAttribute('aria-label', 'Select ' + a.tool_name + ': ' + summary);
    }
    return row;
  }

  function draw() {
    const items = visible();
    const wanted = items.map((a) => drawRow(a).li);
    for (const li of [...list.children]) if (!wanted.includes(li)) li.remove();
    wanted.forEach((li, index) => {
      if (list.children[index] !== li) list.insertBefore(li, list.children[index] || null);
    });
    for (const id of [...selected]) if (!approvals.has(id) || approvals.get(id).state !== 'pending') selected.delete(id);
    const pendingCount = [...approvals.values()].filter((a) => a.state === 'pending').length;
    counter.textContent = pendingCount ? pendingCount + ' waiting' : '';
    empty.hidden = items.length > 0 || loading !== null;
    if (!items.length) {
      render(empty,
        h('p', { class: 'empty-title' }, filter === 'pending' ? 'Nothing is waiting for you' : 'No approvals yet'),
        h('p', {}, 'When Claude asks to run a tool in a conversation, the request shows up here' + (operator ? ' for you to allow or deny.' : '.')));
    }
    if (batchBar) batchBar.hidden = pendingCount === 0;
    updateBatch();
  }

  function updateBatch() {
    if (!operator) return;
    const n = selected.size;
    allowSelected.disabled = n === 0;
    denySelected.disabled = n === 0;
    allowSelected.textContent = n ? 'Allow ' + n : 'Allow selected';
    denySelected.textContent = n ? 'Deny ' + n : 'Deny selected';
    allowSelected.setAttribute('aria-label', n ? 'Allow ' + n + ' selected' : 'Allow selected');
    denySelected.setAttribute('aria-label', n ? 'Deny ' + n + ' selected' : 'Deny selected');
    const pending = visible().filter((a) => a.state === 'pending');
    selectAll.checked = pending.length > 0 && pending.every((a) => selected.has(a.id));
    selectAll.indeterminate = n > 0 && !selectAll.checked;
  }

  selectAll.addEventListener('change', () => {
    for (const a of visible()) {
      if (a.state !== 'pending') continue;
      if (selectAll.checked) selected.add(a.id); else selected.delete(a.id);
      const row = rows.get(a.id);
      if (row && row.checkbox) row.checkbox.checked = selectAll.checked;
    }
    updateBatch();
  });

  function open(id) {
    const a = approvals.get(id);
    if (!a) return;
    if (sheet) sheet.close();
    const c = conversationOf(a.conversation_id);
    sheet = openApprovalSheet(a, app, (result) => {
      sheet = null;
      if (result.decided && result.approval) upsert(result.approval);
      if (result.conflict) load().catch(() => {});
    }, { conversationTitle: c && !c.missing ? conversationTitle(c) : undefined, link: true });
  }

  function upsert(a) {
    if (!a || !a.id) return;
    approvals.set(a.id, { ...(approvals.get(a.id) || {}), ...a });
    draw();
  }

  // Batch decisions.
  async function batch(decision, message) {
    const ids = [...selected].filter((id) => approvals.get(id)?.state === 'pending');
    if (!ids.length) return;
    const body = { ids, decision };
    if (message) body.message = message;
    const asked = new Map(ids.map((id) => [id, approvals.get(id)]));
    const response = await api.post('/api/approvals', body);
    const lines = [];
    let ok = 0;
    for (const r of response.results) {
      const a = asked.get(r.id) || approvals.get(r.id) || { tool_name: r.id, input: null };
      if (r.approval) {
        ok += 1;
        upsert(r.approval);
        lines.push(h('li', { class: 'ok' }, '\u2713 ', h('strong', {}, a.tool_name), ' ', toolSummary(a.tool_name, a.input), ' — ', decisionWords(decision)));
      } else {
        lines.push(h('li', { class: 'failed' }, '\u2717 ', h('strong', {}, a.tool_name), ' ', toolSummary(a.tool_name, a.input), ' — ', r.error || 'not applied'));
      }
      selected.delete(r.id);
    }
    render(results,
      h('div', { class: 'card-head' },
        h('h3', {}, ok + ' of ' + response.results.length + ' ' + decisionWords(decision)),
        h('button', { type: 'button', class: 'icon-btn', 'aria-label': 'Hide the results', onclick: () => { results.hidden = true; } }, '\u2715')),
      h('ul', { class: 'batch-lines', 'data-test': 'batch-results' }, lines));
    results.hidden = false;
    for (const row of rows.values()) if (row.checkbox) row.checkbox.checked = selected.has(row.li.dataset.id);
    draw();
    toast(ok + ' of ' + response.results.length + ' ' + decisionWords(decision));
  }

  function batchSheet(decision) {
    const ids = [...selected];
    if (!ids.length) return;
    const deny = decision === 'deny';
    openSheet({
      title: (deny ? 'Deny ' : 'Allow ') + ids.length + (ids.length === 1 ? ' tool call?' : ' tool calls?'),
      build: (close) => {
        const message = deny ? h('textarea', { id: 'batch-deny-message', rows: 2, 'data-test': 'batch-deny-message', maxlength: 4000, placeholder: 'e.g. Stop and wait for me' }) : null;
        const error = h('p', { class: 'field-error', role: 'alert', hidden: true });
        const confirm = h('button', { type: 'button', class: 'btn ' + (deny ? 'danger' : 'primary'), 'data-test': 'batch-confirm' }, deny ? 'Deny all' : 'Allow all');
        confirm.addEventListener('click', async () => {
          confirm.disabled = true;
          try {
            await batch(decision, message ? message.value.trim() : undefined);
            close(true);
          } catch (failure) {
            error.textContent = failure.message;
            error.hidden = false;
          } finally {
            confirm.disabled = false;
          }
        });
        return h('div', {},
          h('ul', { class: 'batch-preview' }, ids.map((id) => {
            const a = approvals.get(id);
            return a ? h('li', {}, h('strong', {}, a.tool_name), ' ', h('span', { class: 'mono' }, toolSummary(a.tool_name, a.input)), h('span', { class: 'muted small' }, ' · ' + titleOf(a))) : null;
          })),
          deny ? h('div', { class: 'field' }, h('label', { for: 'batch-deny-message' }, 'Message to Claude (optional, sent with each)'), message) : null,
          error,
          h('div', { class: 'btn-row' }, h('button', { type: 'button', class: 'btn ghost', onclick: () => close(false) }, 'Cancel'), confirm));
      },
    });
  }
  allowSelected.addEventListener('click', () => batchSheet('allow'));
  denySelected.addEventListener('click', () => batchSheet('deny'));

  function setFilter(value) {
    filter = value;
    for (const b of filterButtons) b.setAttribute('aria-pressed', b.dataset.test === 'approval-filter-' + value ? 'true' : 'false');
    load().catch((error) => showError(error));
  }

  // Loading: events that arrive while the list is read are applied on top of it.
  const seenDuringLoad = new Map();
  async function load() {
    const token = ++loadToken;
    loading = token;
    seenDuringLoad.clear();
    try {
      const data = await api.get('/api/approvals' + (filter === 'all' ? '?state=all' : ''));
      if (disposed || token !== loadToken) return;
      approvals.clear();
      for (const a of data.approvals) approvals.set(a.id, a);
      for (const [id, a] of seenDuringLoad) approvals.set(id, { ...(approvals.get(id) || {}), ...a });
      if (filter === 'pending') for (const [id, a] of [...approvals]) if (a.state !== 'pending') approvals.delete(id);
    } finally {
      if (token === loadToken) loading = null;
    }
    draw();
  }

  function onEvent(a) {
    if (!a || !a.id) return;
    if (loading !== null) seenDuringLoad.set(a.id, a);
    if (a.state !== 'pending' && sheet && sheet.id === a.id) sheet.resolved({ decision: a.state === 'cancelled' ? 'cancelled' : a.decision, by: a.decided_by });
    if (filter === 'pending' && a.state !== 'pending') {
      approvals.delete(a.id);
      draw();
      return;
    }
    upsert(a);
  }

  const unsubscribe = [
    globalEvents.on('approval.pending', onEvent),
    globalEvents.on('approval.resolved', onEvent),
    globalEvents.on('conversation.updated', (c) => {
      if (c && c.id && conversations.has(c.id)) {
        conversations.set(c.id, c);
        for (const a of approvals.values()) if (a.conversation_id === c.id) drawRow(a);
      }
    }),
    globalEvents.on('state', ({ state, attempts }) => {
      if (state === 'live' && attempts > 0) load().catch(() => {});
    }),
  ];
  const timer = setInterval(() => {
    for (const node of list.querySelectorAll('.approval-age')) node.textContent = relTime(node.dataset.ts);
  }, 30000);

  // What the shell already knows shows at once; the list from the server replaces it.
  for (const a of app.pendingApprovals.values()) approvals.set(a.id, a);
  draw();
  try {
    await load();
  } catch (error) {
    list.before(h('div', { class: 'banner error', role: 'alert' }, 'The approvals could not be loaded: ' + error.message));
  }

  return () => {
    disposed = true;
    clearInterval(timer);
    sheet?.close();
    for (const off of unsubscribe) off();
  };
}
