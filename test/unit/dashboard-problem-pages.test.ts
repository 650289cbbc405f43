/**
 * A browser opening a dashboard page while the database is down, or when the page check fails
 * otherwise, gets a page in the dashboards' style with Try again (503, 500), never the API's JSON;
 * a program asking for JSON still gets the error handler's answer.
 */
import express, { Router } from 'express';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { addDashboardPages } from '../../src/dashboards/kit/pages';
import { errorHandler } from '../../src/http/error-handler';
import { createLogger } from '../../src/logger';
import { DatabaseDown } from '../support/faulty-db';

async function open(failure: Error, accept: string): Promise<{ status: number; type: string | null; text: string }> {
  const logger = createLogger('silent');
  const app = express();
  app.use('/merchant', addDashboardPages(Router(), {
    dir: path.resolve(__dirname, '../../src/dashboards/merchants/static'), mount: '/merchant', pages: ['home', 'team'], home: 'home', publicAssets: new Set(),
    signIn: { name: 'Merchant dashboard', action: '/merchant/v1/session', stylesheets: [], codeAlways: false },
    signedIn: () => Promise.reject(failure), notSignedIn: () => new Error('not signed in'), logger,
  }));
  app.use(errorHandler(logger));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/merchant/team?x=<b>`, { headers: { accept } });
    return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
  } finally {
    server.close();
  }
}

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

it('answers a browser 503 with a page to try again while the database is down, and 500 for another failure', async () => {
  const down = await open(new DatabaseDown(1), BROWSER);
  expect([down.status, down.type]).toEqual([503, expect.stringMatching(/^text\/html/)]);
  expect(down.text).toContain('<h1>The service is unavailable right now</h1>');
  // Try again opens the same address again.
  expect(down.text).toContain('<a class="button primary" href="/merchant/team?x=%3Cb%3E">Try again</a>');
  expect(down.text).toContain('href="/merchant/assets/dashboard.css"');
  const broken = await open(new Error('a bug'), BROWSER);
  expect([broken.status, broken.text.includes('<h1>Something went wrong on our side</h1>'), broken.text.includes('a bug')]).toEqual([500, true, false]);
});

it('answers a program the JSON of the error handler', async () => {
  const down = await open(new DatabaseDown(1), 'application/json');
  expect([down.status, down.type]).toEqual([503, expect.stringMatching(/^application\/json/)]);
  expect(JSON.parse(down.text)).toEqual(expect.objectContaining({ error: expect.any(String), hint: expect.any(String) }));
});
