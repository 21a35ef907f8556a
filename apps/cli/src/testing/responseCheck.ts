import { createRequire } from 'node:module';
import type { OpenApiOperation as Operation } from '@parley/http/testing';
import type { OpenApiDocument } from './schemaArbitrary.js';

type Responses = Record<string, { content?: Record<string, { schema?: unknown }> } | undefined>;

// ajv (Fastify's own validator) with the 2020-12 dialect OpenAPI 3.1 uses, and its formats.
const require = createRequire(import.meta.url);
const Ajv2020 = require('ajv/dist/2020').default as new (
  options: object,
) => {
  addSchema(schema: object, key: string): void;
  addFormat(name: string, format: boolean): void;
  compile(schema: object): ((data: unknown) => boolean) & { errors?: unknown[] | null };
};
const addFormats = require('ajv-formats').default as (ajv: object) => void;

export interface Answer {
  status: number;
  contentType: string | undefined;
  body: string;
}

/** The media type of a Content-Type header, lower-cased, without parameters. */
const mediaTypeOf = (header: string | undefined) => (header ?? '').split(';')[0]!.trim().toLowerCase();

/** Whether a documented media range (`text/csv`, `audio/*`, `*\/*`) covers a media type. */
function covers(range: string, mediaType: string): boolean {
  if (range === '*/*' || range === mediaType) return true;
  return range.endsWith('/*') && mediaType.startsWith(range.slice(0, -1));
}

const pointer = (...segments: string[]) =>
  `#/${segments.map((s) => encodeURIComponent(s.replaceAll('~', '~0').replaceAll('/', '~1'))).join('/')}`;

/**
 * Checks answers against the document: the status is documented (or a 503 the operation says it
 * may give), the Content-Type is one documented for it, a JSON body validates against the
 * documented schema, and no answer is a 5xx but a documented 503. Returns what is wrong (empty:
 * nothing).
 */
export function createResponseChecker(document: OpenApiDocument) {
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateSchema: false });
  addFormats(ajv);
  ajv.addFormat('binary', true);
  ajv.addFormat('media-range', true);
  ajv.addSchema(document as object, 'openapi');
  const validators = new Map<string, ReturnType<typeof ajv.compile>>();
  const validatorOf = (operation: Operation, status: string, mediaType: string) => {
    const ref = `openapi${pointer('paths', operation.path, operation.method.toLowerCase(), 'responses', status, 'content', mediaType, 'schema')}`;
    let validate = validators.get(ref);
    if (validate === undefined) {
      validate = ajv.compile({ $ref: ref });
      validators.set(ref, validate);
    }
    return validate;
  };

  return function check(operation: Operation, answer: Answer): string[] {
    const problems: string[] = [];
    const status = String(answer.status);
    if (answer.status >= 500 && answer.status !== 503) problems.push(`answered ${status}`);
    const responses = operation.responses as Responses;
    const documented = responses[status] ?? responses[`${status[0]}XX`] ?? responses.default;
    if (documented === undefined) {
      problems.push(`status ${status} is not documented (${Object.keys(responses).join(', ')})`);
      return problems;
    }
    const content = documented.content ?? {};
    const mediaType = mediaTypeOf(answer.contentType);
    if (Object.keys(content).length === 0) {
      if (answer.body.length > 0) problems.push(`status ${status} documents no body, got ${mediaType}`);
      return problems;
    }
    const range = Object.keys(content).find((r) => covers(r, mediaType));
    if (range === undefined) {
      problems.push(
        `content type ${mediaType || '(none)'} is not documented for ${status}: ${Object.keys(content).join(', ')}`,
      );
      return problems;
    }
    if (mediaType !== 'application/json' || content[range]?.schema === undefined) return problems;
    let body: unknown;
    try {
      body = JSON.parse(answer.body);
    } catch {
      problems.push(`status ${status}: the body is not JSON`);
      return problems;
    }
    const validate = validatorOf(operation, status, range);
    if (!validate(body)) {
      problems.push(
        `status ${status}: body does not match its schema: ${JSON.stringify(validate.errors).slice(0, 600)}`,
      );
    }
    const code = (body as { error?: { code?: unknown } } | null)?.error?.code;
    if (typeof code === 'string' && !/^[A-Z][A-Z0-9_]*$/.test(code))
      problems.push(`error code ${code} is not upper snake case`);
    return problems;
  };
}
