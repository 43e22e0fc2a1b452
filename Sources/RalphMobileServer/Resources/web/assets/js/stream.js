// @ts-check
// The server's SSE streams: `openStream` (one stream with resume, dedupe, reset and end) and `globalEvents`, the
// server-wide stream every screen shares. What the frames mean for a screen's state is in ./state/*.js.

import { lineOf } from './state/event-log.js';

/// Opens an SSE stream with EventSource.
///
/// - `events`: `{name: (data, id) => …}`; `data` is parsed JSON (or the raw text when it is not JSON).
/// - Resume: the browser sends `Last-Event-ID` itself when it reconnects. When EventSource gives up (a non-200
///   answer, e.g. while the server restarts), we reconnect ourselves with `?after=<last id>` and back off 1 s … 30 s.
/// - `dedupe` (default on): streams whose ids only grow (a run's line numbers, a conversation's sequence) drop any
///   frame whose id is not above the last one seen, so a reconnect never shows an event twice. A session stream's id
///   is `<line>:<check>`: the line orders, the whole id goes back to the server, which checks it still names the
///   same event.
/// - `reset` (session streams): the run's file was replaced or rewritten since the event resumed after; what was
///   shown is history that no longer exists, ids start again, and `onReset(data)` is called before the new events.
/// - `end`: the server says the stream is over; the stream closes and does not reconnect.
/// - `untracked`: names of frames sent without an `id:` line (a session stream's `state`): EventSource reports the
///   previous frame's id for them, so they are delivered without the id check and do not move the resume point.
/// - `onState(state, info)`: `connecting`, `live`, `reconnecting`, `ended`, `closed`; `info` has `attempts`
///   (reconnects so far), `received` (events delivered) and `lastId`.
/**
 * @typedef {object} StreamOptions
 * @property {Record<string, (data: any, id: string) => void>} [events]
 * @property {(state: string, info: {attempts: number, received: number, lastId: number | string | null}) => void} [onState]
 * @property {(data: any) => void} [onEnd]
 * @property {(data: any) => void} [onReset]
 * @property {boolean} [dedupe]
 * @property {string[]} [untracked]
 */

/** @param {string} url @param {StreamOptions} [options] */
export function openStream(url, options = {}) {
  return new EventStream(url, options);
}

/// A frame's data: parsed JSON, or the text when it is not JSON.
/** @param {string} text */
function parsed(text) {
  try { return JSON.parse(text); } catch { return text; }
}

/// One SSE stream (see openStream). Its `state`, `lastId`, `attempts` and `received` are read by the screens.
export class EventStream {
  /** @param {string} url @param {StreamOptions} options */
  constructor(url, { events = {}, onState = () => {}, onEnd = () => {}, onReset = () => {}, dedupe = true, untracked = [] }) {
    this.url = url;
    this.events = events;
    this.onState = onState;
    this.onEnd = onEnd;
    this.onReset = onReset;
    this.dedupe = dedupe;
    this.untracked = untracked;
    /** @type {EventSource | null} */
    this.source = null;
    /** @type {number | string | null} */
    this.lastId = null;
    /** @type {string | null} */
    this.lastRawId = null;
    this.attempts = 0;
    this.received = 0;
    this.closed = false;
    this.state = 'connecting';
    /** @type {any} */
    this.timer = null;
    this.backoff = 1000;
    this.setState('connecting');
    this.connect();
  }

  /** @param {string} next */
  setState(next) {
    this.state = next;
    this.onState(next, { attempts: this.attempts, received: this.received, lastId: this.lastId });
  }

  urlWithResume() {
    if (this.lastId === null || !this.dedupe || typeof this.lastId !== 'number') return this.url;
    const u = new URL(this.url, location.href);
    u.searchParams.delete('history');
    u.searchParams.set('after', this.lastRawId || String(this.lastId));
    return u.pathname + u.search;
  }

  /** @param {string} name @param {Event} event */
  deliver(name, event) {
    // A stream may name its own events `error` (a conversation's failed turn); EventSource also fires `error` for a
    // lost connection, which is not data.
    if (!(event instanceof MessageEvent)) return;
    const id = this.untracked.includes(name) ? '' : event.lastEventId;
    if (id !== undefined && id !== '') {
      const numeric = lineOf(id);
      if (this.dedupe && Number.isFinite(numeric) && this.lastId !== null && numeric <= /** @type {number} */ (this.lastId)) return;
      this.lastId = Number.isFinite(numeric) ? numeric : id;
      this.lastRawId = id;
    }
    this.received += 1;
    const handler = this.events[name];
    if (handler) handler(parsed(event.data), id);
  }

  connect() {
    if (this.closed) return;
    const source = new EventSource(this.urlWithResume(), { withCredentials: true });
    this.source = source;
    source.onopen = () => {
      this.backoff = 1000;
      this.setState('live');
    };
    source.onerror = (event) => {
      if (this.closed || event instanceof MessageEvent) return;
      this.attempts += 1;
      if (source.readyState === EventSource.CLOSED) {
        // EventSource gave up for good (e.g. a 404 or 503 during a restart): try again ourselves, later.
        source.close();
        this.setState('reconnecting');
        this.timer = setTimeout(() => this.connect(), this.backoff + Math.random() * 250);
        this.backoff = Math.min(this.backoff * 2, 30000);
      } else {
        this.setState('reconnecting');
      }
    };
    for (const name of Object.keys(this.events)) source.addEventListener(name, (event) => this.deliver(name, event));
    source.addEventListener('reset', (event) => {
      // The ids of the new file start again from 1.
      this.lastId = null;
      this.lastRawId = null;
      this.onReset(parsed(event.data));
    });
    source.addEventListener('end', (event) => {
      this.closed = true;
      source.close();
      this.setState('ended');
      this.onEnd(parsed(event.data));
    });
  }

  close() {
    if (this.closed && this.state === 'ended') return;
    this.closed = true;
    clearTimeout(this.timer);
    if (this.source) this.source.close();
    this.setState('closed');
  }
}

/// The server-wide stream `GET /api/events`, shared by every screen: sessions, conversations and approvals notices, and
/// in a cluster its hosts going offline and coming back (`host.updated`).
/// Screens subscribe with `globalEvents.on(name, fn)` (returns an unsubscribe function).
class GlobalEvents {
  constructor() {
    /** @type {Map<string, Set<(data: any, id?: string) => void>>} */
    this.listeners = new Map();
    /** @type {EventStream | null} */
    this.stream = null;
    this.state = 'idle';
  }

  names() {
    return ['session.added', 'session.updated', 'session.removed', 'ready', 'approval.pending', 'approval.resolved',
      'conversation.updated', 'conversation.removed', 'auto_reply.notice', 'host.updated'];
  }

  start() {
    if (this.stream) return;
    const events = {};
    for (const name of this.names()) events[name] = (data, id) => this.emit(name, data, id);
    // Its ids belong to one server process: after a restart the server sends a full snapshot again, so no dedupe.
    this.stream = openStream('/api/events', {
      events,
      dedupe: false,
      onState: (state, info) => {
        this.state = state;
        this.emit('state', { state, ...info });
      },
    });
  }

  stop() {
    if (this.stream) this.stream.close();
    this.stream = null;
  }

  /** @param {string} name @param {(data: any, id?: string) => void} fn @returns {() => void} unsubscribes */
  on(name, fn) {
    if (!this.listeners.has(name)) this.listeners.set(name, new Set());
    this.listeners.get(name).add(fn);
    return () => this.listeners.get(name).delete(fn);
  }

  /** @param {string} name @param {any} data @param {string} [id] */
  emit(name, data, id) {
    for (const fn of this.listeners.get(name) || []) {
      try { fn(data, id); } catch (error) { console.error(error); }
    }
  }
}

export const globalEvents = new GlobalEvents();
