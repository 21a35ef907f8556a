import {
  sessionStream,
  toAppend,
  VOICE_CALL_FINAL_STATUSES,
  VOICE_CALL_STATUSES,
  type VoiceCallStatus,
  voiceCallStream,
} from '@parley/events';
import { EventIdConflictError, type EventStore } from '@parley/eventstore';
import { ParleyError } from '@parley/platform';
import {
  type CallbackParams,
  paramsObject,
  signatureInvalid,
  type TelephonyAccountSecrets,
  verifyRequestSignature,
} from '@parley/telephony';
import { z } from 'zod';
import { derivedUuid } from '../ids.js';
import type { VoiceConcurrencyLimiter } from '../limits/concurrencyLimiter.js';
import { clientIdentityOf } from './clientToken.js';
import { connectTwiml } from './connectTwiml.js';
import { mediaStreamToken, STREAM_TOKEN_PARAMETER } from './streamToken.js';

/** A call whose final status callback never comes frees its slot after this long. */
export const CALL_SLOT_HOLD_MS = 4 * 60 * 60 * 1000;

export interface CallWebhookDeps {
  account(accountSid: string): Promise<TelephonyAccountSecrets | null>;
  store: EventStore;
  limiter: VoiceConcurrencyLimiter;
  /** voice.enabled; a call to a disabled service is answered 503. */
  enabled: boolean;
  /** voice.maxConcurrentCalls (per tenant). */
  maxConcurrentCalls: number;
  now?: () => Date;
}

export interface CallWebhookRequest {
  /** The full URL the provider called (public base URL, path and query). */
  url: string;
  params: CallbackParams;
  /** The `X-Twilio-Signature` header. */
  signature: string | undefined;
}

const sid = z.string().regex(/^[A-Za-z0-9_-]{1,128}$/);
const SESSION_ID = /^[A-Za-z0-9_.:-]{1,256}$/;

const invalid = (message: string, issues: Array<{ path: string; message: string }>) =>
  new ParleyError('VALIDATION_ERROR', 400, message, { details: { issues } });

/** The call's slot in the tenant's calls pool. */
export const callSlotMember = (callSid: string): string => `call:${callSid}`;

/** Finds the account and checks the signature: 401 UNAUTHORIZED for either failure. */
async function verified(deps: CallWebhookDeps, request: CallWebhookRequest) {
  const fields = paramsObject(request.params);
  const accountSid = fields.AccountSid;
  if (accountSid === undefined || !sid.safeParse(accountSid).success) throw signatureInvalid();
  const account = await deps.account(accountSid);
  if (!account) throw signatureInvalid();
  const ok = verifyRequestSignature({
    authToken: account.authToken,
    url: request.url,
    params: request.params,
    signature: request.signature,
  });
  if (!ok) throw signatureInvalid();
  return { account, fields };
}

function callSidOf(fields: Record<string, string>): string {
  const parsed = sid.safeParse(fields.CallSid);
  if (!parsed.success)
    throw invalid('the callback has no valid CallSid', [{ path: 'CallSid', message: 'required' }]);
  return parsed.data;
}

/**
 * The session a call claims: `sessionId` in the signed callback URL (set by the platform), the
 * client identity of a token from `POST /voice/token` (`From: client:parley-<sessionId>`, signed by
 * the provider), or a `sessionId` call parameter. Only a claim, see sessionOfCall.
 */
function claimedSession(url: string, fields: Record<string, string>): string | null {
  let fromUrl: string | null = null;
  try {
    fromUrl = new URL(url).searchParams.get('sessionId');
  } catch {}
  const prefix = `client:${clientIdentityOf('')}`;
  const fromClient = fields.From?.startsWith(prefix) ? fields.From.slice(prefix.length) : null;
  for (const candidate of [fromUrl, fromClient, fields.sessionId ?? null]) {
    if (candidate !== null && SESSION_ID.test(candidate)) return candidate;
  }
  return null;
}

/** The claimed session, when its stream exists and belongs to the account's project; else null. */
async function sessionOfCall(store: EventStore, projectId: string, claimed: string | null) {
  if (claimed === null) return null;
  for await (const first of store.readStream(sessionStream(claimed), { maxCount: 1 })) {
    return first.data.projectId === projectId ? claimed : null;
  }
  return null;
}

/**
 * The provider's voice webhook for a new call: verify, admit the call against the tenant's
 * concurrent calls (429 VOICE_SESSION_LIMIT_REACHED beyond), answer instructions that stream the
 * call's audio to the media WebSocket.
 */
export async function handleConnect(
  deps: CallWebhookDeps,
  request: CallWebhookRequest & {
    publicBaseUrl: string;
    /** More stream parameters (a channel connection's `connectionId`), echoed in the stream's `start`. */
    parameters?: Readonly<Record<string, string>>;
  },
): Promise<{ twiml: string; callSid: string; tenantId: string; projectId: string }> {
  const { account, fields } = await verified(deps, request);
  if (!deps.enabled) throw new ParleyError('VOICE_NOT_CONFIGURED', 503, 'voice service not configured');
  const callSid = callSidOf(fields);
  const decision = await deps.limiter.admit(
    account.tenantId,
    [{ pool: 'calls', member: callSlotMember(callSid), limit: deps.maxConcurrentCalls }],
    CALL_SLOT_HOLD_MS,
  );
  if (!decision.admitted) {
    throw new ParleyError('VOICE_SESSION_LIMIT_REACHED', 429, 'maximum concurrent voice sessions reached', {
      details: { retryAfterMs: decision.retryAfterMs },
    });
  }
  const sessionId = claimedSession(request.url, fields);
  const parameters: Record<string, string> = { ...request.parameters, projectId: account.projectId };
  if (sessionId !== null) parameters.sessionId = sessionId;
  // The media WebSocket checks it in the stream's `start` (see streamToken.ts).
  parameters[STREAM_TOKEN_PARAMETER] = mediaStreamToken(account.authToken, {
    callSid,
    projectId: account.projectId,
    sessionId: sessionId ?? undefined,
  });
  return {
    twiml: connectTwiml({ publicBaseUrl: request.publicBaseUrl, callSid, parameters }),
    callSid,
    tenantId: account.tenantId,
    projectId: account.projectId,
  };
}

const statusFields = z.object({
  CallStatus: z.enum(VOICE_CALL_STATUSES),
  Direction: z.string().min(1).max(64).optional(),
  CallDuration: z
    .string()
    .regex(/^\d{1,9}$/)
    .transform(Number)
    .optional(),
  SequenceNumber: z
    .string()
    .regex(/^\d{1,9}$/)
    .transform(Number)
    .optional(),
  ErrorCode: z.string().min(1).max(32).optional(),
  Timestamp: z.string().max(64).optional(),
});

export interface CallStatusOutcome {
  callId: string;
  status: VoiceCallStatus;
  eventId: string;
  stream: string;
  sessionId: string | null;
  /** True when the call's concurrency slot was released (a final status). */
  released: boolean;
}

/**
 * The provider's status callback: verify, append VoiceCallStatusChanged once per (call, status)
 * to the call's session stream (when the session is the account project's) or `voicecall-<CallSid>`,
 * and release the call's slot on a final status.
 */
export async function handleCallStatus(
  deps: CallWebhookDeps,
  request: CallWebhookRequest,
): Promise<CallStatusOutcome> {
  const { account, fields } = await verified(deps, request);
  const callSid = callSidOf(fields);
  const parsed = statusFields.safeParse(fields);
  if (!parsed.success) {
    throw invalid(
      'the callback is not a valid call status',
      parsed.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message })),
    );
  }
  const data = parsed.data;
  const sessionId = await sessionOfCall(deps.store, account.projectId, claimedSession(request.url, fields));
  const occurred = data.Timestamp === undefined ? Number.NaN : Date.parse(data.Timestamp);
  const event = toAppend('VoiceCallStatusChanged', {
    callId: callSid,
    projectId: account.projectId,
    tenantId: account.tenantId,
    accountId: account.accountSid,
    ...(sessionId === null ? {} : { sessionId }),
    status: data.CallStatus,
    ...(data.Direction === undefined ? {} : { direction: data.Direction }),
    ...(data.CallDuration === undefined ? {} : { durationSeconds: data.CallDuration }),
    ...(data.SequenceNumber === undefined ? {} : { sequenceNumber: data.SequenceNumber }),
    ...(data.ErrorCode === undefined ? {} : { errorCode: data.ErrorCode }),
    ...(Number.isFinite(occurred) ? { occurredAt: new Date(occurred).toISOString() } : {}),
    reportedAt: (deps.now ?? (() => new Date()))().toISOString(),
  });
  const eventId = derivedUuid('call-status', JSON.stringify([account.accountSid, callSid, data.CallStatus]));
  const stream = sessionId === null ? voiceCallStream(callSid) : sessionStream(sessionId);
  try {
    await deps.store.append(stream, [
      {
        ...event,
        eventId,
        metadata: { tenantId: account.tenantId, projectId: account.projectId },
      },
    ]);
  } catch (err) {
    // Recorded already, in the other stream (the session became known between two deliveries).
    if (!(err instanceof EventIdConflictError)) throw err;
  }
  const released = VOICE_CALL_FINAL_STATUSES.includes(data.CallStatus);
  if (released) await deps.limiter.release(account.tenantId, 'calls', callSlotMember(callSid));
  return { callId: callSid, status: data.CallStatus, eventId, stream, sessionId, released };
}
