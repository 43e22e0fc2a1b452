// @ts-check
// ralph's RPC mode in words (the session detail's `rpc`: cost so far, context window use, tool calls in progress,
// acknowledgements), shared by the session screen and its tests, saying what the app and the terminal say. Pure: no DOM.

/** @param {number} n */
function grouped(n) {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** @param {any} rpc @returns {string} `$0.0270 so far (3 iterations)` */
export function costText(rpc) {
  const count = (rpc.iterations || []).length;
  return '$' + Number(rpc.cost_usd || 0).toFixed(4) + ' so far (' + count + ' iteration' + (count === 1 ? '' : 's') + ')';
}

/** @param {any} rpc @returns {number | null} the share of the context window in use, 0…1 */
export function contextUse(rpc) {
  if (!rpc.context_window || rpc.context_tokens === null || rpc.context_tokens === undefined) return null;
  return rpc.context_tokens / rpc.context_window;
}

/** @param {any} rpc @returns {string | null} `60,000 of 100,000 tokens (60%)` */
export function contextText(rpc) {
  const share = contextUse(rpc);
  if (share === null) return null;
  return grouped(rpc.context_tokens) + ' of ' + grouped(rpc.context_window) + ' tokens (' + Math.round(share * 100) + '%)';
}

/** @param {any} rpc @returns {string} `6,000 in · 600 out` */
export function tokensText(rpc) {
  return grouped(rpc.input_tokens || 0) + ' in · ' + grouped(rpc.output_tokens || 0) + ' out';
}

/** @param {any} rpc @returns {string[]} `Bash: swift test (iteration 3)` per tool call in progress */
export function toolCallLines(rpc) {
  return (rpc.tool_calls || []).map((/** @type {any} */ call) => {
    const input = call.input && (call.input.command || call.input.file_path);
    return call.name + (input ? ': ' + input : '') + (call.iteration ? ' (iteration ' + call.iteration + ')' : '');
  });
}

/** @param {number} ms */
function seconds(ms) {
  return ms < 10000 ? (ms / 1000).toFixed(1) + ' s' : Math.floor(ms / 1000) + ' s';
}

/// The agent wave in progress or the latest one (the app's and the terminal's words), or null.
/** @param {any} rpc @returns {string | null} `wave of builder (iteration 2): 1 of 3 workers done` */
export function waveText(rpc) {
  const wave = rpc.wave;
  if (!wave) return null;
  const head = 'wave of ' + wave.hat + (wave.iteration ? ' (iteration ' + wave.iteration + ')' : '') + ': ';
  const done = wave.done || [];
  if (wave.completed) {
    const failed = typeof wave.failed === 'number' ? wave.failed : done.filter((/** @type {any} */ w) => !w.success).length;
    return head + wave.worker_count + ' workers' + (failed > 0 ? ', ' + failed + ' failed' : '') + (typeof wave.duration_ms === 'number' ? ', ' + seconds(wave.duration_ms) : '');
  }
  const failures = done.filter((/** @type {any} */ w) => !w.success).length;
  return head + done.length + ' of ' + wave.worker_count + ' workers done' + (failures > 0 ? ' (' + failures + ' failed)' : '');
}

/** @param {any} ack @returns {string} `acknowledged for this iteration (3): …` */
export function ackText(ack) {
  const when = ack.applies_to === 'current' ? 'this iteration' + (ack.iteration ? ' (' + ack.iteration + ')' : '') : 'next iteration';
  return 'acknowledged for ' + when + ': ' + ack.message;
}

/// The notice after a steer, from the server's answer (the app's words).
/** @param {any} answer */
export function steerNotice(answer) {
  const when = answer.applies_to === 'current' ? 'this iteration' : 'its next iteration';
  switch (answer.status) {
    case 'acknowledged': return 'ralph acknowledged it for ' + when + (answer.acknowledgement ? ': ' + answer.acknowledgement : '');
    case 'sent': return 'Sent to ralph for ' + when + '; no acknowledgement yet';
    case 'written': return 'Written for ' + when + ' (experimental: ralph does not acknowledge it)';
    default: return 'Guidance delivered' + (answer.id ? ' as event #' + answer.id : '') + '; ralph reads it in ' + when;
  }
}
