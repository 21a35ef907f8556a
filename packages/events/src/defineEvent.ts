import type { RecordedEvent } from '@parley/event-envelope';
import type { z } from 'zod';
import { InvalidEventDataError, issuesOf } from './errors.js';

/** The schema of one version of an event type's data: a JSON object. */
export type EventSchema = z.ZodType<Record<string, unknown>>;

export interface UpcastContext {
  /** The stored event being upcast (as read from the log, before any step). */
  readonly event: RecordedEvent;
  /** The version this step reads; it returns data of fromVersion + 1. */
  readonly fromVersion: number;
}

/** One step of an upcaster chain: data of version N to data of version N + 1. */
export type Upcaster = (data: Record<string, unknown>, context: UpcastContext) => Record<string, unknown>;

export interface EventDefinition<T extends string = string, S extends EventSchema = EventSchema> {
  readonly type: T;
  /** The current version: what toAppend writes and what parseEvent returns. */
  readonly schemaVersion: number;
  readonly schema: S;
  /** upcasters[i] turns data of version i + 1 into version i + 2; length is schemaVersion - 1. */
  readonly upcasters: readonly Upcaster[];
}

const TYPE_NAME = /^[A-Z][A-Za-z0-9]*$/;

export function defineEvent<const T extends string, S extends EventSchema>(definition: {
  type: T;
  schemaVersion: number;
  schema: S;
  upcasters?: readonly Upcaster[];
}): EventDefinition<T, S> {
  const { type, schemaVersion, schema, upcasters = [] } = definition;
  if (!TYPE_NAME.test(type)) throw new Error(`event type ${JSON.stringify(type)} must be PascalCase`);
  if (!Number.isInteger(schemaVersion) || schemaVersion < 1) {
    throw new Error(`${type}: schemaVersion must be an integer >= 1, got ${schemaVersion}`);
  }
  if (upcasters.length !== schemaVersion - 1) {
    throw new Error(
      `${type} v${schemaVersion} needs ${schemaVersion - 1} upcaster(s) (one per older version), got ${upcasters.length}`,
    );
  }
  return Object.freeze({ type, schemaVersion, schema, upcasters: Object.freeze([...upcasters]) });
}

/**
 * A typed upcaster step. It validates its input against the old version's schema and its output
 * against the next version's, so a broken stored event or a broken step is reported with the
 * version it broke at instead of as a puzzling error in the current schema.
 */
export function defineUpcaster<From extends EventSchema, To extends EventSchema>(step: {
  from: From;
  to: To;
  up: (data: z.output<From>, context: UpcastContext) => z.input<To>;
}): Upcaster {
  return (data, context) => {
    const { type, eventId } = context.event;
    const input = step.from.safeParse(data);
    if (!input.success) {
      throw new InvalidEventDataError(type, context.fromVersion, issuesOf(input.error), eventId);
    }
    const output = step.to.safeParse(step.up(input.data, context));
    if (!output.success) {
      throw new InvalidEventDataError(type, context.fromVersion + 1, issuesOf(output.error), eventId);
    }
    return output.data;
  };
}
