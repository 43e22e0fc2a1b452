// @ts-check
// The approval sheet, shared by the chat screen and the approvals inbox: what a tool call wants to do, and Allow /
// Allow for session / Deny (with an optional message to the agent) for operators. Viewers see the same details
// without any button.
//
// The words that describe a tool call in one line are in ../words/approval.js (the chat state uses them too). A file
// edit shows what it will change, one diff per file against the file as it is now (./diff-view.js).

import { api, seg } from '../api.js';
import { h, openSheet, toast } from '../ui.js';
import { relTime } from '../format.js';
import { prettyJSON, decisionWords, normalizeApproval, sessionRuleText } from '../words/approval.js';
import { agentName } from '../words/agents.js';
import { fileDiffs, countsText } from '../diff/file-diff.js';
import { diffList, diffCounts } from './diff-view.js';

/// Longer than this, the button says what the rule covers in words and the rule is read in full above it.
const RULE_IN_BUTTON = 80;

/// What a session rule covers, in words: the same command, the same file, or this exact call.
function ruleScope(rule, toolName) {
  const field = rule && rule.field;
  if (field === 'command') return 'this exact command';
  if (typeof field === 'string' && field.endsWith('_path')) return toolName + ' on this same file';
  if (field === 'url') return toolName + ' of this same URL';
  if (field === 'query') return toolName + ' with this same query';
  if (field === 'paths') return toolName + ' on this same set of files';
  return 'this exact ' + toolName + ' call';
}

/// What a file edit will change: one diff per file (the first files open, a long patch as a list to open).
/** @param {import('../diff/file-diff.js').FileDiff[]} diffs */
function changes(diffs) {
  const total = {
    added: diffs.reduce((n, d) => n + (Number(d.added) || 0), 0),
    removed: diffs.reduce((n, d) => n + (Number(d.removed) || 0), 0),
  };
  return h('div', { class: 'approval-main approval-diffs', 'data-test': 'approval-diffs' },
    h('div', { class: 'approval-label' }, diffs.length === 1 ? 'Changes' : 'Changes to ' + diffs.length + ' files',
      diffs.length > 1 ? [' ', diffCounts(total)] : null),
    diffList(diffs, { openLines: 400, label: 'Changes (' + countsText(total) + ')' }));
}

/// The part of the input a person must read first: Bash's command, what a file edit changes (or its path), a URL.
function prominent(approval) {
  const input = approval.input && typeof approval.input === 'object' ? approval.input : {};
  const name = approval.tool_name;
  const diffs = fileDiffs(approval.diffs);
  if (diffs.length && typeof input.command !== 'string') return changes(diffs);
  if (typeof input.command === 'string') {
    return h('div', { class: 'approval-main' },
      h('div', { class: 'approval-label' }, name === 'Bash' ? 'Command' : 'Command (' + name + ')'),
      h('pre', { class: 'approval-command' }, h('code', {}, input.command)),
      typeof input.description === 'string' && input.description ? h('p', { class: 'muted small' }, input.description) : null);
  }
  const path = input.file_path || input.notebook_path || input.path;
  if (typeof path === 'string') {
    return h('div', { class: 'approval-main' },
      h('div', { class: 'approval-label' }, 'File'),
      h('pre', { class: 'approval-command' }, h('code', {}, path)));
  }
  if (typeof input.url === 'string') {
    return h('div', { class: 'approval-main' },
      h('div', { class: 'approval-label' }, 'URL'),
      h('pre', { class: 'approval-command' }, h('code', {}, input.url)));
  }
  return null;
}

/// What the sheet shows of a call: where, when, its state, description, the prominent part, the path or reason that
/// made it ask, and the full input.
/** @param {any} a @param {{conversationTitle?: string, link?: boolean, backend?: string}} options @param {(why: string) => void} close */
function details(a, options, close) {
  const main = prominent(a);
  const described = typeof a.description === 'string' && a.description.trim()
    && !(a.input && typeof a.input === 'object' && a.input.description === a.description) ? a.description.trim() : null;
  const byRule = typeof a.decided_by === 'string' && a.decided_by.startsWith('rule ');
  const stateLine = !a.state || a.state === 'pending' ? null
    : byRule ? h('p', { class: 'banner info' }, 'Nobody was asked: this call was ' + (a.message || 'allowed by a session rule') + '.')
      : h('p', { class: 'banner info' }, 'This call was ' + decisionWords(a.state === 'cancelled' ? 'cancelled' : a.decision) +
        (a.decided_by ? ' by ' + a.decided_by : '') + (a.message ? ': “' + a.message + '”' : '') + '.');
  return h('div', { class: 'approval-body' },
    h('p', { class: 'approval-meta muted small' },
      options.conversationTitle !== undefined || options.link
        ? [
          'In ',
          options.link && a.conversation_id
            ? h('a', { href: '#/chats/' + encodeURIComponent(a.conversation_id), onclick: () => close('navigate') }, options.conversationTitle || 'its conversation')
            : (options.conversationTitle || 'a conversation'),
          ' · ',
        ]
        : null,
      !a.created_at || Date.now() - new Date(a.created_at).getTime() < 10000 ? 'asked just now' : 'asked ' + relTime(a.created_at)),
    stateLine,
    described ? h('p', { class: 'approval-description', 'data-test': 'approval-description' }, h('span', { class: 'muted' }, (a.display_name || a.tool_name) + ': '), described) : null,
    main,
    a.blocked_path ? h('p', { class: 'approval-blocked', 'data-test': 'approval-blocked-path' },
      h('span', { class: 'muted' }, 'Path that made it ask: '), h('code', {}, a.blocked_path)) : null,
    a.reason ? h('p', { class: 'approval-reason' }, h('span', { class: 'muted' }, 'Why it asks: '), a.reason) : null,
    h('details', { class: 'approval-input', open: !main },
      h('summary', {}, 'Full input'),
      h('pre', { class: 'json' }, prettyJSON(a.input) || '(no input)')));
}

/// The sheet of one approval and what happened to it.
class ApprovalSheet {
  /** @param {any} a @param {(outcome: any) => void} onDone @param {string} [backend] the conversation's agent */
  constructor(a, onDone, backend) {
    this.a = a;
    this.agent = agentName(backend);
    this.onDone = onDone;
    /** @type {any} */
    this.outcome = { dismissed: true };
    this.working = false;
    /** @type {HTMLButtonElement[]} */
    this.buttons = [];
    this.errorLine = h('p', { class: 'field-error', role: 'alert', hidden: true });
    this.denyMessage = /** @type {HTMLTextAreaElement} */ (h('textarea', {
      'data-test': 'deny-message', id: 'deny-message-' + a.id.replace(/[^a-zA-Z0-9_-]/g, ''), rows: 2, maxlength: 4000,
      placeholder: 'e.g. Not in this folder — use the tests directory instead',
    }));
    /** @type {(why: string) => void} */
    this.close = () => {};
  }

  /// Allow, Allow for this session (saying exactly what it grants: the rule the server keeps, never the CLI's
  /// suggestions), Deny with an optional message.
  actions() {
    const a = this.a;
    const rule = sessionRuleText(a);
    /** @param {string} decision @param {string} test @param {string} kind @param {any} label @param {object} [extra] */
    const button = (decision, test, kind, label, extra = {}) => {
      const b = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', class: 'btn ' + kind, 'data-test': test, ...extra, onclick: () => this.decide(decision, b) }, label));
      this.buttons.push(b);
      return b;
    };
    const hintId = 'approve-session-hint-' + a.id.replace(/[^a-zA-Z0-9_-]/g, '');
    const sessionLabel = !rule ? 'Allow for this session'
      : rule.length <= RULE_IN_BUTTON ? h('span', {}, 'Allow ', h('code', {}, rule), ' for this session')
        : 'Allow ' + ruleScope(a.session_rule, a.tool_name) + ' for this session';
    const allow = button('allow', 'approve', 'primary', 'Allow');
    const allowSession = button('allow_session', 'approve-session', 'approve-session', sessionLabel, { 'aria-describedby': hintId });
    const deny = button('deny', 'deny', 'danger', 'Deny');
    return [
      h('div', { class: 'btn-row approval-actions' }, allow, allowSession),
      h('p', { class: 'hint small muted', id: hintId, 'data-test': 'session-rule-hint' },
        rule && rule.length > RULE_IN_BUTTON ? ['For this session: ', h('code', { class: 'session-rule-full' }, rule), '. '] : null,
        rule ? 'Until it is revoked (Permissions, in the conversation), ' + ruleScope(a.session_rule, a.tool_name)
          + ' runs again without asking; nothing else changes: not the permission mode, not the folders ' + this.agent + ' may use.'
          : 'This call, and the same call again in this conversation, until it is revoked (Permissions, in the conversation).'),
      h('div', { class: 'field approval-deny' },
        h('label', { for: this.denyMessage.id }, 'Message to ' + this.agent + ' if you deny (optional)'),
        this.denyMessage),
      h('div', { class: 'btn-row' }, deny),
      this.errorLine,
    ];
  }

  /** @param {string} decision @param {HTMLButtonElement} button */
  async decide(decision, button) {
    if (this.working) return;
    const a = this.a;
    /** @type {{decision: string, message?: string}} */
    const body = { decision };
    if (decision === 'deny') {
      const message = this.denyMessage.value.trim();
      if (new TextEncoder().encode(message).length > 4096) {
        this.errorLine.textContent = 'The message is too long (at most 4096 bytes).';
        this.errorLine.hidden = false;
        this.denyMessage.setAttribute('aria-invalid', 'true');
        this.denyMessage.focus();
        return;
      }
      if (message) body.message = message;
    }
    this.working = true;
    this.errorLine.hidden = true;
    const original = [...button.childNodes];
    for (const b of this.buttons) b.disabled = true;
    button.textContent = 'Sending…';
    try {
      const result = await api.post('/api/approvals/' + seg(a.id), body);
      this.outcome = { decided: true, approval: result, decision };
      toast(a.tool_name + ' ' + decisionWords(decision) + '.');
      this.close('decided');
    } catch (error) {
      const failure = /** @type {any} */ (error);
      if (failure.status === 409 || failure.status === 404) {
        this.outcome = { conflict: true, message: failure.message };
        toast('Already answered: ' + failure.message, 'info', 6000);
        this.close('conflict');
        return;
      }
      this.errorLine.textContent = failure.message;
      this.errorLine.hidden = false;
    } finally {
      this.working = false;
      for (const b of this.buttons) b.disabled = false;
      button.replaceChildren(...original);
    }
  }
}

/// Opens the sheet for one approval. `onDone(result)` runs once when it closes: `{decided: true, approval}` when this
/// page answered it, `{conflict: true, message}` when the server said it was already answered, `{resolved: info}` when
/// it was answered elsewhere, `{dismissed: true}` otherwise.
///
/// Options: `conversationTitle` and `link` (show a link to its conversation), `backend` (the conversation's agent, which
/// the words name: "Message to Codex if you deny").
/// Returns `{id, close, resolved(info)}`; call `resolved({decision, by})` when the approval was answered elsewhere.
/**
 * @param {any} approval @param {any} app @param {(outcome: any) => void} [onDone]
 * @param {{conversationTitle?: string, link?: boolean, backend?: string}} [options]
 */
export function openApprovalSheet(approval, app, onDone = () => {}, options = {}) {
  const a = normalizeApproval(approval);
  const pending = !a.state || a.state === 'pending';
  const operator = app.can('operator') && pending;
  const state = new ApprovalSheet(a, onDone, options.backend);
  const sheet = openSheet({
    title: (operator ? 'Allow ' : '') + a.tool_name + (operator ? '?' : ''),
    onClose: () => onDone(state.outcome),
    build: (/** @type {(why: string) => void} */ close) => {
      state.close = close;
      const body = details(a, options, close);
      if (operator) body.append(...state.actions());
      else if (pending) body.append(h('p', { class: 'muted small' }, 'An operator has to answer this. Your key can only read.'));
      return body;
    },
  });
  sheet.element.setAttribute('data-test', 'approval-sheet');
  sheet.element.dataset.id = a.id;
  // openSheet focuses the first field (the deny message). Start on the dialog itself instead: no keyboard pops up on
  // a phone, and an Enter meant for the composer (the sheet may open while someone types) cannot answer for them.
  sheet.element.setAttribute('tabindex', '-1');
  sheet.element.focus({ preventScroll: true });
  // Focusing the deny message scrolled a tall sheet (a diff) down to it: start at the top, where the call is.
  sheet.element.scrollTop = 0;

  return {
    id: a.id,
    element: sheet.element,
    close: () => sheet.close(null),
    /// The approval was answered elsewhere (another device, the terminal, or its turn ended).
    /** @param {{decision?: string, by?: string}} [info] */
    resolved(info = {}) {
      if (state.outcome.decided || state.working) return;
      state.outcome = { resolved: info };
      const who = info.by && info.by !== 'system' ? ' by ' + info.by : '';
      toast(a.tool_name + ' was ' + decisionWords(info.decision) + who + ' elsewhere.', 'info', 6000);
      sheet.close('resolved');
    },
  };
}
