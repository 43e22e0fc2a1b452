// Session detail (`#/sessions/<id>`): one ralph run in ten cards — status, tokens, hat flow, backpressure, iteration
// stats, mode & control, recent events, the live event stream, the hats and the actions (emit, steer, export, answer
// a pending question).
//
// The detail comes from `GET /api/sessions/<id>` and is re-read (at most once a second) while events stream in on
// `/api/sessions/<id>/events`; the stream resumes after the last id it showed, so no event is ever shown twice, and it
// stops for good at `end`. Controls exist only for the roles that may use them: a viewer gets none.

import { api, seg, openStream, globalEvents } from '../api.js';
import {
  h, render, toast, confirmDialog, id8, hatBadge, relTime, clockTime, dateTime, duration, number,
  sparkline, copyText, download, field, busy, parseTime,
} from '../ui.js';

const KEEP_SHOWN = 300; // events kept in the stream list
const KEEP_EXPORT = 5000; // events kept for the JSON export
const HISTORY = 200; // events replayed when the stream opens
const REFRESH_MIN_MS = 1000; // detail re-read at most this often while events arrive
const ITERATIONS_MIN_MS = 5000;
const TOPIC_RULE = /^[A-Za-z0-9._-]{1,128}$/;

export async function mount(view, params, app) {
  const routeId = params[0];
  app.setTitle('Session ' + id8(routeId));
  const base = '/api/sessions/' + seg(routeId);

  let detail;
  try {
    detail = await api.get(base);
  } catch (error) {
    render(view, loadFailure(error, routeId, app));
    return undefined;
  }

  const ctx = new DetailScreen(view, routeId, base, detail, app);
  ctx.start();
  return () => ctx.dispose();
}

function loadFailure(error, id, app) {
  if (error.status === 404) {
    return h('div', { class: 'card sd-missing', role: 'alert' },
      h('h2', {}, 'Run not found'),
      h('p', {}, 'There is no run with the id ', h('code', {}, id), ' on this server. It may have been deleted, or the link is wrong.'),
      h('p', { class: 'muted small' }, error.message),
      h('a', { class: 'btn primary', href: '#/sessions' }, 'Back to the sessions'));
  }
  return h('div', { class: 'banner error', role: 'alert' },
    h('p', {}, 'Could not load this run: ' + error.message),
    h('div', { class: 'btn-row' },
      h('button', { type: 'button', class: 'btn small', onclick: () => app.navigate(location.hash) }, 'Try again'),
      h('a', { class: 'btn small ghost', href: '#/sessions' }, 'Back to the sessions')));
}

const isActive = (mode) => mode === 'live' || mode === 'paused';

function payloadText(event) {
  if (event.payload_json !== undefined) {
    try { return JSON.stringify(event.payload_json, null, 2); } catch { /* fall through */ }
  }
  const payload = event.payload;
  if (payload === undefined || payload === null) return '';
  if (typeof payload !== 'string') return JSON.stringify(payload, null, 2);
  const trimmed = payload.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try { return JSON.stringify(JSON.parse(trimmed), null, 2); } catch { /* plain text */ }
  }
  return payload;
}

function oneLine(text, max = 90) {
  const line = String(text).replace(/\s+/g, ' ').trim();
  return line.length > max ? line.slice(0, max - 1) + '\u2026' : line;
}

function until(ts) {
  const date = parseTime(ts);
  if (!date) return '—';
  const secs = Math.round((date.getTime() - Date.now()) / 1000);
  return secs <= 0 ? 'now' : 'in ' + duration(secs);
}

class DetailScreen {
  constructor(view, routeId, base, detail, app) {
    this.view = view;
    this.routeId = routeId;
    this.base = base;
    this.detail = detail;
    this.app = app;
    this.fetchedAt = Date.now();
    this.disposed = false;
    this.canOperate = app.can('operator');
    this.canAdmin = app.can('admin');
    this.hats = [];
    this.iterations = null;
    this.iterationsAt = 0;
    this.exportEvents = [];
    this.exportDropped = 0;
    this.seen = new Set();
    this.received = 0;
    this.streamState = 'connecting';
    this.attempts = 0;
    this.endInfo = null;
    this.refreshTimer = null;
    this.refreshing = false;
    this.refreshAgain = false;
    this.lastRefresh = Date.now();
    this.questionId = null;
    this.flowExpanded = false;
    this.unsubscribe = [];
  }

  // --- Lifecycle -------------------------------------------------------------------------------------------------

  start() {
    this.build();
    this.renderAll();
    this.loadHats();
    this.loadIterations(true);
    this.openStream();
    this.unsubscribe.push(
      globalEvents.on('session.updated', (data) => this.onGlobal(data)),
      globalEvents.on('session.added', (data) => this.onGlobal(data)),
      globalEvents.on('session.removed', (data) => {
        if (data && data.id === this.detail.id) this.showGone();
      }),
    );
    this.tick = setInterval(() => this.onTick(), 1000);
  }

  dispose() {
    this.disposed = true;
    clearInterval(this.tick);
    clearTimeout(this.refreshTimer);
    for (const off of this.unsubscribe) off();
    if (this.stream) this.stream.close();
  }

  get mode() { return this.detail.mode || 'complete'; }

  /// True when `value` differs from what the card `name` last drew (cards are redrawn only when their data changed).
  changed(name, value) {
    const key = JSON.stringify(value === undefined ? null : value);
    if (!this.drawn) this.drawn = new Map();
    if (this.drawn.get(name) === key) return false;
    this.drawn.set(name, key);
    return true;
  }

  // --- Layout ----------------------------------------------------------------------------------------------------

  build() {
    const d = this.detail;
    this.app.setTitle(d.task_name ? oneLine(d.task_name, 40) : 'Session ' + id8(d.id));
    this.notice = h('div', { class: 'sd-notice', role: 'status' });
    this.headerBody = h('div', {});
    this.questionCard = h('section', { class: 'card sd-question', 'aria-labelledby': 'sd-q-title', hidden: true });
    this.tokensBody = h('div', {});
    this.flowBody = h('div', {});
    this.backpressureBody = h('div', {});
    this.statsBody = h('div', {});
    this.recentBody = h('div', {});
    this.hatsBody = h('div', {}, h('p', { class: 'loading' }, 'Loading hats…'));

    const header = h('section', { class: 'card accent sd-header', 'aria-label': 'Status' }, this.headerBody);
    const controls = this.canOperate ? this.buildControls() : null;
    const stream = this.buildStream();

    const card = (test, title, body, extra) => h('section', { class: 'card', 'data-test': test, 'aria-labelledby': 'sd-' + test + '-title' },
      h('div', { class: 'card-head' }, h('h2', { id: 'sd-' + test + '-title' }, title), extra || null), body);

    this.root = h('div', { class: 'session-detail', 'data-test': 'session-detail', 'data-id': d.id },
      this.notice,
      header,
      this.questionCard,
      controls,
      stream,
      h('div', { class: 'sd-grid' },
        h('div', { class: 'sd-col' },
          card('tokens', 'Tokens', this.tokensBody),
          card('backpressure', 'Backpressure', this.backpressureBody),
          card('iteration-stats', 'Iterations', this.statsBody)),
        h('div', { class: 'sd-col' },
          card('hat-flow', 'Hat flow', this.flowBody),
          card('recent-events', 'Recent events', this.recentBody),
          card('hats-reference', 'Hats', this.hatsBody))));
    render(this.view, this.root);
  }

  renderAll() {
    this.root.dataset.id = this.detail.id;
    this.renderHeader();
    this.renderQuestion();
    this.renderControls();
    this.renderTokens();
    this.renderFlow();
    this.renderBackpressure();
    this.renderStats();
    this.renderRecent();
  }

  // --- 1. Status header -----------------------------------------------------------------------------------------

  buildHeader() {
    // Built once and updated in place: the badges and buttons keep their identity (focus, test references).
    const x = {};
    x.mode = h('span', { class: 'badge', 'data-test': 'mode' });
    x.status = h('span', { class: 'badge', 'data-test': 'status' });
    x.task = h('h2', { class: 'sd-task' });
    x.reason = h('p', { class: 'sd-reason', hidden: true });
    x.id = h('code', {});
    x.copy = h('button', { type: 'button', class: 'btn small ghost sd-copy', onclick: () => copyText(this.detail.id, 'Id copied') }, 'Copy id');
    x.iteration = h('dd', {});
    x.hat = h('dd', {});
    x.started = h('span', {});
    x.startedRel = h('time', {});
    x.lastRel = h('time', {});
    x.events = h('span', {});
    x.workspace = h('dd', {});
    this.elapsedEl = h('span', {});
    this.hx = x;
    render(this.headerBody,
      h('div', { class: 'sd-head-top' }, x.mode, x.status, h('span', { class: 'grow' }),
        h('button', { type: 'button', class: 'btn small ghost', 'data-test': 'export', onclick: () => this.exportJSON() }, 'Export JSON')),
      x.task,
      x.reason,
      h('dl', { class: 'kv sd-kv' },
        h('dt', {}, 'Id'), h('dd', {}, x.id, ' ', x.copy),
        h('dt', {}, 'Iteration'), x.iteration,
        h('dt', {}, 'Hat'), x.hat,
        h('dt', {}, 'Elapsed'), h('dd', {}, this.elapsedEl),
        h('dt', {}, 'Started'), h('dd', {}, x.started, ' · ', x.startedRel),
        h('dt', {}, 'Last event'), h('dd', {}, x.lastRel, ' · ', x.events),
        h('dt', {}, 'Workspace'), x.workspace));
  }

  renderHeader() {
    if (!this.hx) this.buildHeader();
    const x = this.hx;
    const d = this.detail;
    const mode = this.mode;
    const status = d.status || '';
    const reason = d.stop_reason;
    x.mode.className = 'badge ' + mode;
    x.mode.textContent = mode;
    x.status.className = 'badge ' + status;
    x.status.textContent = status;
    x.task.textContent = d.task_name || '(no task)';
    this.app.setTitle(d.task_name ? oneLine(d.task_name, 40) : 'Session ' + id8(d.id));
    x.reason.hidden = !(reason && !isActive(mode));
    if (!x.reason.hidden) {
      render(x.reason, 'Ended: ', h('strong', {}, reason.reason), reason.message ? ' \u2014 ' + reason.message : '',
        reason.at ? h('span', { class: 'muted' }, ' · ' + dateTime(reason.at)) : null);
    }
    x.id.textContent = id8(d.id);
    x.id.title = d.id;
    x.copy.setAttribute('aria-label', 'Copy id (the full id ' + d.id + ')');
    x.iteration.textContent = String(d.iteration ?? 0) + (d.total ? ' / ' + d.total : '');
    const hatKey = (d.hat || '') + '|' + (this.hatColor(d.hat) || '');
    if (x.hatKey !== hatKey) {
      x.hatKey = hatKey;
      render(x.hat, d.hat ? hatBadge(d.hat, this.hatColor(d.hat)) : h('span', { class: 'muted' }, 'none yet'));
    }
    this.elapsedEl.textContent = this.elapsedText();
    x.started.textContent = dateTime(d.started_at);
    setTime(x.startedRel, d.started_at);
    setTime(x.lastRel, d.last_event_at);
    x.events.textContent = number(d.event_count) + ' events';
    render(x.workspace, h('code', {}, !d.workspace || d.workspace === '.' ? 'root' : d.workspace), d.pid ? h('span', { class: 'muted' }, ' · pid ' + d.pid) : null);
  }

  elapsedText() {
    const d = this.detail;
    if (d.elapsed_secs === undefined || d.elapsed_secs === null) return '—';
    const extra = this.mode === 'live' ? (Date.now() - this.fetchedAt) / 1000 : 0;
    return duration(d.elapsed_secs + extra);
  }

  onTick() {
    if (this.disposed) return;
    if (this.elapsedEl) this.elapsedEl.textContent = this.elapsedText();
    const now = Date.now();
    if (!this.lastTimesTick || now - this.lastTimesTick > 4000) {
      this.lastTimesTick = now;
      for (const el of this.root.querySelectorAll('time[data-rel]')) el.textContent = relTime(el.dataset.rel);
      if (this.timeoutEl && this.detail.pending_question) this.timeoutEl.textContent = until(this.detail.pending_question.timeout_at);
    }
  }

  // --- Pending RObot question ------------------------------------------------------------------------------------

  renderQuestion() {
    const q = this.detail.pending_question;
    if (!q || !isActive(this.mode)) {
      this.questionCard.hidden = true;
      this.questionId = null;
      this.questionCard.replaceChildren();
      return;
    }
    if (q.id === this.questionId) return; // keep what is being typed
    this.questionId = q.id;
    this.questionCard.hidden = false;
    this.timeoutEl = h('span', {}, until(q.timeout_at));
    let form = null;
    if (this.canOperate) {
      const answer = h('textarea', { rows: 3, 'data-test': 'question-answer', placeholder: 'Your answer' });
      const answerField = field('Your answer', answer);
      const send = h('button', { type: 'submit', class: 'btn primary', 'data-test': 'question-submit' }, 'Send answer');
      form = h('form', { class: 'sd-form', novalidate: true }, answerField, send);
      form.addEventListener('submit', (event) => {
        event.preventDefault();
        const text = answer.value.trim();
        if (!text) {
          answerField.setError('Write an answer first.');
          answer.focus();
          return;
        }
        answerField.setError('');
        busy(send, 'Sending…', async () => {
          try {
            await api.post('/api/robot/response', { question_id: q.id, response_text: text });
          } catch (error) {
            if (error.status === 404) {
              toast('ralph no longer waits for this answer (' + error.message + ')', 'error', 7000);
              this.scheduleRefresh(true);
              return;
            }
            throw error;
          }
          answer.value = '';
          toast('Answer sent: ralph reads it in its next iteration');
          this.scheduleRefresh(true);
        });
      });
    }
    render(this.questionCard,
      h('div', { class: 'card-head' }, h('h2', { id: 'sd-q-title' }, 'ralph is asking'), q.hat ? hatBadge(q.hat, this.hatColor(q.hat)) : null),
      h('p', { class: 'sd-question-text' }, q.question_text),
      h('p', { class: 'muted small' }, 'Asked ', h('time', { 'data-rel': q.asked_at, datetime: q.asked_at }, relTime(q.asked_at)),
        ' · iteration ', String(q.iteration), ' · times out ', this.timeoutEl, q.timeout_estimated ? ' (estimated)' : ''),
      form || h('p', { class: 'muted small' }, 'An operator can answer it.'));
  }

  // --- 6 & 10. Controls (operator and admin only) -------------------------------------------------------------------

  buildControls() {
    this.modeBadge = h('span', { class: 'badge' });
    this.modeNote = h('p', { class: 'muted small sd-mode-note' });
    this.pauseButton = h('button', { type: 'button', class: 'btn', 'data-test': 'pause', onclick: () => this.pause() }, 'Pause');
    this.resumeButton = h('button', { type: 'button', class: 'btn primary', 'data-test': 'resume', onclick: () => this.resume() }, 'Resume');
    this.stopButton = this.canAdmin
      ? h('button', { type: 'button', class: 'btn danger', 'data-test': 'stop', onclick: () => this.stop() }, 'Stop run')
      : null;
    const modeCard = h('section', { class: 'card sd-mode', 'aria-labelledby': 'sd-mode-title' },
      h('div', { class: 'card-head' }, h('h2', { id: 'sd-mode-title' }, 'Mode & control'), this.modeBadge),
      this.modeNote,
      h('div', { class: 'btn-row' }, this.pauseButton, this.resumeButton, this.stopButton),
      this.canAdmin ? null : h('p', { class: 'muted small' }, 'Stopping a run needs an admin key.'));

    // Steer.
    this.steerText = h('textarea', { rows: 2, 'data-test': 'steer-text', placeholder: 'e.g. Focus on the failing test first' });
    this.steerField = field('Guidance for the next iteration', this.steerText, 'Written as human.guidance; ralph adds it to its next prompt.');
    this.steerButton = h('button', { type: 'submit', class: 'btn primary', 'data-test': 'steer-submit' }, 'Send guidance');
    const steerForm = h('form', { class: 'sd-form', novalidate: true, 'aria-labelledby': 'sd-steer-title' },
      h('h3', { id: 'sd-steer-title' }, 'Steer'), this.steerField, this.steerButton);
    steerForm.addEventListener('submit', (event) => { event.preventDefault(); this.steer(); });

    // Emit.
    this.emitTopic = h('input', { type: 'text', 'data-test': 'emit-topic', autocomplete: 'off', autocapitalize: 'off', spellcheck: 'false',
      maxlength: 200, placeholder: 'build.task' });
    this.emitPayload = h('textarea', { rows: 3, 'data-test': 'emit-payload', spellcheck: 'false', placeholder: 'Text, or JSON such as {"task": "…"}' });
    this.topicField = field('Topic', this.emitTopic, 'Letters, digits, . _ - (at most 128).');
    this.payloadField = field('Payload (optional)', this.emitPayload, 'Starting with { or [ it must be valid JSON and is sent as JSON; anything else is sent as text.');
    this.emitButton = h('button', { type: 'submit', class: 'btn primary', 'data-test': 'emit-submit' }, 'Emit event');
    const emitForm = h('form', { class: 'sd-form', novalidate: true, 'aria-labelledby': 'sd-emit-title' },
      h('h3', { id: 'sd-emit-title' }, 'Emit an event'), this.topicField, this.payloadField, this.emitButton);
    emitForm.addEventListener('submit', (event) => { event.preventDefault(); this.emit(); });
    this.emitTopic.addEventListener('input', () => this.topicField.setError(''));
    this.emitPayload.addEventListener('input', () => this.payloadField.setError(''));
    this.steerText.addEventListener('input', () => this.steerField.setError(''));

    this.actionsCard = h('section', { class: 'card sd-actions', 'aria-labelledby': 'sd-actions-title' },
      h('div', { class: 'card-head' }, h('h2', { id: 'sd-actions-title' }, 'Actions')),
      steerForm, emitForm);

    return h('div', { class: 'sd-controls', 'data-test': 'controls' }, modeCard, this.actionsCard);
  }

  renderControls() {
    if (!this.canOperate) return;
    const mode = this.mode;
    this.modeBadge.className = 'badge ' + mode;
    this.modeBadge.textContent = mode;
    this.modeNote.textContent = {
      live: 'ralph is running. Pausing stops its processes (SIGSTOP) until you resume.',
      paused: 'Paused: ralph\u2019s processes are stopped. Resume to let it continue.',
    }[mode] || 'This run is over: it can no longer be paused, stopped, steered or sent events. Export JSON (at the top) still works.';
    this.pauseButton.hidden = mode !== 'live';
    this.resumeButton.hidden = mode !== 'paused';
    if (this.stopButton) this.stopButton.hidden = !isActive(mode);
    // A finished run takes no more events or guidance: its actions card goes away.
    const active = isActive(mode);
    this.actionsCard.hidden = !active;
    this.steerButton.disabled = !active;
    this.emitButton.disabled = !active;
  }

  setMode(mode, status) {
    this.detail.mode = mode;
    if (status) this.detail.status = status;
    this.renderHeader();
    this.renderControls();
    this.renderQuestion();
  }

  pause() {
    busy(this.pauseButton, 'Pausing…', async () => {
      const result = await api.post(this.base + '/pause');
      toast('Paused' + (result && result.pid ? ' (pid ' + result.pid + ')' : ''));
      this.setMode('paused', 'paused');
      this.scheduleRefresh(true);
    }).then(() => this.renderControls());
  }

  resume() {
    busy(this.resumeButton, 'Resuming…', async () => {
      const result = await api.post(this.base + '/resume');
      toast('Resumed' + (result && result.pid ? ' (pid ' + result.pid + ')' : ''));
      this.setMode('live', 'running');
      this.scheduleRefresh(true);
    }).then(() => this.renderControls());
  }

  async stop() {
    const ok = await confirmDialog({
      title: 'Stop this run?',
      message: 'ralph gets SIGTERM and a few seconds to write loop.terminate and exit; then it is killed. The run cannot be resumed.',
      confirm: 'Stop run',
      danger: true,
    });
    if (!ok || this.disposed) return;
    await busy(this.stopButton, 'Stopping…', async () => {
      const result = await api.del(this.base);
      toast('Stopped with ' + (result && result.signal ? result.signal : 'a signal')
        + (result && result.terminated === false ? ' (ralph did not write loop.terminate)' : ''));
      this.setMode('complete', 'stopped');
      this.scheduleRefresh(true);
    });
    this.renderControls();
  }

  steer() {
    const message = this.steerText.value.trim();
    if (!message) {
      this.steerField.setError('Write the guidance first.');
      this.steerText.focus();
      return;
    }
    this.steerField.setError('');
    busy(this.steerButton, 'Sending…', async () => {
      const result = await api.post(this.base + '/steer', { message });
      this.steerText.value = '';
      toast('Guidance delivered' + (result && result.id ? ' as event #' + result.id : '') + '; ralph reads it in its next iteration');
    }).then(() => this.renderControls());
  }

  emit() {
    const topic = this.emitTopic.value.trim();
    const raw = this.emitPayload.value;
    let ok = true;
    if (!topic) {
      this.topicField.setError('Enter a topic, e.g. build.task.');
      ok = false;
    } else if (topic.length > 128) {
      this.topicField.setError('A topic has at most 128 characters (this one has ' + topic.length + ').');
      ok = false;
    } else if (!TOPIC_RULE.test(topic)) {
      this.topicField.setError('Only letters, digits, ".", "_" and "-" are allowed (no spaces).');
      ok = false;
    } else {
      this.topicField.setError('');
    }
    let payload;
    const trimmed = raw.trim();
    if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
      try {
        payload = JSON.parse(trimmed);
        this.payloadField.setError('');
      } catch (error) {
        this.payloadField.setError('This looks like JSON but does not parse: ' + error.message);
        ok = false;
      }
    } else {
      payload = raw.length ? raw : undefined;
      this.payloadField.setError('');
    }
    if (!ok) {
      (this.emitTopic.getAttribute('aria-invalid') === 'true' ? this.emitTopic : this.emitPayload).focus();
      return;
    }
    const body = payload === undefined ? { topic } : { topic, payload };
    busy(this.emitButton, 'Emitting…', async () => {
      try {
        const result = await api.post(this.base + '/emit', body);
        this.emitPayload.value = '';
        toast('Emitted ' + topic + (result && result.id ? ' as event #' + result.id : ''));
      } catch (error) {
        if (error.code === 'invalid_topic') this.topicField.setError(error.message);
        throw error;
      }
    }).then(() => this.renderControls());
  }

  // --- 2. Tokens ---------------------------------------------------------------------------------------------------

  renderTokens() {
    const t = this.detail.tokens;
    if (!this.changed('tokens', t)) return;
    if (!t || !t.reports) {
      render(this.tokensBody, h('p', { class: 'muted' }, 'This agent reports no token usage.'));
      return;
    }
    const samples = (t.samples || []).map((s) => (s.input_tokens || 0) + (s.output_tokens || 0));
    render(this.tokensBody,
      h('div', { class: 'stats' },
        stat('Input', number(t.input_tokens)),
        stat('Output', number(t.output_tokens)),
        stat('Cache read', number(t.cache_read_tokens)),
        stat('Cache write', number(t.cache_creation_tokens)),
        stat('Cost', t.cost_usd === null || t.cost_usd === undefined ? '—' : '$' + Number(t.cost_usd).toFixed(4)),
        stat('Reports', number(t.reports))),
      samples.length >= 2
        ? h('div', { class: 'sd-spark' },
          sparkline(samples, 'Tokens (input + output) of the last ' + samples.length + ' reports, from ' + number(Math.min(...samples)) + ' to ' + number(Math.max(...samples))),
          h('p', { class: 'muted small' }, 'Tokens per report, last ' + samples.length))
        : h('p', { class: 'muted small' }, 'The sparkline appears after two usage reports.'));
  }

  // --- 3. Hat flow -------------------------------------------------------------------------------------------------

  renderFlow() {
    const d = this.detail;
    if (!this.changed('flow', [d.hat_flow, d.hat_usage, d.hat_transitions, this.flowExpanded, this.hats.length])) return;
    const flow = Array.isArray(d.hat_flow) ? d.hat_flow : [];
    const usage = Array.isArray(d.hat_usage) ? d.hat_usage : [];
    if (!flow.length) {
      render(this.flowBody, h('p', { class: 'muted' }, 'No hat has been at work yet.'));
      return;
    }
    const limit = this.flowExpanded ? flow.length : 8;
    const shown = flow.slice(-limit).reverse();
    const total = d.hat_transitions || flow.length;
    render(this.flowBody,
      usage.length ? h('ul', { class: 'sd-chips', 'aria-label': 'Hat usage' }, usage.map((u) => h('li', { class: 'sd-chip' },
        hatBadge(u.hat, this.hatColor(u.hat)), h('span', { class: 'muted small' }, ' ' + u.iterations + ' it · ' + u.events + ' ev')))) : null,
      h('p', { class: 'muted small' }, number(total) + (total === 1 ? ' hat change' : ' hat changes') + ', newest first'),
      h('ul', { class: 'list sd-flow' }, shown.map((t) => h('li', { class: 'sd-flow-row' },
        h('div', { class: 'sd-flow-hats' },
          t.from ? hatBadge(t.from, this.hatColor(t.from)) : h('span', { class: 'muted' }, 'start'),
          h('span', { class: 'sd-arrow', 'aria-label': 'to' }, '\u2192'),
          hatBadge(t.to, this.hatColor(t.to))),
        h('div', { class: 'row-sub' }, h('code', {}, t.topic), ' · it ' + t.iteration + ' · ',
          h('time', { datetime: t.at || '', title: dateTime(t.at) }, clockTime(t.at)))))),
      flow.length > 8
        ? h('button', { type: 'button', class: 'btn small ghost', 'aria-expanded': String(this.flowExpanded), onclick: () => { this.flowExpanded = !this.flowExpanded; this.renderFlow(); } },
          this.flowExpanded ? 'Show fewer' : 'Show all ' + flow.length)
        : null);
  }

  // --- 4. Backpressure ---------------------------------------------------------------------------------------------

  renderBackpressure() {
    const b = this.detail.backpressure;
    if (!this.changed('backpressure', b)) return;
    if (!b) {
      render(this.backpressureBody, h('p', { class: 'muted' }, 'No build.done or build.blocked yet: tests, lint and typecheck results show here once a hat reports them.'));
      return;
    }
    const main = [['tests', b.tests], ['lint', b.lint], ['typecheck', b.typecheck]];
    const others = (b.checks || []).filter((c) => !['tests', 'lint', 'typecheck'].includes(c.name));
    const resultFor = (name) => (b.checks || []).find((c) => c.name === name);
    const row = (name, passed, word) => h('li', { class: 'sd-check' },
      h('span', { class: 'sd-check-name' }, name),
      passed === null || passed === undefined
        ? h('span', { class: 'sd-result none' }, 'not reported')
        : h('span', { class: 'sd-result ' + (passed ? 'pass' : 'fail') }, (passed ? '\u2713 ' : '\u2717 ') + (word || (passed ? 'pass' : 'fail'))));
    render(this.backpressureBody,
      h('ul', { class: 'list sd-checks' },
        main.map(([name, passed]) => row(name, passed, resultFor(name) && resultFor(name).result)),
        others.map((c) => row(c.name, c.passed, c.result))),
      h('p', { class: 'muted small' }, 'From ', h('code', {}, b.topic), ' (event #' + b.event_id + ', iteration ' + b.iteration + ') ',
        h('time', { 'data-rel': b.at || '', datetime: b.at || '', title: dateTime(b.at) }, relTime(b.at)), ' · ',
        number(b.done_count) + ' done · ' + number(b.blocked_events) + ' blocked',
        b.blocked_count !== null && b.blocked_count !== undefined ? ' (blocked count ' + b.blocked_count + ')' : ''));
  }

  // --- 5. Iteration stats -------------------------------------------------------------------------------------------

  renderStats() {
    const s = this.detail.iteration_stats || {};
    if (!this.changed('stats', [s, this.detail.total, this.detail.iteration, this.mode, this.iterations, this.hats.length])) return;
    const total = s.total ?? this.detail.total;
    const remaining = s.estimated_remaining_secs;
    const items = this.iterations && Array.isArray(this.iterations.iterations) ? this.iterations.iterations.slice(-8).reverse() : null;
    render(this.statsBody,
      h('div', { class: 'stats' },
        stat('Iterations', number(s.count ?? 0)),
        stat('Current', (s.current ?? this.detail.iteration ?? 0) + (total ? ' / ' + total : '')),
        stat('Average', s.average_duration_secs === null || s.average_duration_secs === undefined ? '—' : duration(s.average_duration_secs)),
        stat('Remaining', remaining === null || remaining === undefined ? (isActive(this.mode) ? 'unknown' : '—') : '\u2248 ' + duration(remaining))),
      items === null
        ? h('p', { class: 'muted small' }, 'Loading iterations…')
        : items.length === 0
          ? h('p', { class: 'muted small' }, 'No iteration finished yet.')
          : h('div', {},
            h('h3', { class: 'sd-subhead' }, 'Latest iterations'),
            h('ul', { class: 'list sd-iters' }, items.map((it) => h('li', { class: 'sd-iter' },
              h('span', { class: 'mono' }, '#' + it.number),
              it.hat ? hatBadge(it.hat, this.hatColor(it.hat)) : h('span', { class: 'muted' }, '—'),
              h('span', { class: 'grow' }),
              h('span', { class: 'muted small' }, duration(it.duration_secs) + ' · ' + it.event_count + (it.event_count === 1 ? ' event' : ' events')))))));
  }

  async loadIterations(force = false) {
    if (!force && Date.now() - this.iterationsAt < ITERATIONS_MIN_MS) return;
    this.iterationsAt = Date.now();
    try {
      this.iterations = await api.get(this.base + '/iterations');
    } catch (error) {
      if (this.iterations === null) this.iterations = { iterations: [] };
    }
    if (!this.disposed) this.renderStats();
  }

  // --- 7. Recent events ---------------------------------------------------------------------------------------------

  renderRecent() {
    const recent = Array.isArray(this.detail.recent_events) ? this.detail.recent_events.slice(-10).reverse() : [];
    if (!this.changed('recent', [recent.map((e) => e.id), this.hats.length])) return;
    if (!recent.length) {
      render(this.recentBody, h('p', { class: 'muted' }, 'No events yet.'));
      return;
    }
    render(this.recentBody, h('ul', { class: 'list sd-recent' }, recent.map((e) => {
      const text = payloadText(e);
      return h('li', { class: 'sd-recent-row' },
        h('div', { class: 'sd-ev-head' },
          h('span', { class: 'mono muted' }, '#' + e.id),
          h('span', { class: 'sd-topic' }, e.topic || '(no topic)'),
          e.hat ? hatBadge(e.hat, this.hatColor(e.hat)) : null,
          h('span', { class: 'grow' }),
          h('time', { class: 'muted small', datetime: e.ts || '', title: dateTime(e.ts) }, clockTime(e.ts))),
        text ? h('div', { class: 'row-sub' }, oneLine(text)) : null);
    })));
  }

  // --- 8. Event stream ----------------------------------------------------------------------------------------------

  buildStream() {
    this.stateEl = h('span', { 'data-test': 'stream-state' }, this.streamState);
    this.connEl = h('span', { class: 'conn sd-conn', 'data-state': this.streamState, title: 'Stream connection' },
      h('span', { class: 'conn-dot', 'aria-hidden': 'true' }), this.stateEl);
    this.countEl = h('span', { 'data-test': 'event-count' }, '0');
    this.reconnectsEl = h('span', { 'data-test': 'reconnects' }, '0');
    this.endedEl = h('p', { class: 'banner info sd-ended', role: 'status', hidden: true });
    this.emptyEl = h('p', { class: 'muted sd-empty' }, 'Waiting for events…');
    this.eventList = h('ul', { class: 'list sd-events', 'data-test': 'event-list', 'aria-label': 'Events, newest first' });
    return h('section', { class: 'card sd-stream', 'aria-labelledby': 'sd-stream-title' },
      h('div', { class: 'card-head' }, h('h2', { id: 'sd-stream-title' }, 'Event stream'), this.connEl),
      h('p', { class: 'muted small sd-counts', role: 'status', 'aria-live': 'polite' },
        this.countEl, ' events received · ', this.reconnectsEl, ' reconnects · newest first, the latest ' + KEEP_SHOWN + ' kept'),
      this.endedEl,
      this.emptyEl,
      this.eventList);
  }

  openStream() {
    const url = this.base + '/events?history=' + HISTORY;
    this.stream = openStream(url, {
      events: { workflow: (data, id) => this.onEvent(data, id) },
      onState: (state, info) => this.onStreamState(state, info),
      onEnd: (data) => this.onEnd(data),
      onReset: (data) => this.onReset(data),
    });
  }

  /// The run's file was replaced or rewritten: what is shown no longer exists; its new events follow.
  onReset(data) {
    if (this.disposed) return;
    this.seen.clear();
    this.eventList.replaceChildren();
    this.emptyEl.hidden = false;
    toast('This run\'s events file was replaced: showing it again from its first line.' + (data && data.reason ? ' (' + data.reason + ')' : ''));
  }

  onStreamState(state, info) {
    if (this.disposed) return;
    if (state === 'closed') return;
    this.streamState = state;
    this.attempts = info.attempts || 0;
    this.stateEl.textContent = state;
    this.connEl.dataset.state = state;
    this.reconnectsEl.textContent = String(this.attempts);
    // Back after a drop (e.g. a server restart): the detail may have moved on meanwhile.
    if (state === 'live' && this.attempts > 0) this.scheduleRefresh();
  }

  onEvent(data, id) {
    if (this.disposed || !data || typeof data !== 'object') return;
    const key = String(id !== undefined && id !== '' ? id : data.id);
    if (this.seen.has(key)) return;
    this.seen.add(key);
    const line = data.id !== undefined ? String(data.id) : key.split(':')[0];
    this.received += 1;
    this.countEl.textContent = String(this.received);
    this.exportEvents.push(data);
    if (this.exportEvents.length > KEEP_EXPORT) {
      this.exportEvents.shift();
      this.exportDropped += 1;
    }
    this.emptyEl.hidden = true;
    this.eventList.prepend(this.eventRow(data, line));
    while (this.eventList.children.length > KEEP_SHOWN) this.eventList.lastElementChild.remove();
    this.scheduleRefresh();
  }

  eventRow(e, key) {
    const text = payloadText(e);
    const multi = text.length > 90 || text.includes('\n');
    return h('li', { 'data-test': 'event', 'data-event-id': key, class: 'sd-ev' },
      h('div', { class: 'sd-ev-head' },
        h('span', { class: 'mono muted sd-ev-id' }, '#' + key),
        h('span', { class: 'topic sd-topic' }, e.topic || '(no topic)'),
        e.hat ? hatBadge(e.hat, this.hatColor(e.hat)) : null,
        e.triggered ? h('span', { class: 'muted small' }, '\u2192 ' + e.triggered) : null,
        h('span', { class: 'grow' }),
        h('time', { class: 'muted small', datetime: e.ts || '', title: dateTime(e.ts) }, clockTime(e.ts))),
      !text ? null
        : multi
          ? h('details', { class: 'sd-payload' },
            h('summary', {}, h('span', { class: 'sd-preview' }, oneLine(text, 70)), h('span', { class: 'sr-only' }, ' (show the whole payload)')),
            h('pre', {}, text))
          : h('div', { class: 'sd-payload-line' }, text));
  }

  onEnd(data) {
    if (this.disposed) return;
    this.endInfo = data || {};
    const reason = (data && (data.reason || data.status)) || 'ended';
    this.endedEl.hidden = false;
    this.endedEl.textContent = 'run ended: ' + reason;
    if (this.received === 0) this.emptyEl.textContent = 'This run has no events.';
    if (data && data.mode) this.setMode(data.mode, data.status);
    this.scheduleRefresh(true);
  }

  // --- 9. Hats reference --------------------------------------------------------------------------------------------

  async loadHats() {
    try {
      // The hats of the run's own workspace; a worktree without a config of its own falls back to the main one.
      const answer = await api.get('/api/hats?session=' + seg(this.detail.id));
      this.hats = Array.isArray(answer && answer.hats) ? answer.hats : [];
      if (!this.hats.length) {
        const main = await api.get('/api/hats');
        this.hats = Array.isArray(main && main.hats) ? main.hats : [];
      }
    } catch (error) {
      if (this.disposed) return;
      render(this.hatsBody, h('p', { class: 'banner error' }, 'Could not load the hats: ' + error.message));
      return;
    }
    if (this.disposed) return;
    this.renderHats();
    // Hat colors from the config now known: redraw what shows hats.
    this.renderHeader();
    this.renderFlow();
    this.renderStats();
    this.renderRecent();
  }

  renderHats() {
    if (!this.changed('hats', [this.hats, this.detail.hat])) return;
    if (!this.hats.length) {
      render(this.hatsBody, h('p', { class: 'muted' }, 'The workspace config defines no hats.'));
      return;
    }
    const current = String(this.detail.hat || '').toLowerCase();
    render(this.hatsBody, h('ul', { class: 'list sd-hats' }, this.hats.map((hat) => h('li', { class: 'sd-hat' },
      h('div', { class: 'sd-hat-head' },
        hat.emoji ? h('span', { 'aria-hidden': 'true' }, hat.emoji) : null,
        hatBadge(hat.name || hat.id, hat.color),
        hat.id && hat.name && hat.id !== hat.name ? h('code', { class: 'muted small' }, hat.id) : null,
        current && (current === String(hat.id).toLowerCase() || current === String(hat.name).toLowerCase())
          ? h('span', { class: 'badge live' }, 'at work') : null),
      hat.description ? h('p', { class: 'small' }, hat.description) : null,
      h('p', { class: 'small muted sd-topics' }, 'triggers ', topics(hat.triggers), ' \u2192 publishes ', topics(hat.publishes)),
      hat.sources && hat.sources.length ? h('p', { class: 'small muted' }, 'from ' + hat.sources.join(', ')) : null))));
  }

  hatColor(name) {
    const key = String(name || '').toLowerCase();
    const hat = this.hats.find((x) => String(x.id).toLowerCase() === key || String(x.name).toLowerCase() === key);
    return hat ? hat.color : undefined;
  }

  // --- Detail refresh -----------------------------------------------------------------------------------------------

  onGlobal(data) {
    if (!data || data.id !== this.detail.id) return;
    const before = this.mode;
    Object.assign(this.detail, data);
    this.fetchedAt = Date.now();
    this.renderHeader();
    if (before !== this.mode) {
      this.renderControls();
      this.renderQuestion();
    }
    this.scheduleRefresh();
  }

  scheduleRefresh(soon = false) {
    if (this.disposed) return;
    if (this.refreshing) {
      this.refreshAgain = true;
      return;
    }
    if (this.refreshTimer) {
      if (!soon) return;
      clearTimeout(this.refreshTimer);
    }
    const wait = soon ? 150 : Math.max(0, REFRESH_MIN_MS - (Date.now() - this.lastRefresh));
    this.refreshTimer = setTimeout(() => this.refresh(), wait);
  }

  async refresh() {
    this.refreshTimer = null;
    if (this.disposed) return;
    this.refreshing = true;
    this.lastRefresh = Date.now();
    try {
      const detail = await api.get(this.base);
      if (this.disposed) return;
      this.detail = detail;
      this.fetchedAt = Date.now();
      this.renderAll();
      if (this.hats.length) this.renderHats();
      this.loadIterations();
    } catch (error) {
      if (this.disposed) return;
      if (error.status === 404) this.showGone();
    } finally {
      this.refreshing = false;
      if (this.refreshAgain && !this.disposed) {
        this.refreshAgain = false;
        this.scheduleRefresh();
      }
    }
  }

  showGone() {
    render(this.notice, h('div', { class: 'banner error', role: 'alert' },
      'This run is no longer on the server (its events file was deleted). What is shown is the last known state. ',
      h('a', { href: '#/sessions' }, 'Back to the sessions')));
  }

  // --- Export -------------------------------------------------------------------------------------------------------

  exportJSON() {
    const now = new Date();
    const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
    const body = {
      exported_at: now.toISOString(),
      server_version: this.app.health ? this.app.health.version : null,
      session: this.detail,
      iterations: this.iterations ? this.iterations.iterations : null,
      events: this.exportEvents,
      events_received: this.received,
      events_dropped: this.exportDropped,
      stream: { state: this.streamState, reconnects: this.attempts, end: this.endInfo },
    };
    download('ralph-session-' + id8(this.detail.id) + '-' + stamp + '.json', JSON.stringify(body, null, 2));
    toast('Exported the run and ' + this.exportEvents.length + ' events');
  }
}

function setTime(el, ts) {
  el.dataset.rel = ts || '';
  el.setAttribute('datetime', ts || '');
  el.title = dateTime(ts);
  el.textContent = relTime(ts);
}

function stat(label, value) {
  return h('div', { class: 'stat' }, h('div', { class: 'stat-value' }, value), h('div', { class: 'stat-label' }, label));
}

function topics(list) {
  if (!Array.isArray(list) || !list.length) return h('span', {}, 'nothing');
  return list.map((t, i) => [i ? ', ' : '', h('code', {}, t)]);
}
