// @ts-check
// New run (`#/new`, admin only): the form is ../create/run-form.js; a non-admin is told what is needed instead.

import { h, render } from '../ui.js';
import { CreateRunForm } from '../create/run-form.js';

/** @param {HTMLElement} view @param {unknown} _params @param {any} app */
export async function mount(view, _params, app) {
  app.setTitle('New run');
  app.setBack('#/sessions');
  if (!app.can('admin')) {
    render(view, h('div', { class: 'card cr-denied', role: 'alert' },
      h('h2', {}, 'Starting runs needs admin'),
      h('p', {}, 'You are logged in with ' + (app.role === 'operator' ? 'an' : 'a') + ' ' + app.role + ' key. Starting a ralph run on this machine needs an admin key.'),
      h('p', { class: 'muted small' }, 'Create one on the server with: ', h('code', {}, 'ralph-mobile-server keys create --role admin')),
      h('a', { class: 'btn', href: '#/sessions' }, 'Back to the sessions')));
    return undefined;
  }
  const form = new CreateRunForm(view, app);
  await form.loadLists();
  return () => { form.disposed = true; };
}
