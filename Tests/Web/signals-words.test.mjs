// Words for ralph 2.9–2.10's signals in the session detail (words/signals.js): guidance pending → acknowledged,
// agent waves, the wave badge of an event, the RObot check-in.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { guidanceRow, guidanceSummary, waveTitle, waveBadge, checkinLine } from '../../Sources/RalphMobileServer/Resources/web/assets/js/words/signals.js';

test('guidance rows say pending or acknowledged, with ralph\'s words once acknowledged', () => {
  assert.deepEqual(guidanceRow({ text: 'use retries', event_id: 3, state: 'pending' }),
    { text: 'use retries', state: 'pending', label: 'Pending: ralph has not acknowledged it yet', ack: '' });
  assert.deepEqual(guidanceRow({ text: 'use retries', event_id: 3, state: 'acknowledged', ack: 'Will follow: use retries' }),
    { text: 'use retries', state: 'acknowledged', label: 'Acknowledged', ack: 'Will follow: use retries' });
  assert.equal(guidanceRow({ text: 'x', event_id: 1, state: 'withdrawn' }).state, 'other');
});

test('the guidance summary counts what waits and says the loop will not complete meanwhile', () => {
  assert.equal(guidanceSummary([]), 'No guidance sent to this run.');
  assert.equal(guidanceSummary(undefined), 'No guidance sent to this run.');
  assert.equal(guidanceSummary([{ text: 'a', event_id: 1, state: 'acknowledged' }]), 'The guidance was acknowledged.');
  assert.match(guidanceSummary([{ text: 'a', event_id: 1, state: 'pending' }, { text: 'b', event_id: 2, state: 'acknowledged' }]),
    /^1 guidance message waits .*does not complete/);
});

test('a wave reads "2 of 3 workers", its events "wave 2/3"', () => {
  const wave = { id: 'w-0a1b2c3d', total: 3, done: 2, events: 2, first_event_id: 5, last_event_id: 6 };
  assert.equal(waveTitle(wave), 'Wave w-0a1b2c3d: 2 of 3 workers so far');
  assert.equal(waveTitle({ ...wave, done: 3 }), 'Wave w-0a1b2c3d: 3 of 3 workers done');
  assert.equal(waveTitle({ ...wave, id: 'w-0123456789abcdef', total: 0, done: 1 }), 'Wave w-01234567…: 1 worker');
  assert.equal(waveBadge({ topic: 'review.file', wave_id: 'w-1', wave_index: 1, wave_total: 3 }), 'wave 2/3');
  assert.equal(waveBadge({ topic: 'review.file', wave_id: 'w-1' }), 'wave ?');
  assert.equal(waveBadge({ topic: 'build.done' }), null);
});

test('the check-in is one line, or nothing', () => {
  assert.equal(checkinLine(null), null);
  assert.equal(checkinLine({ iteration: 7, current_hat: 'builder', elapsed_seconds: 840, open_tasks: 2, closed_tasks: 5, cumulative_cost: 1.42 }),
    'RObot check-in: iteration 7 · hat builder · 840 s in · 2 open / 5 closed tasks · $1.42');
  assert.equal(checkinLine({}), 'RObot check-in: no details');
});
