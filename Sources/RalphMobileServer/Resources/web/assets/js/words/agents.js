// @ts-check
// The agent backends conversations run (Claude Code, Codex), as `GET /api/health` lists them in `agents`: their names
// in words, which ones can be used (an agent whose `error` is set cannot), and the permission modes each offers with
// its own default. Shared by the New conversation sheet, the conversation rows, the chat header, the approval sheet
// and Settings. Pure (no DOM).

import { permissionModeLabel } from './conversation.js';

/**
 * @typedef {object} AgentInfo One agent CLI as `GET /api/health` describes it.
 * @property {string} name The backend's name: claude, codex.
 * @property {string} [command] The command the server runs.
 * @property {string | null} [version]
 * @property {string[]} [permission_modes] The modes it accepts (claude's list leaves out `default`).
 * @property {string | null} [error] Why it cannot be used; conversations for it are refused.
 */

/** @type {Record<string, string>} */
const PRODUCT_NAMES = { claude: 'Claude Code', codex: 'Codex' };
/** @type {Record<string, string>} */
const SHORT_NAMES = { claude: 'Claude', codex: 'Codex' };
/// The mode a backend runs in when none is asked for: claude's `default` (not in its list), Codex's `untrusted`.
/** @type {Record<string, string>} */
const DEFAULT_MODES = { claude: 'default', codex: 'untrusted' };

/// The product's name: "Claude Code", "Codex" (an unknown backend as it is named).
/** @param {string | null | undefined} backend */
export function agentLabel(backend) {
  return PRODUCT_NAMES[backend || 'claude'] || String(backend);
}

/// The name the agent goes by in a sentence ("Claude waits for your approval"); a conversation without a backend
/// (an older server) is Claude's.
/** @param {string | null | undefined} backend */
export function agentName(backend) {
  return SHORT_NAMES[backend || 'claude'] || String(backend);
}

/// The agents `GET /api/health` lists, in its order (claude first); none from an older server.
/** @param {any} health @returns {AgentInfo[]} */
export function agentsOf(health) {
  const agents = health && Array.isArray(health.agents) ? health.agents : [];
  return agents.filter((/** @type {any} */ a) => a && typeof a === 'object' && typeof a.name === 'string' && a.name);
}

/// Whether conversations can run it.
/** @param {AgentInfo} agent */
export const isUsable = (agent) => !agent.error;

/// The backend a new conversation starts with: the first usable one, else the first listed, else claude.
/** @param {AgentInfo[]} agents */
export function preferredBackend(agents) {
  const usable = agents.find(isUsable);
  return (usable || agents[0] || { name: 'claude' }).name;
}

/// The mode `agent` runs in unless asked otherwise.
/** @param {AgentInfo | null | undefined} agent */
export function defaultMode(agent) {
  const name = agent ? agent.name : 'claude';
  if (DEFAULT_MODES[name]) return DEFAULT_MODES[name];
  const modes = agent && Array.isArray(agent.permission_modes) ? agent.permission_modes : [];
  return modes.includes('default') || !modes.length ? 'default' : modes[0];
}

/**
 * @typedef {object} ModeOption
 * @property {string} value
 * @property {string} label
 * @property {boolean} isDefault
 */

/// The permission modes to offer for `agent`, its default first (claude: `default` plus exactly the modes it accepts).
/** @param {AgentInfo | null | undefined} agent @returns {ModeOption[]} */
export function modeOptions(agent) {
  const fallback = defaultMode(agent);
  const listed = agent && Array.isArray(agent.permission_modes) ? agent.permission_modes.filter((m) => typeof m === 'string' && m) : [];
  const modes = [fallback, ...listed.filter((m) => m !== fallback)];
  return modes.map((m) => ({ value: m, label: permissionModeLabel(m) + (m === fallback && agent && agent.name !== 'claude' ? ' (its default)' : ''), isDefault: m === fallback }));
}

/// One line about an agent for a picker or Settings: "Claude Code 2.1.330", "Codex — not available: looked for codex…".
/** @param {AgentInfo} agent */
export function agentLine(agent) {
  const name = agentLabel(agent.name) + (agent.version ? ' ' + agent.version : '');
  return agent.error ? name + ' \u2014 not available: ' + agent.error : name;
}
