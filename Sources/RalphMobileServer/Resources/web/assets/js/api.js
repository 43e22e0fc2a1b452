// @ts-check
// The server's HTTP API, for every screen (its SSE streams are in ./stream.js).
//
// Requests go to the same origin; the login cookie (HttpOnly, SameSite=Strict) rides along, so no key is ever held by
// the page. Errors come back as ApiError with the contract's prefix (`session_not_found`, `forbidden`, …) and the
// server's own sentence, which screens show as is.

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
    const colon = message.indexOf(':');
    this.code = colon > 0 ? message.slice(0, colon).trim() : message.trim();
  }
}

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
  get: (path) => request('GET', path),
  post: (path, body) => request('POST', path, body),
  put: (path, body) => request('PUT', path, body),
  patch: (path, body) => request('PATCH', path, body),
  del: (path) => request('DELETE', path),
};

/// Encodes one path segment (ids, library paths keep their slashes through `encodePath`).
export const seg = (value) => encodeURIComponent(String(value));
export const encodePath = (value) => String(value).split('/').map(encodeURIComponent).join('/');
