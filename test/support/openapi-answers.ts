import { join } from 'node:path';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { openApiDocument } from '../../src/openapi';

/**
 * Every answer the in-process API gives a test is checked against the OpenAPI document it serves
 * (GET /api/v1/openapi.json): the status must be documented for the operation, the content type
 * must be one the document names, and a JSON body must match the documented schema. A mismatch is
 * recorded here and fails the test that got the answer (test/setup/openapi-answers.ts), so the
 * document cannot drift from what the routes answer.
 */

type Media = Record<string, { schema?: unknown }>;
type Operation = { responses?: Record<string, { content?: Media }> };
type Document = { paths: Record<string, Record<string, Operation>>; components?: { schemas?: Record<string, unknown> } };
interface DocumentedPath {
  path: string;
  pattern: RegExp;
  /** Fewer parameters first: `/customers/search` wins over `/customers/{id}`. */
  params: number;
}

/** The document's named schemas are added to ajv one by one, under this base, and references rewritten to it. */
const COMPONENTS = 'https://openapi.test/components/schemas/';
const LOCAL = '#/components/schemas/';

function withAbsoluteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withAbsoluteRefs);
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [key, key === '$ref' && typeof inner === 'string' && inner.startsWith(LOCAL) ? COMPONENTS + inner.slice(LOCAL.length) : withAbsoluteRefs(inner)]),
  );
}

class AnswerValidator {
  // Unoptimised code compiles several times faster, and a test's answers are few.
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false, code: { optimize: false } });
  private readonly paths: DocumentedPath[];
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly doc: Document) {
    addFormats(this.ajv);
    for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) this.ajv.addSchema(withAbsoluteRefs(schema) as object, COMPONENTS + name);
    this.paths = Object.keys(doc.paths)
      .map((path) => {
        const params = (path.match(/\{[^}]+\}/g) ?? []).length;
        const source = path.split(/\{[^}]+\}/).map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')).join('[^/]+');
        return { path, pattern: new RegExp(`^${source}$`), params };
      })
      .sort((a, b) => a.params - b.params);
  }

  /** Why the answer contradicts the document; null when it agrees, or when the path is not documented. */
  check(method: string, url: string, status: number, contentType: string | undefined, body: Buffer): string | null {
    let pathname: string;
    try {
      pathname = decodeURI(url.split('?')[0]!);
    } catch {
      return null; // a path no router decodes names no documented operation (the fuzz test sends such)
    }
    const documented = this.paths.find((p) => p.pattern.test(pathname));
    if (!documented) return null;
    const verb = method.toLowerCase();
    const operation = this.doc.paths[documented.path]![verb];
    const where = `${method} ${documented.path} answered ${status}`;
    // HEAD answers as GET; OPTIONS is a CORS preflight, not an operation, unless one is documented.
    if (!operation) return verb === 'head' || verb === 'options' ? null : `${where}: the document has no ${method} operation`;
    const response = operation.responses?.[String(status)] ?? operation.responses?.default;
    if (!response) return `${where}: status not documented (documented: ${Object.keys(operation.responses ?? {}).join(', ')})`;
    const media = response.content ?? {};
    if (Object.keys(media).length === 0 || body.length === 0) return null;
    const type = (contentType ?? '').split(';')[0]!.trim();
    if (!(type in media)) return `${where}: content type ${type || 'none'}, documented ${Object.keys(media).join(', ')}`;
    if (type !== 'application/json' || !media[type]!.schema) return null;
    const validate = this.validatorFor(`${verb} ${documented.path} ${status}`, media[type]!.schema);
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      return `${where}: the body is not JSON`;
    }
    if (validate(parsed)) return null;
    const errors = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
    return `${where}: ${errors.join('; ')}\n  body: ${body.toString('utf8').slice(0, 600)}`;
  }

  /** One validator per operation and status, compiled the first time an answer needs it. */
  private validatorFor(key: string, schema: unknown): ValidateFunction {
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile(withAbsoluteRefs(schema) as object);
      this.compiled.set(key, validate);
    }
    return validate;
  }
}

/** Where the mismatches of a run are listed (test/setup/openapi-answers.ts), emptied by the global setup. */
export const ANSWER_MISMATCH_REPORT = join(__dirname, '..', '..', 'test-results', 'openapi-answer-mismatches.txt');

let validator: AnswerValidator | undefined;
const mismatches: string[] = [];

/** The document as the global setup wrote it (OPENAPI_DOCUMENT_PATH), else generated here. */
function answerValidator(): AnswerValidator {
  const file = process.env.OPENAPI_DOCUMENT_PATH;
  validator ??= new AnswerValidator((file ? JSON.parse(readFileSync(file, 'utf8')) : openApiDocument('http://127.0.0.1')) as Document);
  return validator;
}

/** The mismatches recorded since the last call, emptied. */
export function takeAnswerMismatches(): string[] {
  return mismatches.splice(0, mismatches.length);
}

/**
 * Wraps a request listener so every answer is checked before it leaves: the body is collected as
 * it is written and validated when it ends, so the mismatch is recorded before the test reads it.
 */
export function checkingAnswers(listener: (req: IncomingMessage, res: ServerResponse) => void) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    const collect = (chunk: unknown, encoding?: unknown) => {
      if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
      chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8'));
    };
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
    res.write = ((...args: unknown[]) => {
      collect(args[0], args[1]);
      return write(...args);
    }) as typeof res.write;
    res.end = ((...args: unknown[]) => {
      collect(args[0], args[1]);
      const mismatch = answerValidator().check(req.method ?? 'GET', req.url ?? '/', res.statusCode, res.getHeader('content-type') as string | undefined, Buffer.concat(chunks));
      if (mismatch) mismatches.push(mismatch);
      return end(...args);
    }) as typeof res.end;
    listener(req, res);
  };
}
