// @ts-check
// A conversation's permissions as a value: the mode the agent reports (and the one it was created with), the agent
// CLI's version, and the session rules "allow for this session" granted. Which rules exist follows the conversation's
// `permissions` events (in order with its other events); their use counts follow `conversation.updated`. Pure.

/**
 * @typedef {object} SessionRule
 * @property {string} id
 * @property {{display: string}} rule
 * @property {string} [granted_by] the key id that granted it
 * @property {string} [granted_at]
 * @property {number} [uses]
 * @property {string} [last_used_at]
 */

/**
 * @typedef {object} PermissionsState
 * @property {SessionRule[]} rules
 * @property {string | null} agentMode
 * @property {string | null} createdMode
 * @property {string | null} version
 */

/**
 * @typedef {{type: 'permissions', event: {permission_mode?: string, session_rules?: SessionRule[]}}
 *   | {type: 'conversation', conversation: {agent_version?: string, agent_permission_mode?: string, permission_mode?: string | null, session_rules?: SessionRule[]}}
 *   | {type: 'revoked', id: string}
 * } PermissionsAction
 */

/** @param {{session_rules?: SessionRule[], agent_permission_mode?: string, permission_mode?: string, agent_version?: string}} conversation @returns {PermissionsState} */
export function initialPermissions(conversation) {
  return {
    rules: Array.isArray(conversation.session_rules) ? conversation.session_rules : [],
    agentMode: conversation.agent_permission_mode || null,
    createdMode: conversation.permission_mode || null,
    version: conversation.agent_version || null,
  };
}

/** @param {PermissionsState} state @param {PermissionsAction} action @returns {PermissionsState} */
export function reducePermissions(state, action) {
  switch (action.type) {
    case 'permissions': {
      const e = action.event;
      return {
        ...state,
        agentMode: e.permission_mode || state.agentMode,
        rules: Array.isArray(e.session_rules) ? e.session_rules : state.rules,
      };
    }
    case 'conversation': {
      const c = action.conversation;
      let rules = state.rules;
      if (Array.isArray(c.session_rules)) {
        const fresh = new Map(c.session_rules.map((r) => [r.id, r]));
        rules = rules.map((r) => {
          const f = fresh.get(r.id);
          return f ? { ...r, uses: f.uses, last_used_at: f.last_used_at } : r;
        });
      }
      return {
        rules,
        version: c.agent_version || state.version,
        agentMode: c.agent_permission_mode || state.agentMode,
        createdMode: c.permission_mode !== undefined ? c.permission_mode : state.createdMode,
      };
    }
    case 'revoked':
      return { ...state, rules: state.rules.filter((r) => r.id !== action.id) };
    default:
      return state;
  }
}

/// The mode the agent is in: the one it reports, else the one it was created with.
/** @param {PermissionsState} state */
export const permissionMode = (state) => state.agentMode || state.createdMode || 'default';

/// Rules in `after` that `before` did not have (a grant to announce).
/** @param {PermissionsState} before @param {PermissionsState} after */
export const addedRules = (before, after) => after.rules.filter((r) => !before.rules.some((b) => b.id === r.id));

/// "3 uses, last 5m ago", "not used yet".
/** @param {SessionRule} rule @param {(ts: string) => string} ago */
export function usesText(rule, ago) {
  const n = rule.uses || 0;
  const count = n === 0 ? 'not used yet' : n === 1 ? 'used once' : 'used ' + n + ' times';
  return n && rule.last_used_at ? count + ', last ' + ago(rule.last_used_at) : count;
}
