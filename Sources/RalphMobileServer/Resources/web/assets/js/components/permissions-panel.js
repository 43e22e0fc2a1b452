// @ts-check
// The Permissions panel of a conversation: the permission mode the agent CLI reports it is in, its version, and the
// session rules that "allow for this session" granted — each with who granted it and how often it has been used, and
// Revoke for operators (a viewer sees the same list without the button).
//
// The list follows the conversation's `permissions` events (a grant, a revocation, the agent switching modes); the
// use counts follow `conversation.updated`, which carries the rules after every call a rule allowed.

import { api, seg } from '../api.js';
import { h, render, toast, showError } from '../ui.js';
import { relTime, dateTime } from '../format.js';
import { permissionModeLabel } from '../words/conversation.js';

function uses(rule) {
  const n = rule.uses || 0;
  const count = n === 0 ? 'not used yet' : n === 1 ? 'used once' : 'used ' + n + ' times';
  return n && rule.last_used_at ? count + ', last ' + relTime(rule.last_used_at) : count;
}

/// `conversation` is the conversation as first read; `me` the caller's key id (a rule it granted says "you").
/// Returns `{element, permissions(event), conversationUpdated(conversation), destroy()}`.
export function buildPermissionsPanel({ base, conversation, operator, me }) {
  let rules = Array.isArray(conversation.session_rules) ? conversation.session_rules : [];
  let agentMode = conversation.agent_permission_mode || null;
  let createdMode = conversation.permission_mode || null;
  let version = conversation.agent_version || null;
  let destroyed = false;

  const summary = h('span', { class: 'muted small perm-summary', 'data-test': 'permissions-summary' });
  const bodyId = 'permissions-body';
  const toggle = h('button', { type: 'button', class: 'panel-toggle', 'aria-expanded': 'false', 'aria-controls': bodyId, 'data-test': 'permissions-toggle' },
    h('span', { class: 'panel-title' }, 'Permissions'), summary, h('span', { class: 'panel-chevron', 'aria-hidden': 'true' }));
  const facts = h('dl', { class: 'kv perm-facts' });
  const list = h('ul', { class: 'list perm-rules', 'aria-label': 'Allowed for this session', 'data-test': 'session-rules' });
  const empty = h('p', { class: 'muted small perm-empty' });
  const announcer = h('p', { class: 'sr-only', role: 'status', 'aria-live': 'polite' });
  const body = h('div', { class: 'panel-body', id: bodyId, hidden: true },
    facts,
    h('h3', { class: 'perm-heading' }, 'Allowed for this session'),
    list, empty, announcer);
  const element = h('section', { class: 'card panel perm-panel', 'data-test': 'permissions', 'aria-label': 'Permissions' }, toggle, body);

  const setOpen = (open) => {
    body.hidden = !open;
    toggle.setAttribute('aria-expanded', open ? 'true' : 'false');
    element.classList.toggle('open', open);
  };
  setOpen(localStorage.getItem('ralph.chat.permissionsOpen') === '1');
  toggle.addEventListener('click', () => {
    const open = body.hidden;
    setOpen(open);
    localStorage.setItem('ralph.chat.permissionsOpen', open ? '1' : '0');
  });

  const mode = () => agentMode || createdMode || 'default';

  function revokeButton(rule) {
    const button = h('button', {
      type: 'button', class: 'btn small', 'data-test': 'revoke-rule', 'aria-label': 'Revoke ' + rule.rule.display,
    }, 'Revoke');
    button.addEventListener('click', async () => {
      button.disabled = true;
      button.textContent = 'Revoking…';
      try {
        await api.del(base + '/session-rules/' + seg(rule.id));
        toast('Revoked ' + rule.rule.display + ': it asks again next time.');
        remove(rule.id);
      } catch (error) {
        if (error.status === 404) remove(rule.id);
        else showError(error, 'Revoke');
      } finally {
        button.disabled = false;
        button.textContent = 'Revoke';
      }
    });
    return button;
  }

  function remove(id) {
    const gone = rules.find((r) => r.id === id);
    rules = rules.filter((r) => r.id !== id);
    if (gone) announcer.textContent = gone.rule.display + ' is no longer allowed for this session.';
    draw();
  }

  function draw() {
    if (destroyed) return;
    const who = (rule) => (me && rule.granted_by === me ? 'you' : rule.granted_by || 'someone');
    summary.textContent = mode() + ' · ' + (rules.length === 1 ? '1 session rule' : rules.length + ' session rules');
    render(facts,
      h('dt', {}, 'Permission mode'),
      h('dd', { 'data-test': 'permission-mode' }, permissionModeLabel(mode()),
        agentMode && createdMode && agentMode !== createdMode ? h('span', { class: 'muted small' }, ' (created with ' + createdMode + ')') : null),
      h('dt', {}, 'Claude Code'),
      h('dd', { 'data-test': 'agent-version' }, version || h('span', { class: 'muted' }, 'not started yet')));
    render(list, ...rules.map((rule) => h('li', { class: 'perm-rule', 'data-test': 'session-rule', 'data-id': rule.id },
      h('div', { class: 'row-main' },
        h('code', { class: 'perm-rule-display', 'data-test': 'session-rule-display' }, rule.rule.display),
        h('div', { class: 'muted small perm-rule-sub' },
          'granted by ', h('span', { 'data-test': 'session-rule-granted-by' }, who(rule)), ' ',
          h('time', { datetime: rule.granted_at || '', title: dateTime(rule.granted_at) }, relTime(rule.granted_at)),
          ' · ', h('span', { 'data-test': 'session-rule-uses' }, uses(rule)))),
      operator ? revokeButton(rule) : null)));
    list.hidden = rules.length === 0;
    empty.textContent = rules.length ? (operator ? '' : 'An operator can revoke these.')
      : 'None. “Allow … for this session” on an approval lists that exact call here; it then runs without asking until it is revoked.';
    empty.hidden = !empty.textContent;
  }

  draw();

  return {
    element,
    /// A `permissions` event: the mode the agent reports and the rules, as they are now.
    permissions(event) {
      if (event.permission_mode) agentMode = event.permission_mode;
      if (Array.isArray(event.session_rules)) {
        const before = new Set(rules.map((r) => r.id));
        rules = event.session_rules;
        const added = rules.filter((r) => !before.has(r.id));
        if (added.length) announcer.textContent = added.map((r) => r.rule.display).join(', ') + ' allowed for this session.';
      }
      draw();
    },
    /// `conversation.updated`: version, modes, and the use counts of the rules shown (which rules exist follows the
    /// `permissions` events, in order with the conversation's other events).
    conversationUpdated(c) {
      if (c.agent_version) version = c.agent_version;
      if (c.agent_permission_mode) agentMode = c.agent_permission_mode;
      if (c.permission_mode !== undefined) createdMode = c.permission_mode;
      if (Array.isArray(c.session_rules)) {
        const fresh = new Map(c.session_rules.map((r) => [r.id, r]));
        rules = rules.map((r) => (fresh.has(r.id) ? { ...r, uses: fresh.get(r.id).uses, last_used_at: fresh.get(r.id).last_used_at } : r));
      }
      draw();
    },
    destroy() {
      destroyed = true;
    },
  };
}
