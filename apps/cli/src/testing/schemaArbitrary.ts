import fc from 'fast-check';

/** A JSON schema as /openapi.json carries it (draft 2020-12 subset zod and the routes emit). */
export type Schema = Record<string, unknown>;

export interface ArbitraryContext {
  /** Resolves `#/components/schemas/X` (the document's shared schemas). */
  resolve(ref: string): Schema | undefined;
  /** Values for string fields by property name (ids of seeded resources), tried besides random ones. */
  known?: (name: string) => readonly string[] | undefined;
}

const MAX_DEPTH = 4;
const MAX_STRING = 40;
const MAX_ITEMS = 3;

/** Loopback only: a generated URL never sends anything (or asks DNS) beyond this machine. */
const LOOPBACK_URLS = ['https://127.0.0.1/hook', 'https://[::1]:8443/cb', 'http://127.0.0.1:9/x?y=1'];

const num = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);

function stringArbitrary(schema: Schema, name: string | undefined, context: ArbitraryContext) {
  const known = name === undefined ? undefined : context.known?.(name);
  const options: Array<fc.Arbitrary<string>> = [];
  if (known && known.length > 0) options.push(fc.constantFrom(...known));
  const format = schema.format;
  if (format === 'date-time' || format === 'date') {
    const date = fc.date({
      min: new Date('2000-01-01T00:00:00Z'),
      max: new Date('2100-01-01T00:00:00Z'),
      noInvalidDate: true,
    });
    options.push(date.map((d) => (format === 'date' ? d.toISOString().slice(0, 10) : d.toISOString())));
  } else if (format === 'uuid') options.push(fc.uuid());
  else if (format === 'email') options.push(fc.emailAddress());
  else if (format === 'uri' || format === 'url') options.push(fc.constantFrom(...LOOPBACK_URLS));
  else if (typeof schema.pattern === 'string') {
    const pattern = safeRegExp(schema.pattern);
    if (pattern) options.push(fc.stringMatching(pattern).filter((s) => s.length <= 512));
  }
  if (options.length === (known && known.length > 0 ? 1 : 0)) {
    const minLength = num(schema.minLength) ?? 0;
    const maxLength = Math.max(minLength, Math.min(num(schema.maxLength) ?? MAX_STRING, MAX_STRING));
    options.push(fc.string({ minLength, maxLength }));
  }
  return fc.oneof(...options);
}

function safeRegExp(pattern: string): RegExp | undefined {
  try {
    return new RegExp(pattern, 'u');
  } catch {
    try {
      return new RegExp(pattern);
    } catch {
      return undefined;
    }
  }
}

function numberArbitrary(schema: Schema, integer: boolean): fc.Arbitrary<number> {
  const exclusiveMin = num(schema.exclusiveMinimum);
  const exclusiveMax = num(schema.exclusiveMaximum);
  let min =
    num(schema.minimum) ?? (exclusiveMin === undefined ? undefined : exclusiveMin + (integer ? 1 : 1e-9));
  let max =
    num(schema.maximum) ?? (exclusiveMax === undefined ? undefined : exclusiveMax - (integer ? 1 : 1e-9));
  min ??= Math.min(-1_000, max ?? -1_000);
  max ??= Math.max(1_000, min);
  if (integer) {
    return fc.integer({
      min: Math.max(Math.ceil(min), Number.MIN_SAFE_INTEGER),
      max: Math.min(Math.floor(max), Number.MAX_SAFE_INTEGER),
    });
  }
  return fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
}

function objectArbitrary(schema: Schema, context: ArbitraryContext, depth: number): fc.Arbitrary<unknown> {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required ?? []) as string[]);
  const names = Object.keys(properties);
  if (names.length === 0) {
    const additional = schema.additionalProperties;
    if (additional === false) return fc.constant({});
    const values = typeof additional === 'object' && additional !== null ? (additional as Schema) : {};
    return fc.dictionary(
      fc.string({ minLength: 1, maxLength: 12 }),
      schemaArbitrary(values, context, depth + 1),
      { maxKeys: MAX_ITEMS },
    );
  }
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const name of names) record[name] = schemaArbitrary(properties[name] ?? {}, context, depth + 1, name);
  return fc.record(record, { requiredKeys: names.filter((n) => required.has(n)) });
}

/**
 * Values valid against a schema (as far as its keywords go: type, enum, const, formats, patterns,
 * lengths, bounds, required properties), small, so that requests stay cheap. `name` is the property
 * the value is for, to pick the world's known ids sometimes.
 */
export function schemaArbitrary(
  schema: Schema,
  context: ArbitraryContext,
  depth = 0,
  name?: string,
): fc.Arbitrary<unknown> {
  if (typeof schema.$ref === 'string') {
    const target = context.resolve(schema.$ref);
    return target === undefined ? fc.constant(null) : schemaArbitrary(target, context, depth, name);
  }
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum) && schema.enum.length > 0)
    return fc.constantFrom(...(schema.enum as unknown[]));
  const choices = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (Array.isArray(choices) && choices.length > 0) {
    return fc.oneof(...choices.map((choice) => schemaArbitrary(choice, context, depth, name)));
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
    return schemaArbitrary(Object.assign({}, ...(schema.allOf as Schema[])), context, depth, name);
  }
  const type = schema.type;
  if (Array.isArray(type)) {
    return fc.oneof(...type.map((t) => schemaArbitrary({ ...schema, type: t }, context, depth, name)));
  }
  if (depth > MAX_DEPTH) return fc.constant(type === 'array' ? [] : type === 'object' ? {} : null);
  switch (type) {
    case 'string':
      return stringArbitrary(schema, name, context);
    case 'integer':
      return numberArbitrary(schema, true);
    case 'number':
      return numberArbitrary(schema, false);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const minLength = num(schema.minItems) ?? 0;
      const maxLength = Math.max(minLength, Math.min(num(schema.maxItems) ?? MAX_ITEMS, MAX_ITEMS));
      return fc.array(schemaArbitrary((schema.items ?? {}) as Schema, context, depth + 1), {
        minLength,
        maxLength,
      });
    }
    case 'object':
      return objectArbitrary(schema, context, depth);
    default:
      // No type: anything JSON.
      return schema.properties ? objectArbitrary(schema, context, depth) : fc.jsonValue({ maxDepth: 2 });
  }
}

/** What the fuzz reads of /openapi.json beyond its operations: the shared schemas. */
export interface OpenApiDocument {
  paths: Record<string, Record<string, unknown>>;
  components?: { schemas?: Record<string, Schema> };
}

/** Resolves `#/components/schemas/X` of the document (listOperations leaves cyclic refs in place). */
export function resolverOf(document: OpenApiDocument): (ref: string) => Schema | undefined {
  return (ref) => {
    const match = /^#\/components\/schemas\/(.+)$/.exec(ref);
    return match?.[1] === undefined
      ? undefined
      : document.components?.schemas?.[decodeURIComponent(match[1])];
  };
}
