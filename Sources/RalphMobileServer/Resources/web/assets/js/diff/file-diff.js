// @ts-check
// The diffs of file edits as values: a unified diff text (`--- a/x` / `+++ b/x`, `@@ -l,n +l,n @@` hunks, lines
// starting with ` `, `-`, `+`, and `\ No newline at end of file`) parsed into hunks of lines with their old and new
// line numbers, and the words that sum a FileDiff up (its path, what happens to the file, `+3 −1`, why there is no
// diff, how much was left out). The server makes the diffs (Sources/RalphAPI/Chat/FileDiff.swift); the diff view
// (../components/diff-view.js) draws them. Pure: no DOM.

/**
 * @typedef {object} FileDiff What a file edit does (or did) to one file, as the server sends it.
 * @property {string} path The file as the tool named it (absolute, or relative to the conversation's directory).
 * @property {string} [move_path] Where a move puts the file.
 * @property {string} kind update, add, delete, move (an open set).
 * @property {string} diff The unified diff text; empty when `error` is set or nothing changes.
 * @property {number} added Lines added, over the whole diff.
 * @property {number} removed Lines removed, over the whole diff.
 * @property {boolean} binary Not text: `diff` is the one line `Binary file <path> changed`.
 * @property {boolean} truncated `diff` holds only the first part.
 * @property {number} [omitted_lines] Diff lines left out when truncated.
 * @property {string} [note] Something to know about the diff shown.
 * @property {string} [error] Why there is no diff.
 */

/**
 * @typedef {object} DiffLine One line of a hunk.
 * @property {'context' | 'add' | 'del' | 'nonewline'} kind nonewline: `\ No newline at end of file` (of the line before).
 * @property {string} text The line without its prefix.
 * @property {number | null} oldLine Its number in the file before (null for an added line).
 * @property {number | null} newLine Its number in the file after (null for a removed line).
 */

/**
 * @typedef {object} Hunk
 * @property {string} header The `@@ … @@` line as it is.
 * @property {number} oldStart
 * @property {number} oldCount
 * @property {number} newStart
 * @property {number} newCount
 * @property {string} section What follows the second `@@` (a function name some tools add), trimmed.
 * @property {DiffLine[]} lines
 */

/**
 * @typedef {object} ParsedDiff
 * @property {string | null} oldLabel The `---` header without it (`a/x`, `/dev/null`), or null.
 * @property {string | null} newLabel The `+++` header without it, or null.
 * @property {Hunk[]} hunks
 * @property {string[]} other Lines outside any hunk and not a header (e.g. `Binary file x changed`).
 */

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$/;

/// Parses a unified diff text. Line numbers count on from each hunk's start whatever its counts say, so a diff cut
/// short (truncated) still numbers the lines it has; a line of an unknown shape inside a hunk is taken as context.
/** @param {string | null | undefined} text @returns {ParsedDiff} */
export function parseUnifiedDiff(text) {
  /** @type {ParsedDiff} */
  const parsed = { oldLabel: null, newLabel: null, hunks: [], other: [] };
  const lines = String(text || '').split('\n');
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  /** @type {Hunk | null} */
  let hunk = null;
  let oldLine = 0;
  let newLine = 0;
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i].endsWith('\r') ? lines[i].slice(0, -1) : lines[i];
    const header = HUNK.exec(line);
    if (header) {
      const [, oldStart, oldCount, newStart, newCount, section] = header;
      hunk = {
        header: line, oldStart: Number(oldStart), oldCount: oldCount === undefined ? 1 : Number(oldCount),
        newStart: Number(newStart), newCount: newCount === undefined ? 1 : Number(newCount), section: section.trim(), lines: [],
      };
      parsed.hunks.push(hunk);
      oldLine = hunk.oldStart;
      newLine = hunk.newStart;
      continue;
    }
    if (!hunk && line.startsWith('--- ') && parsed.oldLabel === null && lines[i + 1] !== undefined && lines[i + 1].startsWith('+++ ')) {
      parsed.oldLabel = line.slice(4);
      parsed.newLabel = lines[i + 1].slice(4).replace(/\r$/, '');
      i += 1;
      continue;
    }
    if (!hunk) {
      parsed.other.push(line);
      continue;
    }
    const sign = line[0];
    if (sign === '+') {
      hunk.lines.push({ kind: 'add', text: line.slice(1), oldLine: null, newLine });
      newLine += 1;
    } else if (sign === '-') {
      hunk.lines.push({ kind: 'del', text: line.slice(1), oldLine, newLine: null });
      oldLine += 1;
    } else if (sign === '\\') {
      hunk.lines.push({ kind: 'nonewline', text: line.slice(1).trim(), oldLine: null, newLine: null });
    } else {
      // ' ' context, or an empty line some tools write for an empty context line.
      hunk.lines.push({ kind: 'context', text: sign === ' ' ? line.slice(1) : line, oldLine, newLine });
      oldLine += 1;
      newLine += 1;
    }
  }
  return parsed;
}

/// The FileDiffs among `value` (an array from the server), ignoring anything that is not one.
/** @param {unknown} value @returns {FileDiff[]} */
export function fileDiffs(value) {
  if (!Array.isArray(value)) return [];
  return value.filter((d) => d && typeof d === 'object' && typeof d.path === 'string');
}

/// The path a header names (`a/x` → `x`); the server writes a path outside the conversation's directory absolute
/// without its leading `/`, which is put back when the tool named that path.
/** @param {string | null} label @param {Array<string | undefined>} named the paths the tool named */
function labelPath(label, named) {
  if (!label || label === '/dev/null') return null;
  const path = label.replace(/^[ab]\//, '').replace(/\t.*$/, '');
  return named.includes('/' + path) ? '/' + path : path;
}

/// The path to show: as the diff's headers name it (relative to the conversation's directory when inside it), else
/// the path the tool named; a move shows both, `old → new`.
/** @param {FileDiff} d @param {ParsedDiff} [parsed] */
export function displayPath(d, parsed = parseUnifiedDiff(d.diff)) {
  const binary = parsed.other.map((line) => /^Binary file (.+) changed$/.exec(line)).find(Boolean);
  const named = [d.path, d.move_path];
  const before = labelPath(parsed.oldLabel, named) || (binary && d.kind !== 'move' ? labelPath(binary[1], named) : d.path);
  const after = labelPath(parsed.newLabel, named) || (binary ? labelPath(binary[1], named) : d.move_path || d.path);
  if (d.kind === 'move' && before !== after) return before + ' \u2192 ' + after;
  return d.kind === 'delete' ? before : after;
}

/// The file's name alone (the last part of its path), for the tightest places.
/** @param {string} path */
export function baseName(path) {
  const parts = String(path).split(/[\\/]/).filter(Boolean);
  return parts.length ? parts[parts.length - 1] : String(path);
}

/** @type {Record<string, string>} */
const KIND_WORDS = { update: 'modified', add: 'new file', delete: 'deleted', move: 'moved' };

/// What happens to the file, in words: modified, new file, deleted, moved (or the kind as it is, for a new one).
/** @param {string | undefined} kind */
export function kindWords(kind) {
  return KIND_WORDS[String(kind)] || String(kind || 'changed');
}

/// `+3 −1` (a real minus sign), the counts of the whole diff.
/** @param {{added?: number, removed?: number}} d */
export function countsText(d) {
  return '+' + (Number(d.added) || 0) + ' \u2212' + (Number(d.removed) || 0);
}

/// The counts as a screen reader hears them: "3 lines added, 1 removed".
/** @param {{added?: number, removed?: number}} d */
export function countsWords(d) {
  const added = Number(d.added) || 0;
  const removed = Number(d.removed) || 0;
  return added + (added === 1 ? ' line' : ' lines') + ' added, ' + removed + ' removed';
}

/// A number with thin spaces between thousands, as the rest of the page writes them.
/** @param {number} n */
const grouped = (n) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, '\u2009');

/// What is said instead of (or besides) the lines: why there is no diff, that the file is binary, that nothing
/// changes, or that an added file is empty. Null when the lines say it all.
/** @param {FileDiff} d @param {ParsedDiff} [parsed] @returns {{kind: 'error' | 'binary' | 'empty', text: string} | null} */
export function diffMessage(d, parsed = parseUnifiedDiff(d.diff)) {
  if (d.error) return { kind: 'error', text: 'No diff: ' + d.error + '.' };
  if (d.binary) return { kind: 'binary', text: 'Binary file: its content is not shown.' };
  if (parsed.hunks.length) return null;
  if (d.kind === 'add') return { kind: 'empty', text: 'A new, empty file.' };
  if (d.kind === 'delete') return { kind: 'empty', text: 'An empty file is deleted.' };
  if (d.kind === 'move') return { kind: 'empty', text: 'Moved without changes.' };
  return { kind: 'empty', text: 'No change to its content.' };
}

/// How much of a cut diff is left out, or null when it is whole.
/** @param {FileDiff} d */
export function truncatedWords(d) {
  if (!d.truncated) return null;
  const n = Number(d.omitted_lines) || 0;
  return n > 0
    ? 'The diff is too long to show whole: ' + grouped(n) + (n === 1 ? ' more line is' : ' more lines are') + ' left out.'
    : 'The diff is too long to show whole: the rest is left out.';
}

/// Several files in one line: "notes.txt +1 −1", "3 files +12 −4".
/** @param {FileDiff[]} diffs */
export function diffsSummary(diffs) {
  if (!diffs.length) return '';
  const added = diffs.reduce((sum, d) => sum + (Number(d.added) || 0), 0);
  const removed = diffs.reduce((sum, d) => sum + (Number(d.removed) || 0), 0);
  const failed = diffs.filter((d) => d.error).length;
  const what = diffs.length === 1 ? displayPath(diffs[0]) : diffs.length + ' files';
  return what + ' ' + countsText({ added, removed }) + (failed ? ' (' + failed + ' without a diff)' : '');
}

/// How many lines a diff view draws for these diffs (the hunk headers and lines), to decide whether to open it.
/** @param {FileDiff[]} diffs */
export function shownLineCount(diffs) {
  let n = 0;
  for (const d of diffs) for (const hunk of parseUnifiedDiff(d.diff).hunks) n += 1 + hunk.lines.length;
  return n;
}
