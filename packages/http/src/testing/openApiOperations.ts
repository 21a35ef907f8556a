/**
 * The operations of an OpenAPI 3.1 document as tests need them: every method and path with its
 * parameters, request body and security, `$ref`s resolved. Testing only (`@parley/http/testing`):
 * the tenant-isolation property and the OpenAPI fuzz test enumerate the API's own `/openapi.json`
 * with it, so a new route is covered without anyone editing those tests.
 */

/** A JSON Schema node as the document holds it (refs resolved). */
export type Schema = Record<string, unknown>;

export interface OpenApiParameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  schema: Schema;
}

export interface OpenApiOperation {
  /** Upper case: GET, POST, … */
  method: string;
  /** The path template as documented: `/api/projects/{projectId}/agents/{name}`. */
  path: string;
  operationId: string | undefined;
  parameters: OpenApiParameter[];
  /** Names of the path parameters, in the order they appear in the path. */
  pathParams: string[];
  requestBody: { required: boolean; contentType: string; schema: Schema } | null;
  /** Security scheme names, one array per alternative; null when the operation declares none (public or signed). */
  security: string[][] | null;
  /** Documented statuses (`'200'`, `'4XX'`, `'default'`) to their response objects. */
  responses: Record<string, unknown>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;

/** Every operation of the document, in document order. */
export function listOperations(document: unknown): OpenApiOperation[] {
  const doc = resolveRefs(document) as { paths?: Record<string, Record<string, unknown>> };
  const operations: OpenApiOperation[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    const shared = (item.parameters as OpenApiParameter[] | undefined) ?? [];
    for (const method of METHODS) {
      const op = item[method] as Record<string, unknown> | undefined;
      if (op === undefined) continue;
      const parameters = mergeParameters(shared, (op.parameters as unknown[] | undefined) ?? []);
      operations.push({
        method: method.toUpperCase(),
        path,
        operationId: op.operationId as string | undefined,
        parameters,
        pathParams: pathParamsOf(path),
        requestBody: requestBodyOf(op.requestBody),
        security: securityOf(op.security),
        responses: (op.responses as Record<string, unknown> | undefined) ?? {},
      });
    }
  }
  return operations;
}

/** `{name}` segments of a path template, in order. */
export function pathParamsOf(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
}

/**
 * Where a path parameter sits: the literal segment before it and the parameter, e.g.
 * `agents/{name}` or `webhook-subscriptions/{id}`: the same parameter name means different
 * resources on different paths, and this is what tells them apart.
 */
export function paramContext(path: string, param: string): string {
  const segments = path.split('/');
  const at = segments.indexOf(`{${param}}`);
  const before = at > 0 ? segments[at - 1] : '';
  return `${before}/{${param}}`;
}

/** A path parameter the caller had no value for: tests fail on it instead of skipping the operation. */
export class UnfilledParameterError extends Error {
  constructor(
    readonly operation: string,
    readonly parameters: readonly string[],
  ) {
    super(`${operation}: no value for path parameter(s) ${parameters.join(', ')}`);
    this.name = 'UnfilledParameterError';
  }
}

/** The path with every parameter replaced (URI-encoded); UnfilledParameterError when one has no value. */
export function fillPath(
  operation: Pick<OpenApiOperation, 'method' | 'path'>,
  values: Record<string, string>,
): string {
  const missing = pathParamsOf(operation.path).filter((p) => values[p] === undefined);
  if (missing.length > 0) throw new UnfilledParameterError(`${operation.method} ${operation.path}`, missing);
  return operation.path.replace(/\{([^}]+)\}/g, (_, name: string) =>
    encodeURIComponent(values[name] as string),
  );
}

/**
 * The smallest value the schema accepts, built from it alone: `const`, the first `enum` value, the
 * `default`, else by type (required properties only, `minItems` items, `minimum`, `minLength`).
 * Good enough for bodies whose interesting fields the test sets itself; patterns are not solved.
 */
export function minimalValue(schema: Schema | undefined): unknown {
  if (schema === undefined) return {};
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if ('default' in schema) return schema.default;
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = schema[key] as Schema[] | undefined;
    if (options && options.length > 0) {
      const preferred = options.find((o) => o.type !== 'null') ?? options[0];
      return minimalValue(preferred);
    }
  }
  if (Array.isArray(schema.allOf)) {
    return Object.assign({}, ...(schema.allOf as Schema[]).map((s) => minimalValue(s) as object));
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'object':
      return minimalObject(schema);
    case 'array':
      return Array.from({ length: Number(schema.minItems ?? 0) }, () => minimalValue(schema.items as Schema));
    case 'string':
      return minimalString(schema);
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number'
        ? schema.minimum
        : typeof schema.exclusiveMinimum === 'number'
          ? schema.exclusiveMinimum + 1
          : 0;
    case 'boolean':
      return false;
    case 'null':
      return null;
    default:
      return schema.properties ? minimalObject(schema) : {};
  }
}

function minimalObject(schema: Schema): Record<string, unknown> {
  const properties = (schema.properties as Record<string, Schema> | undefined) ?? {};
  const required = (schema.required as string[] | undefined) ?? [];
  return Object.fromEntries(required.map((name) => [name, minimalValue(properties[name])]));
}

function minimalString(schema: Schema): string {
  switch (schema.format) {
    case 'uuid':
      return '00000000-0000-4000-8000-000000000000';
    case 'date-time':
      return '2026-01-01T00:00:00.000Z';
    case 'date':
      return '2026-01-01';
    case 'uri':
    case 'url':
      return 'https://example.com/';
    case 'email':
      return 'someone@example.com';
    default:
      return 'x'.repeat(Math.max(1, Number(schema.minLength ?? 1)));
  }
}

function mergeParameters(shared: readonly unknown[], own: readonly unknown[]): OpenApiParameter[] {
  const byKey = new Map<string, OpenApiParameter>();
  for (const raw of [...shared, ...own]) {
    const p = raw as Partial<OpenApiParameter> & { name: string; in: OpenApiParameter['in'] };
    byKey.set(`${p.in}:${p.name}`, {
      name: p.name,
      in: p.in,
      required: p.required === true || p.in === 'path',
      schema: (p.schema as Schema | undefined) ?? {},
    });
  }
  return [...byKey.values()];
}

function requestBodyOf(body: unknown): OpenApiOperation['requestBody'] {
  const content = (body as { content?: Record<string, { schema?: Schema }> } | undefined)?.content;
  if (content === undefined) return null;
  const [contentType, media] = Object.entries(content)[0] ?? [];
  if (contentType === undefined) return null;
  return {
    required: (body as { required?: boolean }).required === true,
    contentType,
    schema: media?.schema ?? {},
  };
}

function securityOf(security: unknown): string[][] | null {
  if (!Array.isArray(security) || security.length === 0) return null;
  return security.map((alternative) => Object.keys(alternative as object));
}

/** A copy of the document with every local `$ref` replaced by what it points to (cycles kept as refs). */
function resolveRefs(document: unknown): unknown {
  const visit = (node: unknown, seen: ReadonlySet<string>): unknown => {
    if (Array.isArray(node)) return node.map((n) => visit(n, seen));
    if (typeof node !== 'object' || node === null) return node;
    const ref = (node as { $ref?: unknown }).$ref;
    if (typeof ref === 'string' && ref.startsWith('#/') && !seen.has(ref)) {
      const target = pointer(document, ref.slice(1));
      if (target !== undefined) return visit(target, new Set([...seen, ref]));
    }
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, visit(v, seen)]));
  };
  return visit(document, new Set());
}

function pointer(document: unknown, path: string): unknown {
  let node: unknown = document;
  for (const raw of path.split('/').slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}
