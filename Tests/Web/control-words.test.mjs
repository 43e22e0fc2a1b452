// The words of stops, hook suspensions and pauses (words/control.js), as every client says them.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  nextStopForces, stopButtonLabel, stopLine, holdLine, stopAnswerText, resumeAnswerText, GRACEFUL_MESSAGE,
} from '../../Sources/RalphMobileServer/Resources/web/assets/js/words/control.js';

const graceful = { kind: 'graceful', at: '2026-02-05T08:09:13.890Z' };

test('the stop button: graceful first, then forced while a graceful stop is pending', () => {
  assert.equal(stopButtonLabel({ mode: 'live' }), 'Stop at end of iteration');
  assert.equal(nextStopForces({ mode: 'live' }), false);
  assert.equal(stopButtonLabel({ mode: 'live', stop_requested: graceful }), 'Force stop');
  assert.equal(nextStopForces({ mode: 'suspended', stop_requested: graceful }), true);
  assert.equal(nextStopForces({ mode: 'complete', stop_requested: graceful }), false, 'a finished run has nothing to force');
});

test('the stop line: pending, then which stop happened', () => {
  assert.equal(stopLine({ mode: 'live' }), null);
  assert.equal(stopLine({ mode: 'live', stop_requested: graceful }), GRACEFUL_MESSAGE);
  assert.equal(GRACEFUL_MESSAGE, 'stopping at the end of this iteration');
  assert.equal(stopLine({ mode: 'complete', stop_requested: graceful }), 'stopped at the end of an iteration (graceful stop)');
  assert.equal(stopLine({ mode: 'complete', stop_requested: { kind: 'forced', at: 'x' } }), 'force-stopped');
});

test('a hook suspension and our pause are never confused', () => {
  const suspension = { hook_name: 'ci-gate', phase: 'pre.iteration.start', reason: 'tests failed', suspend_mode: 'wait_for_resume' };
  assert.equal(holdLine({ mode: 'suspended', suspension }), 'Suspended by hook ci-gate: tests failed');
  assert.equal(holdLine({ mode: 'suspended', suspension: { ...suspension, reason: null } }), 'Suspended by hook ci-gate');
  assert.equal(holdLine({ mode: 'paused', paused_by: 'server', suspension }), 'Paused by the server (SIGSTOP)');
  assert.equal(holdLine({ mode: 'live' }), null);
});

test('stop and resume answers in words', () => {
  assert.equal(stopAnswerText({ status: 'stopping', message: GRACEFUL_MESSAGE, signal: null, terminated: false }), GRACEFUL_MESSAGE);
  assert.equal(stopAnswerText({ status: 'stopped', signal: 'SIGTERM', terminated: true }), 'Stopped with SIGTERM');
  assert.equal(stopAnswerText({ status: 'stopped', signal: 'SIGKILL', terminated: false }), 'Stopped with SIGKILL (ralph did not write loop.terminate)');
  assert.equal(resumeAnswerText({ status: 'resume_requested', pid: 7 }), 'Resume requested: the suspended loop goes on (pid 7)');
  assert.equal(resumeAnswerText({ status: 'resumed', pid: 7 }), 'Resumed (pid 7)');
});
