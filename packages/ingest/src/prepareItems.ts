import { hash } from 'node:crypto';
import {
  type EventType,
  InvalidEventDataError,
  recordingStream,
  sessionStream,
  streamForLlmCall,
  toAppendUnknown,
} from '@parley/events';
import type { EventToAppend } from '@parley/eventstore';
import { dottedPath, findUnstorableText, UNSTORABLE_TEXT_MESSAGE } from '@parley/platform';
import type { z } from 'zod';
import { INGEST_ITEM_KINDS, ingestDataSchemas, ingestItemSchema } from './items.js';
import { type Envelope, plainEnvelope, splitData } from './validateOnce.js';

export interface IngestScope {
  tenantId: string;
  projectId: string;
  /**
   * The project's recording retention (ProjectSettings.recording.retentionDays): a started
   * recording's retentionExpiresAt is its startedAt plus these days. Absent or null: kept until
   * deleted.
   */
  recordingRetentionDays?: number | null;
}

export interface ItemError {
  code: 'VALIDATION_ERROR' | 'DUPLICATE_ITEM_ID' | 'EVENT_ID_CONFLICT' | 'ID_IN_USE';
  message: string;
  /** Where the item is wrong; never the submitted values (they may be message text). */
  details: { issues: Array<{ path: string; message: string }> };
}

export type PreparedItem =
  | { index: number; id: string; ok: true; stream: string; event: EventToAppend }
  | { index: number; id: string | null; ok: false; error: ItemError };

/**
 * The event id of an item: a UUID derived from the project and the client's
 * item id, so that submitting the same item again appends nothing (the log's
 * idempotent event ids do the rest).
 */
export function deriveEventId(projectId: string, itemId: string): string {
  // Length-prefixed, so that no (project, item) pair can spell another one.
  const hex = hash('sha256', `${projectId.length}:${projectId}${itemId}`, 'hex');
  // RFC 9562 version 8 (custom) with the RFC variant bits.
  const variant = ((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const DAY_MS = 86_400_000;

/**
 * When a recording started at `startedAt` expires under a retention of `days` (whole or
 * fractional days; 0: expired from the start); null when there is no retention (absent, null,
 * negative or not a number).
 */
export function retentionExpiresAt(startedAt: string, days: number | null | undefined): string | null {
  if (typeof days !== 'number' || !Number.isFinite(days) || days < 0) return null;
  const start = Date.parse(startedAt);
  if (!Number.isFinite(start)) return null;
  const expires = start + days * DAY_MS;
  // Beyond what a Date holds: kept (in effect) forever.
  if (!Number.isFinite(expires) || Math.abs(expires) > 8.64e15) return null;
  return new Date(expires).toISOString();
}

const issuesOf = (error: z.ZodError, prefix: string) =>
  error.issues.map((issue) => ({
    path: [prefix, ...issue.path.map(String)].filter(Boolean).join('.'),
    message: issue.message,
  }));

const invalid = (index: number, id: string | null, issues: ItemError['details']['issues']): PreparedItem => ({
  index,
  id,
  ok: false,
  error: { code: 'VALIDATION_ERROR', message: 'the item is not a valid fact', details: { issues } },
});

function streamOf(type: EventType, data: Record<string, unknown>, projectId: string): string {
  if (type === 'LlmCallRecorded') {
    return streamForLlmCall({ projectId, sessionId: data.sessionId as string | undefined });
  }
  if (type.startsWith('Recording')) return recordingStream(data.recordingId as string);
  return sessionStream(data.sessionId as string);
}

/**
 * The event data of a valid item: its fields (the item's data less the caller number and the keys
 * the server sets) scoped to the key's project, with what the server derives.
 */
function scopedData(
  eventType: EventType,
  fields: Record<string, unknown>,
  callerNumber: unknown,
  scope: IngestScope,
  normaliseCallerNumber: (raw: string) => string,
): Record<string, unknown> {
  const eventData: Record<string, unknown> = { ...fields, projectId: scope.projectId };
  if (eventType === 'SessionStarted' || eventType === 'LlmCallRecorded' || eventType === 'RecordingStarted')
    eventData.tenantId = scope.tenantId;
  if (eventType === 'RecordingStarted') {
    const expiresAt = retentionExpiresAt(eventData.startedAt as string, scope.recordingRetentionDays);
    if (expiresAt !== null) eventData.retentionExpiresAt = expiresAt;
  }
  if (typeof callerNumber === 'string') {
    const key = normaliseCallerNumber(callerNumber);
    if (key.length > 0) eventData.callerNumberKey = key;
  }
  return eventData;
}

interface Context {
  scope: IngestScope;
  normaliseCallerNumber: (raw: string) => string;
  /** Item ids seen so far in the request. */
  seen: Set<string>;
  /** Whether a plain item's data may be checked once (eventOnce); false only in tests. */
  once: boolean;
}

/** The item's event, its data checked by the event schema (throws InvalidEventDataError). */
function itemEvent(
  eventType: (typeof INGEST_ITEM_KINDS)[keyof typeof INGEST_ITEM_KINDS],
  eventData: Record<string, unknown>,
  scope: IngestScope,
  itemId: string,
) {
  return toAppendUnknown(
    eventType,
    eventData,
    { tenantId: scope.tenantId, projectId: scope.projectId },
    deriveEventId(scope.projectId, itemId),
  );
}

/** The item's data checked by its kind's item schema, then the event built (and checked) by toAppend. */
function eventOf(index: number, item: Envelope, context: Context): PreparedItem {
  const { scope } = context;
  const parsed = ingestDataSchemas[item.type].safeParse(item.data);
  if (!parsed.success) return invalid(index, item.id, issuesOf(parsed.error, 'data'));
  const eventType = INGEST_ITEM_KINDS[item.type];
  const { callerNumber, ...rest } = parsed.data as Record<string, unknown> & { callerNumber?: string };
  const eventData = scopedData(eventType, rest, callerNumber, scope, context.normaliseCallerNumber);
  try {
    const event = itemEvent(eventType, eventData, scope, item.id);
    return { index, id: item.id, ok: true, stream: streamOf(eventType, eventData, scope.projectId), event };
  } catch (err) {
    if (!(err instanceof InvalidEventDataError)) throw err;
    return invalid(
      index,
      item.id,
      err.issues.map((issue) => ({
        path: ['data', ...issue.path.map(String)].join('.'),
        message: issue.message,
      })),
    );
  }
}

/**
 * The same event as eventOf, its data checked once (by toAppend; see ./validateOnce.ts); undefined
 * when that check fails, and eventOf then says why.
 */
function eventOnce(index: number, item: Envelope, context: Context): PreparedItem | undefined {
  const { scope } = context;
  const split = splitData(item.type, item.data);
  if (split === undefined) return undefined;
  const eventType = INGEST_ITEM_KINDS[item.type];
  const { callerNumber } = split.itemOnly;
  const eventData = scopedData(eventType, split.fields, callerNumber, scope, context.normaliseCallerNumber);
  try {
    const event = itemEvent(eventType, eventData, scope, item.id);
    return { index, id: item.id, ok: true, stream: streamOf(eventType, event.data, scope.projectId), event };
  } catch (err) {
    if (!(err instanceof InvalidEventDataError)) throw err;
    return undefined;
  }
}

function prepareItem(raw: unknown, index: number, context: Context): PreparedItem {
  const rawId = typeof (raw as { id?: unknown } | null)?.id === 'string' ? (raw as { id: string }).id : null;
  // Text PostgreSQL cannot store fails this item alone (the route leaves bodies to this check).
  const unstorable = findUnstorableText(raw);
  if (unstorable !== undefined) {
    const id = unstorable[0] === 'id' ? null : rawId;
    return invalid(index, id, [{ path: dottedPath(unstorable), message: UNSTORABLE_TEXT_MESSAGE }]);
  }
  const plain = plainEnvelope(raw);
  let item: Envelope;
  if (plain !== undefined) item = plain;
  else {
    const envelope = ingestItemSchema.safeParse(raw);
    if (!envelope.success) return invalid(index, rawId, issuesOf(envelope.error, ''));
    item = envelope.data;
  }
  if (context.seen.has(item.id)) {
    return {
      index,
      id: item.id,
      ok: false,
      error: {
        code: 'DUPLICATE_ITEM_ID',
        message: 'an earlier item of this request has the same id',
        details: { issues: [{ path: 'id', message: 'duplicate in this request' }] },
      },
    };
  }
  context.seen.add(item.id);
  return (
    (plain !== undefined && context.once ? eventOnce(index, item, context) : undefined) ??
    eventOf(index, item, context)
  );
}

/**
 * Validates each item on its own and turns the valid ones into events of the
 * catalog, scoped to the key's project. One bad item never rejects the others.
 */
export function prepareItems(
  items: readonly unknown[],
  scope: IngestScope,
  normaliseCallerNumber: (raw: string) => string,
): PreparedItem[] {
  return prepareAll(items, { scope, normaliseCallerNumber, seen: new Set(), once: true });
}

/** prepareItems checking every item's data twice (item schema, then event schema): the reference its tests compare with. */
export function prepareItemsCheckedTwice(
  items: readonly unknown[],
  scope: IngestScope,
  normaliseCallerNumber: (raw: string) => string,
): PreparedItem[] {
  return prepareAll(items, { scope, normaliseCallerNumber, seen: new Set(), once: false });
}

const prepareAll = (items: readonly unknown[], context: Context): PreparedItem[] =>
  items.map((raw, index) => prepareItem(raw, index, context));
