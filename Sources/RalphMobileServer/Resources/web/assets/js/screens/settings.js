// @ts-check
// Settings: the server, who you are (log out), notifications (this browser's push subscription, your devices), the
// theme, API keys and pairing a phone (admins), the host's load and a short about. The cards are in ../settings/.

import { api } from '../api.js';
import { h, render } from '../ui.js';
import { serverCard, youCard, themeCard, aboutCard } from '../settings/cards.js';
import { keysCard } from '../settings/keys-card.js';
import { pairCard } from '../settings/pair-card.js';
import { hostCard } from '../settings/host-card.js';
import { notificationsCard } from '../settings/notifications-card.js';

/** @param {HTMLElement} view @param {unknown} _params @param {any} app */
export async function mount(view, _params, app) {
  app.setTitle('Settings');
  /** @type {{alive: boolean, timer: any, sheets: Set<{close: () => void}>}} */
  const life = { alive: true, timer: null, sheets: new Set() };
  const page = h('div', { class: 'settings' });
  const placeholder = h('p', { class: 'loading', role: 'status' }, 'Loading settings\u2026');
  render(view, placeholder);

  // Fresh copies of what app.js loaded at start (the login may have changed; expires_at is only in whoami).
  const [health, whoami] = await Promise.all([
    api.get('/api/health').catch((error) => { console.warn('health not read again:', error); return app.health; }),
    api.get('/api/whoami').catch((error) => { console.warn('whoami not read again:', error); return app.whoami; }),
  ]);
  if (health) app.health = health;
  // The user may have left meanwhile: then another screen owns the view.
  if (!placeholder.isConnected) return () => {};
  render(view, page);
  const me = { ...(app.whoami || {}), ...(whoami || {}) };
  page.append(...[
    serverCard(health || {}, me),
    youCard(me, app),
    notificationsCard(app, life),
    themeCard(),
    app.can('admin') ? keysCard(me, life) : null,
    app.can('admin') ? pairCard(me, life) : null,
    hostCard(life),
    aboutCard(),
  ].filter((card) => card !== null));

  return () => {
    life.alive = false;
    clearTimeout(life.timer);
    for (const sheet of [...life.sheets]) sheet.close();
  };
}
