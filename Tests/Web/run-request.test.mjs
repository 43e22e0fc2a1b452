// The New run form's request (create/run-request.js): what is sent, and the problems by field.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { runRequest } from '../../Sources/RalphMobileServer/Resources/web/assets/js/create/run-request.js';

const form = (fields = {}) => ({ config: 'ralph.yml', promptMode: 'text', promptPath: '', promptText: ' Fix it ', workdir: '', max: '', maxBadInput: false, backend: '', ...fields });

test('a text prompt, trimmed; optional fields only when given', () => {
  assert.deepEqual(runRequest(form()), { body: { config_path: 'ralph.yml', prompt: 'Fix it' } });
  assert.deepEqual(runRequest(form({ promptMode: 'file', promptPath: 'prompts/a.md', workdir: ' sub ', max: '12', backend: 'codex' })),
    { body: { config_path: 'ralph.yml', prompt_path: 'prompts/a.md', working_dir: 'sub', max_iterations: 12, backend: 'codex' } });
});

test('problems in the form\'s order', () => {
  assert.deepEqual(runRequest(form({ config: '', promptText: '  ', workdir: 'a\0b', max: '0', backend: 'no way' })), { problems: [
    ['config', 'Choose a config.'],
    ['promptText', 'Write what ralph should do.'],
    ['workdir', 'This path is not valid.'],
    ['max', 'A whole number from 1 to 100000.'],
    ['backend', 'Not a backend name.'],
  ] });
  assert.deepEqual(runRequest(form({ promptMode: 'file' })), { problems: [['promptFile', 'Choose a prompt file, or switch to Write text.']] });
  assert.deepEqual(runRequest(form({ maxBadInput: true })), { problems: [['max', 'A whole number from 1 to 100000.']] }, 'a number the browser could not read');
  assert.deepEqual(runRequest(form({ max: '2.5' })), { problems: [['max', 'A whole number from 1 to 100000.']] });
});
