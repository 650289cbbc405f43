import { OpenAPIRegistry, extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

extendZodWithOpenApi(z);

/**
 * The one registry every resource's schemas register their paths with, so the document served
 * at /api/v1/openapi.json is generated from the very schemas that validate requests.
 */
export const registry = new OpenAPIRegistry();

export const ApiKeyAuth = registry.registerComponent('securitySchemes', 'apiKey', {
  type: 'http',
  scheme: 'bearer',
  description: 'API key (key_...), server-side only.',
});

export const ClientSecretAuth = registry.registerComponent('securitySchemes', 'clientSecret', {
  type: 'http',
  scheme: 'bearer',
  description: 'Client secret (secret_...), browser-safe; only POST /api/v1/device_pings.',
});

/** The request id every example error body carries. */
export const EXAMPLE_REQUEST_ID = 'req_3f9c2b7e4a1d4c8e9b0a6f5e2d1c7b8a';

/** Every error body carries the request id (error-handler.ts), also answered in X-Request-Id. */
export const requestIdField = z.string().openapi({ description: 'The request id, also in the X-Request-Id header: quote it when reporting a problem.', example: EXAMPLE_REQUEST_ID });

export const ErrorBody = registry.register(
  'Error',
  z.object({ error: z.string(), hint: z.string().optional(), request_id: requestIdField }).openapi({ description: 'Every error body.' }),
);

/** A named example of a body or an answer: the document shows each, and the OpenAPI test validates each against its schema. */
export interface Example {
  summary: string;
  value: unknown;
}
export type Examples = Record<string, Example>;

/** A JSON body or answer with its examples. */
export function jsonContent(schema: z.ZodType, examples: Examples) {
  return { content: { 'application/json': { schema, examples } } };
}

/** What every operation's shared error answers look like; an operation adds its own under the same status. */
const SHARED_ERROR_EXAMPLES: Record<number, Examples> = {
  400: {
    not_json: {
      summary: 'The body is not JSON',
      value: { error: 'Request body is not valid JSON.', hint: 'Send a JSON object with Content-Type: application/json.', request_id: EXAMPLE_REQUEST_ID },
    },
  },
  422: { invalid_api_key: { summary: 'Unknown or revoked API key', value: { error: 'API key not found.', request_id: EXAMPLE_REQUEST_ID } } },
};

/** The standard error responses shared by most operations, with examples (the shared ones, then `examples`). */
export function errorResponses(extra: Record<number, string> = {}, examples: Record<number, Examples> = {}) {
  const responses: Record<number, { description: string; content: { 'application/json': { schema: typeof ErrorBody; examples?: Examples } } }> = {};
  const all: Record<number, string> = { 422: 'Invalid credential, invalid input or not found.', ...extra };
  for (const [status, description] of Object.entries(all)) {
    const shown = { ...SHARED_ERROR_EXAMPLES[Number(status)], ...examples[Number(status)] };
    responses[Number(status)] = { description, content: { 'application/json': { schema: ErrorBody, ...(Object.keys(shown).length ? { examples: shown } : {}) } } };
  }
  return responses;
}
