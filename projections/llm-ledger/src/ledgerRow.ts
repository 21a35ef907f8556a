import { canonicalChannel, canonicalSource, canonicalSourceSubtype } from '@parley/analytics';
import type { LlmCallRecordedData } from '@parley/events';
import type { RecordedEvent } from '@parley/eventstore';
import { llmCallRowValues } from './llmCallColumns.js';

/** What the ledger shows for a model or provider the call did not record (spec 000 §2.3). */
export const UNKNOWN = 'unknown';

/** Whether the prompt and response of a call can be read with dataMode=full. */
export const PAYLOAD_STATES = ['available', 'not_stored', 'too_large'] as const;
export type PayloadState = (typeof PAYLOAD_STATES)[number];

/**
 * A payload larger than this (serialised JSON, UTF-8 bytes) is not kept by the ledger: it could
 * never be served within the 1 MiB page cap, which must also hold the call's own fields and the
 * page envelope. The log still has it.
 */
export const PAYLOAD_LIMIT_BYTES = 960 * 1024;

/**
 * The composite id of a call: `<sessionId>:<callId>` for a call made in a session,
 * `<projectId>:<callId>` for a design-time call (stream `llm-<projectId>`).
 */
export function ledgerId(call: Pick<LlmCallRecordedData, 'sessionId' | 'projectId' | 'callId'>): string {
  return `${call.sessionId ?? call.projectId}:${call.callId}`;
}

/** The log spells development `dev`; the ledger API reports `development` (spec 000 §2.3). */
export function ledgerEnvironment(environment: string | undefined): string | null {
  if (environment === undefined) return null;
  return environment === 'dev' ? 'development' : environment;
}

// Both tables' handlers size the same payload object (callOf parses an event once): size it once.
const sizes = new WeakMap<object, number>();

export function payloadBytes(payload: LlmCallRecordedData['payload']): number {
  if (payload === undefined) return 0;
  let bytes = sizes.get(payload);
  if (bytes === undefined) {
    bytes = Buffer.byteLength(JSON.stringify(payload), 'utf8');
    sizes.set(payload, bytes);
  }
  return bytes;
}

export function payloadStateOf(
  payload: LlmCallRecordedData['payload'],
  bytes: number = payloadBytes(payload),
): PayloadState {
  if (payload === undefined) return 'not_stored';
  return bytes > PAYLOAD_LIMIT_BYTES ? 'too_large' : 'available';
}

/** The summary row of a call, in the columns of the `llm_ledger` table (see llmLedgerProjection). */
export function ledgerRow(call: LlmCallRecordedData, event: RecordedEvent) {
  const bytes = payloadBytes(call.payload);
  const state = payloadStateOf(call.payload, bytes);
  // The spread first: a literal that starts with one clones its source's shape in one step.
  return {
    ...llmCallRowValues(call, event.eventId),
    project_id: call.projectId,
    id: ledgerId(call),
    session_id: call.sessionId ?? null,
    model: call.model ?? UNKNOWN,
    provider: call.provider ?? UNKNOWN,
    environment: ledgerEnvironment(call.environment),
    channel: call.channel === undefined ? null : canonicalChannel(call.channel),
    // Older names become current ones, so that the filter's canonical names find every call.
    source: canonicalSource(call.source),
    source_subtype: canonicalSourceSubtype(call.sourceSubtype, call.source),
    source_id: call.sourceId ?? null,
    payload_state: state,
    payload_bytes: state === 'available' ? bytes : 0,
  };
}
