// The wallet API as the page calls it: every call carries the checkout's client secret.

const pathMatch = /\/checkout\/([^/]+)\/?$/.exec(location.pathname);
export const checkoutId = pathMatch ? decodeURIComponent(pathMatch[1]) : null;
export const clientSecret = takeClientSecret();

/**
 * The checkout secret is read from the link once and then removed from the address bar (so it
 * is not left in history, bookmarks, screenshots or a shared URL); it is kept in this tab's
 * sessionStorage so a reload still works.
 */
function takeClientSecret() {
  const key = 'wallet-client-secret:' + (checkoutId || '');
  const params = new URLSearchParams(location.search);
  const fromLink = params.get('client_secret');
  if (!fromLink) {
    try {
      return sessionStorage.getItem(key);
    } catch {
      return null;
    }
  }
  try {
    sessionStorage.setItem(key, fromLink);
  } catch {
    // Storage may be off (private mode, some webviews): the secret then lives in memory only.
  }
  params.delete('client_secret');
  const query = params.toString();
  history.replaceState(history.state, '', location.pathname + (query ? '?' + query : '') + location.hash);
  return fromLink;
}
// Whatever prefix a proxy puts in front of /checkout/{id} also sits in front of /wallet/v1.
const basePath = pathMatch ? location.pathname.slice(0, pathMatch.index) : '';
const checkoutBase = basePath + '/wallet/v1/checkouts/' + encodeURIComponent(checkoutId || '');

/** `path` is relative to the checkout ('' for the checkout itself); answers {status, body}. */
export async function api(method, path, body) {
  const headers = { 'X-Client-Secret': clientSecret, Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(checkoutBase + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    cache: 'no-store',
    credentials: 'omit',
  });
  let data = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }
  return { status: res.status, body: data };
}

/** Asks the browser where it is and reports it; resolves either way, never rejects. */
export function pingLocation() {
  if (!('geolocation' in navigator)) return Promise.resolve();
  return new Promise((resolve) => {
    navigator.geolocation.getCurrentPosition(
      (position) => {
        const { latitude, longitude } = position.coords;
        // Failures are ignored: the attempt itself says whether a geo check was needed and missing.
        api('POST', '/device_pings', { latitude, longitude }).then(resolve, resolve);
      },
      () => resolve(),
      { enableHighAccuracy: false, timeout: 15000, maximumAge: 300000 },
    );
  });
}
