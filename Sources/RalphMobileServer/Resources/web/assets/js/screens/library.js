// @ts-check
// Library: the workspace's configs, prompts, presets, hats and skills (`#/library/<kind>`).
//
// A tab list picks the kind (kept in the URL without a reload of the screen); a filter box narrows the list; an item
// opens its content in a sheet (monospaced, with a Copy button and, for admins, "Start a run with this").
//
// Hand-off to the create wizard (#/new): "Start a run with this" sets
//   sessionStorage 'ralph.new.config' = a config path (`ralph.yml`, `presets/feature.yml`), or
//   sessionStorage 'ralph.new.prompt' = a prompt path (`prompts/docs.md`),
// then navigates to #/new.

import { api } from '../api.js';
import { h, render } from '../ui.js';
import { itemRow, searchText } from '../library/rows.js';
import { openItem } from '../library/content.js';

/** @typedef {import('../library/content.js').LibraryContext} LibraryContext */

const KINDS = [
  { kind: 'configs', label: 'Configs', url: '/api/configs', key: 'configs',
    empty: 'No configs found. Configs are the workspace\u2019s ralph.yml and the YAML files in presets/ (presets/*.yml).' },
  { kind: 'prompts', label: 'Prompts', url: '/api/prompts', key: 'prompts',
    empty: 'No prompts found. Prompts are the Markdown files under the workspace\u2019s prompts/ folder (prompts/**/*.md).' },
  { kind: 'presets', label: 'Presets', url: '/api/presets', key: 'presets',
    empty: 'No presets found. Presets are the YAML files in the workspace\u2019s presets/ folder (presets/*.yml).' },
  { kind: 'hats', label: 'Hats', url: '/api/hats', key: 'hats',
    empty: 'No hats defined. Hats come from the hats: section of ralph.yml and of the presets (presets/*.yml).' },
  { kind: 'skills', label: 'Skills', url: '/api/skills', key: 'skills',
    empty: 'No skills found. Skills are read from the directories listed under skills.dirs in ralph.yml (*.md files or <dir>/SKILL.md).' },
];
const LAST_KIND = 'ralph.library.kind';

/** @param {HTMLElement} view @param {Array<string | undefined>} params @param {any} app */
export async function mount(view, params, app) {
  const asked = params[0];
  const known = KINDS.find((k) => k.kind === asked);
  let stored = null;
  try { stored = sessionStorage.getItem(LAST_KIND); } catch { /* storage off */ }
  app.setTitle('Library');
  /** @type {LibraryContext} */
  const ctx = /** @type {any} */ ({ app, current: known || KINDS.find((k) => k.kind === stored) || KINDS[0], items: [], loadToken: 0,
    sheet: null, alive: true });
  ctx.reload = () => load(ctx);
  ctx.tabs = KINDS.map((k) => h('button', {
    type: 'button', role: 'tab', id: 'lib-tab-' + k.kind, 'aria-controls': 'lib-panel',
    'data-test': 'library-tab', 'data-kind': k.kind,
    onclick: () => select(ctx, k, false),
  }, k.label));
  const tablist = h('div', { class: 'segmented lib-tabs', role: 'tablist', 'aria-label': 'Library sections', onkeydown: (/** @type {KeyboardEvent} */ event) => onTabKey(ctx, event) }, ctx.tabs);
  ctx.filter = /** @type {HTMLInputElement} */ (h('input', { type: 'search', id: 'lib-filter', placeholder: 'Filter', autocomplete: 'off', spellcheck: 'false',
    'aria-controls': 'lib-list', oninput: () => drawList(ctx) }));
  ctx.filterLabel = h('label', { for: 'lib-filter', class: 'sr-only' }, 'Filter');
  const reload = h('button', { type: 'button', class: 'icon-btn', 'aria-label': 'Reload', title: 'Reload', onclick: () => load(ctx) }, '\u21bb');
  ctx.count = h('p', { class: 'muted small lib-count', role: 'status', 'aria-live': 'polite' });
  ctx.body = h('div', { class: 'lib-body' });
  ctx.panel = h('section', { id: 'lib-panel', role: 'tabpanel', class: 'lib-panel', tabindex: '-1' },
    h('div', { class: 'toolbar lib-toolbar' }, ctx.filterLabel, h('div', { class: 'grow' }, ctx.filter), reload),
    ctx.count, ctx.body);
  const notice = known || asked === undefined ? null
    : h('div', { class: 'banner warn', role: 'alert' }, 'There is no library section \u201c' + asked + '\u201d; showing ' + ctx.current.label + '.');
  render(view, h('div', { class: 'library' }, tablist, notice, ctx.panel));
  select(ctx, ctx.current, true);

  return () => {
    ctx.alive = false;
    if (ctx.sheet) ctx.sheet.close();
  };
}

/** @param {LibraryContext} ctx @param {...any} args */
function onTabKey(ctx, event) {
  const index = KINDS.indexOf(ctx.current);
  let next = null;
  if (event.key === 'ArrowRight' || event.key === 'ArrowDown') next = (index + 1) % KINDS.length;
  else if (event.key === 'ArrowLeft' || event.key === 'ArrowUp') next = (index - 1 + KINDS.length) % KINDS.length;
  else if (event.key === 'Home') next = 0;
  else if (event.key === 'End') next = KINDS.length - 1;
  if (next === null) return;
  event.preventDefault();
  select(ctx, KINDS[next], false);
  ctx.tabs[next].focus();
}

/** @param {LibraryContext} ctx @param {...any} args */
function select(ctx, kind, initial) {
  const changed = kind !== ctx.current || initial;
  ctx.current = kind;
  ctx.tabs.forEach((tab, i) => {
    const on = KINDS[i] === kind;
    tab.setAttribute('aria-selected', on ? 'true' : 'false');
    tab.tabIndex = on ? 0 : -1;
  });
  ctx.panel.setAttribute('aria-labelledby', 'lib-tab-' + kind.kind);
  ctx.filter.placeholder = 'Filter ' + kind.label.toLowerCase();
  ctx.filterLabel.textContent = 'Filter ' + kind.label.toLowerCase();
  try { sessionStorage.setItem(LAST_KIND, kind.kind); } catch { /* storage off */ }
  // Keep the URL in step without remounting the screen (a hashchange would re-route).
  const hash = '#/library/' + kind.kind;
  if (location.hash !== hash) history.replaceState(history.state, '', hash);
  if (!changed) return;
  if (!initial) ctx.filter.value = '';
  load(ctx);
}

/** @param {LibraryContext} ctx @param {...any} args */
async function load(ctx) {
  const token = ++ctx.loadToken;
  const kind = ctx.current;
  ctx.items = [];
  ctx.count.textContent = '';
  render(ctx.body, h('p', { class: 'loading', role: 'status' }, 'Loading ' + kind.label.toLowerCase() + '\u2026'));
  try {
    const data = await api.get(kind.url);
    if (!ctx.alive || token !== ctx.loadToken) return;
    ctx.items = (data && Array.isArray(data[kind.key]) ? data[kind.key] : []);
    drawList(ctx);
  } catch (error) {
    if (!ctx.alive || token !== ctx.loadToken) return;
    render(ctx.body, h('div', { class: 'banner error', role: 'alert' },
      h('p', {}, 'Could not load ' + kind.label.toLowerCase() + ': ' + error.message),
      h('button', { type: 'button', class: 'btn', onclick: () => load(ctx) }, 'Try again')));
  }
}

/** @param {LibraryContext} ctx @param {...any} args */
function drawList(ctx) {
  const kind = ctx.current;
  const query = ctx.filter.value.trim().toLowerCase();
  const shown = query ? ctx.items.filter((item) => searchText(item).includes(query)) : ctx.items;
  const noun = kind.label.toLowerCase();
  ctx.count.textContent = query ? shown.length + ' of ' + ctx.items.length + ' ' + noun + ' shown' : ctx.items.length + ' ' + noun;
  if (!ctx.items.length) {
    render(ctx.body, h('div', { class: 'empty' }, h('p', {}, kind.empty)));
    return;
  }
  if (!shown.length) {
    render(ctx.body, h('div', { class: 'empty' },
      h('p', {}, 'No ' + noun + ' match \u201c' + ctx.filter.value.trim() + '\u201d.'),
      h('button', { type: 'button', class: 'btn', onclick: () => { ctx.filter.value = ''; drawList(ctx); ctx.filter.focus(); } }, 'Clear the filter')));
    return;
  }
  render(ctx.body, h('ul', { class: 'list card lib-list', id: 'lib-list', 'aria-label': kind.label },
    shown.map((item) => h('li', {}, itemRow(kind.kind, item, () => openItem(ctx, kind.kind, item))))));
}
