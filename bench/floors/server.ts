/**
 * The floors: for each benchmarked path, a process that does only the unavoidable part of the
 * same work, built from the same libraries, so `npm run bench` can report service ÷ floor.
 *
 *   POST /customers              Express + zod (the same strict schema) + one pg INSERT … RETURNING (no auth)
 *   POST /authenticated-customers  the same, with the API key (its hash) checked inside that one INSERT
 *   POST /workflows              Express + one bare workflow.start of a workflow no worker runs
 *   POST /expiring-workflows     Express + one workflow.start of a workflow whose first task (run by
 *                                this process's worker) starts a 30-minute timer, as a checkout's does
 *   POST /attempts/:workflowId   Express + one update whose handler runs one local activity doing one INSERT
 *   POST /webhooks               one signed POST of a body to `url` (the service's own sendSignedWebhook)
 *
 * A child process (like the API under test) on 127.0.0.1, reporting its port over IPC. It also
 * runs the Temporal worker of the attempt floor, on a task queue of its own.
 */
import { Client, Connection, WorkflowIdReusePolicy } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import express from 'express';
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../src/config';
import { hashSecret } from '../../src/crypto';
import { CustomerCreateBody } from '../../src/customers/schemas';
import { newId } from '../../src/domain/ids';
import { createDb } from '../../src/storage/db';
import { tuningOptions } from '../../src/worker';
import { sendSignedWebhook } from '../../src/webhooks/send';
import { createFloorActivities, FLOOR_TABLE } from './activities';

export type FloorMessage = { type: 'ready'; port: number; taskQueue: string } | { type: 'failed'; error: string };

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN'), shutdownSignals: [] });
  const databaseUrl = process.env.DATABASE_URL!;
  const address = process.env.TEMPORAL_ADDRESS!;
  const merchantId = process.env.FLOOR_MERCHANT_ID!;
  const db = createDb(databaseUrl);
  await db.schema.createTableIfNotExists(FLOOR_TABLE, (t) => {
    t.text('id').primary();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
  });
  const client = new Client({ connection: await Connection.connect({ address }), namespace: 'default' });
  const taskQueue = `bench-floor-${randomBytes(4).toString('hex')}`;
  const connection = await NativeConnection.connect({ address });
  const worker = await Worker.create({
    connection,
    namespace: 'default',
    taskQueue,
    workflowsPath: require.resolve('./workflows'), // workflows.js beside the compiled server, workflows.ts under tsx
    activities: createFloorActivities(db),
    // The service worker's slots, pollers and cache: both hold as many open workflows in memory and poll alike.
    ...tuningOptions(loadConfig(process.env).worker),
  });
  const running = worker.run();

  const app = express();
  app.use(express.json({ limit: '100kb' }));
  app.post('/customers', async (req, res) => {
    const parsed = CustomerCreateBody.safeParse(req.body);
    if (!parsed.success) return void res.status(422).json({ error: 'invalid', hint: parsed.error.message });
    const body = parsed.data;
    const [row] = await db('customers')
      .insert({ id: newId('customer'), merchant_id: merchantId, email: body.email ?? null, first_name: body.first_name ?? null, last_name: body.last_name ?? null, phone_number: body.phone_number ?? null })
      .returning('*');
    res.status(201).json(row);
  });
  // Authentication at its least: the key's hash is looked up by the INSERT itself (one round trip).
  app.post('/authenticated-customers', async (req, res) => {
    const key = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    const parsed = CustomerCreateBody.safeParse(req.body);
    if (!key || !parsed.success) return void res.status(422).json({ error: 'invalid', hint: parsed.error?.message ?? 'API key not found.' });
    const body = parsed.data;
    const { rows } = await db.raw(
      `INSERT INTO customers (id, merchant_id, email, first_name, last_name, phone_number)
       SELECT ?, k.merchant_id, ?, ?, ?, ? FROM api_keys k WHERE k.api_key_hash = ? AND k.revoked_at IS NULL RETURNING *`,
      [newId('customer'), body.email ?? null, body.first_name ?? null, body.last_name ?? null, body.phone_number ?? null, hashSecret(key)],
    );
    if (!rows[0]) return void res.status(422).json({ error: 'API key not found.', hint: '' });
    res.status(201).json(rows[0]);
  });
  app.post('/workflows', async (_req, res) => {
    const handle = await client.workflow.start('benchFloorNoop', { taskQueue: `${taskQueue}-unpolled`, workflowId: `floor-${randomBytes(8).toString('hex')}` });
    res.status(201).json({ id: handle.workflowId });
  });
  app.post('/expiring-workflows', async (_req, res) => {
    const handle = await client.workflow.start('floorExpiringWorkflow', { taskQueue, workflowId: `floor-expiring-${randomBytes(8).toString('hex')}` });
    res.status(201).json({ id: handle.workflowId });
  });
  app.post('/checkouts', async (_req, res) => {
    const handle = await client.workflow.start('floorCheckoutWorkflow', {
      taskQueue,
      workflowId: `floor-checkout-${randomBytes(8).toString('hex')}`,
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    });
    res.status(201).json({ id: handle.workflowId });
  });
  app.post('/attempts/:workflowId', async (req, res) => {
    const id = await client.workflow.getHandle(req.params.workflowId!).executeUpdate('floorAttempt', { args: [`fa_${randomBytes(12).toString('hex')}`] });
    res.status(201).json({ id });
  });
  app.post('/webhooks', async (req, res) => {
    const { url, secret } = req.body as { url: string; secret: string };
    const body = JSON.stringify({ event_id: `ev_${randomBytes(12).toString('hex')}`, sent_at: Date.now(), type: 'floor' });
    const sent = await sendSignedWebhook({ url, body, secrets: [secret], policy: { allowPrivate: true } });
    res.status(sent.ok ? 201 : 502).end();
  });

  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  process.send?.({ type: 'ready', port: (server.address() as AddressInfo).port, taskQueue } satisfies FloorMessage);

  const stop = async () => {
    const timer = setTimeout(() => process.exit(1), 15_000);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    worker.shutdown();
    await running;
    await connection.close();
    await client.connection.close();
    await db.destroy();
    clearTimeout(timer);
    process.exit(0);
  };
  process.on('message', (message) => message === 'stop' && void stop());
  process.on('disconnect', () => void stop());
}

main().catch((error: unknown) => {
  process.send?.({ type: 'failed', error: error instanceof Error ? (error.stack ?? error.message) : String(error) } satisfies FloorMessage);
  console.error(error);
  process.exit(1);
});
