import type { OpenApiOperation as Operation, OpenApiParameter as Parameter } from '@parley/http/testing';
import fc from 'fast-check';
import { type ArbitraryContext, type Schema, schemaArbitrary } from './schemaArbitrary.js';

/**
 * Test-only: requests for an operation of the OpenAPI document, generated from its schemas
 * (`validRequest`) or with one thing broken (`mutatedRequest`): a NUL byte, an unpaired surrogate,
 * an overlong value, a wrong type, a missing required field or a huge number, in a path parameter,
 * a query value or the body.
 */
export interface FuzzRequest {
  path: Record<string, string>;
  /** Query values, already percent-encoded (so a mutation can send bytes URLSearchParams would fix). */
  query: Array<[string, string]>;
  headers: Record<string, string>;
  /** The JSON (or form) body; undefined: none. */
  body: unknown;
  /** The body exactly as sent, when a mutation wrote it by hand (`1e999`). */
  rawBody?: string;
  /** The security scheme whose credential is sent. */
  scheme: string | undefined;
  /** What was broken, for messages. */
  mutation?: string;
}

const HEADER_TEXT = fc.string({ unit: fc.constantFrom(...'abcXYZ019-_=+/. '.split('')), maxLength: 40 });
const LONE_SURROGATES = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
/** Percent-encoded; a lone surrogate (which has no UTF-8) as U+FFFD, as a browser would send it. */
const encode = (value: string) => encodeURIComponent(value.replace(LONE_SURROGATES, '\ufffd'));

const asText = (value: unknown): string =>
  typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);

function paramArbitrary(parameter: Parameter, context: ArbitraryContext): fc.Arbitrary<unknown> {
  const random = schemaArbitrary(parameter.schema, context, 0, parameter.name);
  const [first, ...others] = context.known?.(parameter.name) ?? [];
  if (first === undefined) return random;
  // Mostly the seeded resources' ids (the first one most), so requests get past "not found" to what
  // comes after; other known values and random ones too.
  return fc.oneof(
    { arbitrary: fc.constant(first), weight: 4 },
    ...(others.length > 0 ? [{ arbitrary: fc.constantFrom(...others), weight: 1 }] : []),
    { arbitrary: random, weight: 1 },
  );
}

/** An optional parameter is left out two times in three: requests with every option set are rare. */
const sometimes = <T>(arbitrary: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: fc.constant(undefined), weight: 2 }, { arbitrary, weight: 1 });

function queryPairs(name: string, value: unknown): Array<[string, string]> {
  if (value === undefined) return [];
  if (Array.isArray(value)) return value.map((v) => [encode(name), encode(asText(v))]);
  return [[encode(name), encode(asText(value))]];
}

export function validRequest(operation: Operation, context: ArbitraryContext): fc.Arbitrary<FuzzRequest> {
  const part = (where: Parameter['in']) => {
    const record: Record<string, fc.Arbitrary<unknown>> = {};
    const required: string[] = [];
    for (const p of operation.parameters.filter((q) => q.in === where)) {
      // An empty path parameter is another URL (maybe another operation's): never generated.
      const value =
        where === 'header'
          ? HEADER_TEXT
          : where === 'path'
            ? paramArbitrary(p, context).filter((v) => asText(v) !== '')
            : paramArbitrary(p, context);
      record[p.name] = p.required ? value : sometimes(value);
      required.push(p.name);
    }
    return fc.record(record, { requiredKeys: required });
  };
  const body = operation.requestBody
    ? operation.requestBody.required
      ? schemaArbitrary(operation.requestBody.schema, context)
      : fc.option(schemaArbitrary(operation.requestBody.schema, context), { nil: undefined })
    : fc.constant(undefined);
  // One scheme of each alternative the operation takes (an alternative lists schemes sent together).
  const schemes = (operation.security ?? []).flatMap((alternative) => alternative.slice(0, 1));
  const scheme = schemes.length > 0 ? fc.constantFrom(...schemes) : fc.constant(undefined);
  return fc
    .record({ path: part('path'), query: part('query'), headers: part('header'), body, scheme })
    .map((r) => ({
      path: Object.fromEntries(Object.entries(r.path).map(([k, v]) => [k, asText(v)])),
      query: Object.entries(r.query).flatMap(([k, v]) => queryPairs(k, v)),
      headers: Object.fromEntries(Object.entries(r.headers).filter(([, v]) => v !== undefined)) as Record<
        string,
        string
      >,
      body: r.body,
      scheme: r.scheme,
    }));
}

const KINDS = ['nul', 'surrogate', 'overlong', 'wrongType', 'missing', 'hugeNumber', 'extremeDate'] as const;
type Kind = (typeof KINDS)[number];
const WRONG_VALUES: unknown[] = [12345, true, null, [], {}, 'text', -1, 1.5];
const HUGE = [
  '1e999',
  '-1e999',
  '123456789012345678901234567890',
  '1e-400',
  '9007199254740993',
  '1e308',
  '-1e308',
];
/** Dates a JavaScript Date holds and PostgreSQL's timestamp does not, and the edges of both. */
const EXTREME_DATES = [
  '+275760-09-13T00:00:00.000Z',
  '-271821-04-20T00:00:00.000Z',
  '0000-01-01T00:00:00Z',
  '9999-12-31T23:59:59.999Z',
  '1970-01-01T00:00:00Z',
  '2024-02-30T25:61:61Z',
];

/** Every place in a JSON value: a path of keys and indexes to a value, and whether it is required. */
function placesOf(value: unknown, schema: Schema | undefined, path: Array<string | number> = []) {
  const places: Array<{ path: Array<string | number>; value: unknown; required: boolean }> = [];
  const walk = (v: unknown, at: Array<string | number>, required: boolean) => {
    places.push({ path: at, value: v, required });
    if (Array.isArray(v)) {
      for (const [i, item] of v.entries()) walk(item, [...at, i], false);
    } else if (typeof v === 'object' && v !== null) {
      for (const [k, child] of Object.entries(v))
        walk(child, [...at, k], at.length === 0 && isRequired(schema, k));
    }
  };
  walk(value, path, false);
  return places.slice(1);
}

const isRequired = (schema: Schema | undefined, key: string) =>
  Array.isArray(schema?.required) && (schema.required as string[]).includes(key);

function setAt(root: unknown, path: Array<string | number>, value: unknown, remove = false): unknown {
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  const last = path[path.length - 1] as string | number;
  if (remove) {
    if (Array.isArray(node)) node.splice(Number(last), 1);
    else delete node[last];
  } else node[last] = value;
  return copy;
}

function mutateText(kind: Kind, text: string, pick: number): string | undefined {
  switch (kind) {
    case 'nul':
      return `${text.slice(0, pick % (text.length + 1))}\u0000${text.slice(pick % (text.length + 1))}`;
    case 'surrogate':
      return `${text}\ud800`;
    case 'overlong':
      return 'x'.repeat(pick % 2 === 0 ? 3_000 : 100_000);
    case 'extremeDate':
      return EXTREME_DATES[pick % EXTREME_DATES.length];
    default:
      return undefined;
  }
}

/** A body with one place broken; undefined when the kind does not apply to it. */
function mutateBody(
  request: FuzzRequest,
  operation: Operation,
  kind: Kind,
  pick: number,
): FuzzRequest | undefined {
  const body = request.body ?? {};
  const places = placesOf(body, operation.requestBody?.schema);
  if (kind === 'missing') {
    const required = places.filter((p) => p.required);
    const place = required[pick % Math.max(1, required.length)];
    return place && { ...request, body: setAt(body, place.path, undefined, true) };
  }
  if (places.length === 0) {
    return typeof body === 'object' && body !== null && !Array.isArray(body)
      ? mutateBody({ ...request, body: { ...body, extra: 'value' } }, operation, kind, pick)
      : undefined;
  }
  const place = places[pick % places.length]!;
  if (kind === 'wrongType')
    return { ...request, body: setAt(body, place.path, WRONG_VALUES[pick % WRONG_VALUES.length]) };
  if (kind === 'hugeNumber') {
    const marked = setAt(body, place.path, '\u0001HUGE\u0001');
    return {
      ...request,
      body: marked,
      rawBody: JSON.stringify(marked).replace('"\\u0001HUGE\\u0001"', HUGE[pick % HUGE.length]!),
    };
  }
  const text = typeof place.value === 'string' ? place.value : '';
  const mutated = mutateText(kind, text, pick);
  if (mutated === undefined) return undefined;
  // A key holding the text now and then: keys reach jsonb as well.
  if (pick % 5 === 0 && place.path.length > 0) {
    const parentPath = place.path.slice(0, -1);
    return { ...request, body: setAt(body, [...parentPath, `k${mutated.slice(0, 40)}`], 'v') };
  }
  return { ...request, body: setAt(body, place.path, mutated) };
}

/** A path or query value broken; `raw` percent-encoded bytes where a string cannot carry them. */
function mutateParam(kind: Kind, value: string, pick: number): { raw: string } | undefined {
  switch (kind) {
    case 'nul':
      return { raw: `${encode(value)}%00` };
    case 'surrogate':
      // An unpaired surrogate encoded as UTF-8 bytes is not UTF-8: what a client sending one puts on the wire.
      return { raw: `${encode(value)}%ED%A0%80` };
    case 'overlong':
      return { raw: 'x'.repeat(pick % 2 === 0 ? 2_049 : 300) };
    case 'hugeNumber':
      return { raw: HUGE[pick % HUGE.length]! };
    case 'extremeDate':
      return { raw: encode(EXTREME_DATES[pick % EXTREME_DATES.length]!) };
    case 'wrongType':
      return { raw: encode(['[]', '{}', 'true', '-1', ' ', '0'][pick % 6]!) };
    case 'missing':
      return undefined;
  }
}

export function mutatedRequest(operation: Operation, context: ArbitraryContext): fc.Arbitrary<FuzzRequest> {
  return fc
    .tuple(
      validRequest(operation, context),
      fc.constantFrom(...KINDS),
      fc.constantFrom('path', 'query', 'body'),
      fc.nat(),
    )
    .map(([request, kind, where, pick]) => {
      if (where === 'body' && operation.requestBody) {
        const mutated = mutateBody(request, operation, kind, pick);
        if (mutated) return { ...mutated, mutation: `body ${kind}` };
      }
      const names = operation.parameters.filter((p) => p.in === (where === 'query' ? 'query' : 'path'));
      const parameter = names[pick % Math.max(1, names.length)];
      if (parameter && kind === 'missing' && where === 'query') {
        return {
          ...request,
          query: request.query.filter(([n]) => n !== encode(parameter.name)),
          mutation: 'query missing',
        };
      }
      const target = parameter ?? { name: 'extra', in: 'query' as const };
      const current = target.in === 'path' ? (request.path[target.name] ?? '') : '';
      const broken = mutateParam(kind === 'missing' ? 'nul' : kind, current, pick);
      if (broken === undefined) return request;
      if (target.in === 'path') {
        return {
          ...request,
          path: { ...request.path, [target.name]: `\u0001raw:${broken.raw}` },
          mutation: `path ${kind}`,
        };
      }
      const rest = request.query.filter(([n]) => n !== encode(target.name));
      return { ...request, query: [...rest, [encode(target.name), broken.raw]], mutation: `query ${kind}` };
    });
}

/** The URL of a request: path parameters percent-encoded (or as a mutation wrote them), then the query. */
export function urlOf(operation: Operation, request: FuzzRequest): string {
  const path = operation.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = request.path[name] ?? '';
    return value.startsWith('\u0001raw:') ? value.slice('\u0001raw:'.length) : encode(value);
  });
  const query = request.query.map(([k, v]) => `${k}=${v}`).join('&');
  return query === '' ? path : `${path}?${query}`;
}

/** The body as sent: JSON, or an urlencoded form where the operation takes one. */
export function payloadOf(
  operation: Operation,
  request: FuzzRequest,
): { payload?: string; contentType?: string } {
  if (request.body === undefined && request.rawBody === undefined) return {};
  const mediaType = operation.requestBody?.contentType ?? 'application/json';
  if (mediaType === 'application/x-www-form-urlencoded') {
    const fields = typeof request.body === 'object' && request.body !== null ? request.body : {};
    const form = Object.entries(fields).map(([k, v]) => `${encode(k)}=${encode(asText(v))}`);
    return { payload: form.join('&'), contentType: mediaType };
  }
  return { payload: request.rawBody ?? JSON.stringify(request.body), contentType: 'application/json' };
}
