import { z } from 'zod';
import type { CallbackParams } from './signature.js';

/** Values of `RecordingStatus` in the provider's recording-status callback. */
export const RECORDING_CALLBACK_STATUSES = ['in-progress', 'completed', 'absent', 'failed'] as const;
export type RecordingCallbackStatus = (typeof RECORDING_CALLBACK_STATUSES)[number];

const sid = z.string().regex(/^[A-Za-z0-9_-]{1,128}$/);
const seconds = z
  .string()
  .regex(/^\d{1,9}$/)
  .transform(Number);

/**
 * The form body of a recording-status callback (Twilio names). Unknown parameters are ignored
 * (they are still covered by the signature). `RecordingUrl` has no extension: the files are
 * `<RecordingUrl>.wav`, with `RequestedChannels` for one side of a two-channel recording.
 */
export const recordingStatusCallbackSchema = z.object({
  AccountSid: sid,
  CallSid: sid,
  RecordingSid: sid,
  RecordingStatus: z.enum(RECORDING_CALLBACK_STATUSES),
  RecordingUrl: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .optional(),
  RecordingDuration: seconds.optional(),
  RecordingChannels: z.enum(['1', '2']).transform(Number).optional(),
  /** RFC 2822 date, e.g. `Wed, 23 Oct 2019 21:30:40 +0000`. */
  RecordingStartTime: z.string().max(64).optional(),
  ErrorCode: z.string().max(32).optional(),
});
export type RecordingStatusCallback = z.output<typeof recordingStatusCallbackSchema>;

/** The last value of each parameter, as an object (the form a schema parses). */
export function paramsObject(params: CallbackParams): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  for (const [key, value] of params) out[key] = value;
  return { ...out };
}

/** An ingest item (packages/ingest, kinds recording.*) the callback turns into. */
export interface RecordingIngestItem {
  id: string;
  type: 'recording.started' | 'recording.completed' | 'recording.failed';
  data: Record<string, unknown>;
}

/** The item-id prefix callbacks use; ingest items of clients should not start with it. */
export const TELEPHONY_ITEM_PREFIX = 'telephony:';

function parseStartTime(raw: string | undefined): Date | null {
  if (raw === undefined || raw.trim() === '') return null;
  const ms = Date.parse(raw);
  return Number.isFinite(ms) ? new Date(ms) : null;
}

/** Files of a completed recording: 2 channels → caller, agent, mixed; 1 channel → mixed only. */
export function callbackFiles(input: {
  recordingSid: string;
  recordingUrl: string;
  channels: number;
  start: Date | null;
  durationSeconds: number | undefined;
}): Array<Record<string, unknown>> {
  const base = input.recordingUrl.replace(/\.(wav|mp3)$/i, '');
  const times: Record<string, string> = {};
  if (input.start) {
    times.recordingStartTime = input.start.toISOString();
    if (input.durationSeconds !== undefined) {
      times.recordingEndTime = new Date(input.start.getTime() + input.durationSeconds * 1000).toISOString();
    }
  }
  const file = (objectIndex: number, channel: 'caller' | 'agent' | 'mixed', url: string) => ({
    objectIndex,
    fileName: `${input.recordingSid}-${channel}.wav`,
    channel,
    recordingType: 'audio',
    contentType: 'audio/wav',
    ...times,
    source: { kind: 'recording_server', url },
  });
  if (input.channels === 2) {
    return [
      file(0, 'caller', `${base}.wav?RequestedChannels=1`),
      file(1, 'agent', `${base}.wav?RequestedChannels=2`),
      file(2, 'mixed', `${base}.wav`),
    ];
  }
  return [file(0, 'mixed', `${base}.wav`)];
}

/**
 * The ingest items a recording-status callback stands for. The recording id is the provider's
 * RecordingSid and the call id its CallSid; item ids are derived from them, so a repeated
 * callback appends nothing new. `completed`, `absent` and `failed` also carry the started fact
 * (providers send `in-progress` only when asked to).
 */
export function recordingCallbackItems(input: {
  callback: RecordingStatusCallback;
  sessionId: string;
  receivedAt: Date;
}): RecordingIngestItem[] {
  const { callback: cb, sessionId, receivedAt } = input;
  const scope = { recordingId: cb.RecordingSid, sessionId, callId: cb.CallSid };
  const start = parseStartTime(cb.RecordingStartTime);
  const id = (what: string) => `${TELEPHONY_ITEM_PREFIX}${cb.RecordingSid}:${what}`;
  const started: RecordingIngestItem = {
    id: id('started'),
    type: 'recording.started',
    data: { ...scope, startedAt: (start ?? receivedAt).toISOString() },
  };
  switch (cb.RecordingStatus) {
    case 'in-progress':
      return [started];
    case 'completed': {
      if (cb.RecordingUrl === undefined) {
        // A completed recording without media: nothing can be fetched.
        return [started, failedItem(id('failed'), scope, 'RecordingUrl missing', receivedAt)];
      }
      const completed: RecordingIngestItem = {
        id: id('completed'),
        type: 'recording.completed',
        data: {
          ...scope,
          ...(cb.RecordingDuration === undefined ? {} : { durationSeconds: cb.RecordingDuration }),
          files: callbackFiles({
            recordingSid: cb.RecordingSid,
            recordingUrl: cb.RecordingUrl,
            channels: cb.RecordingChannels ?? 1,
            start,
            durationSeconds: cb.RecordingDuration,
          }),
          completedAt: receivedAt.toISOString(),
        },
      };
      return [started, completed];
    }
    case 'absent':
    case 'failed':
      return [
        started,
        failedItem(
          id('failed'),
          scope,
          cb.ErrorCode ? `${cb.RecordingStatus} (error ${cb.ErrorCode})` : cb.RecordingStatus,
          receivedAt,
        ),
      ];
  }
}

function failedItem(
  id: string,
  scope: { recordingId: string; sessionId: string; callId: string },
  detail: string,
  at: Date,
): RecordingIngestItem {
  return {
    id,
    type: 'recording.failed',
    data: { ...scope, reason: 'media_not_available', detail, failedAt: at.toISOString() },
  };
}
