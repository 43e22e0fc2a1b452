// The new device id the service worker hands to the page after a subscription change (notify/handoff.js): kept until a
// page takes it, taken once, and read from the worker's messages.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { leaveDeviceId, takeDeviceId, handedOffId, MESSAGE_TYPE } from '../../Sources/RalphMobileServer/Resources/web/assets/js/notify/handoff.js';

/** Cache Storage in memory: named caches of url → body. */
function memoryCaches() {
  const stores = new Map();
  return {
    stores,
    has: async (name) => stores.has(name),
    open: async (name) => {
      if (!stores.has(name)) stores.set(name, new Map());
      const store = stores.get(name);
      return {
        put: async (url, response) => { store.set(url, await response.text()); },
        match: async (url) => (store.has(url) ? new Response(store.get(url)) : undefined),
        delete: async (url) => store.delete(url),
      };
    },
  };
}

test('an id left by the worker is taken once by the next page', async () => {
  const caches = memoryCaches();
  assert.equal(await takeDeviceId(caches), null, 'nothing left: nothing taken, and no cache made');
  assert.equal(caches.stores.size, 0);
  await leaveDeviceId(caches, 'dev-new');
  assert.equal(await takeDeviceId(caches), 'dev-new');
  assert.equal(await takeDeviceId(caches), null, 'taken once');
  await leaveDeviceId(caches, 'dev-1');
  await leaveDeviceId(caches, 'dev-2');
  assert.equal(await takeDeviceId(caches), 'dev-2', 'the latest replacement wins');
});

test('only the worker\'s device messages carry an id', () => {
  assert.equal(handedOffId({ type: MESSAGE_TYPE, id: 'dev-9' }), 'dev-9');
  for (const other of [null, undefined, 'dev-9', { type: 'other', id: 'dev-9' }, { type: MESSAGE_TYPE }, { type: MESSAGE_TYPE, id: '' }, { type: MESSAGE_TYPE, id: 7 }]) {
    assert.equal(handedOffId(other), null, JSON.stringify(other));
  }
});
