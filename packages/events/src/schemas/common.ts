import { z } from 'zod';

/**
 * The spec's vocabulary, shared by the event schemas. Conventions for every event:
 * - an optional field is absent when unknown, never null (the read models turn absence into the
 *   spec's `null`);
 * - timestamps are ISO 8601 strings (the log stores JSON), named after what happened (`startedAt`);
 * - identifiers are opaque non-empty strings.
 */

export const idSchema = z.string().min(1).max(256);
export const timestampSchema = z.iso.datetime({ offset: true });
export const countSchema = z.int().nonnegative();
export const durationMsSchema = z.int().nonnegative();
export const amountSchema = z.number().nonnegative();

/** Opaque structured JSON (channel metadata, ACTION_SET output, prompts). `__proto__` keys are dropped. */
/**
 * Free-form objects refuse a `__proto__` key: zod's record parsing skips that key, so its value
 * would vanish without an error (and a plain object cannot hold it safely anyway). Refusing it
 * means no data is lost silently.
 */
// Typed as the wrapped schema so that the data's input type stays precise (preprocess would make it
// `unknown`); only parse and inference are used on these schemas.
const refuseProtoKey = <T extends z.ZodType>(schema: T): T =>
  z.preprocess((value, ctx) => {
    if (
      typeof value === 'object' &&
      value !== null &&
      !Array.isArray(value) &&
      Object.hasOwn(value, '__proto__')
    ) {
      ctx.addIssue({ code: 'custom', message: 'the key "__proto__" is not allowed' });
    }
    return value;
  }, schema) as unknown as T;

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** The rule itself: any JSON value (finite numbers only), with the key rule above at every depth (exported for its test). */
export const exactJsonValueSchema: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([
    z.string(),
    z.number(),
    z.boolean(),
    z.null(),
    z.array(exactJsonValueSchema),
    refuseProtoKey(z.record(z.string(), exactJsonValueSchema)),
  ]),
);

/** Deeper than this (or a cycle), plainJsonCopy leaves the value to the exact schema. */
const FAST_DEPTH = 64;

/**
 * A copy of `value` when it is plainly JSON (strings, finite numbers, booleans, null, arrays and
 * plain objects with enumerable string keys other than `__proto__`, at most FAST_DEPTH deep), as the
 * exact schema would return it; undefined for anything else, which the exact schema then judges.
 */
export function plainJsonCopy(value: unknown, depth: number): JsonValue | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : undefined;
    case 'object':
      break;
    default:
      return undefined;
  }
  if (value === null) return null;
  if (depth >= FAST_DEPTH) return undefined;
  if (Array.isArray(value)) {
    const out: JsonValue[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) {
      const item = plainJsonCopy(value[i], depth + 1);
      if (item === undefined) return undefined;
      out[i] = item;
    }
    return out;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return undefined;
  if (Object.getOwnPropertySymbols(value).length > 0) return undefined;
  const out: Record<string, JsonValue> = {};
  for (const key of Object.keys(value)) {
    if (key === '__proto__') return undefined;
    const item = plainJsonCopy((value as Record<string, unknown>)[key], depth + 1);
    if (item === undefined) return undefined;
    out[key] = item;
  }
  return out;
}

/**
 * Any JSON value (finite numbers only), with the key rule above at every depth. Plain JSON, the
 * common case, is checked and copied in one walk; anything else goes through the exact schema,
 * which gives the same result and the same issues as before. The zod union tried each type in
 * turn at every node: an LLM call's payload (its prompt's messages) took about 0.4 ms per chat turn
 * (issue 21).
 */
export const jsonValueSchema: z.ZodType<JsonValue> = z.unknown().transform((value, ctx) => {
  const copy = plainJsonCopy(value, 0);
  if (copy !== undefined) return copy;
  const exact = exactJsonValueSchema.safeParse(value);
  if (exact.success) return exact.data;
  for (const issue of exact.error.issues) ctx.addIssue({ ...issue } as never);
  return z.NEVER;
}) as unknown as z.ZodType<JsonValue>;

export const jsonObjectSchema = refuseProtoKey(z.record(z.string(), jsonValueSchema));

/** Custom string dimensions (name to value), e.g. traceDimensions. */
export const dimensionsSchema = refuseProtoKey(z.record(z.string().min(1), z.string()));

/**
 * Environments (spec 000 §4.2). The log spells development `dev`, like the session list filter and
 * SDK channels (spec 001 §2.4); the LLM ledger reports it as `development` (spec 000 §2.3), which is
 * its projector's mapping, not a second spelling in the log.
 */
export const ENVIRONMENTS = ['dev', 'staging', 'production', 'working-copy'] as const;
export const environmentSchema = z.enum(ENVIRONMENTS);
export type Environment = z.infer<typeof environmentSchema>;

/** Channel of origin (spec 000 §4.2): open-ended, at most 128 characters. */
export const channelSchema = z.string().min(1).max(128);

/** Session states (spec 000 §3); `failed` is stored but never accepted as a list filter. */
export const SESSION_STATES = [
  'active',
  'idle',
  'ended',
  'completed',
  'escalated',
  'abandoned',
  'archived',
  'failed',
] as const;
export type SessionState = (typeof SESSION_STATES)[number];

/** The states a session can end in (what SessionEnded records). */
export const SESSION_END_STATES = [
  'ended',
  'completed',
  'escalated',
  'abandoned',
  'failed',
] as const satisfies readonly SessionState[];
export const sessionEndStateSchema = z.enum(SESSION_END_STATES);

/** Containment types (spec 000 §3). */
export const CONTAINMENT_TYPES = [
  'contained',
  'contained_resolved',
  'contained_partial',
  'contained_unresolved',
  'escalated',
  'abandoned',
] as const;
export const containmentTypeSchema = z.enum(CONTAINMENT_TYPES);
export type ContainmentType = z.infer<typeof containmentTypeSchema>;

/** Trace event types (spec 001 §2.6). */
export const TRACE_EVENT_TYPES = [
  'llm_call',
  'tool_call',
  'tool_result',
  'decision',
  'handoff',
  'guardrail_eval',
  'state_change',
  'error',
  'response',
] as const;
export const traceEventTypeSchema = z.enum(TRACE_EVENT_TYPES);
export type TraceEventType = z.infer<typeof traceEventTypeSchema>;

/** Who did something (audit records, deletions, legal holds). `id` never holds a secret. */
export const PRINCIPAL_KINDS = ['api_key', 'user', 'media_token', 'system'] as const;
export const principalSchema = z.object({
  kind: z.enum(PRINCIPAL_KINDS),
  /** Key id, user id, media token id or service name; never the key or token itself. */
  id: idSchema,
});
export type Principal = z.infer<typeof principalSchema>;
