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
  /** The sign-in page the person goes on to (the operator's or the merchant's). */
  signInPath: string;
  /** The authenticator is not optional (the operator's people, a recovery link): the code field is required. */
  totpRequired?: boolean;
  /** The person has an authenticator and proves it (a plain reset): a current code or a recovery code, no enrolment. */
  proveAuthenticator?: boolean;
}

/** The dashboards' stylesheet (the merchant dashboard serves it without a session). */
const STYLESHEET = '/merchant/assets/dashboard.css';

function authenticatorFields(page: LinkPage): string {
  if (page.proveAuthenticator) {
    return `<fieldset><legend>Your authenticator app</legend>
    <label>Its current code, or one of your recovery codes <input id="code" pattern="[0-9]{6}|[A-Za-z0-9]{5}-?[A-Za-z0-9]{5}" maxlength="11" autocomplete="one-time-code" required></label>
  </fieldset>`;
  }
  const required = page.totpRequired ? ' required' : '';
  return `<fieldset><legend>Authenticator app ${page.totpRequired ? '(required)' : '(optional)'}</legend>
    <p class="muted">${page.totpRequired ? 'Sign-in asks for its code every time.' : 'With one, sign-in also asks for its code.'}</p>
    <button type="button" id="enrol" class="secondary">Enrol an authenticator app</button>
    <div id="enrolment" hidden>
      <p>Scan this code with your authenticator app, or type the secret into it. Then enter the code the app shows.</p>
      <img id="qr" class="qr" alt="QR code of your authenticator secret" width="200" height="200">
      <p>Secret: <code id="secret-code" class="id"></code></p>
    </div>
    <p id="enrol-error" class="error" role="alert" hidden></p>
    <label>Code from the app <input id="code" inputmode="numeric" pattern="[0-9]{6}" maxlength="6" autocomplete="one-time-code"${required}></label>
  </fieldset>`;
}

// The page's script: text only (textContent), an image from the API's data URL, nothing parsed as markup.
const SCRIPT = `
const f = document.getElementById('f');
const byId = (id) => document.getElementById(id);
const say = (id, text) => { const el = byId(id); el.textContent = text; el.hidden = false; };
const post = (path, body) => fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(async (r) => ({ ok: r.ok, body: await r.json().catch(() => ({})) }));
const problem = (body) => [body.error || 'Something went wrong; try again.', body.hint].filter(Boolean).join(' ');
byId('enrol')?.addEventListener('click', async () => {
  byId('enrol-error').hidden = true;
  const r = await post(f.dataset.totp, { token: f.dataset.token });
  if (!r.ok) return say('enrol-error', problem(r.body));
  byId('qr').src = r.body.qr_code;
  byId('secret-code').textContent = r.body.secret;
  byId('enrolment').hidden = false;
  byId('enrol').hidden = true;
  byId('code').required = true;
  byId('code').focus();
});
f.addEventListener('submit', async (event) => {
  event.preventDefault();
  const body = { token: f.dataset.token, password: byId('password').value };
  const code = byId('code').value.trim();
  if (/^[0-9]{6}$/.test(code)) body.totp_code = code;
  else if (code) body.recovery_code = code;
  const r = await post(f.dataset.submit, body);
  if (!r.ok) return say('result', problem(r.body));
  f.hidden = true;
  byId('intro').hidden = true;
  say('done-text', f.dataset.done);
  // Recovery codes come once, with an enrolment: the page is the only place they are ever shown.
  if (r.body.recovery_codes) {
    byId('codes-list').replaceChildren(...r.body.recovery_codes.map((c) => { const li = document.createElement('li'); const code = document.createElement('code'); code.textContent = c; li.append(code); return li; }));
    byId('codes').hidden = false;
  }
  byId('done').hidden = false;
  byId('sign-in').focus();
});`;

/**
 * The page a mailed link opens (invitation or password reset), in the dashboards' style: a password
 * of at least MIN_PASSWORD_LENGTH characters and an authenticator enrolment (its secret as a QR
 * code; optional, or required for the operator's people), then the way to sign in. The script is
 * inline, allowed by a per-answer nonce.
 */
export function renderLinkPage(page: LinkPage, nonce: string): string {
  const e = escapeHtml;
  const form = page.token === null
    ? `<p><a class="button secondary" href="${e(page.signInPath)}">Go to the sign-in page</a></p>`
    : `<form id="f" data-token="${e(page.token)}" data-submit="${e(page.submitPath)}" data-totp="${e(page.totpPath)}" data-done="${e(page.done)}">
  <label>Password (at least ${MIN_PASSWORD_LENGTH} characters) <input id="password" type="password" minlength="${MIN_PASSWORD_LENGTH}" maxlength="200" required autocomplete="new-password"></label>
  ${authenticatorFields(page)}
  <button type="submit" class="primary">Save</button>
  <p id="result" class="error" role="alert" hidden></p>
</form>
<div id="done" hidden>
  <p id="done-text" role="status"></p>
  <div id="codes" hidden>
    <h2>Your recovery codes</h2>
    <p>Shown this once: write them down and keep them offline. Each works once in place of a code from the app.</p>
    <ol id="codes-list" class="codes"></ol>
  </div>
  <p><a id="sign-in" class="button primary" href="${e(page.signInPath)}">Sign in</a></p>
</div>
<script nonce="${e(nonce)}">${SCRIPT}</script>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${e(page.title)}</title>
<link rel="stylesheet" href="${STYLESHEET}"></head>
<body class="link"><main><h1>${e(page.title)}</h1>
<section class="card">
<div id="intro">${page.lines.map((line) => `<p>${e(line)}</p>`).join('\n')}</div>
${form}
</section>
</main></body></html>`;
}
