// Shared by the operator's and the merchant's dashboards: the toast, the confirmation dialog and
// the API's errors. #toast and dialog#confirm are added to the page the first time they are needed.
import { h } from './dom.js';

const once = (id, make) => document.getElementById(id) || document.body.appendChild(make());
const toastElement = () => once('toast', () => h('p', { id: 'toast', class: 'toast', role: 'status', hidden: true }));
const confirmDialog = () =>
  once('confirm', () =>
    h('dialog', { id: 'confirm' },
      h('form', { method: 'dialog' },
        h('p', { id: 'confirm-text' }),
        h('div', { class: 'row' }, h('button', { value: 'cancel', class: 'secondary' }, 'Cancel'), h('button', { value: 'ok', id: 'confirm-ok', class: 'primary' }, 'Confirm')))));

/** An error the page shows: the API's own {error, hint}. */
export class ApiError extends Error {
  constructor(status, body) {
    super(body && body.error ? body.error + (body.hint ? ` ${body.hint}` : '') : `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

/** A short message at the bottom of the screen (success or failure of an action). */
export function toast(message, kind = 'ok') {
  const el = toastElement();
  el.textContent = message;
  el.className = `toast ${kind}`;
  el.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => (el.hidden = true), 6000);
}

/** The confirmation step before anything that changes money or access. Resolves true on Confirm. */
export function confirmAction(text, okLabel = 'Confirm') {
  const dialog = confirmDialog();
  document.getElementById('confirm-text').textContent = text;
  document.getElementById('confirm-ok').textContent = okLabel;
  dialog.showModal();
  return new Promise((resolve) => dialog.addEventListener('close', () => resolve(dialog.returnValue === 'ok'), { once: true }));
}

// While the shell renders a page, a read that fails for a reason the person cannot fix on the page
// (refused, not found, the service down or unreachable) becomes the page itself, not a toast over
// a page that says "Loading…" for ever.
let pageLoadFailure = null;

/** Sends the failures of the page being rendered to `onFailure` until the returned function is called. */
export function whilePageLoads(onFailure) {
  pageLoadFailure = onFailure;
  return () => {
    pageLoadFailure = null;
  };
}

/** Whether an error ends the page's rendering: 403, 404, a 5xx, or no answer at all (fetch's TypeError). */
export const endsPageLoad = (error) => (error instanceof ApiError ? error.status === 403 || error.status === 404 || error.status >= 500 : error instanceof TypeError);

/** Runs an action, showing its error on the page instead of failing silently. */
export async function run(action, success) {
  try {
    const result = await action();
    if (success) toast(typeof success === 'function' ? success(result) : success);
    return result;
  } catch (error) {
    if (pageLoadFailure && endsPageLoad(error)) pageLoadFailure(error);
    else toast(error.message, 'error');
    return undefined;
  }
}
