// The approval sheet, shared by the chat screen and the approvals inbox: what a tool call wants to do, and Allow /
// Allow for session / Deny (with an optional message to the agent) for operators. Viewers see the same details
// without any button.
//
// Also small helpers both screens use to describe a tool call in one line.

import { api, seg } from './api.js';
import { h, openSheet, relTime, toast } from './ui.js';

/// Pretty JSON for display (strings stay as they are).
export function prettyJSON(value) {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return String(value);
  }
}

function firstLine(text, max = 140) {
  const line = String(text ?? '').split('\n').find((l) => l.trim()) || '';
  const trimmed = line.trim();
  return trimmed.length > max ? trimmed.slice(0, max - 1) + '…' : trimmed;
}

/// One line that says what a tool call does: the command of Bash, the file of Read/Write/Edit, the pattern of
/// Grep/Glob, the URL of WebFetch …; otherwise the first short string of its input, or its JSON.
export function toolSummary(name, input) {
  const object = input && typeof input === 'object' && !Array.isArray(input) ? input : null;
  if (!object) return firstLine(input === undefined || input === null ? '' : prettyJSON(input));
  const keys = ['command', 'file_path', 'notebook_path', 'path', 'pattern', 'url', 'query', 'description', 'prompt'];
  for (const key of keys) {
    if (typeof object[key] === 'string' && object[key].trim()) {
      let text = object[key];
      if (key === 'pattern' && typeof object.path === 'string') text += '  in ' + object.path;
      return firstLine(text);
    }
  }
  for (const value of Object.values(object)) {
    if (typeof value === 'string' && value.trim()) return firstLine(value);
  }
  const json = JSON.stringify(object);
  return json.length > 140 ? json.slice(0, 139) + '…' : json;
}

const DECISION_WORDS = {
  allow: 'allowed',
  allow_session: 'allowed for the session',
  deny: 'denied',
  cancelled: 'cancelled (its turn ended)',
};

export function decisionWords(decision) {
  return DECISION_WORDS[decision] || String(decision || 'answered');
}

/// Normalizes an approval from `GET /api/approvals` or a `permission_required` event to one shape.
export function normalizeApproval(approval, conversationId) {
  return {
    ...approval,
    id: approval.id || approval.approval_id,
    conversation_id: approval.conversation_id || conversationId || null,
    tool_name: approval.tool_name || approval.name || 'Tool',
    input: approval.input,
    suggestions: approval.suggestions,
  };
}

/// Words for the rules "Allow for session" would add (the CLI's `permission_suggestions`).
function describeSuggestions(suggestions) {
  if (!Array.isArray(suggestions) || !suggestions.length) return null;
  const parts = [];
  for (const s of suggestions) {
    if (!s || typeof s !== 'object') continue;
    if (Array.isArray(s.rules)) {
      for (const rule of s.rules) {
        if (!rule) continue;
        parts.push(rule.ruleContent ? `${rule.toolName}(${rule.ruleContent})` : String(rule.toolName || 'tool'));
      }
    } else if (s.type === 'setMode' && s.mode) {
      parts.push('permission mode ' + s.mode);
    } else if (Array.isArray(s.directories)) {
      parts.push('access to ' + s.directories.join(', '));
    } else if (s.type) {
      parts.push(String(s.type));
    }
  }
  return parts.length ? parts.join(', ') : null;
}

/// The part of the input a person must read first: Bash's command, a file path, a URL.
function prominent(approval) {
  const input = approval.input && typeof approval.input === 'object' ? approval.input : {};
  const name = approval.tool_name;
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

/// Opens the sheet for one approval. `onDone(result)` runs once when it closes: `{decided: true, approval}` when this
/// page answered it, `{conflict: true, message}` when the server said it was already answered, `{resolved: info}` when
/// it was answered elsewhere, `{dismissed: true}` otherwise.
///
/// Options: `conversationTitle` and `link` (show a link to its conversation).
/// Returns `{id, close, resolved(info)}`; call `resolved({decision, by})` when the approval was answered elsewhere.
export function openApprovalSheet(approval, app, onDone = () => {}, options = {}) {
  const a = normalizeApproval(approval);
  const operator = app.can('operator') && (!a.state || a.state === 'pending');
  let outcome = { dismissed: true };
  let working = false;

  const errorLine = h('p', { class: 'field-error', role: 'alert', hidden: true });
  const denyMessage = h('textarea', {
    'data-test': 'deny-message', id: 'deny-message-' + a.id.replace(/[^a-zA-Z0-9_-]/g, ''), rows: 2, maxlength: 4000,
    placeholder: 'e.g. Not in this folder — use the tests directory instead',
  });
  const buttons = [];

  const sheet = openSheet({
    title: (operator ? 'Allow ' : '') + a.tool_name + (operator ? '?' : ''),
    onClose: () => onDone(outcome),
    build: (close) => {
      const decide = async (decision, button) => {
        if (working) return;
        const body = { decision };
        if (decision === 'deny') {
          const message = denyMessage.value.trim();
          if (new TextEncoder().encode(message).length > 4096) {
            errorLine.textContent = 'The message is too long (at most 4096 bytes).';
            errorLine.hidden = false;
            denyMessage.setAttribute('aria-invalid', 'true');
            denyMessage.focus();
            return;
          }
          if (message) body.message = message;
        }
        working = true;
        errorLine.hidden = true;
        const original = button.textContent;
        for (const b of buttons) b.disabled = true;
        button.textContent = 'Sending…';
        try {
          const result = await api.post('/api/approvals/' + seg(a.id), body);
          outcome = { decided: true, approval: result, decision };
          toast(a.tool_name + ' ' + decisionWords(decision) + '.');
          close('decided');
        } catch (error) {
          if (error.status === 409 || error.status === 404) {
            outcome = { conflict: true, message: error.message };
            toast('Already answered: ' + error.message, 'info', 6000);
            close('conflict');
            return;
          }
          errorLine.textContent = error.message;
          errorLine.hidden = false;
        } finally {
          working = false;
          for (const b of buttons) b.disabled = false;
          button.textContent = original;
        }
      };

      const rules = describeSuggestions(a.suggestions);
      const main = prominent(a);
      const inputJSON = prettyJSON(a.input);
      const stateLine = a.state && a.state !== 'pending'
        ? h('p', { class: 'banner info' }, 'This call was ' + decisionWords(a.state === 'cancelled' ? 'cancelled' : a.decision) +
          (a.decided_by ? ' by ' + a.decided_by : '') + (a.message ? ': “' + a.message + '”' : '') + '.')
        : null;

      const body = h('div', { class: 'approval-body' },
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
        main,
        a.reason ? h('p', { class: 'approval-reason' }, h('span', { class: 'muted' }, 'Why it asks: '), a.reason) : null,
        h('details', { class: 'approval-input', open: !main },
          h('summary', {}, 'Full input'),
          h('pre', { class: 'json' }, inputJSON || '(no input)')),
      );

      if (!operator) {
        if (!a.state || a.state === 'pending') {
          body.append(h('p', { class: 'muted small' }, 'An operator has to answer this. Your key can only read.'));
        }
        return body;
      }

      const allow = h('button', { type: 'button', class: 'btn primary', 'data-test': 'approve', onclick: () => decide('allow', allow) }, 'Allow');
      const allowSession = h('button', {
        type: 'button', class: 'btn', 'data-test': 'approve-session', onclick: () => decide('allow_session', allowSession),
        'aria-describedby': 'approve-session-hint-' + a.id,
      }, 'Allow for session');
      const deny = h('button', { type: 'button', class: 'btn danger', 'data-test': 'deny', onclick: () => decide('deny', deny) }, 'Deny');
      buttons.push(allow, allowSession, deny);
      body.append(
        h('div', { class: 'btn-row approval-actions' }, allow, allowSession),
        h('p', { class: 'hint small muted', id: 'approve-session-hint-' + a.id },
          rules ? 'Allow for session also allows ' + rules + ' without asking until this session ends.'
            : 'Allow for session: Claude suggested no rule, so it is the same as Allow.'),
        h('div', { class: 'field approval-deny' },
          h('label', { for: denyMessage.id }, 'Message to Claude if you deny (optional)'),
          denyMessage),
        h('div', { class: 'btn-row' }, deny),
        errorLine,
      );
      return body;
    },
  });
  sheet.element.setAttribute('data-test', 'approval-sheet');
  sheet.element.dataset.id = a.id;
  // openSheet focuses the first field (the deny message). Start on the dialog itself instead: no keyboard pops up on
  // a phone, and an Enter meant for the composer (the sheet may open while someone types) cannot answer for them.
  sheet.element.setAttribute('tabindex', '-1');
  sheet.element.focus({ preventScroll: true });

  return {
    id: a.id,
    element: sheet.element,
    close: () => sheet.close(null),
    /// The approval was answered elsewhere (another device, the terminal, or its turn ended).
    resolved(info = {}) {
      if (outcome.decided || working) return;
      outcome = { resolved: info };
      const who = info.by && info.by !== 'system' ? ' by ' + info.by : '';
      toast(a.tool_name + ' was ' + decisionWords(info.decision) + who + ' elsewhere.', 'info', 6000);
      sheet.close('resolved');
    },
  };
}
