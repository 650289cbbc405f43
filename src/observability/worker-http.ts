import express from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Worker } from '@temporalio/worker';
import { metricsHandler, workerRegistry } from './metrics';

/**
 * The worker's own small HTTP server (docker-compose's healthcheck probes it): /healthz answers
 * 200 only while the worker is running and polling, and /metrics serves the worker's metrics.
 */
export async function startWorkerHttp(worker: Pick<Worker, 'getState'>, port: number, host: string): Promise<{ server: Server; port: number }> {
  const app = express();
  app.disable('x-powered-by');
  app.get('/healthz', (_req, res) => {
    const state = worker.getState();
    res.status(state === 'RUNNING' ? 200 : 503).json({ status: state === 'RUNNING' ? 'ok' : 'not_running', worker: state });
  });
  app.get('/metrics', metricsHandler(workerRegistry));
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(port, host, () => resolve(s));
  });
  return { server, port: (server.address() as AddressInfo).port };
}
