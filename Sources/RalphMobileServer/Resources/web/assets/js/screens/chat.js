// @ts-check
// One conversation with Claude Code (`#/chats/<id>`): the transcript (newest page, "Load earlier" for older ones),
// the live stream of the running turn (text deltas, tool calls, approvals, cost, API retries), the composer with
// queue / steer / interrupt for operators, the approval sheet, the permissions panel (mode, CLI version, session rules
// with Revoke) and the auto-reply panel. A turn the agent starts by itself opens with a system note.
//
// The events fold into the chat state (../state/chat.js); ../chat/*.js draw it. The stream starts right after the
// page of messages it was read with (`last_event_id`) and resumes after the last event seen (ids only grow), so a
// reconnect or a server restart shows nothing twice and loses nothing.

import { api, seg } from '../api.js';
import { h, render } from '../ui.js';
import { initialChatState } from '../state/chat.js';
import { ChatScreen } from '../chat/chat-screen.js';

/** @param {HTMLElement} view @param {Array<string | undefined>} params @param {any} app */
export async function mount(view, params, app) {
  const id = /** @type {string} */ (params[0]);
  const base = '/api/conversations/' + seg(id);
  let conversation;
  let page;
  try {
    [conversation, page] = await Promise.all([api.get(base), api.get(base + '/messages')]);
  } catch (error) {
    if (/** @type {any} */ (error).status !== 404) throw error;
    app.setTitle('Conversation not found');
    render(view, h('div', { class: 'empty' },
      h('p', {}, 'This conversation does not exist any more (it may have been deleted).'),
      h('a', { class: 'btn', href: '#/chats' }, 'All conversations')));
    return undefined;
  }
  const screen = new ChatScreen(view, id, initialChatState(conversation, page), app, page.last_event_id ?? 0);
  await screen.start();
  return () => screen.dispose();
}
