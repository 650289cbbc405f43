import type { AddressInfo } from 'node:net';
import { createApp } from '../app';
import { closeRuntime, createRuntime } from '../runtime';
import { loadGeoData } from '../geo';
import { closableServer } from '../http/graceful-close';
import { answerClientErrors } from '../http/client-errors';

/** The API server: merchant API, admin API and hosted wallet on one port. */
async function main(): Promise<void> {
  const deps = await createRuntime();
  const { config, logger } = deps;
  // The geo dataset loads synchronously (~1 s); do it before taking traffic, not on the first ping.
  const geo = loadGeoData();
  logger.info({ geo }, 'geo dataset loaded');
  if (config.adminTokenIsDefault) {
    // Named, never printed: no token value is ever written to a log.
    logger.warn('ADMIN_TOKEN not set: the admin API uses the development token documented in the README');
  }
  const server = createApp(deps).listen(config.port, config.host, () => {
    const { address, port } = server.address() as AddressInfo;
    logger.info({ address, port, api: `${config.apiBaseUrl}/api/v1`, wallet: config.walletBaseUrl, admin: `${config.apiBaseUrl}/admin/v1` }, 'API listening');
  });
  answerClientErrors(server, logger);
  const closable = closableServer(server);
  // Requests in flight are answered (their connections then close), then the runtime closes.
  const stop = () => {
    void closable.close().then(() => closeRuntime(deps)).then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
