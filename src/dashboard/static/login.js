// Sign in: the admin token becomes an HttpOnly session cookie; the token itself is never stored.
const form = document.getElementById('sign-in');
const error = document.getElementById('error');

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  error.hidden = true;
  const data = new FormData(form);
  const res = await fetch('/dashboard/session', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: data.get('name'), token: data.get('token') }),
  });
  if (res.ok) {
    location.assign('/dashboard/reviews');
    return;
  }
  const body = await res.json().catch(() => ({}));
  // A refusal's hint says what to do next (how long a throttled address waits: 429 with Retry-After).
  error.textContent = res.status === 401 ? 'That admin token is not valid.' : [body.error, body.hint].filter(Boolean).join(' ') || 'Sign-in failed.';
  error.hidden = false;
});
