// @ts-check
// The conversations list as a value: pinned ones and the newest page read with `GET /api/conversations`, more pages
// on demand, kept live by the global stream's `conversation.updated` / `conversation.removed`. Pure: no DOM.

/** @typedef {import('./chat-wire.js').Conversation & {last_activity_at?: string, pending_approvals?: number, last_message_preview?: string}} ConversationRow */

/**
 * @typedef {object} ConversationsState
 * @property {Map<string, ConversationRow>} items By id.
 * @property {string | null} cursor Where the next page starts.
 * @property {boolean} hasMore
 * @property {boolean} showArchived
 */

/**
 * @typedef {{type: 'loaded', pinned: ConversationRow[], page: {items: ConversationRow[], next_cursor?: string | null, has_more?: boolean}}
 *   | {type: 'more', page: {items: ConversationRow[], next_cursor?: string | null, has_more?: boolean}}
 *   | {type: 'updated', conversation: ConversationRow}
 *   | {type: 'removed', id: string}
 *   | {type: 'archived', show: boolean}
 * } ConversationsAction
 */

/** @param {boolean} showArchived @returns {ConversationsState} */
export function initialConversations(showArchived) {
  return { items: new Map(), cursor: null, hasMore: false, showArchived };
}

/** @param {ConversationsState} state @param {ConversationsAction} action @returns {ConversationsState} */
export function reduceConversations(state, action) {
  switch (action.type) {
    case 'loaded': {
      const items = new Map();
      for (const c of [...action.pinned, ...action.page.items]) items.set(c.id, c);
      return { ...state, items, cursor: action.page.next_cursor ?? null, hasMore: !!action.page.has_more };
    }
    case 'more': {
      const items = new Map(state.items);
      for (const c of action.page.items) if (!items.has(c.id)) items.set(c.id, c);
      return { ...state, items, cursor: action.page.next_cursor ?? null, hasMore: !!action.page.has_more };
    }
    case 'updated': {
      const c = action.conversation;
      if (!c || !c.id) return state;
      // Archived while archived ones are hidden: it leaves the list.
      if (c.archived && !state.showArchived) return state.items.has(c.id) ? reduceConversations(state, { type: 'removed', id: c.id }) : state;
      return { ...state, items: new Map(state.items).set(c.id, c) };
    }
    case 'removed': {
      if (!state.items.has(action.id)) return state;
      const items = new Map(state.items);
      items.delete(action.id);
      return { ...state, items };
    }
    case 'archived':
      return { ...state, showArchived: action.show };
    default:
      return state;
  }
}

/// Pinned first, then the most recent activity; archived ones only when shown.
/** @param {ConversationsState} state @returns {ConversationRow[]} */
export function orderedConversations(state) {
  return [...state.items.values()]
    .filter((c) => state.showArchived || !c.archived)
    .sort((a, b) => (Number(!!b.pinned) - Number(!!a.pinned)) || String(b.last_activity_at).localeCompare(String(a.last_activity_at)));
}
