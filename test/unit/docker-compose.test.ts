import Ajv from 'ajv';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import express from 'express';
import { loadConfig } from '../../src/config';
import { WEBHOOK_TIMEOUT_MS } from '../../src/webhooks/send';

/**
 * docker-compose.yml, checked without a Docker engine: interpolated the way Compose does, then
 * validated with the Compose specification's own JSON schema (as shipped by dclint, a maintained
 * Compose linter), with only the required variables set and with every optional one set too.
 */
const ROOT = path.resolve(__dirname, '../..');
const FILE = path.join(ROOT, 'docker-compose.yml');
const SCHEMA = JSON.parse(readFileSync(path.join(path.dirname(require.resolve('dclint/package.json')), 'schemas/compose.schema.json'), 'utf8'));
const REQUIRED = { ADMIN_TOKEN: 'a'.repeat(24), DATA_ENCRYPTION_KEY: 'k'.repeat(32), SMTP_URL: 'smtp://mail.example.com:587' };
const OPTIONAL = {
  POSTGRES_PASSWORD: 'secret-pw',
  API_PORT: '8080',
  TEMPORAL_UI_PORT: '18233',
  LOG_LEVEL: 'warn',
  API_REPLICAS: '4',
  WORKER_REPLICAS: '3',
  BACKGROUND_WORKER_REPLICAS: '2',
  TEMPORAL_HISTORY_SHARDS: '16',
  API_BASE_URL: 'https://pay.example.com',
  WALLET_BASE_URL: 'https://wallet.example.com',
  TEMPORAL_VERSION: '1.29.1',
  TEMPORAL_UI_VERSION: '2.44.0',
  ALLOW_PRIVATE_WEBHOOK_URLS: 'true',
  OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector:4318',
};

/** Compose's interpolation of one string: $$, $VAR, ${VAR}, ${VAR:-d}, ${VAR-d}, ${VAR:?e}, ${VAR?e}, ${VAR:+r}, ${VAR+r}. */
export function interpolate(text: string, env: Record<string, string | undefined>): string {
  return text.replace(/\$(\$|\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))/g, (_all, token: string, name?: string, op?: string, arg = '', bare?: string) => {
    if (token === '$') return '$';
    const key = (name ?? bare)!;
    const value = env[key];
    const unset = value === undefined;
    const empty = unset || value === '';
    switch (op) {
      case ':-': return empty ? arg : value!;
      case '-': return unset ? arg : value!;
      case ':?': if (empty) throw new Error(`required variable ${key} is missing a value: ${arg}`); return value!;
      case '?': if (unset) throw new Error(`required variable ${key} is missing a value: ${arg}`); return value!;
      case ':+': return empty ? '' : arg;
      case '+': return unset ? '' : arg;
      default: return value ?? '';
    }
  });
}

function deepInterpolate(value: unknown, env: Record<string, string | undefined>): unknown {
  if (typeof value === 'string') return interpolate(value, env);
  if (Array.isArray(value)) return value.map((v) => deepInterpolate(v, env));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, deepInterpolate(v, env)]));
  return value;
}

type Compose = { services: Record<string, any>; volumes?: Record<string, unknown> };

function load(env: Record<string, string>): Compose {
  return deepInterpolate(parse(readFileSync(FILE, 'utf8'), { merge: true }), env) as Compose;
}

function validate(doc: unknown): string[] {
  const ajv = new Ajv({ allErrors: true, strict: false });
  // The schema names draft-07's meta-schema by its https address; Ajv ships it under http.
  const { $id: _id, ...draft07 } = ajv.getSchema('http://json-schema.org/draft-07/schema')!.schema as Record<string, unknown>;
  ajv.addMetaSchema(draft07, String(SCHEMA.$schema));
  const check = ajv.compile(SCHEMA);
  return check(doc) ? [] : (check.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

describe('docker-compose.yml', () => {
  it.each([
    ['only the required variables', REQUIRED],
    ['every optional variable too', { ...REQUIRED, ...OPTIONAL }],
  ])('is valid against the Compose specification with %s', (_name, env) => {
    const doc = load(env);
    expect(validate(doc)).toEqual([]);
    expect(JSON.stringify(doc)).not.toContain('${');
  });

  it('the schema catches what Compose would refuse', () => {
    const doc = load(REQUIRED);
    doc.services.api.replica = 3;
    doc.services.worker.depends_on.migrate.condition = 'service_done';
    expect(validate(doc).length).toBeGreaterThanOrEqual(2);
  });

  it('runs N workers and N APIs behind one address, N from the environment', () => {
    const defaults = load(REQUIRED);
    expect(Number(defaults.services.api.deploy.replicas)).toBe(2);
    expect(Number(defaults.services.worker.deploy.replicas)).toBe(2);
    expect(defaults.services.api.ports).toBeUndefined();
    expect(defaults.services.lb.ports).toEqual(['3000:3000']);
    const scaled = load({ ...REQUIRED, ...OPTIONAL });
    expect(Number(scaled.services.api.deploy.replicas)).toBe(4);
    expect(Number(scaled.services.worker.deploy.replicas)).toBe(3);
    expect(scaled.services.lb.ports).toEqual(['8080:3000']);
    expect(scaled.services.temporal.environment).toMatchObject({ NUM_HISTORY_SHARDS: '16', POSTGRES_PWD: 'secret-pw' });
    expect(scaled.services.api.environment).toMatchObject({ DATABASE_URL: 'postgres://payments:secret-pw@postgres:5432/payments', API_BASE_URL: 'https://pay.example.com' });
  });

  it('runs interactive workers and background workers apart, the background ones at a lower CPU priority', () => {
    const defaults = load(REQUIRED);
    const interactive = loadConfig(defaults.services.worker.environment);
    const background = loadConfig(defaults.services['worker-background'].environment);
    expect([interactive.workerRole, background.workerRole]).toEqual(['interactive', 'background']);
    expect(background.backgroundTaskQueue).toBe(interactive.backgroundTaskQueue);
    expect(defaults.services['worker-background'].command).toEqual(['nice', '-n', '10', 'node', 'dist/src/entry/worker.js']);
    expect(defaults.services.worker.command).toEqual(['node', 'dist/src/entry/worker.js']);
    expect(defaults.services['worker-background'].healthcheck).toEqual(defaults.services.worker.healthcheck);
    expect(Number(defaults.services['worker-background'].deploy.replicas)).toBe(1);
    expect(Number(load({ ...REQUIRED, ...OPTIONAL }).services['worker-background'].deploy.replicas)).toBe(2);
  });

  it('has each API replica take the client IP from the lb in front of it, and from no one else', () => {
    // Every request reaches an API replica from Caddy's address on the compose network, never from
    // loopback: trusting loopback only, every customer had the lb's IP, and a production merchant's
    // per-IP velocity limit (30 an hour) refused the 31st wallet attempt of all its customers together.
    const { services } = load(REQUIRED);
    const config = loadConfig(services.api.environment);
    const trusts = express().set('trust proxy', config.trustProxy).get('trust proxy fn') as (address: string, hop: number) => boolean;
    for (const lb of ['172.18.0.7', '192.168.16.3', '10.0.3.9']) expect([lb, trusts(lb, 0)]).toEqual([lb, true]);
    expect(trusts('127.0.0.1', 0)).toBe(true);
    // A client's own address is never taken for a proxy (its X-Forwarded-For would name any IP it likes).
    for (const client of ['203.0.113.9', '8.8.8.8', '2001:db8::1']) expect([client, trusts(client, 0)]).toEqual([client, false]);
  });

  it('links the dashboard to the Temporal UI on the port compose publishes it on', () => {
    expect(loadConfig(load(REQUIRED).services.api.environment).temporalUiUrl).toBe('http://localhost:8233/namespaces/default/workflows/{id}');
    expect(loadConfig(load({ ...REQUIRED, ...OPTIONAL }).services.api.environment).temporalUiUrl).toBe('http://localhost:18233/namespaces/default/workflows/{id}');
  });

  it('keeps /metrics off the published address: the lb answers 404 for it, and proxies the rest', () => {
    // /metrics has no authentication (docs/observability.md): Prometheus scrapes each replica on the compose network.
    const caddyfile = readFileSync(path.join(ROOT, 'config/caddy/Caddyfile'), 'utf8');
    const directives = caddyfile.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
    expect(directives).toContain('respond /metrics* 404');
    expect(directives.indexOf('respond /metrics* 404')).toBeLessThan(directives.indexOf('reverse_proxy {'));
    expect(load(REQUIRED).services.lb.volumes).toContain('./config/caddy/Caddyfile:/etc/caddy/Caddyfile:ro');
  });

  it('gives an API replica time to answer its requests in flight when stopped, as the workers get', () => {
    // Docker's default 10 s is the hold handshake's timeout alone: a wallet attempt waiting on a slow
    // hold when the replica was stopped was killed, and the customer got a 502.
    const { services } = load(REQUIRED);
    const seconds = (value: string | undefined) => (value === undefined ? 10 : Number(/^(\d+)s$/.exec(value)![1]));
    expect(seconds(services.api.stop_grace_period) * 1000).toBeGreaterThanOrEqual(2 * WEBHOOK_TIMEOUT_MS);
    expect(seconds(services.worker.stop_grace_period) * 1000).toBeGreaterThanOrEqual(2 * WEBHOOK_TIMEOUT_MS);
  });

  it('uses Temporal\'s official server, admin-tools (schema) and UI images on PostgreSQL', () => {
    const { services } = load(REQUIRED);
    expect(services.temporal.image).toBe('temporalio/server:1.29.1');
    expect(services['temporal-schema'].image).toBe('temporalio/admin-tools:1.29.1');
    expect(services['temporal-ui'].image).toMatch(/^temporalio\/ui:/);
    expect(services.temporal.environment).toMatchObject({ DB: 'postgres12', POSTGRES_SEEDS: 'postgres' });
  });

  it('refuses to start without the required secrets', () => {
    expect(() => load({ DATA_ENCRYPTION_KEY: REQUIRED.DATA_ENCRYPTION_KEY, SMTP_URL: REQUIRED.SMTP_URL })).toThrow(/ADMIN_TOKEN/);
    expect(() => load({ ADMIN_TOKEN: REQUIRED.ADMIN_TOKEN, DATA_ENCRYPTION_KEY: '', SMTP_URL: REQUIRED.SMTP_URL })).toThrow(/DATA_ENCRYPTION_KEY/);
    expect(() => load({ ADMIN_TOKEN: REQUIRED.ADMIN_TOKEN, DATA_ENCRYPTION_KEY: REQUIRED.DATA_ENCRYPTION_KEY })).toThrow(/SMTP_URL/);
  });

  it('names only services that exist, mounts only files that exist, and documents every variable', () => {
    const { services, volumes = {} } = load(REQUIRED);
    for (const [name, service] of Object.entries(services)) {
      for (const dependency of Object.keys(service.depends_on ?? {})) expect([name, dependency in services]).toEqual([name, true]);
      for (const mount of (service.volumes ?? []) as string[]) {
        const source = mount.split(':')[0]!;
        if (source.startsWith('./')) expect([mount, existsSync(path.join(ROOT, source))]).toEqual([mount, true]);
        else expect([mount, source in volumes]).toEqual([mount, true]);
      }
    }
    const text = readFileSync(FILE, 'utf8');
    const header = text.slice(0, text.indexOf('\nname:'));
    const variables = new Set([...text.matchAll(/\$\{([A-Z_]+)/g)].map((m) => m[1]!));
    for (const variable of variables) expect([variable, header.includes(variable)]).toEqual([variable, true]);
  });

  it('interpolates like Compose', () => {
    expect(interpolate('$${X} ${A:-d} ${B-d} ${C:+r} $A', { A: '', B: '', C: 'c' })).toBe('${X} d  r ');
    expect(() => interpolate('${A?missing}', {})).toThrow('missing');
    expect(interpolate('${A?missing}', { A: '' })).toBe('');
  });
});
