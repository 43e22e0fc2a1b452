// @ts-check
// The library's list rows (configs, prompts, presets, hats, skills) and the small parts its rows and content sheet
// share: code blocks, topic and tag chips, a hat's color dot, a skill's facts, a hat's YAML.

import { h, hatBadge, badge } from '../ui.js';
import { hatClass } from '../format.js';

/** @param {any} item */
export function searchText(item) {
  return [item.name, item.id, item.path, item.description, item.preview, item.source,
    ...(item.tags || []), ...(item.hats || []), ...(item.triggers || []), ...(item.publishes || []), ...(item.sources || [])]
    .filter(Boolean).join(' ').toLowerCase();
}


/** @param {string} kind @param {any} item @param {() => void} onOpen */
export function itemRow(kind, item, onOpen) {
  const attrs = { type: 'button', class: 'row-link lib-item', 'data-test': 'library-item', onclick: onOpen };
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

export function codeBlock(text, label) {
  return h('pre', { class: 'lib-code', role: 'region', 'aria-label': label }, h('code', {}, text || ''));
}

export function chevron() {
  return h('span', { class: 'lib-chevron', 'aria-hidden': 'true' }, '\u203a');
}

export function hatDot(hat) {
  // Known hats take the theme's (contrast-checked) color; other hats the server's.
  const cls = hatClass(hat.id || hat.name);
  const dot = h('span', { class: 'hat lib-dot ' + cls, 'aria-hidden': 'true' });
  if (cls === 'hat-other' && hat.color && /^#[0-9a-fA-F]{3,8}$/.test(hat.color)) dot.style.setProperty('--hat-color', hat.color);
  return dot;
}

export function topics(label, list) {
  if (!list || !list.length) return null;
  return h('div', { class: 'lib-chips' }, h('span', { class: 'lib-chip-label' }, label + ':'),
    list.map((topic) => h('code', { class: 'lib-chip' }, topic)));
}

export function chips(label, list) {
  if (!list || !list.length) return null;
  return h('div', { class: 'lib-chips' }, h('span', { class: 'lib-chip-label' }, label + ':'),
    list.map((tag) => h('span', { class: 'lib-chip' }, tag)));
}

export function hatChips(list) {
  if (!list || !list.length) return null;
  return h('div', { class: 'lib-chips' }, h('span', { class: 'lib-chip-label' }, 'Hats:'), list.map((hat) => hatBadge(hat)));
}

export function topicList(list) {
  if (!list || !list.length) return h('span', { class: 'muted' }, 'none');
  return h('span', { class: 'lib-chips' }, list.map((topic) => h('code', { class: 'lib-chip' }, topic)));
}

export function skillMeta(skill) {
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
export function hatSnippet(hat) {
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
