// Library: the workspace's configs, prompts, presets, hats and skills (`#/library/<kind>`).
//
// A tab list picks the kind (kept in the URL without a reload of the screen); a filter box narrows the list; an item
// opens its content in a sheet (monospaced, with a Copy button and, for admins, "Start a run with this").
//
// Hand-off to the create wizard (#/new): "Start a run with this" sets
//   sessionStorage 'ralph.new.config' = a config path (`ralph.yml`, `presets/feature.yml`), or
//   sessionStorage 'ralph.new.prompt' = a prompt path (`prompts/docs.md`),
// then navigates to #/new.

import { api, encodePath, seg } from '../api.js';
import { h, render, openSheet, copyText, hatBadge, badge } from '../ui.js';
import { hatClass } from '../format.js';

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

export async function mount(view, params, app) {
  const asked = params[0];
  const known = KINDS.find((k) => k.kind === asked);
  let stored = null;
  try { stored = sessionStorage.getItem(LAST_KIND); } catch { /* storage off */ }
  let current = known || KINDS.find((k) => k.kind === stored) || KINDS[0];
  let items = [];
  let loadToken = 0;
  let sheet = null;
  let alive = true;

  app.setTitle('Library');

  const tabs = KINDS.map((k) => h('button', {
    type: 'button', role: 'tab', id: 'lib-tab-' + k.kind, 'aria-controls': 'lib-panel',
    'data-test': 'library-tab', 'data-kind': k.kind,
    onclick: () => select(k, false),
  }, k.label));
  const tablist = h('div', { class: 'segmented lib-tabs', role: 'tablist', 'aria-label': 'Library sections', onkeydown: onTabKey }, tabs);

  const filter = h('input', { type: 'search', id: 'lib-filter', placeholder: 'Filter', autocomplete: 'off', spellcheck: 'false',
    'aria-controls': 'lib-list', oninput: () => drawList() });
  const filterLabel = h('label', { for: 'lib-filter', class: 'sr-only' }, 'Filter');
  const reload = h('button', { type: 'button', class: 'icon-btn', 'aria-label': 'Reload', title: 'Reload', onclick: () => load() }, '\u21bb');
  const count = h('p', { class: 'muted small lib-count', role: 'status', 'aria-live': 'polite' });
  const body = h('div', { class: 'lib-body' });
  const panel = h('section', { id: 'lib-panel', role: 'tabpanel', class: 'lib-panel', tabindex: '-1' },
    h('div', { class: 'toolbar lib-toolbar' }, filterLabel, h('div', { class: 'grow' }, filter), reload),
    count, body);

  const notice = known || asked === undefined ? null
    : h('div', { class: 'banner warn', role: 'alert' }, 'There is no library section \u201c' + asked + '\u201d; showing ' + current.label + '.');
  render(view, h('div', { class: 'library' }, tablist, notice, panel));
  select(current, true);

  function onTabKey(event) {
    const index = KINDS.indexOf(current);
    let next = null;
    if (event.key === 'ArrowRight' || event.key === 'ArrowDown') next = (index + 1) % KINDS.length;
    else if (event.key === 'ArrowLeft' || event.key === 'ArrowUp') next = (index - 1 + KINDS.length) % KINDS.length;
    else if (event.key === 'Home') next = 0;
    else if (event.key === 'End') next = KINDS.length - 1;
    if (next === null) return;
    event.preventDefault();
    select(KINDS[next], false);
    tabs[next].focus();
  }

  function select(kind, initial) {
    const changed = kind !== current || initial;
    current = kind;
    tabs.forEach((tab, i) => {
      const on = KINDS[i] === kind;
      tab.setAttribute('aria-selected', on ? 'true' : 'false');
      tab.tabIndex = on ? 0 : -1;
    });
    panel.setAttribute('aria-labelledby', 'lib-tab-' + kind.kind);
    filter.placeholder = 'Filter ' + kind.label.toLowerCase();
    filterLabel.textContent = 'Filter ' + kind.label.toLowerCase();
    try { sessionStorage.setItem(LAST_KIND, kind.kind); } catch { /* storage off */ }
    // Keep the URL in step without remounting the screen (a hashchange would re-route).
    const hash = '#/library/' + kind.kind;
    if (location.hash !== hash) history.replaceState(history.state, '', hash);
    if (!changed) return;
    if (!initial) filter.value = '';
    load();
  }

  async function load() {
    const token = ++loadToken;
    const kind = current;
    items = [];
    count.textContent = '';
    render(body, h('p', { class: 'loading', role: 'status' }, 'Loading ' + kind.label.toLowerCase() + '\u2026'));
    try {
      const data = await api.get(kind.url);
      if (!alive || token !== loadToken) return;
      items = (data && Array.isArray(data[kind.key]) ? data[kind.key] : []);
      drawList();
    } catch (error) {
      if (!alive || token !== loadToken) return;
      render(body, h('div', { class: 'banner error', role: 'alert' },
        h('p', {}, 'Could not load ' + kind.label.toLowerCase() + ': ' + error.message),
        h('button', { type: 'button', class: 'btn', onclick: () => load() }, 'Try again')));
    }
  }

  function searchText(item) {
    return [item.name, item.id, item.path, item.description, item.preview, item.source,
      ...(item.tags || []), ...(item.hats || []), ...(item.triggers || []), ...(item.publishes || []), ...(item.sources || [])]
      .filter(Boolean).join(' ').toLowerCase();
  }

  function drawList() {
    const kind = current;
    const query = filter.value.trim().toLowerCase();
    const shown = query ? items.filter((item) => searchText(item).includes(query)) : items;
    const noun = kind.label.toLowerCase();
    count.textContent = query ? shown.length + ' of ' + items.length + ' ' + noun + ' shown' : items.length + ' ' + noun;
    if (!items.length) {
      render(body, h('div', { class: 'empty' }, h('p', {}, kind.empty)));
      return;
    }
    if (!shown.length) {
      render(body, h('div', { class: 'empty' },
        h('p', {}, 'No ' + noun + ' match \u201c' + filter.value.trim() + '\u201d.'),
        h('button', { type: 'button', class: 'btn', onclick: () => { filter.value = ''; drawList(); filter.focus(); } }, 'Clear the filter')));
      return;
    }
    render(body, h('ul', { class: 'list card lib-list', id: 'lib-list', 'aria-label': kind.label },
      shown.map((item) => h('li', {}, itemRow(kind.kind, item)))));
  }

  function itemRow(kind, item) {
    const attrs = { type: 'button', class: 'row-link lib-item', 'data-test': 'library-item', onclick: () => openItem(kind, item) };
    if (kind === 'hats' || kind === 'skills') attrs['data-name'] = kind === 'hats' ? item.id : item.name;
    else attrs['data-path'] = item.path;

    if (kind === 'hats') {
      return h('button', attrs,
        h('div', { class: 'row-main' },
          h('div', { class: 'lib-title-line' }, hatDot(item),
            item.emoji ? h('span', { class: 'lib-emoji', 'aria-hidden': 'true' }, item.emoji) : null,
            h('span', { class: 'row-title' }, item.name || item.id),
            item.id && item.id !== item.name ? h('span', { class: 'muted small mono' }, item.id) : null),
          item.description ? h('div', { class: 'lib-desc' }, item.description) : null,
          topics('Triggers', item.triggers),
          topics('Publishes', item.publishes)),
        chevron());
    }
    if (kind === 'skills') {
      return h('button', attrs,
        h('div', { class: 'row-main' },
          h('div', { class: 'lib-title-line' },
            h('span', { class: 'row-title' }, item.name),
            badge(item.source || 'file', 'lib-source'),
            item.auto_inject ? badge('auto', 'lib-source') : null),
          item.description ? h('div', { class: 'lib-desc' }, item.description) : null,
          chips('Tags', item.tags),
          hatChips(item.hats),
          item.path ? h('div', { class: 'row-sub mono' }, item.path) : null),
        chevron());
    }
    const isWorkspaceConfig = kind === 'configs' && !String(item.path || '').startsWith('presets/');
    const secondary = kind === 'prompts' ? item.preview : item.description;
    return h('button', attrs,
      h('div', { class: 'row-main' },
        h('div', { class: 'lib-title-line' },
          h('span', { class: 'row-title' }, item.name || item.path),
          kind === 'configs' ? badge(isWorkspaceConfig ? 'workspace' : 'preset', 'lib-source') : null),
        h('div', { class: 'row-sub mono' }, item.path),
        secondary ? h('div', { class: kind === 'prompts' ? 'lib-desc lib-preview mono' : 'lib-desc' }, secondary)
          : h('div', { class: 'lib-desc muted' }, kind === 'prompts' ? '(empty)' : 'No description (add a # comment as the first line).')),
      chevron());
  }

  // Content sheet -------------------------------------------------------------------------------------------------

  function openItem(kind, item) {
    if (sheet) sheet.close();
    const title = kind === 'hats' ? (item.name || item.id) : (item.name || item.path);
    const holder = h('div', { class: 'lib-content', 'data-test': 'library-content', 'data-kind': kind, 'aria-busy': 'true' },
      h('p', { class: 'loading', role: 'status' }, 'Loading\u2026'));
    sheet = openSheet({
      title,
      build: () => holder,
      onClose: () => { sheet = null; },
    });
    sheet.element.classList.add('lib-sheet');
    if (kind === 'hats') showHat(holder, item);
    else showFile(holder, kind, item);
  }

  async function showFile(holder, kind, item) {
    const done = (...children) => {
      holder.removeAttribute('aria-busy');
      render(holder, ...children);
    };
    try {
      if (kind === 'skills') {
        const name = seg(item.name);
        const [meta, loaded] = await Promise.all([api.get('/api/skills/' + name), api.post('/api/skills/' + name + '/load')]);
        done(skillMeta(meta || item), actions({ text: loaded.content, what: 'Skill' }),
          codeBlock(loaded.content, 'Content of skill ' + item.name));
        return;
      }
      const url = (kind === 'prompts' ? '/api/prompts/' : '/api/configs/') + encodePath(item.path);
      const file = await api.get(url);
      done(h('p', { class: 'row-sub mono lib-path' }, file.path || item.path, ' ', badge(file.content_type || (kind === 'prompts' ? 'markdown' : 'yaml'), 'lib-source')),
        actions({ text: file.content, what: kind === 'prompts' ? 'Prompt' : 'Config', start: { kind, path: file.path || item.path } }),
        codeBlock(file.content, 'Content of ' + (file.path || item.path)));
    } catch (error) {
      const gone = error.status === 404;
      done(h('div', { class: 'banner error', role: 'alert' },
        h('p', {}, error.message),
        gone ? h('p', { class: 'muted small' }, 'It may have been renamed or deleted since the list was loaded.') : null),
      h('div', { class: 'btn-row' },
        h('button', { type: 'button', class: 'btn', onclick: () => { holder.setAttribute('aria-busy', 'true'); render(holder, h('p', { class: 'loading', role: 'status' }, 'Loading\u2026')); showFile(holder, kind, item); } }, 'Try again'),
        gone ? h('button', { type: 'button', class: 'btn ghost', onclick: () => { if (sheet) sheet.close(); filter.focus(); load(); } }, 'Reload the list') : null));
    }
  }

  function showHat(holder, hat) {
    holder.removeAttribute('aria-busy');
    const sources = (hat.sources || []).map((path) => h('li', {},
      h('button', { type: 'button', class: 'btn ghost lib-source-btn', onclick: () => showSource(holder, hat, path),
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
      actions({ text: snippet, what: 'Hat' }),
      codeBlock(snippet, 'Definition of hat ' + hat.id));
  }

  async function showSource(holder, hat, path) {
    holder.setAttribute('aria-busy', 'true');
    render(holder, h('p', { class: 'loading', role: 'status' }, 'Loading ' + path + '\u2026'));
    const back = () => h('button', { type: 'button', class: 'btn ghost', onclick: () => showHat(holder, hat) }, '\u2190 Back to ' + (hat.name || hat.id));
    try {
      const file = await api.get('/api/configs/' + encodePath(path));
      holder.removeAttribute('aria-busy');
      render(holder, back(), h('p', { class: 'row-sub mono lib-path' }, file.path),
        actions({ text: file.content, what: 'Config', start: { kind: 'configs', path: file.path } }),
        codeBlock(file.content, 'Content of ' + file.path));
    } catch (error) {
      holder.removeAttribute('aria-busy');
      render(holder, back(), h('div', { class: 'banner error', role: 'alert' }, error.message));
    }
  }

  function actions({ text, what, start }) {
    const row = h('div', { class: 'btn-row lib-actions' },
      h('button', { type: 'button', class: 'btn', 'data-test': 'copy', onclick: () => copyText(text, what + ' copied') }, 'Copy'));
    if (start && app.can('admin')) {
      const storageKey = start.kind === 'prompts' ? 'ralph.new.prompt' : 'ralph.new.config';
      row.append(h('a', { href: '#/new', class: 'btn primary', 'data-test': 'start-with',
        onclick: () => {
          try { sessionStorage.setItem(storageKey, start.path); } catch { /* the wizard starts empty */ }
          if (sheet) sheet.close();
        } }, 'Start a run with this'));
    }
    return row;
  }

  return () => {
    alive = false;
    if (sheet) sheet.close();
  };
}

function codeBlock(text, label) {
  return h('pre', { class: 'lib-code', role: 'region', 'aria-label': label }, h('code', {}, text || ''));
}

function chevron() {
  return h('span', { class: 'lib-chevron', 'aria-hidden': 'true' }, '\u203a');
}

function hatDot(hat) {
  // Known hats take the theme's (contrast-checked) color; other hats the server's.
  const cls = hatClass(hat.id || hat.name);
  const dot = h('span', { class: 'hat lib-dot ' + cls, 'aria-hidden': 'true' });
  if (cls === 'hat-other' && hat.color && /^#[0-9a-fA-F]{3,8}$/.test(hat.color)) dot.style.setProperty('--hat-color', hat.color);
  return dot;
}

function topics(label, list) {
  if (!list || !list.length) return null;
  return h('div', { class: 'lib-chips' }, h('span', { class: 'lib-chip-label' }, label + ':'),
    list.map((topic) => h('code', { class: 'lib-chip' }, topic)));
}

function chips(label, list) {
  if (!list || !list.length) return null;
  return h('div', { class: 'lib-chips' }, h('span', { class: 'lib-chip-label' }, label + ':'),
    list.map((tag) => h('span', { class: 'lib-chip' }, tag)));
}

function hatChips(list) {
  if (!list || !list.length) return null;
  return h('div', { class: 'lib-chips' }, h('span', { class: 'lib-chip-label' }, 'Hats:'), list.map((hat) => hatBadge(hat)));
}

function topicList(list) {
  if (!list || !list.length) return h('span', { class: 'muted' }, 'none');
  return h('span', { class: 'lib-chips' }, list.map((topic) => h('code', { class: 'lib-chip' }, topic)));
}

function skillMeta(skill) {
  const rows = [
    ['Description', skill.description || '\u2014'],
    ['Source', skill.source === 'built-in' ? 'built into ralph' : 'file'],
    skill.path ? ['File', h('span', { class: 'mono' }, skill.path)] : null,
    ['Tags', skill.tags && skill.tags.length ? skill.tags.join(', ') : 'none'],
    ['Hats', skill.hats && skill.hats.length ? h('span', { class: 'lib-chips' }, skill.hats.map((hat) => hatBadge(hat))) : 'all hats'],
    skill.backends && skill.backends.length ? ['Backends', skill.backends.join(', ')] : null,
    ['Auto-inject', skill.auto_inject ? 'yes' : 'no'],
  ].filter(Boolean);
  return h('dl', { class: 'kv lib-kv' }, rows.map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]));
}

/// A YAML snippet of the hat as ralph.yml would declare it (for copying into a config).
function hatSnippet(hat) {
  const quote = (s) => (/^[\w .,\-/()]+$/.test(s) && !/^[\s-]/.test(s) ? s : JSON.stringify(s));
  const list = (xs) => '[' + (xs || []).map(quote).join(', ') + ']';
  return [
    'hats:',
    '  ' + hat.id + ':',
    '    name: ' + quote(hat.name || hat.id),
    '    description: ' + quote(hat.description || ''),
    '    triggers: ' + list(hat.triggers),
    '    publishes: ' + list(hat.publishes),
    '',
  ].join('\n');
}
