import { eventCatalog } from '@parley/events';
import { z } from 'zod';
import { INGEST_ITEM_KINDS, type IngestItemKind, ingestDataSchemas } from './items.js';

/**
 * The shortcut of prepareItems for the usual item, which is valid: its data is checked once, by the
 * event schema (toAppend), instead of by the item schema and then again by the event schema. The
 * item schema of a kind is the event schema without the keys the server sets (the scope, the caller
 * number's key, a recording's expiry) plus keys only the item has (the raw caller number), so an
 * item whose data, less the server's keys, passes the event schema passes the item schema too and
 * becomes the same event. Anything the shortcut does not accept goes the two-schema way, which gives
 * every error its path and message exactly as before.
 */

export interface Envelope {
  id: string;
  type: IngestItemKind;
  data: Record<string, unknown>;
}

interface KindKeys {
  /** Keys of the event data that the server sets: an item's own values for them are dropped. */
  server: ReadonlySet<string>;
  /** Keys of the item's data that the event does not have (each checked by the item schema). */
  itemOnly: ReadonlyMap<string, z.ZodType>;
}

function keysOf(kind: IngestItemKind): KindKeys | undefined {
  const event = eventCatalog.definitions[INGEST_ITEM_KINDS[kind]].schema;
  const item = ingestDataSchemas[kind];
  if (!(event instanceof z.ZodObject)) return undefined;
  const eventShape = event.shape as Record<string, z.ZodType>;
  const itemShape = item.shape as Record<string, z.ZodType>;
  return {
    server: new Set(Object.keys(eventShape).filter((key) => !Object.hasOwn(itemShape, key))),
    itemOnly: new Map(Object.entries(itemShape).filter(([key]) => !Object.hasOwn(eventShape, key))),
  };
}

/** Per kind; absent for a kind whose event schema is not a plain object (it always goes the long way). */
const KIND_KEYS = new Map<IngestItemKind, KindKeys>(
  (Object.keys(INGEST_ITEM_KINDS) as IngestItemKind[]).flatMap((kind) => {
    const keys = keysOf(kind);
    return keys ? [[kind, keys] as const] : [];
  }),
);

const isPlainRecord = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
};

/**
 * The item's id, kind and data when the item schema surely accepts them as they are (a plain JSON
 * object with a string id of 1 to 256 characters, a known kind, and object data with string keys,
 * none of them `__proto__`); undefined otherwise, and the item schema decides.
 */
export function plainEnvelope(raw: unknown): Envelope | undefined {
  if (!isPlainRecord(raw)) return undefined;
  const { id, type, data } = raw;
  if (typeof id !== 'string' || id.length < 1 || id.length > 256) return undefined;
  if (typeof type !== 'string' || !Object.hasOwn(INGEST_ITEM_KINDS, type)) return undefined;
  if (!isPlainRecord(data)) return undefined;
  for (const key of Reflect.ownKeys(data)) {
    if (typeof key !== 'string' || key === '__proto__') return undefined;
  }
  return { id, type: type as IngestItemKind, data };
}

/**
 * The item's data without the keys the server sets and without the item-only keys, and the
 * item-only values (each valid by the item schema); undefined when an item-only value is not valid
 * or the kind has no shortcut.
 */
export function splitData(
  type: IngestItemKind,
  data: Record<string, unknown>,
): { fields: Record<string, unknown>; itemOnly: Record<string, unknown> } | undefined {
  const keys = KIND_KEYS.get(type);
  if (keys === undefined) return undefined;
  const fields: Record<string, unknown> = {};
  const itemOnly: Record<string, unknown> = {};
  for (const key of Object.keys(data)) {
    const schema = keys.itemOnly.get(key);
    if (schema !== undefined) {
      if (!schema.safeParse(data[key]).success) return undefined;
      itemOnly[key] = data[key];
    } else if (!keys.server.has(key)) fields[key] = data[key];
  }
  return { fields, itemOnly };
}
