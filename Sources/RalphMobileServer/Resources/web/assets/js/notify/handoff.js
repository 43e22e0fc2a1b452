// @ts-check
// After a subscription change the service worker registers this browser again and gets a new device id, but the id
// lives in the page's localStorage, out of the worker's reach. The worker leaves it in Cache Storage (read by the next
// page that opens) and posts it to the pages open at the time, so presence and Settings keep naming the right device.

export const HANDOFF_CACHE = 'ralph-notify';
export const HANDOFF_URL = '/ralph-notify/device-id';
export const MESSAGE_TYPE = 'ralph:device';

/** @typedef {{has(name: string): Promise<boolean>, open(name: string): Promise<{put(url: string, response: Response): Promise<void>, match(url: string): Promise<Response | undefined>, delete(url: string): Promise<boolean>}>}} CachesLike */

/// The worker: keeps `id` for the next page.
/** @param {CachesLike} caches @param {string} id */
export async function leaveDeviceId(caches, id) {
  const cache = await caches.open(HANDOFF_CACHE);
  await cache.put(HANDOFF_URL, new Response(id));
}

/// A page: the id the worker left, if any, removed once taken.
/** @param {CachesLike} caches @returns {Promise<string | null>} */
export async function takeDeviceId(caches) {
  if (!(await caches.has(HANDOFF_CACHE))) return null;
  const cache = await caches.open(HANDOFF_CACHE);
  const response = await cache.match(HANDOFF_URL);
  if (!response) return null;
  const id = (await response.text()).trim();
  await cache.delete(HANDOFF_URL);
  return id || null;
}

/// The device id in a message the worker posted, or null for any other message.
/** @param {unknown} data */
export function handedOffId(data) {
  const message = /** @type {{type?: unknown, id?: unknown} | null} */ (data);
  return message && message.type === MESSAGE_TYPE && typeof message.id === 'string' && message.id ? message.id : null;
}
