import { openApiDocument } from '../../src/openapi';

type Operation = { tags?: string[] };
type Doc = {
  tags: Array<{ name: string }>;
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, Record<string, Operation>>;
};

/**
 * Swagger UI groups operations by tag and lists every declared tag: a tag spelled one way on the
 * operations and another in the declarations shows as an empty group beside an undescribed one.
 */
describe('OpenAPI tags', () => {
  const doc = openApiDocument('http://localhost:3000') as unknown as Doc;
  const used = [...Object.values(doc.paths), ...Object.values(doc.webhooks)].flatMap((ops) => Object.values(ops).flatMap((op) => op.tags ?? []));
  const declared = doc.tags.map((t) => t.name);

  it('declares each tag once', () => {
    expect(declared.length).toBe(new Set(declared).size);
  });

  it('declares every tag an operation uses', () => {
    expect([...new Set(used.filter((tag) => !declared.includes(tag)))]).toEqual([]);
  });

  it('has no empty group: every declared tag names at least one operation', () => {
    expect(declared.filter((tag) => !used.includes(tag))).toEqual([]);
  });

  it('tags every operation', () => {
    const untagged = Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).filter(([, op]) => !op.tags?.length).map(([method]) => `${method} ${path}`));
    expect(untagged).toEqual([]);
  });
});
