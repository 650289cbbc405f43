// `npm start` in development: when the operator has nobody yet, invites OPERATOR_EMAIL as
// operator_admin through the admin API (the admin token), so a newcomer can sign in to the operator
// dashboard. The invitation is mailed (Mailpit's inbox in development); its link is not printed,
// since it is a credential. Prints one line saying where to look.
const base = `http://127.0.0.1:${process.env.PORT ?? '3000'}`;
const token = process.env.ADMIN_TOKEN || 'dev-admin-token';
const email = process.env.OPERATOR_EMAIL || 'operator@example.com';
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

async function ready() {
  for (let i = 0; i < 120; i++) {
    try {
      if ((await fetch(`${base}/healthz`)).ok) return true;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return false;
}

if (!(await ready())) {
  console.error('first operator: the API did not answer; invite one with POST /admin/v1/operators/invitations');
  process.exit(0);
}
const operators = await (await fetch(`${base}/admin/v1/operators`, { headers })).json();
if (Array.isArray(operators.results) && operators.results.length === 0) {
  const res = await fetch(`${base}/admin/v1/operators/invitations`, { method: 'POST', headers, body: JSON.stringify({ email, role: 'operator_admin' }) });
  const body = await res.json();
  console.error(res.ok
    ? `first operator: invited ${email} as operator_admin; open the mail in the inbox, choose a password, enrol an authenticator, then sign in at /dashboard/login`
    : `first operator: invitation refused (${body.error} ${body.hint ?? ''})`);
}
