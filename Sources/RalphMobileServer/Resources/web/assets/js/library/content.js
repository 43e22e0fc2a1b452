// @ts-check
// The library's content sheet: a config, prompt or skill read in full (monospaced, Copy, and for admins "Start a run
// with this", which hands the path to the create wizard through sessionStorage), or a hat with the configs that
// define it.

import { api, encodePath, seg } from '../api.js';
import { h, render, openSheet, copyText, badge } from '../ui.js';
import { codeBlock, hatDot, topicList, skillMeta, hatSnippet } from './rows.js';

/**
 * @typedef {object} LibraryContext The library screen's parts and state, shared by its functions.
 * @property {any} app
 * @property {any} current The kind shown (an entry of KINDS).
 * @property {any[]} items
 * @property {number} loadToken
 * @property {{close: () => void, element: HTMLElement} | null} sheet
 * @property {boolean} alive
 * @property {HTMLElement[]} tabs
 * @property {HTMLInputElement} filter
 * @property {HTMLElement} filterLabel
 * @property {HTMLElement} count
 * @property {HTMLElement} body
 * @property {HTMLElement} panel
 * @property {() => void} reload reads the list again
 */

/** @param {LibraryContext} ctx @param {...any} args */
export function openItem(ctx, kind, item) {
  if (ctx.sheet) ctx.sheet.close();
  const title = kind === 'hats' ? (item.name || item.id) : (item.name || item.path);
  const holder = h('div', { class: 'lib-content', 'data-test': 'library-content', 'data-kind': kind, 'aria-busy': 'true' },
    h('p', { class: 'loading', role: 'status' }, 'Loading\u2026'));
  ctx.sheet = openSheet({
    title,
    build: () => holder,
    onClose: () => { ctx.sheet = null; },
  });
  ctx.sheet.element.classList.add('lib-sheet');
  if (kind === 'hats') showHat(ctx, holder, item);
  else showFile(ctx, holder, kind, item);
}

/** @param {LibraryContext} ctx @param {...any} args */
export async function showFile(ctx, holder, kind, item) {
  const done = (...children) => {
    holder.removeAttribute('aria-busy');
    render(holder, ...children);
  };
  try {
    if (kind === 'skills') {
      const name = seg(item.name);
      const [meta, loaded] = await Promise.all([api.get('/api/skills/' + name), api.post('/api/skills/' + name + '/load')]);
      done(skillMeta(meta || item), actions(ctx, { text: loaded.content, what: 'Skill' }),
        codeBlock(loaded.content, 'Content of skill ' + item.name));
      return;
    }
    const url = (kind === 'prompts' ? '/api/prompts/' : '/api/configs/') + encodePath(item.path);
    const file = await api.get(url);
    done(h('p', { class: 'row-sub mono lib-path' }, file.path || item.path, ' ', badge(file.content_type || (kind === 'prompts' ? 'markdown' : 'yaml'), 'lib-source')),
      actions(ctx, { text: file.content, what: kind === 'prompts' ? 'Prompt' : 'Config', start: { kind, path: file.path || item.path } }),
      codeBlock(file.content, 'Content of ' + (file.path || item.path)));
  } catch (error) {
    const gone = error.status === 404;
    done(h('div', { class: 'banner error', role: 'alert' },
      h('p', {}, error.message),
      gone ? h('p', { class: 'muted small' }, 'It may have been renamed or deleted since the list was loaded.') : null),
    h('div', { class: 'btn-row' },
      h('button', { type: 'button', class: 'btn', onclick: () => { holder.setAttribute('aria-busy', 'true'); render(holder, h('p', { class: 'loading', role: 'status' }, 'Loading\u2026')); showFile(ctx, holder, kind, item); } }, 'Try again'),
      gone ? h('button', { type: 'button', class: 'btn ghost', onclick: () => { if (ctx.sheet) ctx.sheet.close(); ctx.filter.focus(); ctx.reload(); } }, 'Reload the list') : null));
  }
}

/** @param {LibraryContext} ctx @param {...any} args */
export function showHat(ctx, holder, hat) {
  holder.removeAttribute('aria-busy');
  const sources = (hat.sources || []).map((path) => h('li', {},
    h('button', { type: 'button', class: 'btn ghost lib-source-btn', onclick: () => showSource(ctx, holder, hat, path),
      'aria-label': 'Show the config ' + path }, h('span', { class: 'mono' }, path))));
  const snippet = hatSnippet(hat);
  render(holder,
    h('div', { class: 'lib-title-line' }, hatDot(hat),
      hat.emoji ? h('span', { class: 'lib-emoji', 'aria-hidden': 'true' }, hat.emoji) : null,
      h('strong', {}, hat.name || hat.id), h('span', { class: 'muted mono' }, hat.id)),
    hat.description ? h('p', { class: 'lib-desc-full' }, hat.description) : null,
    h('dl', { class: 'kv lib-kv' },
      h('dt', {}, 'Triggers'), h('dd', {}, topicList(hat.triggers)),
      h('dt', {}, 'Publishes'), h('dd', {}, topicList(hat.publishes))),
    sources.length ? h('h3', { class: 'lib-h3' }, 'Defined in') : null,
    sources.length ? h('ul', { class: 'lib-sources' }, sources) : null,
    actions(ctx, { text: snippet, what: 'Hat' }),
    codeBlock(snippet, 'Definition of hat ' + hat.id));
}

/** @param {LibraryContext} ctx @param {...any} args */
export async function showSource(ctx, holder, hat, path) {
  holder.setAttribute('aria-busy', 'true');
  render(holder, h('p', { class: 'loading', role: 'status' }, 'Loading ' + path + '\u2026'));
  const back = () => h('button', { type: 'button', class: 'btn ghost', onclick: () => showHat(ctx, holder, hat) }, '\u2190 Back to ' + (hat.name || hat.id));
  try {
    const file = await api.get('/api/configs/' + encodePath(path));
    holder.removeAttribute('aria-busy');
    render(holder, back(), h('p', { class: 'row-sub mono lib-path' }, file.path),
      actions(ctx, { text: file.content, what: 'Config', start: { kind: 'configs', path: file.path } }),
      codeBlock(file.content, 'Content of ' + file.path));
  } catch (error) {
    holder.removeAttribute('aria-busy');
    render(holder, back(), h('div', { class: 'banner error', role: 'alert' }, error.message));
  }
}

/** @param {LibraryContext} ctx @param {...any} args */
export function actions(ctx, { text, what, start }) {
  const row = h('div', { class: 'btn-row lib-actions' },
    h('button', { type: 'button', class: 'btn', 'data-test': 'copy', onclick: () => copyText(text, what + ' copied') }, 'Copy'));
  if (start && ctx.app.can('admin')) {
    const storageKey = start.kind === 'prompts' ? 'ralph.new.prompt' : 'ralph.new.config';
    row.append(h('a', { href: '#/new', class: 'btn primary', 'data-test': 'start-with',
      onclick: () => {
        try { sessionStorage.setItem(storageKey, start.path); } catch { /* the wizard starts empty */ }
        if (ctx.sheet) ctx.sheet.close();
      } }, 'Start a run with this'));
  }
  return row;
}
