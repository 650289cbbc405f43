// Calls to the admin API with the session cookie; state-changing calls carry the CSRF header.
import { ApiError } from './ui.js';

let csrf = null;

export async function loadSession() {
  const res = await fetch('/dashboard/session', { credentials: 'same-origin' });
  if (!res.ok) {
    location.assign('/dashboard/login');
    throw new Error('not signed in');
  }
  const session = await res.json();
  csrf = session.csrf;
  return session;
}

export async function api(method, path, body) {
  const headers = {};
  if (method !== 'GET') headers['X-Dashboard-CSRF'] = csrf;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path, { method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) });
  const parsed = await res.json().catch(() => null);
  if (res.status === 401) location.assign('/dashboard/login');
  if (!res.ok) throw new ApiError(res.status, parsed);
  return parsed;
}

export const admin = {
  get: (path) => api('GET', `/admin/v1${path}`),
  post: (path, body) => api('POST', `/admin/v1${path}`, body),
  patch: (path, body) => api('PATCH', `/admin/v1${path}`, body),
  del: (path) => api('DELETE', `/admin/v1${path}`),
};

export async function signOut() {
  await api('DELETE', '/dashboard/session');
  location.assign('/dashboard/login');
}
