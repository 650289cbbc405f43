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

  // A refund that answered 503 may have begun, and then completes by itself: every surface that
  // refunds says so, not only the shared "nothing was done".
  it('describes the refund under way in the 503 of every operation that refunds', () => {
    const refunds = Object.entries(doc.paths).filter(([path]) => path.endsWith('/refund'));
    expect(refunds.map(([path]) => path).sort()).toEqual(['/admin/v1/charges/{id}/refund', '/api/v1/charges/{id}/refund', '/merchant/v1/charges/{id}/refund']);
    for (const [, ops] of refunds) {
      const unavailable = (ops.post as { responses: Record<string, { description: string }> }).responses['503'];
      expect(unavailable.description).toMatch(/refund is under way: it was begun before the answer, completes by itself/);
    }
  });
});
