// Settings: the server, who you are (log out), the theme, API keys (admins), the host's load and a short about.

import { api, seg } from '../api.js';
import { h, render, toast, openSheet, confirmDialog, copyText, field, badge, sparkline, busy } from '../ui.js';
import { dateTime, relTime } from '../format.js';
import { setTheme } from '../theme.js';

const THEMES = [
  { name: 'cyberpunk', label: 'Cyberpunk', hint: 'Neon on deep navy (default)' },
  { name: 'contrast', label: 'High contrast', hint: 'Black background, brighter text and borders' },
  { name: 'light', label: 'Light', hint: 'Dark text on a light background' },
];
const ROLE_TEXT = {
  admin: 'Admin: everything — start and stop runs, manage keys, import configs, plus what operators do.',
  operator: 'Operator: steers — pause and resume runs, send guidance and events, chat with Claude Code, answer approvals, auto-reply.',
  viewer: 'Viewer: reads only — sessions, events, chats, the library and the host. No controls.',
};
const METRICS_EVERY_MS = 5000;

export async function mount(view, params, app) {
  app.setTitle('Settings');
  let alive = true;
  let metricsTimer = null;
  const sheets = new Set();

  const page = h('div', { class: 'settings' });
  const placeholder = h('p', { class: 'loading', role: 'status' }, 'Loading settings\u2026');
  render(view, placeholder);

  // Fresh copies of what app.js loaded at start (the login may have changed; expires_at is only in whoami).
  const [health, whoami] = await Promise.all([
    api.get('/api/health').catch(() => app.health),
    api.get('/api/whoami').catch(() => app.whoami),
  ]);
  if (health) app.health = health;
  // The user may have left meanwhile: then another screen owns the view.
  if (!placeholder.isConnected) return () => {};
  render(view, page);
  const me = { ...(app.whoami || {}), ...(whoami || {}) };

  page.append(...[
    serverCard(health || {}, me),
    youCard(me),
    themeCard(),
    app.can('admin') ? keysCard(me) : null,
    hostCard(),
    aboutCard(),
  ].filter(Boolean));

  // Server ---------------------------------------------------------------------------------------------------------

  function serverCard(health, me) {
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
        // The agent CLI conversations run, as the server found it.
        ...(Array.isArray(health.agents) ? health.agents : []).flatMap((agent) => [
          h('dt', {}, 'Chats run'),
          h('dd', { 'data-test': 'agent' },
            h('span', { class: 'mono' }, agent.name + (agent.version ? ' ' + agent.version : '')),
            agent.error ? h('div', { class: 'small muted' }, 'Could not ask it about itself: ' + agent.error) : null,
            agent.permission_modes && agent.permission_modes.length
              ? h('div', { class: 'small muted' }, 'Permission modes: default, ' + agent.permission_modes.filter((m) => m !== 'default').join(', ')) : null),
        ])),
      caps.length
        ? h('details', { class: 'set-caps-box' },
          h('summary', {}, 'Capabilities (' + caps.length + ')'),
          h('ul', { class: 'set-caps', 'aria-label': 'Capabilities' }, caps.map((c) => h('li', {}, h('code', {}, c)))))
        : null);
  }

  // You ------------------------------------------------------------------------------------------------------------

  function youCard(me) {
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

  // Theme ----------------------------------------------------------------------------------------------------------

  function themeCard() {
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

  // Keys (admin) ---------------------------------------------------------------------------------------------------

  function keysCard(me) {
    const list = h('div', { class: 'set-keys-body' }, h('p', { class: 'loading', role: 'status' }, 'Loading keys\u2026'));
    const create = h('button', { type: 'button', class: 'btn primary', 'data-test': 'create-key', onclick: () => openCreate() }, '+ New key');
    const section = h('section', { class: 'card', 'data-test': 'keys', 'aria-labelledby': 'set-keys' },
      h('div', { class: 'card-head' }, h('h2', { id: 'set-keys' }, 'API keys'), create),
      h('p', { class: 'muted small' }, 'Keys let phones, the iOS app and scripts in. The server keeps only a digest of each; a key\u2019s secret is shown once, when it is created.'),
      list);
    loadKeys();
    return section;

    async function loadKeys() {
      try {
        const data = await api.get('/api/keys');
        if (!alive) return;
        drawKeys((data && data.keys) || []);
      } catch (error) {
        if (!alive) return;
        render(list, h('div', { class: 'banner error', role: 'alert' },
          h('p', {}, 'Could not load the keys: ' + error.message),
          h('button', { type: 'button', class: 'btn', onclick: () => loadKeys() }, 'Try again')));
      }
    }

    function drawKeys(keys) {
      if (!keys.length) {
        render(list, h('div', { class: 'empty' }, h('p', {}, me.via === 'trusted'
          ? 'No keys yet: the server trusts local callers. Create a key to use the dashboard from a phone (and start the server with --bind-all to listen on the network).'
          : 'No keys in the keys file. The key you logged in with comes from the server\u2019s --api-key option or $RALPH_MOBILE_API_KEY, which is not listed here.')));
        return;
      }
      const sorted = [...keys].sort((a, b) => String(b.created_at).localeCompare(String(a.created_at)));
      render(list, h('ul', { class: 'list', 'aria-label': 'API keys' }, sorted.map((key) => {
        const mine = key.id === me.key_id;
        const label = (key.name || 'unnamed') + ' (' + key.id + ')';
        return h('li', { class: 'set-key', 'data-test': 'key-row', 'data-id': key.id },
          h('div', { class: 'row-main' },
            h('div', { class: 'set-key-title' },
              h('span', { class: 'row-title' }, key.name || h('span', { class: 'muted' }, 'unnamed')),
              badge(key.role), mine ? badge('you', 'set-you-badge') : null),
            h('div', { class: 'row-sub' }, h('span', { class: 'mono' }, key.id), ' \u00b7 created ',
              h('time', { datetime: key.created_at, title: key.created_at }, dateTime(key.created_at)), ' (' + relTime(key.created_at) + ')')),
          h('button', { type: 'button', class: 'btn ghost set-revoke', 'data-test': 'revoke-key', 'aria-label': 'Revoke key ' + label,
            onclick: (event) => revoke(key, mine, event.currentTarget) }, 'Revoke'));
      })));
    }

    async function revoke(key, mine, button) {
      const ok = await confirmDialog({
        title: 'Revoke this key?',
        message: 'Revoke \u201c' + (key.name || 'unnamed') + '\u201d (' + key.id + ', ' + key.role + ')? Every device using it loses access at once. This cannot be undone.'
          + (mine ? ' It is the key you are logged in with: you will be logged out.' : ''),
        confirm: 'Revoke',
        danger: true,
      });
      if (!ok || !alive) return;
      await busy(button, 'Revoking\u2026', async () => {
        await api.del('/api/keys/' + seg(key.id));
        // When it was our own key, this request answers 401 and app.js shows the login (which says why).
        await loadKeys();
        if (alive) toast('Key \u201c' + (key.name || key.id) + '\u201d revoked');
      });
    }

    function openCreate() {
      const name = h('input', { type: 'text', 'data-test': 'key-name', maxlength: '200', autocomplete: 'off', placeholder: 'e.g. phone, ci-bot' });
      const role = h('select', { 'data-test': 'key-role' },
        h('option', { value: 'viewer' }, 'Viewer — read only'),
        h('option', { value: 'operator', selected: me.via !== 'trusted' }, 'Operator — steer, chat, approve'),
        // The first key of a trusted server is the one this browser logs in with next: admin by default.
        h('option', { value: 'admin', selected: me.via === 'trusted' }, 'Admin — everything'));
      const nameField = field('Name', name, 'Where the key will be used; optional, up to 200 characters.');
      const roleField = field('Role', role);
      const submit = h('button', { type: 'submit', class: 'btn primary block', 'data-test': 'key-create-submit' }, 'Create key');
      const trustedWarning = me.via === 'trusted'
        ? h('p', { class: 'banner warn' }, 'This server trusts local callers only while it has no keys. Once this key exists, every request needs a key: this browser will have to log in with it — create an admin key to keep full access.')
        : null;
      const sheet = openSheet({
        title: 'New API key',
        onClose: () => sheets.delete(sheet),
        build: (close) => {
          const form = h('form', { class: 'set-create', novalidate: true }, trustedWarning, nameField, roleField, submit);
          form.addEventListener('submit', async (event) => {
            event.preventDefault();
            const text = name.value.trim();
            nameField.setError('');
            if (text.length > 200) { nameField.setError('The name is longer than 200 characters.'); name.focus(); return; }
            if (!['viewer', 'operator', 'admin'].includes(role.value)) { roleField.setError('Choose a role.'); role.focus(); return; }
            const body = { role: role.value };
            if (text) body.name = text;
            const created = await busy(submit, 'Creating\u2026', () => api.post('/api/keys', body));
            if (!created) return;
            close(true);
            showSecret(created);
            if (alive && me.via !== 'trusted') loadKeys();
          });
          return form;
        },
      });
      sheet.element.classList.add('set-sheet');
      sheets.add(sheet);
    }

    function showSecret(created) {
      const key = created.key || {};
      // Not closed with the screen: when this was the first key of a trusted server, the next request answers 401
      // and the login replaces the screen, but the secret must stay readable until the user is done with it.
      const { element } = openSheet({
        title: 'Key created',
        onClose: () => {
          // The button that opened it may be gone (the login replaced the screen): land somewhere useful.
          if (document.activeElement && document.activeElement !== document.body) return;
          const next = document.getElementById('login-key') || document.querySelector('[data-test="create-key"]');
          if (next) next.focus();
        },
        build: (close) => h('div', { class: 'set-secret' },
          h('p', { class: 'banner warn', role: 'alert' }, 'Copy this key now. It is not shown again: the server keeps only a digest of it.'),
          h('dl', { class: 'kv set-kv' },
            h('dt', {}, 'Name'), h('dd', {}, key.name || 'unnamed'),
            h('dt', {}, 'Role'), h('dd', {}, badge(key.role || '—')),
            h('dt', {}, 'Id'), h('dd', { class: 'mono' }, key.id || '—')),
          h('div', { class: 'field' },
            h('span', { class: 'label', id: 'secret-label' }, 'Key'),
            h('code', { class: 'set-secret-value', 'data-test': 'key-secret', 'aria-labelledby': 'secret-label', tabindex: '0' }, created.secret)),
          h('div', { class: 'btn-row' },
            h('button', { type: 'button', class: 'btn primary', 'data-test': 'copy', onclick: () => copyText(created.secret, 'Key copied') }, 'Copy key'),
            h('button', { type: 'button', class: 'btn ghost', onclick: () => close(true) }, 'Done')),
          h('p', { class: 'muted small' }, 'On a phone: open ', h('span', { class: 'mono' }, location.origin), ' and log in with this key.')),
      });
      element.classList.add('set-sheet');
    }
  }

  // Host -----------------------------------------------------------------------------------------------------------

  function hostCard() {
    const body = h('div', { class: 'set-host-body' }, h('p', { class: 'loading', role: 'status' }, 'Measuring\u2026'));
    const updated = h('p', { class: 'muted small set-updated' });
    const errorBox = h('div', { class: 'banner error', role: 'alert', hidden: true });
    const cpuHistory = [];
    const section = h('section', { class: 'card', 'data-test': 'host-metrics', 'aria-labelledby': 'set-host' },
      h('div', { class: 'card-head' }, h('h2', { id: 'set-host' }, 'Host'), updated),
      errorBox, body);
    let failures = 0;

    async function tick() {
      metricsTimer = null;
      if (!alive) return;
      if (document.hidden) { schedule(); return; }
      try {
        const m = await api.get('/api/host/metrics');
        if (!alive) return;
        failures = 0;
        errorBox.hidden = true;
        cpuHistory.push(Number(m.cpu && m.cpu.usage_percent) || 0);
        if (cpuHistory.length > 36) cpuHistory.shift();
        drawMetrics(m);
        updated.textContent = 'Updated ' + new Date(m.sampled_at || Date.now()).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
      } catch (error) {
        if (!alive) return;
        failures += 1;
        errorBox.textContent = 'Host metrics: ' + error.message + (error.status === 503 ? '' : ' (retrying every 5 s)');
        errorBox.hidden = false;
        if (body.querySelector('.loading')) body.replaceChildren();
        if (error.status === 503 || error.status === 401 || error.status === 403) return; // will not get better
      }
      schedule();
    }
    function schedule() {
      if (alive) metricsTimer = setTimeout(tick, failures ? Math.min(METRICS_EVERY_MS * 2 ** failures, 60000) : METRICS_EVERY_MS);
    }

    function drawMetrics(m) {
      const cpu = m.cpu || {};
      const mem = m.memory || {};
      const disk = m.disk || {};
      const net = m.network || {};
      const load = Array.isArray(cpu.load_average) ? cpu.load_average.map((x) => fixed(x, 2)).join(' \u00b7 ') : '—';
      render(body,
        h('div', { class: 'stats set-stats' },
          meter('CPU', cpu.usage_percent, [cores(cpu.cores), 'load ' + load].filter(Boolean).join(', '), 'cpu'),
          meter('Memory', mem.usage_percent, gb(mem.used_gb) + ' of ' + gb(mem.total_gb), 'memory'),
          meter('Disk', disk.usage_percent, gb(disk.used_gb) + ' of ' + gb(disk.total_gb), 'disk', disk.path),
          h('div', { class: 'stat', 'data-metric': 'network' },
            h('div', { class: 'stat-label' }, 'Network'),
            h('div', { class: 'set-net' },
              h('span', {}, h('span', { 'aria-hidden': 'true' }, '\u2193 '), h('span', { class: 'sr-only' }, 'Download '), h('strong', {}, fixed(net.download_mbps, 1)), ' Mbps'),
              h('span', {}, h('span', { 'aria-hidden': 'true' }, '\u2191 '), h('span', { class: 'sr-only' }, 'Upload '), h('strong', {}, fixed(net.upload_mbps, 1)), ' Mbps')))),
        cpuHistory.length > 1
          ? h('div', { class: 'set-spark' }, h('div', { class: 'stat-label' }, 'CPU, last ' + cpuHistory.length + ' samples (every 5 s)'),
            sparkline(cpuHistory, 'CPU usage over the last ' + cpuHistory.length + ' samples, now ' + fixed(cpuHistory[cpuHistory.length - 1], 0) + ' percent'))
          : null);
    }

    tick();
    return section;
  }

  // About ----------------------------------------------------------------------------------------------------------

  function aboutCard() {
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

  return () => {
    alive = false;
    clearTimeout(metricsTimer);
    for (const sheet of [...sheets]) sheet.close();
  };
}

function meter(label, percent, detail, name, title) {
  const value = Number(percent);
  const known = Number.isFinite(value);
  const clamped = known ? Math.max(0, Math.min(100, value)) : 0;
  const level = clamped >= 90 ? 'high' : clamped >= 70 ? 'mid' : 'low';
  return h('div', { class: 'stat', 'data-metric': name, title: title || null },
    h('div', { class: 'stat-label' }, label),
    h('div', { class: 'stat-value' }, known ? fixed(value, value < 10 ? 1 : 0) + '%' : '—'),
    h('div', { class: 'set-bar', role: 'progressbar', 'aria-label': label + ' usage', 'aria-valuemin': '0', 'aria-valuemax': '100',
      'aria-valuenow': String(Math.round(clamped)), 'data-level': level },
    h('span', { style: { width: clamped + '%' } })),
    h('div', { class: 'stat-label set-detail' }, detail));
}

function fixed(value, digits) {
  const n = Number(value);
  return Number.isFinite(n) ? n.toFixed(digits) : '—';
}
const gb = (value) => (Number.isFinite(Number(value)) ? Number(value).toFixed(1) + ' GB' : '—');
const cores = (n) => (n ? n + (n === 1 ? ' core' : ' cores') : '');
