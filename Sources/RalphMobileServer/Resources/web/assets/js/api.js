// @ts-check
// The server's HTTP API, for every screen (its SSE streams are in ./stream.js).
//
// Requests go to the same origin; the login cookie (HttpOnly, SameSite=Strict) rides along, so no key is ever held by
// the page. Errors come back as ApiError with the contract's prefix (`session_not_found`, `forbidden`, …) and the
// server's own sentence, which screens show as is.

/// An answer that is not 2xx (or no answer): `status` (0 when unreachable), `code` (the contract's prefix).
export class ApiError extends Error {
  /** @param {number} status @param {string} message */
  constructor(status, message) {
    super(message);
    this.status = status;
    const colon = message.indexOf(':');
    this.code = colon > 0 ? message.slice(0, colon).trim() : message.trim();
  }
}

/** @param {string} method @param {string} path @param {unknown} [body] @returns {Promise<any>} */
async function request(method, path, body) {
  const init = { method, credentials: 'same-origin', headers: { Accept: 'application/json' } };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    throw new ApiError(0, 'unreachable: cannot reach the server (' + (error.message || 'network error') + ')');
  }
  const text = await response.text();
  let data = null;
  if (text) {
    try { data = JSON.parse(text); } catch { data = text; }
  }
  if (!response.ok) {
    const message = data && typeof data === 'object' && data.error ? data.error : `${response.status} ${response.statusText || 'error'}`;
    if (response.status === 401 && path !== '/api/login') window.dispatchEvent(new CustomEvent('ralph:unauthorized'));
    throw new ApiError(response.status, message);
  }
  return data;
}

export const api = {
  /** @param {string} path */
  get: (path) => request('GET', path),
  /** @param {string} path @param {unknown} [body] */
  post: (path, body) => request('POST', path, body),
  /** @param {string} path @param {unknown} [body] */
  put: (path, body) => request('PUT', path, body),
  /** @param {string} path @param {unknown} [body] */
  patch: (path, body) => request('PATCH', path, body),
  /** @param {string} path */
  del: (path) => request('DELETE', path),
};

/// Encodes one path segment (ids, library paths keep their slashes through `encodePath`).
export const seg = (/** @type {unknown} */ value) => encodeURIComponent(String(value));
export const encodePath = (/** @type {unknown} */ value) => String(value).split('/').map(encodeURIComponent).join('/');
