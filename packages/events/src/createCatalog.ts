import { randomUUID } from 'node:crypto';
import type { EventMetadata, EventToAppend, RecordedEvent, Upcast } from '@parley/event-envelope';
import { z } from 'zod';
import type { EventDefinition } from './defineEvent.js';
import {
  type EventIssue,
  InvalidEventDataError,
  issuesOf,
  UnknownEventTypeError,
  UnsupportedSchemaVersionError,
} from './errors.js';
import { compileFastParser, type FastParser, UNSURE } from './fastParse.js';

/** An event of a type the catalog knows, upcast to the current version and validated. */
export type KnownEvent<D extends EventDefinition> =
  D extends EventDefinition<infer T, infer S>
    ? {
        readonly known: true;
        readonly type: T;
        readonly schemaVersion: number;
        readonly data: z.output<S>;
        /** The stored event after upcasting (eventId, stream, position, metadata, recordedAt). */
        readonly recorded: RecordedEvent;
      }
    : never;

/**
 * An event of a type this build does not know (written by newer code, or by tests). Projections
 * ignore it; nothing about its data is checked.
 */
export interface UnknownEvent {
  readonly known: false;
  readonly type: string;
  readonly schemaVersion: number;
  readonly data: Record<string, unknown>;
  readonly recorded: RecordedEvent;
}

export type ParsedEvent<D extends EventDefinition> = KnownEvent<D> | UnknownEvent;

type DefinitionOf<D extends EventDefinition, T extends D['type']> = Extract<D, { readonly type: T }>;

export type EventInput<D extends EventDefinition, T extends D['type']> = z.input<
  DefinitionOf<D, T>['schema']
>;

export interface EventCatalog<D extends EventDefinition> {
  readonly definitions: { readonly [T in D['type']]: DefinitionOf<D, T> };
  readonly eventTypes: readonly D['type'][];
  isKnownType(type: string): type is D['type'];
  /** Stored version to current version; unknown types and current events are returned as they are. */
  readonly upcast: Upcast;
  /** Upcasts, then validates. Throws InvalidEventDataError or UnsupportedSchemaVersionError. */
  parseEvent(recorded: RecordedEvent): ParsedEvent<D>;
  /**
   * Validates and builds the event to append, at the current schemaVersion. `tenantId` and
   * `projectId` missing from the metadata are copied from the data (NATS subjects and log filters
   * use them); metadata that names another tenant or project than the data is refused.
   */
  toAppend<T extends D['type']>(
    type: T,
    data: EventInput<D, T>,
    metadata?: EventMetadata,
    eventId?: string,
  ): EventToAppend;
  /**
   * toAppend for a type and data known only at run time (what ingest receives): the same checks,
   * UnknownEventTypeError for a type the catalog does not define.
   */
  toAppendUnknown(type: string, data: unknown, metadata?: EventMetadata, eventId?: string): EventToAppend;
}

const uuidSchema = z.guid();
const SCOPE_KEYS = ['tenantId', 'projectId'] as const;

function scopedMetadata(
  metadata: EventMetadata,
  data: Record<string, unknown>,
): [EventMetadata, EventIssue[]] {
  const scoped: EventMetadata = { ...metadata };
  const issues: EventIssue[] = [];
  for (const key of SCOPE_KEYS) {
    const fromData = data[key];
    if (typeof fromData !== 'string') continue;
    if (scoped[key] === undefined) scoped[key] = fromData;
    else if (scoped[key] !== fromData) {
      issues.push({ code: 'custom', path: ['metadata', key], message: `differs from data.${key}` });
    }
  }
  return [scoped, issues];
}

export function createCatalog<const Defs extends readonly EventDefinition[]>(
  definitions: Defs,
): EventCatalog<Defs[number]> {
  type D = Defs[number];
  const byType = new Map<string, EventDefinition>();
  for (const definition of definitions) {
    if (byType.has(definition.type)) throw new Error(`event type ${definition.type} is defined twice`);
    byType.set(definition.type, definition);
  }

  // Compiled on first use: most processes parse a few types only.
  const fastParsers = new Map<EventDefinition, FastParser>();
  const fastParserOf = (definition: EventDefinition): FastParser => {
    let parser = fastParsers.get(definition);
    if (!parser) {
      parser = compileFastParser(definition.schema);
      fastParsers.set(definition, parser);
    }
    return parser;
  };

  const upcast: Upcast = (event) => {
    const definition = byType.get(event.type);
    if (definition === undefined || event.schemaVersion === definition.schemaVersion) return event;
    const stored = event.schemaVersion;
    if (!Number.isInteger(stored) || stored < 1 || stored > definition.schemaVersion) {
      throw new UnsupportedSchemaVersionError(event.type, stored, definition.schemaVersion, event.eventId);
    }
    let data = event.data;
    for (let version = stored; version < definition.schemaVersion; version++) {
      data = definition.upcasters[version - 1]!(data, { event, fromVersion: version });
    }
    return { ...event, schemaVersion: definition.schemaVersion, data };
  };

  const toAppendUnknown = (
    type: string,
    data: unknown,
    metadata: EventMetadata = {},
    eventId: string = randomUUID(),
  ): EventToAppend => {
    const definition = byType.get(type);
    if (definition === undefined) throw new UnknownEventTypeError(type);
    if (!uuidSchema.safeParse(eventId).success) {
      throw new Error(`${type}: eventId must be a UUID, got ${JSON.stringify(eventId)}`);
    }
    const result = definition.schema.safeParse(data);
    if (!result.success) {
      throw new InvalidEventDataError(type, definition.schemaVersion, issuesOf(result.error));
    }
    const [scoped, issues] = scopedMetadata(metadata, result.data);
    if (issues.length > 0) throw new InvalidEventDataError(type, definition.schemaVersion, issues);
    return { eventId, type, schemaVersion: definition.schemaVersion, data: result.data, metadata: scoped };
  };

  return {
    definitions: Object.freeze(Object.fromEntries(byType)) as EventCatalog<D>['definitions'],
    eventTypes: Object.freeze([...byType.keys()]) as readonly D['type'][],
    isKnownType: (type): type is D['type'] => byType.has(type),
    upcast,

    parseEvent(recorded) {
      const definition = byType.get(recorded.type);
      if (definition === undefined) {
        const { type, schemaVersion, data } = recorded;
        return { known: false, type, schemaVersion, data, recorded };
      }
      const current = upcast(recorded);
      // The fast path returns zod's own result or UNSURE (fastParse.ts); zod judges the rest.
      let data = fastParserOf(definition)(current.data);
      if (data === UNSURE) {
        const result = definition.schema.safeParse(current.data);
        if (!result.success) {
          throw new InvalidEventDataError(
            recorded.type,
            current.schemaVersion,
            issuesOf(result.error),
            recorded.eventId,
          );
        }
        data = result.data;
      }
      const parsed = {
        known: true,
        type: recorded.type,
        schemaVersion: current.schemaVersion,
        data,
        recorded: current,
      };
      return parsed as KnownEvent<D>;
    },

    toAppend: toAppendUnknown,
    toAppendUnknown,
  };
}
