// @ts-check
// The dashboard's shell: who the user is (login when the server asks for a key), hash routing between screens, the
// tab bar, the live-connection indicator, the pending-approvals badge, and presence for notifications (the server is
// told which screen is open, so what the person looks at does not buzz).
//
// Each screen is a module in ./screens/ exporting `mount(view, params, app)`; it may return a cleanup function, which
// runs when the user leaves the screen (streams closed, timers cleared).

import { api, ApiError } from './api.js';
import { globalEvents } from './stream.js';
import { applyTheme } from './theme.js';
import { h, render, showError, toast } from './ui.js';
import { applyPendingFrame } from './state/approvals.js';
import { startPresence } from './notify/presence.js';
import { storedDeviceId, followWorkerDeviceId } from './notify/subscription.js';

/** @type {Record<string, number>} */
const ROLES = { viewer: 1, operator: 2, admin: 3 };

const routes = [
  { pattern: /^\/sessions\/?$/, screen: 'sessions', tab: 'sessions', title: 'Sessions' },
  { pattern: /^\/sessions\/([^/]+)$/, screen: 'session', tab: 'sessions', title: 'Session', back: '#/sessions' },
  { pattern: /^\/new\/?$/, screen: 'create', tab: 'sessions', title: 'New run', back: '#/sessions' },
  { pattern: /^\/library(?:\/([a-z]+))?\/?$/, screen: 'library', tab: 'library', title: 'Library' },
  { pattern: /^\/chats\/?$/, screen: 'chats', tab: 'chats', title: 'Conversations' },
  { pattern: /^\/chats\/([^/]+)$/, screen: 'chat', tab: 'chats', title: 'Chat', back: '#/chats' },
  { pattern: /^\/approvals\/?$/, screen: 'approvals', tab: 'approvals', title: 'Approvals' },
  { pattern: /^\/settings\/?$/, screen: 'settings', tab: 'settings', title: 'Settings' },
];

/** @param {string} id @returns {HTMLElement} an element index.html has */
const byId = (id) => /** @type {HTMLElement} */ (document.getElementById(id));
const view = byId('view');
const title = byId('screen-title');
const backButton = byId('back-btn');
const tabbar = byId('tabbar');
const conn = byId('conn');
const approvalsBadge = byId('approvals-badge');

/// The shell every screen gets: who is logged in, the server's health, the pending approvals, title and navigation.
export const app = {
  /** @type {any} `GET /api/whoami` */
  whoami: null,
  /** @type {any} `GET /api/health` */
  health: null,
  /** @type {Map<string, import('./words/approval.js').Approval>} */
  pendingApprovals: new Map(),
  get role() { return this.whoami ? this.whoami.role : 'viewer'; },
  /// True when the user's role includes `role` (admin ⊃ operator ⊃ viewer).
  /** @param {string} role */
  can(role) { return (ROLES[this.role] || 0) >= (ROLES[role] || 99); },
  /** @param {string} text */
  setTitle(text) {
    title.textContent = text;
    document.title = text + ' · Ralph Mobile';
  },
  /** @param {string | null} hash */
  setBack(hash) {
    backButton.hidden = !hash;
    backButton.dataset.target = hash || '';
  },
  /** @param {string} hash */
  navigate(hash) {
    if (location.hash === hash) route();
    else location.hash = hash;
  },
  async logout() {
    await stopPresence(true);
    try {
      await api.post('/api/logout');
    } catch (error) {
      showError(error, 'Logout');
    }
    globalEvents.stop();
    this.whoami = null;
    showLogin('You are logged out.', 'info');
  },
};

/** @type {{routeChanged: () => void, stop: (report: boolean) => Promise<void>} | null} presence reports while logged in */
let presence = null;

/// Stops presence reports; `report`: tell the server the page left (awaited, so that it arrives before a logout).
/** @param {boolean} report */
async function stopPresence(report) {
  const stopping = presence ? presence.stop(report) : Promise.resolve();
  presence = null;
  await stopping;
}

/** @type {(() => void) | null} what the screen shown needs done when it is left */
let cleanup = null;
let routing = 0;

/// Shows the screen the hash names (the previous one cleaned up first); a newer route wins over a slower one.
async function route() {
  const token = ++routing;
  if (!app.whoami) return;
  if (presence) presence.routeChanged();
  const path = (location.hash || '').replace(/^#/, '') || '/sessions';
  const match = routes.map((r) => ({ r, m: path.match(r.pattern) })).find((x) => x.m);
  if (cleanup) {
    try { cleanup(); } catch (error) { console.error(error); }
    cleanup = null;
  }
  for (const link of tabbar.querySelectorAll('a')) {
    if (match && link.dataset.tab === match.r.tab) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  if (!match) {
    app.setTitle('Not found');
    app.setBack('#/sessions');
    render(view, h('div', { class: 'empty' }, h('p', {}, 'There is no page at ' + path + '.'), h('a', { href: '#/sessions', class: 'btn' }, 'Go to sessions')));
    return;
  }
  app.setTitle(match.r.title);
  app.setBack(match.r.back || null);
  render(view, h('p', { class: 'loading', role: 'status' }, 'Loading…'));
  let module;
  try {
    module = await import('./screens/' + match.r.screen + '.js');
  } catch (error) {
    render(view, h('div', { class: 'banner error', role: 'alert' }, 'This screen could not be loaded: ' + error.message));
    return;
  }
  if (token !== routing) return;
  view.replaceChildren();
  try {
    const params = match.m.slice(1).map((p) => (p === undefined ? undefined : decodeURIComponent(p)));
    const result = await module.mount(view, params, app);
    if (token !== routing) {
      if (typeof result === 'function') result();
      return;
    }
    cleanup = typeof result === 'function' ? result : null;
  } catch (error) {
    render(view, h('div', { class: 'banner error', role: 'alert' }, error instanceof ApiError ? error.message : 'Something went wrong: ' + error.message));
  }
  title.focus({ preventScroll: true });
}

/// The login form; `message` is an error about the last attempt or the login that ended, or (`kind` info) a notice.
/** @param {string} [message] @param {'error' | 'info'} [kind] */
function showLogin(message, kind = 'error') {
  if (cleanup) {
    try { cleanup(); } catch { /* leaving anyway */ }
    cleanup = null;
  }
  tabbar.hidden = true;
  app.setBack(null);
  app.setTitle('Log in');
  const keyInput = h('input', { type: 'password', id: 'login-key', name: 'key', autocomplete: 'current-password', required: true,
    placeholder: 'rmk_…', 'aria-describedby': 'login-hint' });
  const error = h('p', { class: 'field-error', role: 'alert', id: 'login-error', hidden: !(message && kind === 'error') },
    message && kind === 'error' ? message : '');
  const submit = h('button', { type: 'submit', class: 'btn primary block' }, 'Log in');
  const form = h('form', { class: 'card login', 'aria-labelledby': 'login-heading' },
    h('img', { class: 'logo', src: '/assets/icons/icon.svg', alt: '' }),
    h('h2', { id: 'login-heading' }, 'Ralph Mobile'),
    message && kind === 'info' ? h('p', { class: 'banner info', role: 'status' }, message) : null,
    // Password managers expect a user name beside a password; the key has none.
    h('input', { type: 'text', name: 'username', autocomplete: 'username', value: 'ralph-mobile', hidden: true, 'aria-hidden': 'true', tabindex: '-1' }),
    h('div', { class: 'field' },
      h('label', { for: 'login-key' }, 'API key'),
      keyInput,
      h('div', { class: 'hint', id: 'login-hint' }, 'Create one on the server with: ralph-mobile-server keys create --role operator --name phone')),
    error,
    submit);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const key = keyInput.value.trim();
    if (!key) {
      error.textContent = 'Enter the API key.';
      error.hidden = false;
      keyInput.setAttribute('aria-invalid', 'true');
      keyInput.focus();
      return;
    }
    submit.disabled = true;
    submit.textContent = 'Logging in…';
    try {
      app.whoami = await api.post('/api/login', { key });
      keyInput.value = '';
      await enter();
    } catch (failure) {
      error.textContent = failure.status === 401 ? 'That key is not valid on this server.' : failure.message;
      error.hidden = false;
      keyInput.setAttribute('aria-invalid', 'true');
      keyInput.focus();
    } finally {
      submit.disabled = false;
      submit.textContent = 'Log in';
    }
  });
  render(view, form);
  keyInput.focus();
}

async function enter() {
  tabbar.hidden = false;
  document.body.dataset.role = app.role;
  globalEvents.start();
  if (!presence) {
    await followWorkerDeviceId().catch((error) => console.error('the service worker\'s device id was not read:', error));
    presence = startPresence({ deviceId: storedDeviceId, onProblem: (message) => toast(message, 'error', 8000) });
  }
  await route();
}

/** @param {{state: string, attempts?: number}} info */
function setConnection({ state, attempts }) {
  conn.dataset.state = state;
  const text = { live: 'live', connecting: 'connecting', reconnecting: 'reconnecting', ended: 'ended', closed: 'offline' }[state] || state;
  conn.querySelector('.conn-text').textContent = text;
  conn.title = 'Live updates: ' + text + (attempts ? ' (' + attempts + ' reconnects)' : '');
}

function updateApprovalsBadge() {
  const count = app.pendingApprovals.size;
  approvalsBadge.hidden = count === 0;
  approvalsBadge.textContent = String(count);
  approvalsBadge.setAttribute('aria-label', count + ' pending approvals');
}

async function boot() {
  applyTheme();
  globalEvents.on('state', setConnection);
  for (const name of ['approval.pending', 'approval.resolved']) {
    globalEvents.on(name, (approval) => {
      app.pendingApprovals = applyPendingFrame(app.pendingApprovals, name, approval);
      updateApprovalsBadge();
    });
  }
  window.addEventListener('hashchange', route);
  // The skip link's `#view` would be taken for a route: move the focus instead.
  document.querySelector('.skip-link').addEventListener('click', (event) => {
    event.preventDefault();
    view.focus();
  });
  // A page kept in the back/forward cache must not hold its stream open: browsers allow 6 connections per server.
  window.addEventListener('pagehide', () => globalEvents.stop());
  window.addEventListener('pageshow', (event) => {
    if (event.persisted && app.whoami) globalEvents.start();
  });
  window.addEventListener('ralph:unauthorized', () => {
    if (!app.whoami) return;
    globalEvents.stop();
    stopPresence(false);
    app.whoami = null;
    showLogin('Your login has ended (the key was revoked or the login expired). Log in again.');
  });
  // A tap on a notification while the dashboard is open: the service worker asks this page to show its screen.
  if ('serviceWorker' in navigator) {
    navigator.serviceWorker.addEventListener('message', (event) => {
      const data = event.data;
      if (!data || data.type !== 'ralph:open' || typeof data.url !== 'string') return;
      const url = new URL(data.url, location.origin);
      if (url.origin !== location.origin) return;
      if (url.pathname === location.pathname) app.navigate(url.hash || '#/sessions');
      else location.assign(url.href);
    });
  }
  backButton.addEventListener('click', () => {
    const target = backButton.dataset.target;
    if (target) app.navigate(target);
  });
  try {
    app.health = await api.get('/api/health');
  } catch (error) {
    render(view, h('div', { class: 'banner error', role: 'alert' }, 'Cannot reach the server: ' + error.message));
    return;
  }
  try {
    app.whoami = await api.get('/api/whoami');
  } catch (error) {
    if (error.status === 401) {
      showLogin();
      return;
    }
    render(view, h('div', { class: 'banner error', role: 'alert' }, error.message));
    return;
  }
  await enter();
}

boot().catch((error) => {
  console.error(error);
  toast('The dashboard failed to start: ' + error.message, 'error', 10000);
});
