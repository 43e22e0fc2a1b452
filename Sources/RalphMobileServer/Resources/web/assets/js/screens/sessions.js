// @ts-check
// Sessions list (`#/sessions`): every ralph run the server sees, newest first, kept live from the global stream
// (`session.added` / `session.updated` / `session.removed`, folded by ../state/sessions.js), with a refresh button,
// pull-to-refresh on touch, filter chips and, for admins, a "New run" button. In a cluster, each row names its host,
// a run whose host is offline shows as unreachable, and the hosts strip (`GET /api/hosts`, kept live by
// `host.updated`) shows the hosts and narrows the list to one of them.

import { api } from '../api.js';
import { globalEvents } from '../stream.js';
import { h, render, showError, refreshRelativeTimes } from '../ui.js';
import { initialSessionsState, reduceSessions, sessionsView, FILTERS } from '../state/sessions.js';
import { initialHostsState, reduceHosts, hostFilterInEffect, countsByHost, hostNamed, showsHosts } from '../state/hosts.js';
import { SessionRow } from '../components/session-row.js';
import { HostsStrip } from '../components/hosts-strip.js';
import { pullToRefresh } from '../components/pull-to-refresh.js';

/** @typedef {import('../state/sessions.js').SessionsState} SessionsState */

const FILTER_STORE = 'ralph.sessions.filter';
const HOST_STORE = 'ralph.sessions.host';
const POLL_MS = 5000;
const TICK_MS = 5000;

/** @param {HTMLElement} view @param {unknown} _params @param {any} app */
export async function mount(view, _params, app) {
  app.setTitle('Sessions');
  const screen = new SessionsScreen(view, app);
  await screen.refresh();
  return () => screen.dispose();
}

class SessionsScreen {
  /** @param {HTMLElement} view @param {any} app */
  constructor(view, app) {
    this.app = app;
    /** @type {SessionsState} */
    this.state = initialSessionsState();
    this.filter = localStorage.getItem(FILTER_STORE) || 'all';
    if (!FILTERS.some((f) => f.key === this.filter)) this.filter = 'all';
    /** @type {import('../state/hosts.js').HostsState} */
    this.hosts = initialHostsState();
    /// The host chosen (an id, or `all`); in effect only while it names a host of the cluster (hostFilterInEffect).
    this.hostFilter = localStorage.getItem(HOST_STORE) || 'all';
    /** @type {unknown} */
    this.loadError = null;
    /** @type {Promise<void> | null} */
    this.fetching = null;
    this.disposed = false;
    this.drawQueued = false;
    /** @type {Map<string, SessionRow>} */
    this.rows = new Map();
    this.buildLayout(view);
    this.wasLive = globalEvents.state === 'live';
    const frame = (/** @type {string} */ name) => (/** @type {any} */ data) => {
      this.state = reduceSessions(this.state, { type: 'frame', name, data });
      if (this.state.loaded) this.scheduleDraw();
    };
    this.unsubscribe = [
      globalEvents.on('session.added', frame('session.added')),
      globalEvents.on('session.updated', frame('session.updated')),
      globalEvents.on('session.removed', frame('session.removed')),
      globalEvents.on('host.updated', (/** @type {any} */ host) => {
        this.hosts = reduceHosts(this.hosts, { type: 'updated', host });
        if (this.state.loaded) this.scheduleDraw();
      }),
      globalEvents.on('state', ({ state }) => {
        // After the stream comes back (e.g. the server restarted), re-read the list: runs removed meanwhile go away.
        if (state === 'live' && !this.wasLive) this.refresh({ quiet: true });
        this.wasLive = state === 'live';
        this.drawStreamNote();
      }),
      pullToRefresh(this.root, this.pullNote, () => this.refresh()),
    ];
    this.tick = setInterval(() => refreshRelativeTimes(this.root), TICK_MS);
    // Polling only while the global stream is down.
    this.poll = setInterval(() => {
      if (globalEvents.state !== 'live' && !this.fetching && document.visibilityState !== 'hidden') this.refresh({ quiet: true });
    }, POLL_MS);
  }

  dispose() {
    this.disposed = true;
    clearInterval(this.tick);
    clearInterval(this.poll);
    for (const off of this.unsubscribe) off();
  }

  /** @param {HTMLElement} view */
  buildLayout(view) {
    this.refreshButton = h('button', { type: 'button', class: 'btn small sl-refresh', 'data-test': 'refresh', 'aria-label': 'Refresh the list', title: 'Refresh the list', onclick: () => this.refresh() }, '\u21BB');
    const newRunButton = this.app.can('admin')
      ? h('button', { type: 'button', class: 'btn small primary', 'data-test': 'new-run', onclick: () => this.app.navigate('#/new') }, '+ New run')
      : null;
    this.summary = h('p', { class: 'muted small sl-summary', role: 'status', 'aria-live': 'polite' });
    /** @type {Map<string, HTMLElement>} */
    this.chipButtons = new Map();
    const chips = h('div', { class: 'segmented sl-filters', role: 'group', 'aria-label': 'Filter runs' },
      FILTERS.map((f) => {
        const button = h('button', { type: 'button', 'aria-pressed': String(f.key === this.filter), 'data-test': 'filter-' + f.key, onclick: () => this.setFilter(f.key) }, f.label);
        this.chipButtons.set(f.key, button);
        return button;
      }));
    this.hostsStrip = new HostsStrip((filter) => this.setHostFilter(filter));
    this.pullNote = h('div', { class: 'sl-pull', 'aria-hidden': 'true' }, 'Pull to refresh');
    this.streamNote = h('p', { class: 'banner warn sl-stream-note', role: 'status', hidden: true });
    this.content = h('div', { class: 'sl-content' }, h('p', { class: 'loading', role: 'status' }, 'Loading runs…'));
    this.list = h('ul', { class: 'list card sl-list', 'aria-label': 'Ralph runs, newest first' });
    this.root = h('section', { class: 'sessions-screen', 'aria-labelledby': 'screen-title' },
      this.pullNote,
      h('div', { class: 'toolbar sl-toolbar' }, chips, this.refreshButton, newRunButton),
      this.hostsStrip.element,
      this.summary,
      this.streamNote,
      this.content);
    render(view, this.root);
  }

  /** @param {string} key */
  setFilter(key) {
    this.filter = key;
    localStorage.setItem(FILTER_STORE, key);
    this.draw();
  }

  /** @param {string} filter a host id, or `all` */
  setHostFilter(filter) {
    this.hostFilter = filter;
    localStorage.setItem(HOST_STORE, filter);
    this.draw();
  }

  /// The hosts, read beside the list (an older server without `/api/hosts` is a server on its own).
  async refreshHosts() {
    try {
      const list = await api.get('/api/hosts');
      if (!this.disposed) this.hosts = reduceHosts(this.hosts, { type: 'fetched', list });
    } catch (error) {
      if (!this.disposed) this.hosts = reduceHosts(this.hosts, { type: 'failed' });
      if (/** @type {any} */ (error).status !== 404) console.warn('hosts not read:', error);
    }
  }

  /** @param {{quiet?: boolean}} [options] @returns {Promise<void>} */
  refresh({ quiet = false } = {}) {
    if (this.fetching) return this.fetching;
    this.state = reduceSessions(this.state, { type: 'fetching' });
    if (!quiet) this.setRefreshing(true);
    this.fetching = (async () => {
      try {
        const [list] = await Promise.all([api.get('/api/sessions'), this.refreshHosts()]);
        if (this.disposed) return;
        this.state = reduceSessions(this.state, { type: 'fetched', list });
        this.loadError = null;
      } catch (error) {
        if (this.disposed) return;
        this.state = reduceSessions(this.state, { type: 'failed' });
        this.loadError = error;
        if (this.state.loaded) showError(error, 'Refresh failed');
      } finally {
        this.fetching = null;
        if (!this.disposed) {
          this.setRefreshing(false);
          this.draw();
        }
      }
    })();
    return this.fetching;
  }

  /** @param {boolean} on */
  setRefreshing(on) {
    const button = /** @type {HTMLButtonElement} */ (this.refreshButton);
    button.disabled = on;
    button.classList.toggle('spinning', on);
    button.setAttribute('aria-busy', on ? 'true' : 'false');
  }

  drawStreamNote() {
    const state = globalEvents.state;
    const down = this.state.loaded && (state === 'reconnecting' || state === 'closed');
    this.streamNote.hidden = !down;
    if (down) this.streamNote.textContent = 'Live updates are reconnecting; the list is refreshed every few seconds meanwhile.';
  }

  scheduleDraw() {
    if (this.drawQueued) return;
    this.drawQueued = true;
    requestAnimationFrame(() => {
      this.drawQueued = false;
      if (!this.disposed) this.draw();
    });
  }

  draw() {
    this.drawStreamNote();
    const hostFilter = hostFilterInEffect(this.hosts, this.hostFilter);
    const { all, counts, live } = sessionsView(this.state, hostFilter);
    const everyRun = [...this.state.sessions.values()];
    this.hostsStrip.update(this.hosts, { filter: hostFilter, counts: countsByHost(this.hosts, everyRun), total: everyRun.length });
    const host = showsHosts(this.hosts) ? hostNamed(this.hosts, hostFilter) : undefined;
    for (const f of FILTERS) {
      const count = counts[f.key];
      const button = /** @type {HTMLElement} */ (this.chipButtons.get(f.key));
      button.setAttribute('aria-pressed', String(f.key === this.filter));
      button.textContent = f.label + ' (' + count + ')';
      button.setAttribute('aria-label', f.label + ': ' + count + (count === 1 ? ' run' : ' runs'));
    }
    if (!this.state.loaded) {
      if (this.loadError) {
        this.summary.textContent = '';
        render(this.content, h('div', { class: 'banner error', role: 'alert' },
          h('p', {}, 'Could not load the runs: ' + /** @type {Error} */ (this.loadError).message),
          h('button', { type: 'button', class: 'btn small', onclick: () => this.refresh() }, 'Try again')));
      }
      return;
    }
    const where = host ? ' on ' + host.name : '';
    this.summary.textContent = all.length === 0 ? 'No runs' + (host ? where + '.' : ' yet.')
      : all.length + (all.length === 1 ? ' run' : ' runs') + where + ' · ' + live + ' live';
    if (all.length === 0 && host) {
      render(this.content, h('div', { class: 'empty', 'data-test': 'host-empty' },
        h('p', {}, 'No runs on ' + host.name + (host.online ? '.' : ' (offline).')),
        h('button', { type: 'button', class: 'btn small', onclick: () => this.setHostFilter('all') }, 'Show every host')));
      return;
    }
    if (all.length === 0) {
      render(this.content, emptyState(this.app));
      return;
    }
    const shown = all.filter(/** @type {typeof FILTERS[number]} */ (FILTERS.find((f) => f.key === this.filter)).test);
    if (shown.length === 0) {
      render(this.content, h('div', { class: 'empty' },
        h('p', {}, this.filter === 'live' ? 'No run is live' + where + ' right now.' : 'No finished runs' + where + ' yet.'),
        h('button', { type: 'button', class: 'btn small', onclick: () => this.setFilter('all') }, 'Show all runs')));
      return;
    }
    this.drawRows(shown);
  }

  /** @param {import('../state/session.js').SessionSummary[]} shown */
  drawRows(shown) {
    // Rows are kept per id and updated in place (moved, never rebuilt), so focus and element references survive.
    if (!this.list.isConnected) render(this.content, this.list);
    const keep = new Set(shown.map((s) => s.id));
    for (const [id, row] of this.rows) {
      if (!keep.has(id)) {
        row.li.remove();
        this.rows.delete(id);
      }
    }
    /** @type {HTMLElement | null} */
    let previous = null;
    for (const s of shown) {
      let row = this.rows.get(s.id);
      if (!row) {
        row = new SessionRow(s.id);
        this.rows.set(s.id, row);
      }
      row.update(s);
      const expected = previous ? previous.nextSibling : this.list.firstChild;
      if (expected !== row.li) this.list.insertBefore(row.li, expected);
      previous = row.li;
    }
  }
}

/** @param {any} app */
function emptyState(app) {
  return h('div', { class: 'empty sl-empty' },
    h('p', { class: 'sl-empty-title' }, 'No ralph runs yet'),
    h('p', {}, 'A run appears here as soon as ralph starts in a workspace this server serves: run ',
      h('code', {}, 'ralph run -p "…"'), ' in that directory',
      app.can('admin') ? ', or start one here with New run.' : '.'),
    h('p', {}, 'Just looking around? Start the server with ', h('code', {}, 'ralph-mobile-server --demo'),
      ' for a simulated live loop.'),
    app.can('admin')
      ? h('button', { type: 'button', class: 'btn primary', onclick: () => app.navigate('#/new') }, 'Start a run')
      : null);
}
