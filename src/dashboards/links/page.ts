import { MIN_PASSWORD_LENGTH } from '../../identity/merchant-roles';

/** Every value shown on a page goes through this: text, never markup. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`);
}

export interface LinkPage {
  title: string;
  /** What the page says about the link (escaped here). */
  lines: string[];
  /** The link's token, or null when the link is not valid (then no form). */
  token: string | null;
  /** The API the form posts to, and the one that starts authenticator enrolment. */
  submitPath: string;
  totpPath: string;
  /** What the page says once the password is saved. */
  done: string;
  /** The authenticator is not optional (the operator's people, a recovery link): the code field is required. */
  totpRequired?: boolean;
  /** The person has an authenticator and proves it (a plain reset): a current code or a recovery code, no enrolment. */
  proveAuthenticator?: boolean;
}

/**
 * The page a mailed link opens (invitation or password reset): a password of at least
 * MIN_PASSWORD_LENGTH characters and an authenticator enrolment (optional, or required for the operator's people). The script is inline,
 * allowed by a per-answer nonce; it writes only text (textContent), never markup.
 */
export function renderLinkPage(page: LinkPage, nonce: string): string {
  const e = escapeHtml;
  const totp = page.proveAuthenticator
    ? { legend: 'Your authenticator app: its current code, or one of your recovery codes', required: ' required' }
    : page.totpRequired ? { legend: 'Authenticator app (required)', required: ' required' } : { legend: 'Authenticator app (optional)', required: '' };
  const enrol = page.proveAuthenticator ? '' : '<button type="button" id="enrol">Enrol an authenticator app</button>';
  const form = page.token === null
    ? ''
    : `<form id="f" data-token="${e(page.token)}" data-submit="${e(page.submitPath)}" data-totp="${e(page.totpPath)}" data-done="${e(page.done)}">
  <label>Password (at least ${MIN_PASSWORD_LENGTH} characters) <input id="password" type="password" minlength="${MIN_PASSWORD_LENGTH}" maxlength="200" required autocomplete="new-password"></label>
  <fieldset><legend>${totp.legend}</legend>
    ${enrol}
    <p id="secret" hidden></p>
    <label>Code <input id="code" pattern="[0-9]{6}|[A-Za-z0-9]{5}-?[A-Za-z0-9]{5}" maxlength="11" autocomplete="one-time-code"${totp.required}></label>
  </fieldset>
  <button type="submit">Save</button>
  <p id="result" role="status"></p>
</form>
<script nonce="${e(nonce)}">
const f = document.getElementById('f');
const show = (id, text) => { const el = document.getElementById(id); el.textContent = text; el.hidden = false; };
const post = (path, body) => fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(async (r) => ({ ok: r.ok, body: await r.json() }));
document.getElementById('enrol')?.addEventListener('click', async () => {
  const r = await post(f.dataset.totp, { token: f.dataset.token });
  show('secret', r.ok ? 'Add this to your app: ' + r.body.otpauth_uri + ' (secret ' + r.body.secret + '), then enter its code below.' : r.body.error + ' ' + (r.body.hint || ''));
});
f.addEventListener('submit', async (event) => {
  event.preventDefault();
  const body = { token: f.dataset.token, password: document.getElementById('password').value };
  const code = document.getElementById('code').value.trim();
  if (/^[0-9]{6}$/.test(code)) body.totp_code = code;
  else if (code) body.recovery_code = code;
  const r = await post(f.dataset.submit, body);
  // Recovery codes come once, with an enrolment: the page is the only place they are ever shown.
  const codes = r.ok && r.body.recovery_codes ? ' Your recovery codes, shown this once (keep them offline; each works once in place of a code): ' + r.body.recovery_codes.join(' ') : '';
  show('result', r.ok ? f.dataset.done + codes : r.body.error + ' ' + (r.body.hint || ''));
});
</script>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${e(page.title)}</title></head>
<body><main><h1>${e(page.title)}</h1>
${page.lines.map((line) => `<p>${e(line)}</p>`).join('\n')}
${form}
</main></body></html>`;
}
