// @ts-check
// The session screen's controller: holds the state (../state/session.js), feeds it the session stream, the global
// stream, the hats and the iterations, and redraws the views from it after every action.
//
// The stream is opened with `?state=1`: the server sends the detail in `state` frames whenever it changes, so the
// detail is never re-read during a live stream. A server that sends none (no frame within a few seconds of the stream
// opening, or none before its end) gets the old behaviour: the detail re-read at most once a second while events
// arrive.

import { api, seg } from '../api.js';
import { openStream, globalEvents } from '../stream.js';
import { h, render, toast, download, refreshRelativeTimes } from '../ui.js';
import { id8 } from '../format.js';
import { initialSessionState, reduceSession, needsDetailRefresh } from '../state/session.js';
import { HeaderView, elapsedText, screenTitle } from './header.js';
import { QuestionView } from './question.js';
import { ControlsView } from './controls.js';
import { EventStreamView } from './event-stream.js';
import { Memo, renderTokens, renderFlow, renderBackpressure, renderStats, renderRecent, renderHats } from './cards.js';
import { renderGuidance, renderWaves } from './signals.js';
import { renderRpc } from './rpc-card.js';
import { hostLabel } from '../words/hosts.js';

/** @typedef {import('../state/session.js').SessionState} SessionState */
/** @typedef {import('../state/session.js').SessionAction} SessionAction */
/** @typedef {import('../state/session.js').SessionDetail} SessionDetail */

const HISTORY = 200; // events replayed when the stream opens
const REFRESH_MIN_MS = 1000; // detail re-read at most this often (only without state frames)
const ITERATIONS_MIN_MS = 5000;
/// How long after the stream opens the first `state` frame may take (it follows the replayed events) before the
/// server is taken for one that sends none.
const STATE_FRAME_GRACE_MS = 3000;

/** @param {string} test @param {string} title @param {HTMLElement} body */
function card(test, title, body) {
  return h('section', { class: 'card', 'data-test': test, 'aria-labelledby': 'sd-' + test + '-title' },
    h('div', { class: 'card-head' }, h('h2', { id: 'sd-' + test + '-title' }, title)), body);
}

export class DetailScreen {
  /** @param {HTMLElement} view @param {string} base @param {SessionDetail} detail @param {any} app */
  constructor(view, base, detail, app) {
    this.view = view;
    this.base = base;
    this.app = app;
    /** @type {SessionState} */
    this.state = initialSessionState(detail, Date.now());
    this.disposed = false;
    this.memo = new Memo();
    this.flowExpanded = false;
    this.iterationsAt = 0;
    /** @type {any} */
    this.graceTimer = null;
    this.refresher = { timer: /** @type {any} */ (null), running: false, again: false, last: Date.now() };
    /** @type {Array<() => void>} */
    this.unsubscribe = [];
    this.body = { tokens: h('div', {}), flow: h('div', {}), backpressure: h('div', {}), stats: h('div', {}), recent: h('div', {}),
      guidance: h('div', {}), waves: h('div', {}),
      hats: h('div', {}, h('p', { class: 'loading' }, 'Loading hats…')) };
    this.notice = h('div', { class: 'sd-notice', role: 'status' });
    this.header = new HeaderView({ onExport: () => this.exportJSON(), getId: () => this.state.detail.id });
    this.question = new QuestionView({ canOperate: app.can('operator'), onAnswered: () => this.scheduleRefresh(true) });
    this.controls = app.can('operator') ? new ControlsView({
      base, canAdmin: app.can('admin'), isDisposed: () => this.disposed,
      onMode: (mode, status) => { this.dispatch({ type: 'mode', mode, status, at: Date.now() }); this.scheduleRefresh(true); },
    }) : null;
    this.events = new EventStreamView();
    this.rpcBody = h('div', {});
    this.rpcCard = card('rpc-live', 'Live', this.rpcBody);
  }

  start() {
    const b = this.body;
    this.root = h('div', { class: 'session-detail', 'data-test': 'session-detail', 'data-id': this.state.detail.id },
      this.notice, this.header.element, this.question.element, this.controls ? this.controls.element : null, this.rpcCard, this.events.element,
      h('div', { class: 'sd-grid' },
        h('div', { class: 'sd-col' }, card('tokens', 'Tokens', b.tokens), card('backpressure', 'Backpressure', b.backpressure),
          card('iteration-stats', 'Iterations', b.stats), card('guidance', 'Guidance', b.guidance)),
        h('div', { class: 'sd-col' }, card('hat-flow', 'Hat flow', b.flow), card('waves', 'Waves', b.waves),
          card('recent-events', 'Recent events', b.recent), card('hats-reference', 'Hats', b.hats))));
    render(this.view, this.root);
    this.draw();
    this.loadHats();
    this.loadIterations(true);
    this.openStream();
    const id = this.state.detail.id;
    this.unsubscribe.push(
      globalEvents.on('session.updated', (data) => this.onGlobal(data)),
      globalEvents.on('session.added', (data) => this.onGlobal(data)),
      globalEvents.on('session.removed', (data) => { if (data && data.id === id) this.dispatch({ type: 'removed', id }); }),
    );
    this.tick = setInterval(() => this.onTick(), 1000);
  }

  dispose() {
    this.disposed = true;
    clearInterval(this.tick);
    clearTimeout(this.refresher.timer);
    clearTimeout(this.graceTimer);
    for (const off of this.unsubscribe) off();
    if (this.stream) this.stream.close();
  }

  /** @param {SessionAction} action */
  dispatch(action) {
    if (this.disposed) return;
    const next = reduceSession(this.state, action);
    if (next === this.state) return;
    this.state = next;
    this.draw();
  }

  draw() {
    const state = this.state;
    const b = this.body;
    /** @type {HTMLElement} */ (this.root).dataset.id = state.detail.id;
    this.app.setTitle(screenTitle(state));
    this.header.update(state, Date.now());
    this.question.update(state);
    if (this.controls) this.controls.update(state);
    this.events.update(state);
    renderRpc(this.rpcCard, this.rpcBody, state, this.memo);
    renderTokens(b.tokens, state, this.memo);
    renderFlow(b.flow, state, this.memo, this.flowExpanded, () => { this.flowExpanded = !this.flowExpanded; this.draw(); });
    renderBackpressure(b.backpressure, state, this.memo);
    renderStats(b.stats, state, this.memo);
    renderRecent(b.recent, state, this.memo);
    renderGuidance(b.guidance, state, this.memo);
    renderWaves(b.waves, state, this.memo);
    if (state.hatsLoaded) renderHats(b.hats, state, this.memo);
    if (state.gone) this.showGone();
  }

  onTick() {
    if (this.disposed) return;
    this.header.elapsed.textContent = elapsedText(this.state, Date.now());
    const now = Date.now();
    if (!this.lastTimesTick || now - this.lastTimesTick > 4000) {
      this.lastTimesTick = now;
      refreshRelativeTimes(/** @type {HTMLElement} */ (this.root));
      this.question.tick(this.state);
    }
  }

  // --- The session stream -------------------------------------------------------------------------------------------

  openStream() {
    // `end=close`: this page understands `end` (the server closes the stream after it).
    this.stream = openStream(this.base + '/events?history=' + HISTORY + '&state=1&end=close', {
      // A state frame has no id line: the id EventSource reports for it is the last workflow frame's.
      untracked: ['state'],
      events: {
        workflow: (data, id) => {
          this.dispatch({ type: 'workflow', data, id });
          this.scheduleRefresh();
        },
        state: (data) => {
          if (!data || typeof data !== 'object') return;
          this.dispatch({ type: 'state', detail: data, at: Date.now() });
          this.loadIterations();
        },
      },
      onState: (state, info) => {
        this.dispatch({ type: 'stream', state, attempts: info.attempts || 0 });
        if (state === 'live' && !this.graceTimer && this.state.stateFrames === 0) {
          this.graceTimer = setTimeout(() => this.noStateFrames(), STATE_FRAME_GRACE_MS);
        }
        // Back after a drop (e.g. a server restart): the detail may have moved on meanwhile.
        if (state === 'live' && info.attempts > 0) this.scheduleRefresh();
      },
      onEnd: (data) => {
        this.dispatch({ type: 'end', data });
        // The replay, the last state frame and the end have all come: none came, none will.
        if (this.state.stateFrames === 0) this.noStateFrames();
        this.scheduleRefresh(true);
      },
      onReset: (data) => {
        this.dispatch({ type: 'reset' });
        toast('This run\'s events file was replaced: showing it again from its first line.' + (data && data.reason ? ' (' + data.reason + ')' : ''));
      },
    });
  }

  /// The server sent no state frame in time: it is one that sends none, so the detail is re-read as events arrive.
  noStateFrames() {
    this.dispatch({ type: 'no_state_frames' });
    this.scheduleRefresh(true);
  }

  /** @param {any} data */
  onGlobal(data) {
    if (!data || data.id !== this.state.detail.id) return;
    this.dispatch({ type: 'global', session: data, at: Date.now() });
    this.scheduleRefresh();
  }

  // --- Re-reading the detail (only while the server sends no state frame) ---------------------------------------

  /** @param {boolean} [soon] */
  scheduleRefresh(soon = false) {
    if (this.disposed || !needsDetailRefresh(this.state)) return;
    const r = this.refresher;
    if (r.running) {
      r.again = true;
      return;
    }
    if (r.timer) {
      if (!soon) return;
      clearTimeout(r.timer);
    }
    const wait = soon ? 150 : Math.max(0, REFRESH_MIN_MS - (Date.now() - r.last));
    r.timer = setTimeout(() => this.refresh(), wait);
  }

  async refresh() {
    const r = this.refresher;
    r.timer = null;
    if (this.disposed || !needsDetailRefresh(this.state)) return;
    r.running = true;
    r.last = Date.now();
    try {
      const detail = await api.get(this.base);
      this.dispatch({ type: 'detail', detail, at: Date.now() });
      this.loadIterations();
    } catch (error) {
      if (/** @type {any} */ (error).status === 404) this.dispatch({ type: 'gone' });
    } finally {
      r.running = false;
      if (r.again && !this.disposed) {
        r.again = false;
        this.scheduleRefresh();
      }
    }
  }

  // --- Hats and iterations ----------------------------------------------------------------------------------------

  async loadHats() {
    let hats;
    try {
      // The hats of the run's own workspace (another cluster host's run: asked of that host, which reads its files).
      const answer = await api.get('/api/hats?session=' + seg(this.state.detail.id));
      hats = Array.isArray(answer && answer.hats) ? answer.hats : [];
      // A worktree without a config of its own falls back to the main one — this server's, so only for its own runs.
      if (!hats.length && !(await this.isOtherHosts())) {
        const main = await api.get('/api/hats');
        hats = Array.isArray(main && main.hats) ? main.hats : [];
      }
    } catch (error) {
      if (this.disposed) return;
      const host = hostLabel(this.state.detail);
      if (host && /** @type {any} */ (error).status === 503) {
        render(this.body.hats, h('p', { class: 'muted', 'data-test': 'hats-elsewhere' },
          'This run is on host ' + host + ', which cannot be reached now: its hats show once it is back.'));
      } else {
        render(this.body.hats, h('p', { class: 'banner error' }, 'Could not load the hats: ' + /** @type {Error} */ (error).message));
      }
      return;
    }
    this.dispatch({ type: 'hats', hats });
  }

  /** Whether the run belongs to another host of a cluster (its workspace is not on this server). */
  async isOtherHosts() {
    const owner = this.state.detail && this.state.detail.host_id;
    if (!owner) return false;
    const list = await api.get('/api/hosts');
    const self = Array.isArray(list && list.hosts) ? list.hosts.find((host) => host.is_self) : null;
    return !!self && self.id !== owner;
  }

  /** @param {boolean} [force] */
  async loadIterations(force = false) {
    if (!force && Date.now() - this.iterationsAt < ITERATIONS_MIN_MS) return;
    this.iterationsAt = Date.now();
    try {
      this.dispatch({ type: 'iterations', iterations: await api.get(this.base + '/iterations') });
    } catch (error) {
      // Shown as "no iteration finished yet" rather than "loading" forever; the next state frame reads them again.
      console.warn('iterations of ' + this.state.detail.id + ':', error);
      if (this.state.iterations === null) this.dispatch({ type: 'iterations', iterations: { iterations: [] } });
    }
  }

  showGone() {
    if (this.notice.childElementCount) return;
    render(this.notice, h('div', { class: 'banner error', role: 'alert' },
      'This run is no longer on the server (its events file was deleted). What is shown is the last known state. ',
      h('a', { href: '#/sessions' }, 'Back to the sessions')));
  }

  // --- Export -------------------------------------------------------------------------------------------------------

  exportJSON() {
    const now = new Date();
    const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
    const { detail, log, stream, iterations } = this.state;
    const body = {
      exported_at: now.toISOString(),
      server_version: this.app.health ? this.app.health.version : null,
      session: detail,
      iterations: iterations ? iterations.iterations : null,
      events: log.exported,
      events_received: log.received,
      events_dropped: log.dropped,
      stream: { state: stream.state, reconnects: stream.attempts, end: stream.end },
    };
    download('ralph-session-' + id8(detail.id) + '-' + stamp + '.json', JSON.stringify(body, null, 2));
    toast('Exported the run and ' + log.exported.length + ' events');
  }
}
