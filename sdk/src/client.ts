// The typed client of the merchant API: openapi-fetch over the types generated from the service's
// OpenAPI document, so every path, parameter, body and answer is checked by the compiler.
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { paths } from './generated/api';

export type PaymentsClient = Client<paths>;

export interface PaymentsClientOptions extends Omit<ClientOptions, 'baseUrl' | 'headers'> {
  /** The merchant's API key (key_...): server-side only. */
  apiKey: string;
  /** The service's address, e.g. https://payments.example.com (no /api/v1). */
  baseUrl: string;
  /** Headers sent with every call (an X-Request-Id of your own, say); the API key's Authorization wins. */
  headers?: Record<string, string>;
}

function withoutAuthorization(headers: Record<string, string> = {}): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'authorization'));
}

/**
 * A client whose calls carry the API key: `client.POST('/api/v1/customers', { body })` answers
 * `{ data, error, response }`, `data` typed by the success answer and `error` by the error body.
 */
export function createPaymentsClient(options: PaymentsClientOptions): PaymentsClient {
  const { apiKey, baseUrl, headers, ...rest } = options;
  if (!apiKey) throw new TypeError('apiKey is required');
  return createClient<paths>({
    ...rest,
    baseUrl: baseUrl.replace(/\/+$/, ''),
    headers: { ...withoutAuthorization(headers), authorization: `Bearer ${apiKey}` },
  });
}
