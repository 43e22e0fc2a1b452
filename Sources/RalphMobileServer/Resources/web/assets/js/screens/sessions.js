// Sessions list (`#/sessions`): every ralph run the server sees, newest first, kept live from the global stream
// (`session.added` / `session.updated` / `session.removed`), with a refresh button, pull-to-refresh on touch, filter
// chips and, for admins, a "New run" button.

import { api } from '../api.js';
import { globalEvents } from '../stream.js';
import { h, render, hatBadge, showError } from '../ui.js';
import { id8, relTime, dateTime } from '../format.js';

const FILTERS = [
  { key: 'all', label: 'All', test: () => true },
  { key: 'live', label: 'Live', test: (s) => isActive(s) },
  { key: 'done', label: 'Done', test: (s) => !isActive(s) },
];
const FILTER_STORE = 'ralph.sessions.filter';
const POLL_MS = 5000;
const TICK_MS = 5000;

const isActive = (s) => s.mode === 'live' || s.mode === 'paused' || s.status === 'starting';

function byNewest(a, b) {
  const ta = Date.parse(a.started_at || '') || 0;
  const tb = Date.parse(b.started_at || '') || 0;
  if (tb !== ta) return tb - ta;
  return String(a.id).localeCompare(String(b.id));
}

export async function mount(view, params, app) {
  app.setTitle('Sessions');
  const sessions = new Map();
  let filter = localStorage.getItem(FILTER_STORE) || 'all';
  if (!FILTERS.some((f) => f.key === filter)) filter = 'all';
  let loaded = false;
  let loadError = null;
  let fetching = null;
  let buffered = null; // global events that arrive while a fetch is in flight, applied after it
  let disposed = false;

  // --- Global stream -------------------------------------------------------------------------------------------
  function apply(name, data) {
    if (!data || !data.id) return;
    if (name === 'session.removed') {
      sessions.delete(data.id);
    } else {
      // Updates may carry only the fields that changed: merge them into what we have.
      const previous = sessions.get(data.id) || {};
      sessions.set(data.id, { ...previous, ...data });
    }
  }
  function onGlobal(name) {
    return (data) => {
      if (buffered) buffered.push([name, data]);
      apply(name, data);
      if (loaded) scheduleDraw();
    };
  }
  let wasLive = globalEvents.state === 'live';
  const unsubscribe = [
    globalEvents.on('session.added', onGlobal('session.added')),
    globalEvents.on('session.updated', onGlobal('session.updated')),
    globalEvents.on('session.removed', onGlobal('session.removed')),
    globalEvents.on('state', ({ state }) => {
      // After the stream comes back (e.g. the server restarted), re-read the list: runs removed meanwhile go away.
      if (state === 'live' && !wasLive) refresh({ quiet: true });
      wasLive = state === 'live';
      drawStreamNote();
    }),
  ];

  // --- Fetching ------------------------------------------------------------------------------------------------
  async function refresh({ quiet = false } = {}) {
    if (fetching) return fetching;
    buffered = [];
    if (!quiet) setRefreshing(true);
    fetching = (async () => {
      try {
        const list = await api.get('/api/sessions');
        if (disposed) return;
        sessions.clear();
        for (const s of Array.isArray(list) ? list : []) sessions.set(s.id, s);
        // Whatever the stream said while we were fetching is at least as new as the answer.
        for (const [name, data] of buffered) apply(name, data);
        loaded = true;
        loadError = null;
      } catch (error) {
        if (disposed) return;
        loadError = error;
        if (loaded) showError(error, 'Refresh failed');
      } finally {
        buffered = null;
        fetching = null;
        if (!disposed) {
          setRefreshing(false);
          draw();
        }
      }
    })();
    return fetching;
  }

  // --- Rendering -----------------------------------------------------------------------------------------------
  const refreshButton = h('button', { type: 'button', class: 'btn small sl-refresh', 'data-test': 'refresh', 'aria-label': 'Refresh the list', title: 'Refresh the list', onclick: () => refresh() }, '\u21BB');
  const newRunButton = app.can('admin')
    ? h('button', { type: 'button', class: 'btn small primary', 'data-test': 'new-run', onclick: () => app.navigate('#/new') }, '+ New run')
    : null;
  const summary = h('p', { class: 'muted small sl-summary', role: 'status', 'aria-live': 'polite' });
  const chipButtons = new Map();
  const chips = h('div', { class: 'segmented sl-filters', role: 'group', 'aria-label': 'Filter runs' },
    FILTERS.map((f) => {
      const button = h('button', {
        type: 'button', 'aria-pressed': String(f.key === filter), 'data-test': 'filter-' + f.key,
        onclick: () => {
          filter = f.key;
          localStorage.setItem(FILTER_STORE, filter);
          draw();
        },
      }, f.label);
      chipButtons.set(f.key, button);
      return button;
    }));
  const pullNote = h('div', { class: 'sl-pull', 'aria-hidden': 'true' }, 'Pull to refresh');
  const streamNote = h('p', { class: 'banner warn sl-stream-note', role: 'status', hidden: true });
  const content = h('div', { class: 'sl-content' }, h('p', { class: 'loading', role: 'status' }, 'Loading runs…'));
  const root = h('section', { class: 'sessions-screen', 'aria-labelledby': 'screen-title' },
    pullNote,
    h('div', { class: 'toolbar sl-toolbar' }, chips, refreshButton, newRunButton),
    summary,
    streamNote,
    content);
  render(view, root);

  function setRefreshing(on) {
    refreshButton.disabled = on;
    refreshButton.classList.toggle('spinning', on);
    refreshButton.setAttribute('aria-busy', on ? 'true' : 'false');
  }

  function drawStreamNote() {
    const state = globalEvents.state;
    const down = loaded && (state === 'reconnecting' || state === 'closed');
    streamNote.hidden = !down;
    if (down) streamNote.textContent = 'Live updates are reconnecting; the list is refreshed every few seconds meanwhile.';
  }

  let drawQueued = false;
  function scheduleDraw() {
    if (drawQueued) return;
    drawQueued = true;
    requestAnimationFrame(() => {
      drawQueued = false;
      if (!disposed) draw();
    });
  }

  function draw() {
    drawStreamNote();
    const all = [...sessions.values()].sort(byNewest);
    for (const f of FILTERS) {
      const count = all.filter(f.test).length;
      const button = chipButtons.get(f.key);
      button.setAttribute('aria-pressed', String(f.key === filter));
      button.textContent = f.label + ' (' + count + ')';
      button.setAttribute('aria-label', f.label + ': ' + count + (count === 1 ? ' run' : ' runs'));
    }
    if (!loaded) {
      if (loadError) {
        summary.textContent = '';
        render(content, h('div', { class: 'banner error', role: 'alert' },
          h('p', {}, 'Could not load the runs: ' + loadError.message),
          h('button', { type: 'button', class: 'btn small', onclick: () => refresh() }, 'Try again')));
      }
      return;
    }
    const live = all.filter(isActive).length;
    summary.textContent = all.length === 0 ? 'No runs yet.'
      : all.length + (all.length === 1 ? ' run' : ' runs') + ' · ' + live + ' live';
    if (all.length === 0) {
      render(content, emptyState(app));
      return;
    }
    const shown = all.filter(FILTERS.find((f) => f.key === filter).test);
    if (shown.length === 0) {
      render(content, h('div', { class: 'empty' },
        h('p', {}, filter === 'live' ? 'No run is live right now.' : 'No finished runs yet.'),
        h('button', { type: 'button', class: 'btn small', onclick: () => { filter = 'all'; localStorage.setItem(FILTER_STORE, filter); draw(); } }, 'Show all runs')));
      return;
    }
    // Rows are kept per id and updated in place (moved, never rebuilt), so focus and element references survive.
    if (!list.isConnected) render(content, list);
    const keep = new Set(shown.map((s) => s.id));
    for (const [id, entry] of rows) {
      if (!keep.has(id)) {
        entry.li.remove();
        rows.delete(id);
      }
    }
    let previous = null;
    for (const s of shown) {
      let entry = rows.get(s.id);
      if (!entry) {
        entry = makeRow(s.id);
        rows.set(s.id, entry);
      }
      updateRow(entry, s);
      const expected = previous ? previous.nextSibling : list.firstChild;
      if (expected !== entry.li) list.insertBefore(entry.li, expected);
      previous = entry.li;
    }
  }

  const list = h('ul', { class: 'list card sl-list', 'aria-label': 'Ralph runs, newest first' });
  const rows = new Map();

  function makeRow(id) {
    const e = {};
    e.mode = h('span', { class: 'badge', 'data-test': 'mode' });
    e.status = h('span', { class: 'badge', 'data-test': 'status' });
    e.task = h('div', { class: 'row-title', 'data-test': 'task' });
    e.id8 = h('span', { class: 'mono' }, id8(id));
    e.iteration = h('span', { 'data-test': 'iteration', title: 'Iteration (current/total)' });
    e.hat = h('span', { 'data-test': 'hat' });
    e.started = h('time', {});
    e.last = h('time', {});
    e.ws = h('span', { class: 'sl-ws' });
    e.link = h('a', { class: 'row-link', href: '#/sessions/' + encodeURIComponent(id) },
      h('div', { class: 'sl-badges' }, e.mode, e.status),
      h('div', { class: 'row-main' },
        e.task,
        h('div', { class: 'row-sub sl-line' }, e.id8, h('span', {}, h('span', { class: 'sl-label' }, 'it '), e.iteration), e.hat),
        h('div', { class: 'row-sub sl-line' }, h('span', {}, 'started ', e.started), h('span', {}, 'last ', e.last)),
        h('div', { class: 'row-sub' }, e.ws)),
      h('span', { class: 'sl-chevron', 'aria-hidden': 'true' }, '\u203A'));
    e.li = h('li', { 'data-test': 'session-row', 'data-id': id, class: 'sl-row' }, e.link);
    e.key = '';
    return e;
  }

  function updateRow(e, s) {
    const key = JSON.stringify([s.mode, s.status, s.iteration, s.total, s.hat, s.task_name, s.started_at, s.last_event_at, s.workspace, s.path]);
    if (key === e.key) return;
    e.key = key;
    const mode = s.mode || 'complete';
    const status = s.status || '';
    const iteration = (s.iteration ?? 0) + (s.total ? '/' + s.total : '');
    const task = s.task_name || '(no task)';
    e.li.className = 'sl-row sl-' + mode;
    e.mode.className = 'badge ' + mode;
    e.mode.textContent = mode;
    // The status badge only when it says more than the mode (live + running says nothing new).
    const showStatus = status && status !== mode && !(mode === 'live' && status === 'running');
    e.status.className = showStatus ? 'badge ' + status : 'sr-only';
    e.status.textContent = status;
    e.task.textContent = task;
    e.task.title = task;
    e.iteration.textContent = iteration;
    render(e.hat, s.hat ? hatBadge(s.hat) : h('span', { class: 'muted', title: 'No hat yet' }, '\u2014'));
    setTime(e.started, s.started_at);
    setTime(e.last, s.last_event_at);
    e.ws.textContent = s.workspace === '.' || !s.workspace ? 'workspace root' : s.workspace;
    e.ws.title = s.path || '';
  }

  function setTime(el, ts) {
    el.dataset.rel = ts || '';
    el.setAttribute('datetime', ts || '');
    el.title = dateTime(ts);
    el.textContent = relTime(ts);
  }

  // --- Timers: relative times, and polling while the global stream is down --------------------------------------
  const tick = setInterval(() => {
    for (const el of root.querySelectorAll('time[data-rel]')) el.textContent = relTime(el.dataset.rel);
  }, TICK_MS);
  const poll = setInterval(() => {
    if (globalEvents.state !== 'live' && !fetching && document.visibilityState !== 'hidden') refresh({ quiet: true });
  }, POLL_MS);

  // --- Pull to refresh (touch) -----------------------------------------------------------------------------------
  let pullStart = null;
  let pulled = 0;
  const onTouchStart = (event) => {
    pullStart = window.scrollY <= 0 && event.touches.length === 1 ? event.touches[0].clientY : null;
    pulled = 0;
  };
  const onTouchMove = (event) => {
    if (pullStart === null) return;
    pulled = event.touches[0].clientY - pullStart;
    if (pulled > 10 && window.scrollY <= 0) {
      root.classList.add('sl-pulling');
      pullNote.textContent = pulled > 70 ? 'Release to refresh' : 'Pull to refresh';
      pullNote.style.setProperty('--pull', Math.min(pulled, 90) + 'px');
    } else {
      root.classList.remove('sl-pulling');
    }
  };
  const onTouchEnd = () => {
    if (pullStart !== null && pulled > 70) refresh();
    pullStart = null;
    pulled = 0;
    root.classList.remove('sl-pulling');
  };
  root.addEventListener('touchstart', onTouchStart, { passive: true });
  root.addEventListener('touchmove', onTouchMove, { passive: true });
  root.addEventListener('touchend', onTouchEnd, { passive: true });
  root.addEventListener('touchcancel', onTouchEnd, { passive: true });

  await refresh();

  return () => {
    disposed = true;
    clearInterval(tick);
    clearInterval(poll);
    for (const off of unsubscribe) off();
  };
}

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

