import { AVAILABILITIES, UNAVAILABLE_REASONS, URL_KINDS } from '@parley/recordings';
import { z } from 'zod';

/**
 * The shapes of the recordings API (spec 000 §2.1, §4.1), for /openapi.json. The route uses
 * `validation: 'document'` and checks sessionId and disposition itself, after the tenant gate,
 * so that it answers the spec's own codes (INVALID_SESSION_ID, INVALID_PUBLIC_RECORDING_REQUEST).
 */

export const MAX_SESSION_ID_LENGTH = 256;
export const DISPOSITIONS = ['inline', 'attachment'] as const;
export type Disposition = (typeof DISPOSITIONS)[number];

export const recordingsParams = z.object({
  projectId: z.string().min(1).describe('Project id (not the slug); the API key must be bound to it.'),
  sessionId: z
    .string()
    .min(1)
    .max(MAX_SESSION_ID_LENGTH)
    .describe(
      'The session; the only lookup key. Empty or longer than 256 characters: 400 INVALID_SESSION_ID.',
    ),
});

export const recordingsQuery = z.object({
  disposition: z
    .enum(DISPOSITIONS)
    .default('attachment')
    .describe(
      'Content-Disposition of the media response, built into each issued URL: `attachment` downloads, `inline` plays in a browser. Anything else: 400 INVALID_PUBLIC_RECORDING_REQUEST.',
    ),
});

const reason = z.enum(UNAVAILABLE_REASONS).nullable();
const isoTimestamp = z.iso.datetime({ offset: true });

export const recordingFileShape = z
  .object({
    recordingId: z.string().describe('Owning recording.'),
    objectIndex: z.int().min(0).describe('Position of the file inside the recording.'),
    fileName: z.string().nullable(),
    channel: z
      .enum(['caller', 'agent', 'mixed'])
      .nullable()
      .describe('Which side of the call the file holds.'),
    recordingType: z.string().nullable(),
    bytes: z.int().min(0).describe('0 when the file is unavailable.'),
    recordingStartTime: isoTimestamp.nullable(),
    recordingEndTime: isoTimestamp.nullable(),
    availability: z.enum(AVAILABILITIES),
    url: z
      .string()
      .nullable()
      .describe(
        'Media URL, a bearer secret; null when none was issued. signed: absolute pre-signed object-storage URL; proxied: a path on the API host, to use exactly as returned with no authentication header; external: a customer-owned URL.',
      ),
    urlKind: z.enum(URL_KINDS).nullable().describe('null when url is null.'),
    expiresIn: z
      .int()
      .min(1)
      .nullable()
      .describe('Seconds until the URL expires; null for external URLs and when url is null; never 0.'),
    unavailableReason: reason.describe('null when url is set.'),
    retryable: z.boolean().describe('True only when a later call can produce a URL for this file.'),
  })
  .strict();

export const recordingShape = z
  .object({
    recordingId: z.string(),
    callId: z.string().describe('Telephony call identifier.'),
    availability: z.enum(AVAILABILITIES),
    unavailableReason: reason.describe(
      'The first file-level reason when no file of this recording is available.',
    ),
    retryable: z.boolean().describe('True if any file of this recording is retryable.'),
    durationSeconds: z.number().nullable(),
    immutable: z.boolean().describe('True under legal hold (cannot be deleted).'),
    createdAt: isoTimestamp,
    retentionExpiresAt: isoTimestamp.nullable(),
    files: z.array(recordingFileShape),
  })
  .strict();

export const recordingsResponseShape = z
  .object({
    success: z.literal(true),
    data: z
      .object({
        sessionId: z.string(),
        projectId: z.string(),
        status: z.enum(['success', 'partial', 'media_in_progress', 'call_in_progress', 'media_unavailable']),
        unavailableReason: reason.describe('Set only when recordings is empty.'),
        retryable: z.boolean().describe('Retry with backoff while true; stop when false.'),
        recordings: z.array(recordingShape).describe('Empty when the session has no recording.'),
      })
      .strict(),
  })
  .strict()
  .describe(
    'Recordings of the session (headers Cache-Control: no-store, Pragma: no-cache, Referrer-Policy: no-referrer).',
  );

export const mediaContentParams = z.object({
  projectId: z.string().min(1),
  recordingId: z.string().min(1),
  token: z.string().min(1).describe('The media token of the issued URL.'),
});

export const mediaContentQuery = z.object({
  objectIndex: z.string().describe('Position of the file inside the recording (integer >= 0).'),
  disposition: z.enum(DISPOSITIONS).describe('Content-Disposition of the response.'),
});
