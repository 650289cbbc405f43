import { escapeHtml } from '../links/page';

/** What differs between the dashboards' sign-in pages; the rest is the kit's one page. */
export interface SignInPage {
  /** The dashboard's name, as its heading and title say it. */
  name: string;
  /** The dashboard's mount (/dashboard, /merchant): its assets. */
  mount: string;
  /** Where the form posts before the page's script takes over (the dashboard's sign-in endpoint). */
  action: string;
  /** The dashboard's own stylesheets beside the kit's. */
  stylesheets: readonly string[];
  /**
   * Whether every account needs an authenticator code (the operator's people): the field is shown
   * from the start. Otherwise it is asked for as the next step when the account has an authenticator.
   */
  codeAlways: boolean;
}

/**
 * The sign-in page of a dashboard. The form posts, never the default GET: submitted before the
 * script runs, the password must not land in the address bar, the history or a log.
 */
export function renderSignInPage(page: SignInPage): string {
  const e = escapeHtml;
  const styles = ['dashboard.css', ...page.stylesheets].map((file) => `  <link rel="stylesheet" href="${e(page.mount)}/assets/${e(file)}">`).join('\n');
  const code = page.codeAlways
    ? `      <label id="code-field">Authenticator code (or a recovery code)
        <input name="totp_code" pattern="[0-9]{6}|[A-Za-z0-9]{5}-?[A-Za-z0-9]{5}" maxlength="11" autocomplete="one-time-code" required>
      </label>`
    : `      <p id="code-note" class="note" role="status" hidden>Your account has an authenticator app: enter the code it shows now (or one of your recovery codes), then sign in.</p>
      <label id="code-field" hidden>Authenticator code (or a recovery code)
        <input name="totp_code" pattern="[0-9]{6}|[A-Za-z0-9]{5}-?[A-Za-z0-9]{5}" maxlength="11" autocomplete="one-time-code">
      </label>`;
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Sign in · ${e(page.name)}</title>
${styles}
  <script type="module" src="${e(page.mount)}/assets/signin.js"></script>
</head>
<body class="login">
  <main>
    <h1>${e(page.name)}</h1>
    <form id="sign-in" class="card" method="post" action="${e(page.action)}">
      <label>Email
        <input name="email" type="email" autocomplete="username" required maxlength="254">
      </label>
      <label>Password
        <input name="password" type="password" autocomplete="current-password" required maxlength="200">
      </label>
${code}
      <button type="submit" class="primary">Sign in</button>
      <p id="error" class="error" role="alert" hidden></p>
    </form>
    <details class="card">
      <summary>Forgot your password?</summary>
      <form id="forgot" method="post" action="/merchant/v1/password-resets">
        <label>Your email
          <input name="email" type="email" autocomplete="email" required maxlength="254">
        </label>
        <button type="submit" class="secondary">Mail me a reset link</button>
        <p id="forgot-result" role="status" hidden></p>
      </form>
    </details>
  </main>
</body>
</html>
`;
}
