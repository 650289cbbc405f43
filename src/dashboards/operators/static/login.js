// Sign in as yourself (email, password, authenticator code): the answer sets an HttpOnly session cookie.
const form = document.getElementById('sign-in');
const error = document.getElementById('error');

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  error.hidden = true;
  const data = new FormData(form);
  const res = await fetch('/dashboard/session', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: data.get('email'), password: data.get('password'), totp_code: data.get('totp_code') }),
  });
  if (res.ok) {
    location.assign('/dashboard/reviews');
    return;
  }
  const body = await res.json().catch(() => ({}));
  // A refusal's hint says what to do next (how long a throttled address waits: 429 with Retry-After).
  error.textContent = [body.error, body.hint].filter(Boolean).join(' ') || 'Sign-in failed.';
  error.hidden = false;
});
