// @ts-check
// The server's SSE streams: `openStream` (one stream with resume, dedupe, reset and end) and `globalEvents`, the
// server-wide stream every screen shares. What the frames mean for a screen's state is in ./state/*.js.

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
export function openStream(url, { events = {}, onState = () => {}, onEnd = () => {}, onReset = () => {}, dedupe = true, untracked = [] } = {}) {
  let source = null;
  let lastId = null;
  let lastRawId = null;
  let attempts = 0;
  let received = 0;
  let closed = false;
  let state = 'connecting';
  let timer = null;
  let backoff = 1000;

  const info = () => ({ attempts, received, lastId });
  const setState = (next) => {
    state = next;
    onState(next, info());
  };

  function urlWithResume() {
    if (lastId === null || !dedupe || typeof lastId !== 'number') return url;
    const u = new URL(url, location.href);
    u.searchParams.delete('history');
    u.searchParams.set('after', lastRawId || String(lastId));
    return u.pathname + u.search;
  }

  /// The order of an id: the number it starts with (`17` of `17:3fa2c901`), else NaN.
  const order = (id) => (/^\d+(:[0-9a-f]{8})?$/.test(id) ? parseInt(id, 10) : NaN);

  function deliver(name, event) {
    // A stream may name its own events `error` (a conversation's failed turn); EventSource also fires `error` for a
    // lost connection, which is not data.
    if (!(event instanceof MessageEvent)) return;
    const id = untracked.includes(name) ? '' : event.lastEventId;
    if (id !== undefined && id !== '') {
      const numeric = order(id);
      if (dedupe && Number.isFinite(numeric) && lastId !== null && numeric <= lastId) return;
      lastId = Number.isFinite(numeric) ? numeric : id;
      lastRawId = id;
    }
    let data = event.data;
    try { data = JSON.parse(event.data); } catch { /* keep the text */ }
    received += 1;
    const handler = events[name];
    if (handler) handler(data, id);
  }

  function connect() {
    if (closed) return;
    source = new EventSource(urlWithResume(), { withCredentials: true });
    source.onopen = () => {
      backoff = 1000;
      setState('live');
    };
    source.onerror = (event) => {
      if (closed || event instanceof MessageEvent) return;
      attempts += 1;
      if (source.readyState === EventSource.CLOSED) {
        // EventSource gave up for good (e.g. a 404 or 503 during a restart): try again ourselves, later.
        source.close();
        setState('reconnecting');
        timer = setTimeout(connect, backoff + Math.random() * 250);
        backoff = Math.min(backoff * 2, 30000);
      } else {
        setState('reconnecting');
      }
    };
    for (const name of Object.keys(events)) {
      source.addEventListener(name, (event) => deliver(name, event));
    }
    source.addEventListener('reset', (event) => {
      let data = event.data;
      try { data = JSON.parse(event.data); } catch { /* text */ }
      // The ids of the new file start again from 1.
      lastId = null;
      lastRawId = null;
      onReset(data);
    });
    source.addEventListener('end', (event) => {
      let data = event.data;
      try { data = JSON.parse(event.data); } catch { /* text */ }
      closed = true;
      source.close();
      setState('ended');
      onEnd(data);
    });
  }

  setState('connecting');
  connect();
  return {
    close() {
      if (closed && state === 'ended') return;
      closed = true;
      clearTimeout(timer);
      if (source) source.close();
      setState('closed');
    },
    get state() { return state; },
    get lastId() { return lastId; },
    get attempts() { return attempts; },
    get received() { return received; },
  };
}

/// The server-wide stream `GET /api/events`, shared by every screen: sessions, conversations and approvals notices.
/// Screens subscribe with `globalEvents.on(name, fn)` (returns an unsubscribe function).
class GlobalEvents {
  constructor() {
    this.listeners = new Map();
    this.stream = null;
    this.state = 'idle';
  }

  names() {
    return ['session.added', 'session.updated', 'session.removed', 'ready', 'approval.pending', 'approval.resolved',
      'conversation.updated', 'conversation.removed', 'auto_reply.notice'];
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

  on(name, fn) {
    if (!this.listeners.has(name)) this.listeners.set(name, new Set());
    this.listeners.get(name).add(fn);
    return () => this.listeners.get(name).delete(fn);
  }

  emit(name, data, id) {
    for (const fn of this.listeners.get(name) || []) {
      try { fn(data, id); } catch (error) { console.error(error); }
    }
  }
}

export const globalEvents = new GlobalEvents();
