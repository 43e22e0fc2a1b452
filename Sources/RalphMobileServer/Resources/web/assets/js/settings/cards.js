// @ts-check
// The settings screen's plain cards: the server (version, address, access, every agent CLI it runs chats with,
// capabilities), you (role, key, how you are logged in, Log out), the theme, and about (roles, adding the page to a
// home screen).

import { h, badge, copyText, busy } from '../ui.js';
import { dateTime } from '../format.js';
import { setTheme } from '../theme.js';
import { agentsOf, agentLabel, isUsable, modeOptions } from '../words/agents.js';
import { shortPath } from '../words/conversation.js';

/** @type {Array<{name: string, label: string, hint: string}>} */
const THEMES = [
  { name: 'cyberpunk', label: 'Cyberpunk', hint: 'Neon on deep navy (default)' },
  { name: 'contrast', label: 'High contrast', hint: 'Black background, brighter text and borders' },
  { name: 'light', label: 'Light', hint: 'Dark text on a light background' },
];
/** @type {Record<string, string>} */
export const ROLE_TEXT = {
  admin: 'Admin: everything — start and stop runs, manage keys, import configs, plus what operators do.',
  operator: 'Operator: steers — pause and resume runs, send guidance and events, chat with Claude Code, answer approvals, auto-reply.',
  viewer: 'Viewer: reads only — sessions, events, chats, the library and the host. No controls.',
};

/** @param {any} health @param {any} me */
export function serverCard(health, me) {
  const caps = Array.isArray(health.capabilities) ? health.capabilities : [];
  const required = health.auth_required ?? me.auth_required;
  return h('section', { class: 'card', 'aria-labelledby': 'set-server' },
    h('div', { class: 'card-head' },
      h('h2', { id: 'set-server' }, 'Server'),
      health.status ? badge(health.status === 'ok' ? 'ok' : health.status, health.status === 'ok' ? 'live' : 'error') : null),
    h('dl', { class: 'kv set-kv' },
      h('dt', {}, 'Version'), h('dd', { 'data-test': 'server-version', class: 'mono' }, health.version || '—'),
      h('dt', {}, 'Protocol'), h('dd', { class: 'mono' }, health.protocol_version ?? '—'),
      h('dt', {}, 'Address'), h('dd', { class: 'set-url' },
        h('span', { class: 'mono' }, location.origin),
        h('button', { type: 'button', class: 'btn ghost small set-copy', 'aria-label': 'Copy the server address',
          onclick: () => copyText(location.origin, 'Address copied') }, 'Copy')),
      h('dt', {}, 'Access'), h('dd', { 'data-test': 'auth-required', 'data-value': required ? 'true' : 'false' }, required
        ? 'Every request needs a key (an API key, or this browser’s login).'
        : 'No key needed: the server listens on loopback only and has no keys, so local callers are trusted as admin.'),
      // Every agent CLI conversations can run, as the server found it (one it cannot run, with the reason).
      ...(agentsOf(health).length ? [
        h('dt', {}, 'Chat agents'),
        h('dd', {}, h('ul', { class: 'set-agents', 'data-test': 'agents' }, agentsOf(health).map(agentEntry))),
      ] : [])),
    caps.length
      ? h('details', { class: 'set-caps-box' },
        h('summary', {}, 'Capabilities (' + caps.length + ')'),
        h('ul', { class: 'set-caps', 'aria-label': 'Capabilities' }, caps.map((c) => h('li', {}, h('code', {}, c)))))
      : null);
}

/// One agent of the server card: name and version, whether chats can use it, its command, its permission modes.
/** @param {import('../words/agents.js').AgentInfo} agent */
function agentEntry(agent) {
  const usable = isUsable(agent);
  const modes = modeOptions(agent).map((o) => o.value);
  return h('li', { 'data-test': 'agent', 'data-agent': agent.name, 'data-usable': usable ? 'true' : 'false', class: 'set-agent' },
    h('div', { class: 'set-agent-head' },
      h('span', { class: 'set-agent-name' }, agentLabel(agent.name)), ' ',
      agent.version ? [h('span', { class: 'mono small' }, agent.version), ' '] : null,
      usable ? badge('available', 'live') : badge('not available', 'error')),
    agent.error ? h('div', { class: 'small set-agent-error', 'data-test': 'agent-error' }, 'Chats cannot use it: ' + agent.error) : null,
    agent.command ? h('div', { class: 'small muted set-agent-command' }, 'runs ',
      h('span', { class: 'mono', title: agent.command }, shortPath(agent.command))) : null,
    agent.permission_modes && agent.permission_modes.length
      ? h('div', { class: 'small muted' }, 'Permission modes: ' + modes.join(', ') + ' (the first is its default)') : null);
}

/** @param {any} me @param {any} app */
export function youCard(me, app) {
  const how = {
    cookie: 'This browser’s login: you entered a key, the server set a login cookie.',
    key: 'An API key sent with each request.',
    trusted: 'Trusted local caller: the server has no keys and listens on loopback only.',
  }[me.via] || (me.via || '—');
  return h('section', { class: 'card', 'aria-labelledby': 'set-you' },
    h('div', { class: 'card-head' },
      h('h2', { id: 'set-you' }, 'You'),
      h('span', {}, h('span', { class: 'sr-only' }, 'Your role: '),
        h('span', { 'data-test': 'role', 'data-role': me.role || 'viewer', class: 'badge ' + (me.role || 'viewer') }, me.role || 'viewer'))),
    h('dl', { class: 'kv set-kv' },
      h('dt', {}, 'Key'), h('dd', { 'data-test': 'key-id' }, h('span', { class: 'mono' }, me.key_id || (me.via === 'trusted' ? 'none' : '—')),
        me.key_id === 'cli' ? h('span', { class: 'muted small' }, ' (the server’s --api-key)') : null),
      h('dt', {}, 'How'), h('dd', {}, how),
      me.expires_at ? h('dt', {}, 'Login ends') : null,
      me.expires_at ? h('dd', {}, dateTime(me.expires_at)) : null),
    h('p', { class: 'muted small set-role-text' }, ROLE_TEXT[me.role] || ''),
    me.auth_required
      ? h('button', { type: 'button', class: 'btn block', 'data-test': 'logout', onclick: (event) => busy(event.currentTarget, 'Logging out\u2026', () => app.logout()) }, 'Log out')
      : null);
}

export function themeCard() {
  const active = document.documentElement.dataset.theme || 'cyberpunk';
  const options = THEMES.map((t) => {
    const input = h('input', { type: 'radio', name: 'theme', value: t.name, id: 'theme-' + t.name, 'data-theme-option': t.name,
      checked: t.name === active, 'aria-describedby': 'theme-' + t.name + '-hint',
      onchange: () => { if (input.checked) setTheme(t.name); } });
    return h('label', { class: 'set-theme-option', for: 'theme-' + t.name },
      input,
      // A preview: the theme's own variables, scoped to the swatch (contrast builds on cyberpunk, as at the root).
      h('span', { class: 'set-swatch-base', 'data-theme': 'cyberpunk', 'aria-hidden': 'true' },
        h('span', { class: 'set-swatch', 'data-theme': t.name }, h('span'), h('span'), h('span'))),
      h('span', { class: 'set-theme-text' },
        h('span', { class: 'set-theme-name' }, t.label),
        h('span', { class: 'muted small', id: 'theme-' + t.name + '-hint' }, t.hint)));
  });
  return h('section', { class: 'card', 'aria-labelledby': 'set-theme' },
    h('h2', { id: 'set-theme' }, 'Theme'),
    h('fieldset', { class: 'set-themes', 'data-test': 'theme', role: 'radiogroup', 'aria-labelledby': 'set-theme' },
      h('legend', { class: 'sr-only' }, 'Theme'), options),
    h('p', { class: 'muted small' }, 'Applies at once and is remembered in this browser.'));
}

export function aboutCard() {
  return h('section', { class: 'card', 'aria-labelledby': 'set-about' },
    h('h2', { id: 'set-about' }, 'About'),
    h('p', {}, 'Ralph Mobile lets you watch and steer ralph loops and Claude Code conversations running on this machine.'),
    h('h3', {}, 'Roles'),
    h('dl', { class: 'kv set-roles' },
      ['admin', 'operator', 'viewer'].map((r) => [h('dt', {}, badge(r)), h('dd', {}, ROLE_TEXT[r].replace(/^[A-Za-z]+: /, ''))])),
    h('p', { class: 'muted small' }, 'An admin creates keys here or with: ', h('code', {}, 'ralph-mobile-server keys create --role operator --name phone')),
    h('h3', {}, 'Add to the home screen'),
    h('ul', { class: 'set-howto' },
      h('li', {}, h('strong', {}, 'iPhone / iPad (Safari): '), 'tap Share, then \u201cAdd to Home Screen\u201d.'),
      h('li', {}, h('strong', {}, 'Android (Chrome): '), 'open the \u22ee menu, then \u201cAdd to Home screen\u201d or \u201cInstall app\u201d.'),
      h('li', {}, h('strong', {}, 'Desktop (Chrome, Edge): '), 'use the install icon in the address bar.')),
    h('p', { class: 'muted small' }, 'It then opens full screen like an app. Installing and copying to the clipboard need HTTPS (or localhost).'));
}
