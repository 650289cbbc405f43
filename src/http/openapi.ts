import { OpenApiGeneratorV3 } from '@asteasolutions/zod-to-openapi';
import { registry } from './openapi-registry';
// Importing the schema modules registers their paths.
import '../customers/schemas';
import '../charges/schemas';
import '../checkouts/schemas';
import '../kyc/schemas';
import '../device-pings/schemas';
import '../readback/schemas';

export const API_VERSION = '1.4.0';

let cached: object | undefined;

/** The machine-readable description, generated from the schemas that validate requests. */
export function openApiDocument(apiBaseUrl: string): object {
  cached ??= new OpenApiGeneratorV3(registry.definitions).generateDocument({
    openapi: '3.0.3',
    info: {
      title: 'Payments service API',
      version: API_VERSION,
      description: 'Hosted checkout for deposits, purchases, subscriptions and withdrawals, with signed webhooks.',
    },
    servers: [{ url: apiBaseUrl }],
  });
  return cached;
}
