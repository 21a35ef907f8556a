import { constantTimeEqual } from '@parley/platform';
import type { InboundRequest, SyncChannelAdapter } from '../../adapter.js';
import { headerValue } from '../shared.js';
import { renderVxmlResponse, vxmlSettingsOf } from './vxmlDocument.js';
import { parseVxmlRequest, vxmlFields } from './vxmlPayload.js';

export const VXML_CHANNEL_TYPE = 'vxml';
/** Connection credentials: the token the IVR presents on every request. */
export const VXML_CREDENTIALS = ['inboundToken'] as const;

const BEARER = /^Bearer\s+(.+)$/i;
const BASIC = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i;

/** The password of a Basic authorization (an IVR URL `https://ivr:<token>@host/…` sends one). */
const basicPassword = (authorization: string): string | undefined => {
  const encoded = BASIC.exec(authorization)?.[1];
  if (encoded === undefined) return undefined;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : decoded.slice(colon + 1);
};

/**
 * Whether the request presents `token`: `Authorization: Bearer <token>`, the password of
 * `Authorization: Basic`, or the `token` query parameter (what a `<submit>` URL can carry).
 * Constant-time per candidate; false, never a throw, for anything missing or malformed.
 */
export function verifyVxmlToken(req: Pick<InboundRequest, 'headers' | 'query'>, token: string): boolean {
  try {
    if (token === '') return false;
    const authorization = headerValue(req.headers, 'authorization') ?? '';
    const candidates = [
      BEARER.exec(authorization)?.[1]?.trim(),
      basicPassword(authorization),
      req.query.token,
    ];
    // Every candidate is compared: the time taken does not tell which one was present.
    let ok = false;
    for (const candidate of candidates)
      if (candidate !== undefined && constantTimeEqual(candidate, token)) ok = true;
    return ok;
  } catch {
    return false;
  }
}

/**
 * Where the document's `<submit>` goes: the hook's path and query as a relative reference, so the
 * IVR resolves it against the URL it fetched (keeping its scheme, host and any credentials in it).
 */
export function nextUrlOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.pathname}${parsed.search}`;
  } catch {
    return url;
  }
}

export interface VxmlAdapterOptions {
  now?: () => Date;
}

/**
 * VoiceXML IVR (VoiceXML 2.1): the IVR posts each recognized utterance to `hooks/{streamId}`
 * (streamId: the connection's externalIdentifier) and executes the VoiceXML document it gets back.
 * Session key: the IVR's `session_id`; channelUserId: `caller`.
 */
export const createVxmlAdapter = (options: VxmlAdapterOptions = {}): SyncChannelAdapter => {
  const now = options.now ?? (() => new Date());
  return {
    channelType: VXML_CHANNEL_TYPE,
    delivery: 'sync_response',

    verifyRequest(req, connection) {
      return verifyVxmlToken(req, connection.credentials.inboundToken ?? '');
    },

    parseIncoming(req) {
      return parseVxmlRequest(req, now());
    },

    respond(outcome, { connection, req }) {
      return renderVxmlResponse(outcome, {
        fields: vxmlFields(req),
        next: nextUrlOf(req.url),
        settings: vxmlSettingsOf(connection.settings),
      });
    },

    async sendResponse() {
      // The reply is the document answering the IVR's request (respond); nothing is sent later.
      return {
        ok: false,
        retryable: false,
        error: 'synchronous channel: replies go in the webhook response',
      };
    },
  };
};
