// @ts-check
// Session detail (`#/sessions/<id>`): one ralph run in ten cards — status, tokens, hat flow, backpressure, iteration
// stats, mode & control, recent events, the live event stream, the hats and the actions (emit, steer, export, answer
// a pending question).
//
// The detail is read once from `GET /api/sessions/<id>`; then the session stream (`?state=1`) carries its changes in
// `state` frames beside the events, so nothing is re-read while the run is live (../session/detail-screen.js). The
// stream resumes after the last id it showed, so no event is ever shown twice, and it stops for good at `end`.
// Controls exist only for the roles that may use them: a viewer gets none.
//
// In a cluster, the detail of another host's run comes from that host; while it is offline (`503 host_offline`) the
// screen shows the run's last known state from `…/status` (which this server answers), as unreachable, its controls
// disabled.

import { api, seg } from '../api.js';
import { h, render } from '../ui.js';
import { id8 } from '../format.js';
import { isHostOffline, hostOfflineMessage } from '../words/hosts.js';
import { DetailScreen } from '../session/detail-screen.js';

/** @param {HTMLElement} view @param {Array<string | undefined>} params @param {any} app */
export async function mount(view, params, app) {
  const routeId = /** @type {string} */ (params[0]);
  app.setTitle('Session ' + id8(routeId));
  const base = '/api/sessions/' + seg(routeId);
  let detail;
  try {
    detail = await api.get(base);
  } catch (error) {
    detail = isHostOffline(error) ? await api.get(base + '/status').catch(() => null) : null;
    if (!detail) {
      render(view, loadFailure(/** @type {any} */ (error), routeId, app));
      return undefined;
    }
  }
  const screen = new DetailScreen(view, base, detail, app);
  screen.start();
  return () => screen.dispose();
}

/** @param {{status?: number, message: string}} error @param {string} id @param {any} app */
function loadFailure(error, id, app) {
  if (error.status === 404) {
    return h('div', { class: 'card sd-missing', role: 'alert' },
      h('h2', {}, 'Run not found'),
      h('p', {}, 'There is no run with the id ', h('code', {}, id), ' on this server. It may have been deleted, or the link is wrong.'),
      h('p', { class: 'muted small' }, error.message),
      h('a', { class: 'btn primary', href: '#/sessions' }, 'Back to the sessions'));
  }
  return h('div', { class: 'banner error', role: 'alert' },
    h('p', {}, isHostOffline(error) ? 'Could not load this run. ' + hostOfflineMessage(error) : 'Could not load this run: ' + error.message),
    h('div', { class: 'btn-row' },
      h('button', { type: 'button', class: 'btn small', onclick: () => app.navigate(location.hash) }, 'Try again'),
      h('a', { class: 'btn small ghost', href: '#/sessions' }, 'Back to the sessions')));
}
