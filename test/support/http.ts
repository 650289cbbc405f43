import { randomInt } from 'node:crypto';

/** Small fetch wrappers for tests: JSON in, status and parsed JSON out. */
export interface JsonResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

export async function request<T = any>(
  baseUrl: string,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; rawBody?: string; headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<JsonResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.rawBody !== undefined) {
    body = options.rawBody;
    headers['content-type'] ??= 'application/json';
  } else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  const res = await fetch(baseUrl + path, { method, headers, body, signal: options.signal });
  const text = await res.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed as T, headers: res.headers, text };
}

export interface MerchantCredentials {
  id: string;
  api_key: string;
  client_secret: string;
  webhook_signing_secret: string;
  settings: Record<string, unknown>;
  environment: string;
}

/** Onboards a merchant through the admin API, as the dashboard would. */
export async function onboard(
  service: { baseUrl: string; adminToken: string },
  body: { name?: string; environment?: 'sandbox' | 'production'; settings?: Record<string, unknown> } = {},
): Promise<MerchantCredentials> {
  const res = await request<MerchantCredentials>(service.baseUrl, 'POST', '/admin/v1/merchants', {
    token: service.adminToken,
    body: { name: body.name ?? 'Test merchant', ...body },
  });
  if (res.status !== 201) throw new Error(`onboarding failed: ${res.status} ${res.text}`);
  return res.body;
}

/** Unique, valid customer fields per call, so tests never collide on uniqueness rules. */
export function uniqueCustomer(overrides: Record<string, any> = {}): Record<string, any> {
  const n = String(randomInt(1_000_000_000, 9_999_999_999));
  return {
    email: `person${n}.${process.pid}@example.com`,
    first_name: 'Ada',
    last_name: 'Lovelace',
    phone_number: n,
    ...overrides,
  };
}
