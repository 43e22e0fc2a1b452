// @ts-check
// This browser's Web Push subscription: what it supports, subscribing (permission, the service worker, the push
// service, the server's registration) and unsubscribing. The registered device's id is remembered in localStorage, so
// presence reports name it and Settings knows which device is this one. Each failure says which step failed.

import { api, seg } from '../api.js';
import { subscribeProblem, unsupportedReason, deviceName } from '../words/notifications.js';
import { takeDeviceId, handedOffId } from './handoff.js';

const DEVICE_KEY = 'ralph.notify.device';
export const WORKER_URL = '/sw.js';

/// The device id this browser registered as, if it did.
export function storedDeviceId() {
  try { return localStorage.getItem(DEVICE_KEY); } catch { return null; }
}

/** @param {string | null} id */
function storeDeviceId(id) {
  if (id) localStorage.setItem(DEVICE_KEY, id);
  else localStorage.removeItem(DEVICE_KEY);
}

/// Takes the device id the service worker registered as after a subscription change (notify/handoff.js): the one it
/// left while no page was open, then each one it posts while this page is open.
export async function followWorkerDeviceId() {
  if (!('serviceWorker' in navigator)) return;
  navigator.serviceWorker.addEventListener('message', (event) => {
    const id = handedOffId(event.data);
    if (id) storeDeviceId(id);
  });
  if (!('caches' in window)) return;
  const id = await takeDeviceId(window.caches);
  if (id) storeDeviceId(id);
}

/// Null when this browser can subscribe, else why not.
export function pushUnsupported() {
  const ua = navigator.userAgent;
  return unsupportedReason({
    secure: window.isSecureContext,
    serviceWorker: 'serviceWorker' in navigator,
    pushManager: 'PushManager' in window,
    notification: 'Notification' in window,
    ios: /iPhone|iPad/.test(ua) || (/Macintosh/.test(ua) && navigator.maxTouchPoints > 1),
    standalone: window.matchMedia('(display-mode: standalone)').matches || /** @type {any} */ (navigator).standalone === true,
  });
}

/// `default`, `granted` or `denied` (`unsupported` without the Notification API).
export function permissionState() {
  return 'Notification' in window ? Notification.permission : 'unsupported';
}

/// The base64url VAPID key as the bytes `applicationServerKey` takes.
/** @param {string} text */
export function base64urlBytes(text) {
  const padded = text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4);
  const binary = atob(padded);
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

/// The service worker's registration (registering it if needed).
export async function workerRegistration() {
  const existing = await navigator.serviceWorker.getRegistration('/');
  if (existing) return existing;
  await navigator.serviceWorker.register(WORKER_URL, { scope: '/', type: 'module' });
  return navigator.serviceWorker.ready;
}

/// The push subscription this browser holds for this server, if any (no worker is installed to find out).
export async function currentSubscription() {
  if (!('serviceWorker' in navigator)) return null;
  const registration = await navigator.serviceWorker.getRegistration('/');
  return registration && registration.pushManager ? registration.pushManager.getSubscription() : null;
}

/** How long the browser's push service may take to give a subscription (some browsers without one never answer). */
const SUBSCRIBE_SECONDS = 20;

/** @template T @param {number} seconds @param {Promise<T>} promise @param {string} why @returns {Promise<T>} */
function withinSeconds(seconds, promise, why) {
  /** @type {any} */
  let timer;
  const late = new Promise((_, reject) => { timer = setTimeout(() => reject(Object.assign(new Error(why), { name: 'TimeoutError' })), seconds * 1000); });
  return /** @type {Promise<T>} */ (Promise.race([promise, late]).finally(() => clearTimeout(timer)));
}

class StepError extends Error {
  /** @param {string} message @param {any} cause */
  constructor(message, cause) {
    super(message);
    this.cause = cause;
  }
}

/** @template T @param {'permission' | 'worker' | 'subscribe' | 'key' | 'register'} step @param {() => Promise<T>} work @returns {Promise<T>} */
async function step(step, work) {
  try {
    return await work();
  } catch (error) {
    if (error instanceof StepError) throw error;
    throw new StepError(subscribeProblem(step, error), error);
  }
}

/// Subscribes: asks for permission, installs the worker, subscribes at the push service with the server's VAPID key
/// and registers the subscription (`channel: web_push`). Returns the device; throws an Error saying which step failed.
/** @param {Record<string, any>} [preferences] kinds / privacy / quiet_hours to register with */
export async function subscribe(preferences = {}) {
  const permission = await step('permission', async () => {
    const answer = await Notification.requestPermission();
    if (answer !== 'granted') throw new Error(answer);
    return answer;
  });
  const registration = await step('worker', workerRegistration);
  const settings = await step('key', () => api.get('/api/notifications'));
  const subscription = await step('subscribe', async () => {
    const key = base64urlBytes(settings.vapid_public_key);
    const old = await registration.pushManager.getSubscription();
    if (old) {
      // A subscription made with another key (the server's key file was replaced) is refused by the push service.
      const oldKey = old.options && old.options.applicationServerKey ? new Uint8Array(old.options.applicationServerKey) : null;
      if (oldKey && oldKey.length === key.length && oldKey.every((b, i) => b === key[i])) return old;
      await old.unsubscribe();
    }
    return withinSeconds(SUBSCRIBE_SECONDS, registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key }),
      'no answer from the push service in ' + SUBSCRIBE_SECONDS + ' s');
  });
  const device = await step('register', () => api.post('/api/notifications/devices', {
    name: deviceName(navigator.userAgent), channel: 'web_push', web_push: subscription.toJSON(), ...preferences,
  }));
  storeDeviceId(device.id);
  return { device, permission };
}

/// Unsubscribes: the server forgets the device (already gone is fine), then the browser drops its subscription.
export async function unsubscribe() {
  const id = storedDeviceId();
  if (id) {
    try {
      await api.del('/api/notifications/devices/' + seg(id));
    } catch (error) {
      if (error.status !== 404) throw new Error('The server did not remove this device: ' + error.message);
    }
  }
  storeDeviceId(null);
  const subscription = await currentSubscription();
  if (subscription && !(await subscription.unsubscribe())) throw new Error('The browser did not drop its push subscription.');
}

/// Forgets the stored id when the device is no longer registered (removed here or elsewhere, or expired).
/** @param {Array<{id: string}>} devices */
export function forgetIfGone(devices) {
  const id = storedDeviceId();
  if (id && !devices.some((d) => d.id === id)) storeDeviceId(null);
}
