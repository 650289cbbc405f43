import { execFileSync } from 'node:child_process';
import path from 'node:path';

// The layer rules of .dependency-cruiser.cjs (npm run lint:deps), run on a small tree that breaks
// each of them once, so a rule that stopped matching (a renamed folder, a changed path pattern)
// fails here instead of letting the real tree decay quietly. The real tree is checked by lint.

const ROOT = path.resolve(__dirname, '../..');
const FIXTURE = path.join(ROOT, 'test/fixtures/layers');

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}

/**
 * dependency-cruiser is an ES module only, so its API runs in a child Node process, with the
 * project's own rules and options (the tsconfig aside: the fixture has none).
 */
function cruiseFixture(): Violation[] {
  const script = `
    import { cruise } from 'dependency-cruiser';
    import { createRequire } from 'node:module';
    const { forbidden, options } = createRequire(import.meta.url)(process.argv[1]);
    const { tsConfig, ...rest } = options;
    const result = await cruise(['src', 'workflows', 'activities'], { ...rest, validate: true, ruleSet: { forbidden } });
    process.stdout.write(JSON.stringify(result.output.summary.violations));
  `;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script, path.join(ROOT, '.dependency-cruiser.cjs')], { cwd: FIXTURE, encoding: 'utf8' });
  return JSON.parse(out) as Violation[];
}

describe('layer rules (dependency-cruiser)', () => {
  let violations: Violation[];
  beforeAll(() => {
    violations = cruiseFixture();
  }, 60_000);

  const found = (rule: string, from: string, to: RegExp) => violations.some((v) => v.rule.name === rule && v.from === from && to.test(v.to));

  it.each([
    ['express-only-in-request-layer', 'src/shop/service.ts', /node_modules\/(@types\/)?express\//],
    ['request-layer-not-to-storage', 'src/shop/routes.ts', /^src\/storage\/orders\.ts$/],
    ['request-layer-storage-handle-as-type-only', 'src/shop/routes.ts', /^src\/storage\/db\.ts$/],
    ['request-layer-not-to-temporal', 'src/shop/routes.ts', /node_modules\/@temporalio\/client\//],
    ['request-layer-not-to-temporal', 'src/shop/routes.ts', /^src\/temporal\/updates\.ts$/],
    ['sql-only-in-storage', 'src/shop/service.ts', /node_modules\/pg\//],
    ['storage-raises-domain-errors', 'src/storage/orders.ts', /^src\/http\/errors\.ts$/],
    ['storage-imports-down-only', 'src/storage/orders.ts', /^src\/http\/errors\.ts$/],
    ['src-not-to-activities', 'src/shop/routes.ts', /^activities\/orders\.ts$/],
    ['workflow-sandbox-no-node-builtins', 'workflows/order.ts', /^node:fs$|^fs$/],
    ['workflow-sandbox-no-io-packages', 'workflows/order.ts', /node_modules\/knex\//],
    ['workflow-sandbox-no-storage', 'workflows/order.ts', /^src\/storage\/db\.ts$/],
    ['workflow-sandbox-types-only', 'workflows/order.ts', /^activities\/orders\.ts$/],
    ['workflow-sandbox-types-only', 'workflows/order.ts', /^src\/http\/errors\.ts$/],
    ['features-not-to-dashboards', 'src/shop/receipts.ts', /^src\/dashboards\/kit\/page-title\.ts$/],
    ['identity-through-its-public-surface', 'src/shop/receipts.ts', /^src\/identity\/sessions\.ts$/],
  ])('%s: %s -> %s is reported', (rule, from, to) => {
    expect(found(rule, from, to)).toBe(true);
  });

  it('no-circular: the cycle of src/shop/service.ts and cycle-b.ts is reported', () => {
    const cycle = violations.filter((v) => v.rule.name === 'no-circular').map((v) => [v.from, v.to].sort().join(' '));
    expect(cycle).toContain('src/shop/cycle-b.ts src/shop/service.ts');
  });

  it('allows what the layers allow: storage using knex, a route handing the Db type on, identity through its index', () => {
    expect(violations.filter((v) => v.from === 'src/storage/orders.ts' && /knex/.test(v.to))).toEqual([]);
    expect(violations.filter((v) => v.from === 'src/storage/db.ts')).toEqual([]);
    expect(violations.filter((v) => v.to === 'src/identity/index.ts' || v.from.startsWith('src/identity/'))).toEqual([]);
  });
});
