// @ts-check
// The Permissions panel of a conversation: the permission mode the agent CLI reports it is in, its version, and the
// session rules that "allow for this session" granted — each with who granted it and how often it has been used, and
// Revoke for operators (a viewer sees the same list without the button). Drawn from ../state/permissions.js.

import { api, seg } from '../api.js';
import { h, render, toast, showError, rememberedDisclosure } from '../ui.js';
import { relTime, dateTime } from '../format.js';
import { permissionModeLabel } from '../words/conversation.js';
import { agentLabel } from '../words/agents.js';
import { initialPermissions, reducePermissions, permissionMode, addedRules, usesText } from '../state/permissions.js';

/** @typedef {import('../state/permissions.js').SessionRule} SessionRule */
/** @typedef {import('../state/permissions.js').PermissionsAction} PermissionsAction */

const OPEN_STORE = 'ralph.chat.permissionsOpen';

export class PermissionsPanel {
  /// `conversation` is the conversation as first read; `me` the caller's key id (a rule it granted says "you").
  /** @param {{base: string, conversation: any, operator: boolean, me: string | null}} options */
  constructor({ base, conversation, operator, me }) {
    this.base = base;
    this.operator = operator;
    this.me = me;
    this.agent = agentLabel(conversation && conversation.backend);
    this.state = initialPermissions(conversation);
    this.destroyed = false;
    this.summary = h('span', { class: 'muted small perm-summary', 'data-test': 'permissions-summary' });
    this.facts = h('dl', { class: 'kv perm-facts' });
    this.list = h('ul', { class: 'list perm-rules', 'aria-label': 'Allowed for this session', 'data-test': 'session-rules' });
    this.empty = h('p', { class: 'muted small perm-empty' });
    this.announcer = h('p', { class: 'sr-only', role: 'status', 'aria-live': 'polite' });
    this.element = this.buildPanel();
    this.draw();
  }

  buildPanel() {
    const bodyId = 'permissions-body';
    const toggle = h('button', { type: 'button', class: 'panel-toggle', 'aria-expanded': 'false', 'aria-controls': bodyId, 'data-test': 'permissions-toggle' },
      h('span', { class: 'panel-title' }, 'Permissions'), this.summary, h('span', { class: 'panel-chevron', 'aria-hidden': 'true' }));
    const body = h('div', { class: 'panel-body', id: bodyId, hidden: true },
      this.facts, h('h3', { class: 'perm-heading' }, 'Allowed for this session'), this.list, this.empty, this.announcer);
    const element = h('section', { class: 'card panel perm-panel', 'data-test': 'permissions', 'aria-label': 'Permissions' }, toggle, body);
    rememberedDisclosure(element, toggle, body, OPEN_STORE);
    return element;
  }

  /** @param {PermissionsAction} action */
  dispatch(action) {
    const before = this.state;
    this.state = reducePermissions(before, action);
    if (action.type === 'permissions') {
      const added = addedRules(before, this.state);
      if (added.length) this.announcer.textContent = added.map((r) => r.rule.display).join(', ') + ' allowed for this session.';
    } else if (action.type === 'revoked') {
      const gone = before.rules.find((r) => r.id === action.id);
      if (gone) this.announcer.textContent = gone.rule.display + ' is no longer allowed for this session.';
    }
    this.draw();
  }

  /// A `permissions` event: the mode the agent reports and the rules, as they are now.
  /** @param {any} event */
  permissions(event) { this.dispatch({ type: 'permissions', event }); }

  /// `conversation.updated`: version, modes, and the use counts of the rules shown.
  /** @param {any} conversation */
  conversationUpdated(conversation) { this.dispatch({ type: 'conversation', conversation }); }

  destroy() { this.destroyed = true; }

  /** @param {SessionRule} rule */
  revokeButton(rule) {
    const button = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', class: 'btn small', 'data-test': 'revoke-rule', 'aria-label': 'Revoke ' + rule.rule.display }, 'Revoke'));
    button.addEventListener('click', async () => {
      button.disabled = true;
      button.textContent = 'Revoking…';
      try {
        await api.del(this.base + '/session-rules/' + seg(rule.id));
        toast('Revoked ' + rule.rule.display + ': it asks again next time.');
        this.dispatch({ type: 'revoked', id: rule.id });
      } catch (error) {
        if (/** @type {any} */ (error).status === 404) this.dispatch({ type: 'revoked', id: rule.id });
        else showError(error, 'Revoke');
      } finally {
        button.disabled = false;
        button.textContent = 'Revoke';
      }
    });
    return button;
  }

  /** @param {SessionRule} rule */
  ruleRow(rule) {
    const who = this.me && rule.granted_by === this.me ? 'you' : rule.granted_by || 'someone';
    return h('li', { class: 'perm-rule', 'data-test': 'session-rule', 'data-id': rule.id },
      h('div', { class: 'row-main' },
        h('code', { class: 'perm-rule-display', 'data-test': 'session-rule-display' }, rule.rule.display),
        h('div', { class: 'muted small perm-rule-sub' },
          'granted by ', h('span', { 'data-test': 'session-rule-granted-by' }, who), ' ',
          h('time', { datetime: rule.granted_at || '', title: dateTime(rule.granted_at) }, relTime(rule.granted_at)),
          ' · ', h('span', { 'data-test': 'session-rule-uses' }, usesText(rule, relTime)))),
      this.operator ? this.revokeButton(rule) : null);
  }

  draw() {
    if (this.destroyed) return;
    const { rules, agentMode, createdMode, version } = this.state;
    const mode = permissionMode(this.state);
    this.summary.textContent = mode + ' · ' + (rules.length === 1 ? '1 session rule' : rules.length + ' session rules');
    render(this.facts,
      h('dt', {}, 'Permission mode'),
      h('dd', { 'data-test': 'permission-mode' }, permissionModeLabel(mode),
        agentMode && createdMode && agentMode !== createdMode ? h('span', { class: 'muted small' }, ' (created with ' + createdMode + ')') : null),
      h('dt', {}, this.agent),
      h('dd', { 'data-test': 'agent-version' }, version || h('span', { class: 'muted' }, 'not started yet')));
    render(this.list, ...rules.map((rule) => this.ruleRow(rule)));
    this.list.hidden = rules.length === 0;
    this.empty.textContent = rules.length ? (this.operator ? '' : 'An operator can revoke these.')
      : 'None. “Allow … for this session” on an approval lists that exact call here; it then runs without asking until it is revoked.';
    this.empty.hidden = !this.empty.textContent;
  }
}
