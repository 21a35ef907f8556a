import { ParleyError } from '@parley/platform';
import type { TelephonyAccountSecrets } from './accountStore.js';
import {
  paramsObject,
  type RecordingIngestItem,
  recordingCallbackItems,
  recordingStatusCallbackSchema,
} from './recordingCallback.js';
import { type CallbackParams, verifyRequestSignature } from './signature.js';

/** What an ingest of the callback's items reports (the shape of @parley/ingest's response). */
export interface CallbackIngestResult {
  accepted: number;
  rejected: number;
  results: Array<
    | { status: 'accepted'; eventId: string; stream: string }
    | {
        status: 'rejected';
        error: { code: string; details: { issues: Array<{ path: string; message: string }> } };
      }
  >;
}

export interface RecordingStatusDeps {
  account(accountSid: string): Promise<TelephonyAccountSecrets | null>;
  /** Appends the items in the account's project (@parley/ingest `ingest`). */
  ingest(
    scope: { tenantId: string; projectId: string },
    items: readonly RecordingIngestItem[],
  ): Promise<CallbackIngestResult>;
  now?: () => Date;
}

export interface RecordingStatusRequest {
  /** The full URL the provider called: the public base URL, path and query exactly as received. */
  url: string;
  params: CallbackParams;
  /** The `X-Twilio-Signature` header. */
  signature: string | undefined;
}

export interface RecordingStatusOutcome {
  recordingId: string;
  projectId: string;
  status: string;
  /** Event ids of the facts the callback stands for (already recorded ones included). */
  eventIds: string[];
}

/**
 * One answer for a missing or bad signature and an unknown account: nothing tells which. 401
 * UNAUTHORIZED with the channel webhooks' message (spec 000 §7: 401 for a missing or invalid
 * credential; the signature is the provider's credential).
 */
export const signatureInvalid = () =>
  new ParleyError('UNAUTHORIZED', 401, 'Request signature did not verify');

const invalidCallback = (issues: Array<{ path: string; message: string }>) =>
  new ParleyError('VALIDATION_ERROR', 400, 'the callback is not a valid recording status', {
    details: { issues },
  });

/** The session the platform put in the callback URL when it started the recording (signed with it). */
function sessionIdOf(url: string): string | null {
  try {
    const value = new URL(url).searchParams.get('sessionId');
    return value !== null && /^[A-Za-z0-9_.:-]{1,256}$/.test(value) ? value : null;
  } catch {
    return null;
  }
}

/**
 * A recording-status callback: find the account, verify the signature over the full URL and the
 * form parameters with its auth token, then append the recording's facts idempotently.
 * Throws ParleyError 401 UNAUTHORIZED (signature) or 400 VALIDATION_ERROR.
 */
export async function handleRecordingStatusCallback(
  deps: RecordingStatusDeps,
  request: RecordingStatusRequest,
): Promise<RecordingStatusOutcome> {
  const fields = paramsObject(request.params);
  const accountSid = fields.AccountSid;
  if (accountSid === undefined || accountSid.length === 0 || accountSid.length > 128)
    throw signatureInvalid();
  const account = await deps.account(accountSid);
  if (!account) throw signatureInvalid();
  const verified = verifyRequestSignature({
    authToken: account.authToken,
    url: request.url,
    params: request.params,
    signature: request.signature,
  });
  if (!verified) throw signatureInvalid();

  const parsed = recordingStatusCallbackSchema.safeParse(fields);
  if (!parsed.success) {
    throw invalidCallback(
      parsed.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message })),
    );
  }
  const sessionId = sessionIdOf(request.url);
  if (sessionId === null) {
    throw invalidCallback([{ path: 'sessionId', message: 'the callback URL must carry the session id' }]);
  }
  const items = recordingCallbackItems({
    callback: parsed.data,
    sessionId,
    receivedAt: (deps.now ?? (() => new Date()))(),
  });
  const result = await deps.ingest({ tenantId: account.tenantId, projectId: account.projectId }, items);
  const issues = result.results.flatMap((r) => (r.status === 'rejected' ? r.error.details.issues : []));
  if (result.rejected > 0) throw invalidCallback(issues);
  return {
    recordingId: parsed.data.RecordingSid,
    projectId: account.projectId,
    status: parsed.data.RecordingStatus,
    eventIds: result.results.flatMap((r) => (r.status === 'accepted' ? [r.eventId] : [])),
  };
}
