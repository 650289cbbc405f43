// Calls to /merchant/v1 with the session cookie; every change carries the session's X-CSRF-Token.
import { ApiError } from './ui.js';

let csrf = null;

/** The signed-in person and merchant (GET /merchant/v1/me); without a session, the sign-in page. */
export async function loadSession() {
  const res = await fetch('/merchant/v1/me', { credentials: 'same-origin' });
  if (!res.ok) {
    location.assign('/merchant/login');
    throw new Error('not signed in');
  }
  const session = await res.json();
  csrf = session.csrf_token;
  return session;
}

async function call(method, path, body) {
  const headers = {};
  if (method !== 'GET') headers['X-CSRF-Token'] = csrf;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`/merchant/v1${path}`, { method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) });
  const parsed = await res.json().catch(() => null);
  if (res.status === 401 && !(parsed && parsed.error === 'Missing or wrong CSRF token.')) location.assign('/merchant/login');
  if (!res.ok) throw new ApiError(res.status, parsed);
  return parsed;
}

export const api = {
  get: (path) => call('GET', path),
  post: (path, body) => call('POST', path, body),
  put: (path, body) => call('PUT', path, body),
  patch: (path, body) => call('PATCH', path, body),
  del: (path) => call('DELETE', path),
};

/** A query string of the non-empty values. */
export const query = (values) => {
  const q = new URLSearchParams();
  for (const [key, value] of Object.entries(values)) if (value !== undefined && value !== null && value !== '') q.set(key, String(value));
  return `?${q}`;
};

/** What each role may do (the server enforces it; the pages hide what the role may not do). */
const ROLE_PERMISSIONS = {
  owner: ['read', 'developers', 'decide_reviews', 'lift_restrictions', 'refunds', 'team', 'audit_log'],
  developer: ['read', 'developers'],
  reviewer: ['read', 'decide_reviews', 'lift_restrictions'],
  viewer: ['read'],
};
export const may = (role, permission) => (ROLE_PERMISSIONS[role] || []).includes(permission);

export async function signOut() {
  await call('DELETE', '/session');
  location.assign('/merchant/login');
}
