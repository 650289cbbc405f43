import { execFile } from 'node:child_process';
import path from 'node:path';
import { startService, type Service } from '../../support/harness';
import { request } from '../../support/http';
import { latestMailTo } from '../../support/mailpit';
import { uniqueEmail } from '../../support/merchant-accounts';

/** `npm start`'s first operator (scripts/first-operator.mjs), run against a service of its own (its own database: nobody is an operator yet). */
let service: Service;
beforeAll(async () => {
  service = await startService({ worker: false, replicas: 1 });
});
afterAll(async () => service.stop());

/** Runs the script as start.sh does; asynchronously, since the API it calls runs in this process. */
const runScript = (email: string) =>
  new Promise<{ status: number; stderr: string }>((resolve) => {
    const env = { PATH: process.env.PATH ?? '', PORT: new URL(service.ownUrl).port, ADMIN_TOKEN: service.adminToken, OPERATOR_EMAIL: email };
    execFile(process.execPath, [path.resolve(__dirname, '../../../scripts/first-operator.mjs')], { env, encoding: 'utf8' }, (error, _stdout, stderr) => {
      resolve({ status: error ? Number(error.code ?? 1) : 0, stderr });
    });
  });

it('invites the first operator by mail when there is none, printing no link; then does nothing', async () => {
  const email = uniqueEmail('first');
  const first = await runScript(email);
  expect(first.status).toBe(0);
  expect(first.stderr).toContain(`invited ${email} as operator_admin`);
  expect(first.stderr).not.toContain('token=');
  expect((await latestMailTo(email, /invitation/)).text).toContain("invited you to join the operator's payments dashboard as Operator admin.");
  // The invitation alone makes nobody an operator yet; once someone accepted, the script invites nobody.
  await service.deps.db('people').insert({ id: 'opr_first_operator_test', email: uniqueEmail('existing'), role: 'operator_viewer', password_hash: 'x', totp_secret_sealed: 'x' });
  const later = uniqueEmail('later');
  const second = await runScript(later);
  expect([second.status, second.stderr]).toEqual([0, '']);
  expect((await request(service.baseUrl, 'GET', '/admin/v1/operators', { token: service.adminToken })).body.results.map((o: { email: string }) => o.email)).not.toContain(later);
});
