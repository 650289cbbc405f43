// The dashboard's API client, parameterised by the dashboard's own config.js (served beside the
// kit's files under <mount>/assets/): its API base, CSRF header, session endpoints and sign-in page.
import { config } from './config.js';
import { ApiError } from './ui.js';

let csrf = null;

/** The signed-in person's session; without one, the sign-in page. Another failure (the service unavailable) is thrown, for the shell's error page. */
export async function loadSession() {
  const res = await fetch(config.session, { credentials: 'same-origin' });
  if (res.status === 401) {
    location.assign(config.signInPage);
    throw new Error('not signed in');
  }
  const session = await res.json().catch(() => null);
  if (!res.ok || !session) throw new ApiError(res.status, session);
  csrf = session[config.csrfField];
  return session;
}

/** One call: every change carries the session's CSRF header; an error answer becomes an ApiError, a lost session the sign-in page. */
async function call(method, url, body) {
  const headers = {};
  if (method !== 'GET') headers[config.csrfHeader] = csrf;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url, { method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) });
  const parsed = await res.json().catch(() => null);
  // A refused CSRF token is the page's fault, not a lost session: it is shown, not sent to sign in.
  if (res.status === 401 && !(parsed && /CSRF/.test(parsed.error || ''))) location.assign(config.signInPage);
  if (!res.ok) throw new ApiError(res.status, parsed);
  return parsed;
}

/** The dashboard's API, paths relative to its base. */
export const api = {
  get: (path) => call('GET', config.apiBase + path),
  post: (path, body) => call('POST', config.apiBase + path, body),
  put: (path, body) => call('PUT', config.apiBase + path, body),
  patch: (path, body) => call('PATCH', config.apiBase + path, body),
  del: (path) => call('DELETE', config.apiBase + path),
  /** A POST to a path outside the API base (the session's own endpoints). */
  postAt: (url, body) => call('POST', url, body),
};

export async function signOut() {
  await call('DELETE', config.signOut);
  location.assign(config.signInPage);
}

/** A query string of the non-empty values. */
export const query = (values) => {
  const q = new URLSearchParams();
  for (const [key, value] of Object.entries(values)) if (value !== undefined && value !== null && value !== '') q.set(key, String(value));
  return `?${q}`;
};
