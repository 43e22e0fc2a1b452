// @ts-check
// Approvals as values: the inbox's list (read with `GET /api/approvals`, kept live by the global stream's
// `approval.pending` / `approval.resolved`, frames seen during a read applied on top of its answer) and the shell's
// set of pending approvals behind the tab badge. Pure: no DOM.

/** @typedef {import('../words/approval.js').Approval} Approval */

/**
 * @typedef {object} InboxState
 * @property {'pending' | 'all'} filter Waiting only, or with the decided ones.
 * @property {Map<string, Approval>} approvals By id.
 * @property {number} loadToken The read in flight (or the last one).
 * @property {boolean} loading
 * @property {Map<string, Approval>} seenDuringLoad Frames of the read in flight.
 */

/**
 * @typedef {{type: 'frame', approval: Approval}
 *   | {type: 'upsert', approval: Approval}
 *   | {type: 'filter', filter: 'pending' | 'all'}
 *   | {type: 'loading'}
 *   | {type: 'loaded', token: number, approvals: Approval[]}
 *   | {type: 'load_failed', token: number}
 * } InboxAction
 */

/** @param {Iterable<Approval>} known What the shell already knows shows at once. @returns {InboxState} */
export function initialInbox(known = []) {
  return { filter: 'pending', approvals: new Map([...known].map((a) => [a.id, a])), loadToken: 0, loading: false, seenDuringLoad: new Map() };
}

/** @param {Map<string, Approval>} map @param {Approval} a */
function merged(map, a) {
  return new Map(map).set(a.id, { ...(map.get(a.id) || {}), ...a });
}

/** @param {InboxState} state @param {InboxAction} action @returns {InboxState} */
export function reduceInbox(state, action) {
  switch (action.type) {
    case 'frame': {
      const a = action.approval;
      if (!a || !a.id) return state;
      const seenDuringLoad = state.loading ? new Map(state.seenDuringLoad).set(a.id, a) : state.seenDuringLoad;
      if (state.filter === 'pending' && a.state !== 'pending') {
        const approvals = new Map(state.approvals);
        approvals.delete(a.id);
        return { ...state, approvals, seenDuringLoad };
      }
      return { ...state, approvals: merged(state.approvals, a), seenDuringLoad };
    }
    case 'upsert':
      return action.approval && action.approval.id ? { ...state, approvals: merged(state.approvals, action.approval) } : state;
    case 'filter':
      return { ...state, filter: action.filter };
    case 'loading':
      return { ...state, loadToken: state.loadToken + 1, loading: true, seenDuringLoad: new Map() };
    case 'loaded': {
      if (action.token !== state.loadToken) return state; // an older read answered late
      let approvals = new Map(action.approvals.map((a) => [a.id, a]));
      for (const a of state.seenDuringLoad.values()) approvals = merged(approvals, a);
      if (state.filter === 'pending') approvals = new Map([...approvals].filter(([, a]) => a.state === 'pending'));
      return { ...state, approvals, loading: false, seenDuringLoad: new Map() };
    }
    case 'load_failed':
      return action.token === state.loadToken ? { ...state, loading: false } : state;
    default:
      return state;
  }
}

/// What the inbox lists: newest first; only the waiting ones unless the filter says all.
/** @param {InboxState} state @returns {Approval[]} */
export function visibleApprovals(state) {
  return [...state.approvals.values()]
    .filter((a) => state.filter === 'all' || a.state === 'pending')
    .sort((x, y) => String(y.created_at).localeCompare(String(x.created_at)));
}

/** @param {InboxState} state */
export const pendingCount = (state) => [...state.approvals.values()].filter((a) => a.state === 'pending').length;

/// The shell's pending approvals after a global frame (a new map): pending ones join, resolved ones leave.
/** @param {Map<string, Approval>} pending @param {string} name @param {Approval | null | undefined} approval */
export function applyPendingFrame(pending, name, approval) {
  if (!approval || !approval.id) return pending;
  const next = new Map(pending);
  if (name === 'approval.pending') next.set(approval.id, approval);
  else next.delete(approval.id);
  return next;
}
