// @ts-check
// The diff view: what a file edit changes (or changed), one block per file — what happens to it, its path, `+3 −1`,
// then its hunks with old and new line numbers, added lines green and removed ones red (a sign and a word for screen
// readers, not the colour alone). A binary file, a diff that could not be made and a diff cut short say so in words.
// Long lines scroll sideways inside the diff, never the page. Used by the approval sheet, the approvals inbox (folded)
// and the tool calls of the transcript. The parsing and the words are in ../diff/file-diff.js.

import { h } from '../ui.js';
import {
  parseUnifiedDiff, displayPath, kindWords, countsText, countsWords, diffMessage, truncatedWords, diffsSummary, shownLineCount,
} from '../diff/file-diff.js';

/** @typedef {import('../diff/file-diff.js').FileDiff} FileDiff */
/** @typedef {import('../diff/file-diff.js').Hunk} Hunk */
/** @typedef {import('../diff/file-diff.js').DiffLine} DiffLine */

/** @type {Record<string, [string, string]>} line kind → [sign, words for a screen reader] */
const SIGNS = { add: ['+', 'added: '], del: ['\u2212', 'removed: '], context: ['', ''], nonewline: ['\\', ''] };

/// The `+3 −1` of a file or of several, coloured, with words for a screen reader.
/** @param {{added?: number, removed?: number}} d */
export function diffCounts(d) {
  const [added, removed] = countsText(d).split(' ');
  return h('span', { class: 'diff-counts', 'data-test': 'diff-counts' },
    h('span', { class: 'sr-only' }, countsWords(d)),
    h('span', { class: 'diff-added', 'aria-hidden': 'true' }, added), ' ',
    h('span', { class: 'diff-removed', 'aria-hidden': 'true' }, removed));
}

/** @param {DiffLine} line */
function lineRow(line) {
  const [sign, words] = SIGNS[line.kind];
  if (line.kind === 'nonewline') {
    return h('tr', { class: 'diff-line diff-nonewline', 'data-kind': 'nonewline' },
      h('td', { class: 'diff-ln diff-ln-old' }), h('td', { class: 'diff-ln diff-ln-new' }),
      h('td', { class: 'diff-code' }, h('span', { class: 'diff-sign', 'aria-hidden': 'true' }, sign), line.text));
  }
  return h('tr', { class: 'diff-line diff-' + line.kind, 'data-kind': line.kind },
    h('td', { class: 'diff-ln diff-ln-old' }, line.oldLine === null ? '' : String(line.oldLine)),
    h('td', { class: 'diff-ln diff-ln-new' }, line.newLine === null ? '' : String(line.newLine)),
    h('td', { class: 'diff-code' },
      h('span', { class: 'diff-sign', 'aria-hidden': 'true' }, sign),
      words ? h('span', { class: 'sr-only' }, words) : null,
      line.text));
}

/** @param {Hunk} hunk */
function hunkRows(hunk) {
  return [
    h('tr', { class: 'diff-hunk-head', 'data-kind': 'hunk' },
      h('td', { class: 'diff-ln diff-ln-old' }), h('td', { class: 'diff-ln diff-ln-new' }),
      h('td', { class: 'diff-code' }, hunk.header)),
    ...hunk.lines.map(lineRow),
  ];
}

/// The lines of one file: a table inside a box that scrolls sideways (and down, past `max-height`).
/** @param {Hunk[]} hunks @param {string} path */
function linesTable(hunks, path) {
  let widest = 1;
  let hasOld = false;
  let hasNew = false;
  for (const hunk of hunks) {
    for (const line of hunk.lines) {
      widest = Math.max(widest, String(line.oldLine ?? '').length, String(line.newLine ?? '').length);
      hasOld ||= line.oldLine !== null;
      hasNew ||= line.newLine !== null;
    }
  }
  // A new file has only new line numbers, a deleted one only old ones: the empty column is left out.
  const table = h('table', { class: 'diff-table' + (hasOld ? '' : ' no-old') + (hasNew || !hasOld ? '' : ' no-new') },
    h('tbody', {}, hunks.flatMap(hunkRows)));
  table.style.setProperty('--diff-ln-chars', String(widest));
  return h('div', { class: 'diff-scroll', tabindex: '0', role: 'region', 'aria-label': 'Changed lines of ' + path }, table);
}

/// One file: a disclosure whose summary says what happens to it (kind, path, counts), open or not.
/** @param {FileDiff} d @param {{open?: boolean}} [options] */
export function fileDiffView(d, { open = true } = {}) {
  const parsed = parseUnifiedDiff(d.diff);
  const path = displayPath(d, parsed);
  const message = diffMessage(d, parsed);
  const cut = truncatedWords(d);
  const details = h('details', {
    class: 'diff-file', 'data-test': 'diff-file', 'data-kind': d.kind, 'data-path': path, open,
    'data-error': d.error ? 'true' : null, 'data-binary': d.binary ? 'true' : null, 'data-truncated': d.truncated ? 'true' : null,
  },
  h('summary', { class: 'diff-file-head' },
    h('span', { class: 'badge diff-kind diff-kind-' + d.kind, 'data-test': 'diff-kind' }, kindWords(d.kind)),
    h('code', { class: 'diff-path', 'data-test': 'diff-path', title: d.move_path ? d.path + ' \u2192 ' + d.move_path : d.path }, path),
    d.error || d.binary ? null : diffCounts(d)),
  d.note ? h('p', { class: 'diff-note small muted', 'data-test': 'diff-note' }, d.note) : null,
  message ? h('p', { class: 'diff-message diff-message-' + message.kind, 'data-test': 'diff-message' }, message.text) : null,
  parsed.hunks.length ? linesTable(parsed.hunks, path) : null,
  cut ? h('p', { class: 'diff-truncated small', 'data-test': 'diff-truncated' }, cut) : null);
  return details;
}

/// Several files, each a disclosure; `openLines`: files are open while the lines drawn so far stay under it (the
/// first file is always open), so a large patch starts as a list of files to open one by one.
/** @param {FileDiff[]} diffs @param {{openLines?: number, label?: string}} [options] */
export function diffList(diffs, { openLines = Infinity, label = 'Changes' } = {}) {
  let drawn = 0;
  return h('div', { class: 'diff-list', 'data-test': 'diffs', role: 'group', 'aria-label': label },
    diffs.map((d, index) => {
      const lines = shownLineCount([d]);
      const open = index === 0 || drawn + lines <= openLines;
      drawn += lines;
      return fileDiffView(d, { open });
    }));
}

/// The diffs folded into one line ("Diff: notes.txt +1 −1"), opened on demand: for lists, where there is no room.
/** @param {FileDiff[]} diffs */
export function diffFold(diffs) {
  return h('details', { class: 'diff-fold', 'data-test': 'diff-fold' },
    h('summary', {}, h('span', { class: 'diff-fold-label' }, 'Diff'), ' ', h('span', { class: 'mono diff-fold-sum' }, diffsSummary(diffs))),
    diffList(diffs, { openLines: 200 }));
}
