// @ts-check
// The settings screen's host card: CPU, memory, disk and network of the server's machine, read every 5 s while the
// page is visible (backing off after failures, stopping on answers that will not get better), with a CPU sparkline.

import { api } from '../api.js';
import { h, render, sparkline } from '../ui.js';

const METRICS_EVERY_MS = 5000;

/** @param {{alive: boolean, timer: any}} life the screen's: whether it is shown, and the pending read's timer */
export function hostCard(life) {
  const body = h('div', { class: 'set-host-body' }, h('p', { class: 'loading', role: 'status' }, 'Measuring\u2026'));
  const updated = h('p', { class: 'muted small set-updated' });
  const errorBox = h('div', { class: 'banner error', role: 'alert', hidden: true });
  const cpuHistory = [];
  const section = h('section', { class: 'card', 'data-test': 'host-metrics', 'aria-labelledby': 'set-host' },
    h('div', { class: 'card-head' }, h('h2', { id: 'set-host' }, 'Host'), updated),
    errorBox, body);
  let failures = 0;

  async function tick() {
    life.timer = null;
    if (!life.alive) return;
    if (document.hidden) { schedule(); return; }
    try {
      const m = await api.get('/api/host/metrics');
      if (!life.alive) return;
      failures = 0;
      errorBox.hidden = true;
      cpuHistory.push(Number(m.cpu && m.cpu.usage_percent) || 0);
      if (cpuHistory.length > 36) cpuHistory.shift();
      drawMetrics(m);
      updated.textContent = 'Updated ' + new Date(m.sampled_at || Date.now()).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
    } catch (error) {
      if (!life.alive) return;
      failures += 1;
      errorBox.textContent = 'Host metrics: ' + error.message + (error.status === 503 ? '' : ' (retrying every 5 s)');
      errorBox.hidden = false;
      if (body.querySelector('.loading')) body.replaceChildren();
      if (error.status === 503 || error.status === 401 || error.status === 403) return; // will not get better
    }
    schedule();
  }
  function schedule() {
    if (life.alive) life.timer = setTimeout(tick, failures ? Math.min(METRICS_EVERY_MS * 2 ** failures, 60000) : METRICS_EVERY_MS);
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

/** @param {string} label @param {unknown} percent @param {string} detail @param {string} name @param {string} [title] */
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

/** @param {unknown} value @param {number} digits */
function fixed(value, digits) {
  const n = Number(value);
  return Number.isFinite(n) ? n.toFixed(digits) : '—';
}
const gb = (/** @type {unknown} */ value) => (Number.isFinite(Number(value)) ? Number(value).toFixed(1) + ' GB' : '—');
const cores = (/** @type {number} */ n) => (n ? n + (n === 1 ? ' core' : ' cores') : '');
