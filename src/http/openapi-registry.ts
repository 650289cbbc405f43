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

/** Every error body carries the request id (error-handler.ts), also answered in X-Request-Id. */
export const requestIdField = z.string().openapi({ description: 'The request id, also in the X-Request-Id header: quote it when reporting a problem.', example: 'req_3f9c2b7e4a1d4c8e9b0a6f5e2d1c7b8a' });

export const ErrorBody = registry.register(
  'Error',
  z.object({ error: z.string(), hint: z.string().optional(), request_id: requestIdField }).openapi({ description: 'Every error body.' }),
);

/** The standard error responses shared by most operations. */
export function errorResponses(extra: Record<number, string> = {}) {
  const responses: Record<number, { description: string; content: { 'application/json': { schema: typeof ErrorBody } } }> = {};
  const all: Record<number, string> = { 422: 'Invalid credential, invalid input or not found.', ...extra };
  for (const [status, description] of Object.entries(all)) {
    responses[Number(status)] = { description, content: { 'application/json': { schema: ErrorBody } } };
  }
  return responses;
}
