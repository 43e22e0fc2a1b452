// Diffs of file edits (diff/file-diff.js): the unified text the server sends parsed into hunks of lines with their old
// and new line numbers, and the words of a FileDiff (path, kind, counts, why no diff, what was left out).
import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  parseUnifiedDiff, fileDiffs, displayPath, baseName, kindWords, countsText, countsWords, diffMessage, truncatedWords,
  diffsSummary, shownLineCount,
} from '../../Sources/RalphMobileServer/Resources/web/assets/js/diff/file-diff.js';

/** A FileDiff as the server sends one. */
const fileDiff = (fields) => ({ path: '/ws/notes.txt', kind: 'update', diff: '', added: 0, removed: 0, binary: false, truncated: false, ...fields });

/** [kind, old, new, text] of every line of every hunk. */
const rows = (parsed) => parsed.hunks.flatMap((h) => h.lines.map((l) => [l.kind, l.oldLine, l.newLine, l.text]));

test('an update: headers, the hunk and each line numbered on its side', () => {
  const parsed = parseUnifiedDiff('--- a/notes.txt\n+++ b/notes.txt\n@@ -1,3 +1,3 @@\n alpha\n-beta\n+BETA\n gamma\n');
  assert.equal(parsed.oldLabel, 'a/notes.txt');
  assert.equal(parsed.newLabel, 'b/notes.txt');
  assert.equal(parsed.hunks.length, 1);
  assert.deepEqual([parsed.hunks[0].oldStart, parsed.hunks[0].oldCount, parsed.hunks[0].newStart, parsed.hunks[0].newCount], [1, 3, 1, 3]);
  assert.deepEqual(rows(parsed), [
    ['context', 1, 1, 'alpha'],
    ['del', 2, null, 'beta'],
    ['add', null, 2, 'BETA'],
    ['context', 3, 3, 'gamma'],
  ]);
  assert.deepEqual(parsed.other, []);
});

test('several hunks each count from their own start; a section name after @@ is kept', () => {
  const text = [
    '--- a/app.js', '+++ b/app.js',
    '@@ -10,3 +10,4 @@ function main() {', ' a', '+b', ' c', ' d',
    '@@ -40,2 +41,1 @@', '-x', ' y', '',
  ].join('\n');
  const parsed = parseUnifiedDiff(text);
  assert.equal(parsed.hunks.length, 2);
  assert.equal(parsed.hunks[0].section, 'function main() {');
  assert.deepEqual(rows(parsed), [
    ['context', 10, 10, 'a'], ['add', null, 11, 'b'], ['context', 11, 12, 'c'], ['context', 12, 13, 'd'],
    ['del', 40, null, 'x'], ['context', 41, 41, 'y'],
  ]);
});

test('an added file, counts left out of a header (one line), and the missing newline marker', () => {
  const parsed = parseUnifiedDiff('--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+only line\n\\ No newline at end of file\n');
  assert.equal(parsed.oldLabel, '/dev/null');
  assert.deepEqual([parsed.hunks[0].oldCount, parsed.hunks[0].newCount], [0, 1]);
  assert.deepEqual(rows(parsed), [['add', null, 1, 'only line'], ['nonewline', null, null, 'No newline at end of file']]);
});

test('a diff cut short still numbers the lines it has; a line that looks like a header inside a hunk is a line', () => {
  const parsed = parseUnifiedDiff('--- a/x\n+++ b/x\n@@ -1,100 +1,100 @@\n-old\n+new\n--- not a header\n+++ neither\n');
  assert.deepEqual(rows(parsed), [['del', 1, null, 'old'], ['add', null, 1, 'new'], ['del', 2, null, '-- not a header'], ['add', null, 2, '++ neither']]);
});

test('an empty line inside a hunk is an empty context line; CRLF endings are dropped; empty text has nothing', () => {
  assert.deepEqual(rows(parseUnifiedDiff('@@ -1,3 +1,3 @@\r\n a\r\n\r\n b\r\n')), [['context', 1, 1, 'a'], ['context', 2, 2, ''], ['context', 3, 3, 'b']]);
  assert.deepEqual(parseUnifiedDiff(''), { oldLabel: null, newLabel: null, hunks: [], other: [] });
  assert.deepEqual(parseUnifiedDiff(undefined).hunks, []);
  assert.deepEqual(parseUnifiedDiff('Binary file img.png changed\n').other, ['Binary file img.png changed']);
});

test('the path shown: from the headers (relative), the tool\'s path otherwise; a move shows both', () => {
  const update = fileDiff({ diff: '--- a/src/notes.txt\n+++ b/src/notes.txt\n@@ -1 +1 @@\n-a\n+b\n' });
  assert.equal(displayPath(update), 'src/notes.txt');
  assert.equal(displayPath(fileDiff({ kind: 'add', diff: '--- /dev/null\n+++ b/new.txt\n' })), 'new.txt');
  assert.equal(displayPath(fileDiff({ kind: 'delete', diff: '--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n' })), 'old.txt');
  assert.equal(displayPath(fileDiff({ kind: 'move', move_path: '/ws/b.txt', diff: '--- a/a.txt\n+++ b/b.txt\n' })), 'a.txt \u2192 b.txt');
  assert.equal(displayPath(fileDiff({ binary: true, diff: 'Binary file img/logo.png changed\n' })), 'img/logo.png');
  assert.equal(displayPath(fileDiff({ path: '/etc/passwd', error: "'/etc/passwd' is outside the workspace roots" })), '/etc/passwd');
  // Outside the conversation's directory the headers hold the absolute path without its leading slash.
  assert.equal(displayPath(fileDiff({ path: '/srv/other/x.txt', diff: '--- a/srv/other/x.txt\n+++ b/srv/other/x.txt\n' })), '/srv/other/x.txt');
  assert.equal(displayPath(fileDiff({ path: '/srv/logo.png', binary: true, diff: 'Binary file srv/logo.png changed\n' })), '/srv/logo.png');
  assert.equal(baseName('/ws/src/notes.txt'), 'notes.txt');
  assert.equal(baseName('notes.txt'), 'notes.txt');
});

test('kind, counts and the summary of several files', () => {
  assert.deepEqual(['update', 'add', 'delete', 'move', 'copy'].map(kindWords), ['modified', 'new file', 'deleted', 'moved', 'copy']);
  assert.equal(countsText({ added: 3, removed: 1 }), '+3 \u22121');
  assert.equal(countsWords({ added: 1, removed: 0 }), '1 line added, 0 removed');
  assert.equal(countsWords({ added: 2, removed: 5 }), '2 lines added, 5 removed');
  const one = fileDiff({ added: 1, removed: 1, diff: '--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\n-a\n+b\n' });
  assert.equal(diffsSummary([one]), 'notes.txt +1 \u22121');
  assert.equal(diffsSummary([one, fileDiff({ added: 4, error: 'x' })]), '2 files +5 \u22121 (1 without a diff)');
  assert.equal(diffsSummary([]), '');
  assert.equal(shownLineCount([one, one]), 6);
});

test('what is said instead of lines: the error, binary, nothing changes, an empty new file', () => {
  const outside = fileDiff({ path: '/etc/passwd', error: "'/etc/passwd' is outside the workspace roots" });
  assert.deepEqual(diffMessage(outside), { kind: 'error', text: "No diff: '/etc/passwd' is outside the workspace roots." });
  assert.equal(diffMessage(fileDiff({ binary: true, diff: 'Binary file a.bin changed\n' })).kind, 'binary');
  assert.equal(diffMessage(fileDiff({ kind: 'add', diff: '--- /dev/null\n+++ b/e.txt\n' })).text, 'A new, empty file.');
  assert.equal(diffMessage(fileDiff({ kind: 'move', diff: '--- a/a\n+++ b/b\n' })).text, 'Moved without changes.');
  assert.equal(diffMessage(fileDiff({})).text, 'No change to its content.');
  assert.equal(diffMessage(fileDiff({ diff: '@@ -1 +1 @@\n-a\n+b\n' })), null);
});

test('a truncated diff says how many lines were left out', () => {
  assert.equal(truncatedWords(fileDiff({})), null);
  assert.equal(truncatedWords(fileDiff({ truncated: true, omitted_lines: 1234 })), 'The diff is too long to show whole: 1\u2009234 more lines are left out.');
  assert.equal(truncatedWords(fileDiff({ truncated: true, omitted_lines: 1 })), 'The diff is too long to show whole: 1 more line is left out.');
  assert.equal(truncatedWords(fileDiff({ truncated: true })), 'The diff is too long to show whole: the rest is left out.');
});

test('only FileDiff objects are taken from what the server sent', () => {
  assert.deepEqual(fileDiffs(undefined), []);
  assert.deepEqual(fileDiffs({ path: 'x' }), []);
  assert.deepEqual(fileDiffs([null, 3, { path: 'a', kind: 'add' }, { kind: 'add' }]), [{ path: 'a', kind: 'add' }]);
});

test('a file edit in one line names its files as the diffs do; another call as toolSummary says', async () => {
  const { callSummary } = await import('../../Sources/RalphMobileServer/Resources/web/assets/js/words/approval.js');
  const patch = { tool_name: 'apply_patch', input: { paths: ['/ws/a.txt', '/ws/b.txt'] }, diffs: [
    fileDiff({ path: '/ws/a.txt', kind: 'add', diff: '--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+x\n' }),
    fileDiff({ path: '/ws/b.txt', diff: '--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-x\n+y\n' }),
  ] };
  assert.equal(callSummary(patch, displayPath), 'a.txt, b.txt');
  assert.equal(callSummary({ ...patch, diffs: undefined }, displayPath), '/ws/a.txt, /ws/b.txt');
  assert.equal(callSummary({ tool_name: 'Bash', input: { command: 'ls -la' } }, displayPath), 'ls -la');
});
