import { createHash, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

/**
 * The voice gateway socket's framing (docs/voice.md "Voice gateway"): JSON text frames for control,
 * binary frames for audio in the format the `start` frame names (mono, little-endian PCM16 or
 * G.711 µ-law), both ways.
 */
export const GATEWAY_ENCODINGS = ['pcm16', 'mulaw'] as const;
export type GatewayEncoding = (typeof GATEWAY_ENCODINGS)[number];
export const GATEWAY_SAMPLE_RATES = [8000, 16000, 24000, 48000] as const;

const id = z.string().regex(/^[A-Za-z0-9_.:@+-]{1,128}$/, {
  message: '1-128 letters, digits or _ . : @ + -',
});

export const gatewayFormatSchema = z
  .strictObject({
    encoding: z.enum(GATEWAY_ENCODINGS),
    sampleRate: z.union(GATEWAY_SAMPLE_RATES.map((r) => z.literal(r))),
  })
  .refine((f) => f.encoding === 'pcm16' || f.sampleRate === 8000, {
    message: 'mulaw audio is 8000 Hz',
  });
export type GatewayFormat = z.infer<typeof gatewayFormatSchema>;

/** The first frame of a call (gateway → Parley). */
export const gatewayStartSchema = z.strictObject({
  type: z.literal('start'),
  /** The call's id at the gateway (a SIP Call-ID, a UUID): unique per call. */
  callId: id,
  /** The connection's inboundAuthToken, unless the upgrade request carried `Authorization: Bearer`. */
  token: z.string().min(1).max(8192).optional(),
  format: gatewayFormatSchema,
  /** Continue this Parley session (when it is the connection's project's). */
  sessionId: z
    .string()
    .regex(/^[A-Za-z0-9_.:-]{1,256}$/)
    .optional(),
  /** Caller and called numbers or SIP URIs, recorded on the call's turns. */
  from: z.string().min(1).max(256).optional(),
  to: z.string().min(1).max(256).optional(),
});
export type GatewayStart = z.infer<typeof gatewayStartSchema>;

/** Frames after `start` (gateway → Parley); unknown types are ignored. */
export const gatewayControlSchema = z.discriminatedUnion('type', [
  /** The audio before the mark Parley sent has been played to the caller. */
  z.object({ type: z.literal('mark'), name: z.string().min(1).max(128) }),
  /** The call ended (hang-up). */
  z.object({ type: z.literal('stop') }),
]);
export type GatewayControl = z.infer<typeof gatewayControlSchema>;

/** Frames Parley sends (JSON text); audio goes as binary frames. */
export type GatewayOutbound =
  | { type: 'started'; callId: string; format: GatewayFormat; sessionId: string | null }
  | { type: 'mark'; name: string }
  | { type: 'clear' }
  | { type: 'error'; code: string; message: string };

/** Close codes of the gateway socket. */
export const GATEWAY_CLOSE = {
  stopped: 1000,
  /** A binary frame before `start`. */
  unsupported: 1003,
  /** A text frame that is not JSON. */
  notJson: 1007,
  /** No `start`, an invalid one, or a bad token. */
  policy: 1008,
  /** Voice (the pipeline) not configured. */
  unavailable: 1011,
} as const;

/**
 * Constant-time comparison of a presented token with the stored one: both are hashed first, so
 * neither their contents nor their lengths show in the time taken.
 */
export function tokenMatches(stored: string, presented: string | undefined): boolean {
  if (presented === undefined) return false;
  const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();
  return timingSafeEqual(digest(stored), digest(presented));
}

/** The bearer token of an `Authorization` header, if any. */
export function bearerOf(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  const match = value === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(value);
  return match?.[1];
}
