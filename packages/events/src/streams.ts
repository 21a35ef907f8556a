/**
 * Stream names (DESIGN.md "Streams and events"): `<kind>-<id>`. The kind is the part before the
 * first `-`, so ids may contain dashes (UUIDs do), and EventStoreDB's by-category projection
 * (`$ce-session`) groups them by kind.
 */

export const STREAM_KINDS = ['session', 'recording', 'llm', 'audit', 'httpasync', 'voicecall'] as const;
export type StreamKind = (typeof STREAM_KINDS)[number];

export interface StreamName {
  readonly kind: StreamKind;
  /**
   * sessionId, recordingId, projectId for `llm` and `audit`, messageId or deliveryId for `httpasync`,
   * the provider's call id for `voicecall`.
   */
  readonly id: string;
}

function streamName(kind: StreamKind, id: string): string {
  if (id.length === 0) throw new Error(`${kind} stream: the id must not be empty`);
  return `${kind}-${id}`;
}

/** Messages, trace events, LLM calls and lifecycle of one session. */
export const sessionStream = (sessionId: string): string => streamName('session', sessionId);
/** One call recording and its files. */
export const recordingStream = (recordingId: string): string => streamName('recording', recordingId);
/** LLM calls of a project made outside any session (design-time calls). */
export const llmStream = (projectId: string): string => streamName('llm', projectId);
/** Audit records of a project. */
export const auditStream = (projectId: string): string => streamName('audit', projectId);

/** HTTP async: one accepted message (by messageId) or one callback delivery (by deliveryId). */
export const httpAsyncStream = (id: string): string => streamName('httpasync', id);

/** A telephony call's lifecycle while it maps to no session (by the provider's call id). */
export const voiceCallStream = (callId: string): string => streamName('voicecall', callId);

/** Where an LlmCallRecorded goes: its session's stream, or the project's LLM stream. */
export const streamForLlmCall = (call: { sessionId?: string | undefined; projectId: string }): string =>
  call.sessionId === undefined ? llmStream(call.projectId) : sessionStream(call.sessionId);

const isStreamKind = (kind: string): kind is StreamKind => (STREAM_KINDS as readonly string[]).includes(kind);

/** The kind and id of a Parley stream name; null for any other stream (tests, system streams). */
export function parseStreamName(stream: string): StreamName | null {
  const dash = stream.indexOf('-');
  if (dash <= 0 || dash === stream.length - 1) return null;
  const kind = stream.slice(0, dash);
  return isStreamKind(kind) ? { kind, id: stream.slice(dash + 1) } : null;
}
