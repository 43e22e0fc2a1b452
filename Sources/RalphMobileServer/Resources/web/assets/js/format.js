// @ts-check
// Pure formatting shared by every screen and by the state reducers: times, durations, numbers, money, tokens, payloads.
// No DOM here (the reducers and their `node --test` tests import it).

/// The first 8 characters of an id (runs and conversations are shown by them).
/** @param {unknown} id */
export const id8 = (id) => String(id || '').slice(0, 8);

/// Hat name → CSS class for its color (planner cyan, fixer pink, builder purple, reviewer green, architect gold).
/** @param {unknown} hat @returns {string} */
export function hatClass(hat) {
  const name = String(hat || '').toLowerCase();
  for (const known of ['planner', 'fixer', 'builder', 'reviewer', 'architect']) {
    if (name.includes(known)) return 'hat-' + known;
  }
  return 'hat-other';
}

/** @param {string | null | undefined} ts @returns {Date | null} */
export function parseTime(ts) {
  if (!ts) return null;
  const date = new Date(ts);
  return Number.isNaN(date.getTime()) ? null : date;
}

/// "12s ago", "5m ago", "3h ago", "2d ago".
/** @param {string | null | undefined} ts @param {number} [now] */
export function relTime(ts, now = Date.now()) {
  const date = parseTime(ts);
  if (!date) return '—';
  const secs = Math.max(0, Math.round((now - date.getTime()) / 1000));
  if (secs < 60) return secs + 's ago';
  if (secs < 3600) return Math.floor(secs / 60) + 'm ago';
  if (secs < 86400) return Math.floor(secs / 3600) + 'h ago';
  return Math.floor(secs / 86400) + 'd ago';
}

/** @param {string | null | undefined} ts */
export function clockTime(ts) {
  const date = parseTime(ts);
  return date ? date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' }) : '—';
}

/** @param {string | null | undefined} ts */
export function dateTime(ts) {
  const date = parseTime(ts);
  return date ? date.toLocaleString([], { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' }) : '—';
}

/// "42s", "3m 5s", "2h 10m"; "—" when unknown.
/** @param {number | null | undefined} secs */
export function duration(secs) {
  if (secs === null || secs === undefined || Number.isNaN(Number(secs))) return '—';
  const s = Math.round(Number(secs));
  if (s < 60) return s + 's';
  if (s < 3600) return Math.floor(s / 60) + 'm ' + (s % 60) + 's';
  return Math.floor(s / 3600) + 'h ' + Math.floor((s % 3600) / 60) + 'm';
}

/// "now" or "in 3m 5s" until `ts`.
/** @param {string | null | undefined} ts @param {number} [now] */
export function until(ts, now = Date.now()) {
  const date = parseTime(ts);
  if (!date) return '—';
  const secs = Math.round((date.getTime() - now) / 1000);
  return secs <= 0 ? 'now' : 'in ' + duration(secs);
}

/** @param {number | null | undefined} value */
export function number(value) {
  if (value === null || value === undefined) return '—';
  return Number(value).toLocaleString();
}

/// "$0.0042", "$1.25"; null when there is no amount.
/** @param {number | null | undefined} usd @returns {string | null} */
export function money(usd) {
  if (usd === null || usd === undefined || Number.isNaN(Number(usd))) return null;
  const n = Number(usd);
  return '$' + (n < 0.01 ? n.toFixed(4) : n.toFixed(2));
}

/**
 * @typedef {object} Usage A model usage report (a chat message's or a turn's).
 * @property {number} [input_tokens]
 * @property {number} [output_tokens]
 * @property {number} [cache_creation_input_tokens]
 * @property {number} [cache_read_input_tokens]
 */

/// "1,234 tokens" (input, output and cache together); null when there are none.
/** @param {Usage | null | undefined} usage @returns {string | null} */
export function tokensText(usage) {
  if (!usage) return null;
  const total = (usage.input_tokens || 0) + (usage.output_tokens || 0) + (usage.cache_creation_input_tokens || 0) + (usage.cache_read_input_tokens || 0);
  return total ? number(total) + ' tokens' : null;
}

/// UTF-8 length of `text` (the server's limits are in bytes).
/** @param {string} text */
export function byteLength(text) {
  return new TextEncoder().encode(text).length;
}

/// One line of at most `max` characters (whitespace collapsed, an ellipsis when cut).
/** @param {unknown} text @param {number} [max] */
export function oneLine(text, max = 90) {
  const line = String(text).replace(/\s+/g, ' ').trim();
  return line.length > max ? line.slice(0, max - 1) + '\u2026' : line;
}

/**
 * @typedef {object} WorkflowEvent One line of a run's events file, as the session stream's `workflow` frame and the
 *   detail's `recent_events` carry it.
 * @property {number} [id] The line number.
 * @property {string} [topic]
 * @property {string} [hat]
 * @property {string} [triggered]
 * @property {string} [ts]
 * @property {unknown} [payload] Text, or JSON when the line held JSON.
 * @property {unknown} [payload_json]
 */

/// An event's payload as readable text: JSON pretty-printed, text as it is.
/** @param {WorkflowEvent} event @returns {string} */
export function payloadText(event) {
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
