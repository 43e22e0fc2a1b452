// @ts-check
// The request the New run form describes (`POST /api/sessions`), checked with the server's rules before it is sent,
// or the problems by field. Pure: no DOM.

export const MAX_ITERATIONS = 100000;
const NAME_RULE = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * @typedef {object} RunForm What the form holds.
 * @property {string} config The config path chosen ('' when none).
 * @property {'file' | 'text'} promptMode
 * @property {string} promptPath
 * @property {string} promptText
 * @property {string} workdir
 * @property {string} max As typed.
 * @property {boolean} maxBadInput The browser could not read the number typed.
 * @property {string} backend
 */

/**
 * @typedef {object} RunRequest
 * @property {string} config_path
 * @property {string} [prompt_path]
 * @property {string} [prompt]
 * @property {string} [working_dir]
 * @property {number} [max_iterations]
 * @property {string} [backend]
 */

/// The request, or the problems as [field, message] in the form's order (config, prompt, workdir, max, backend).
/** @param {RunForm} form @returns {{body: RunRequest} | {problems: Array<[string, string]>}} */
export function runRequest(form) {
  /** @type {Array<[string, string]>} */
  const problems = [];
  /** @type {any} */
  const body = {};
  if (!form.config) problems.push(['config', 'Choose a config.']);
  else body.config_path = form.config;
  if (form.promptMode === 'file') {
    if (!form.promptPath) problems.push(['promptFile', 'Choose a prompt file, or switch to Write text.']);
    else body.prompt_path = form.promptPath;
  } else if (!form.promptText.trim()) {
    problems.push(['promptText', 'Write what ralph should do.']);
  } else {
    body.prompt = form.promptText.trim();
  }
  const dir = form.workdir.trim();
  if (dir) {
    if (dir.includes('\0')) problems.push(['workdir', 'This path is not valid.']);
    else body.working_dir = dir;
  }
  const max = form.max.trim();
  if (max || form.maxBadInput) {
    const n = Number(max);
    if (!Number.isInteger(n) || n < 1 || n > MAX_ITERATIONS) problems.push(['max', 'A whole number from 1 to ' + MAX_ITERATIONS + '.']);
    else body.max_iterations = n;
  }
  if (form.backend) {
    if (!NAME_RULE.test(form.backend)) problems.push(['backend', 'Not a backend name.']);
    else body.backend = form.backend;
  }
  return problems.length ? { problems } : { body };
}
