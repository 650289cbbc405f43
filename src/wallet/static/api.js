// The wallet API as the page calls it: every call carries the checkout's client secret.

const pathMatch = /\/checkout\/([^/]+)\/?$/.exec(location.pathname);
export const checkoutId = pathMatch ? decodeURIComponent(pathMatch[1]) : null;
export const clientSecret = new URLSearchParams(location.search).get('client_secret');
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
