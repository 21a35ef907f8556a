import { constantTimeEqual } from '@parley/platform';
import type { SyncChannelAdapter } from '../../adapter.js';
import { headerValue, jsonBody } from '../shared.js';
import { parseContactCenterRequest } from './contactCenterPayload.js';
import { renderContactCenterResponse } from './contactCenterTransform.js';

export const CONTACT_CENTER_CHANNEL_TYPE = 'contact_center';
/** Connection credentials: the secret the connector presents on every request. */
export const CONTACT_CENTER_CREDENTIALS = ['clientSecret'] as const;
/**
 * Where the connector presents the secret when the connection's `settings.credentialHeader` names
 * no other header: Genesys's bot connector integration sends each field of its Credentials tab as
 * a request header of that name.
 */
export const CONTACT_CENTER_DEFAULT_CREDENTIAL_HEADER = 'x-parley-client-secret';

const BEARER = /^Bearer\s+(.+)$/i;

/**
 * Whether the request presents `secret`: in `Authorization: Bearer <secret>` or in the credential
 * header. Constant-time per candidate; false (never a throw) for anything missing or malformed.
 */
export function verifyContactCenterSecret(
  headers: Record<string, string | string[] | undefined>,
  secret: string,
  credentialHeader: string = CONTACT_CENTER_DEFAULT_CREDENTIAL_HEADER,
): boolean {
  if (secret === '') return false;
  const bearer = BEARER.exec(headerValue(headers, 'authorization') ?? '')?.[1]?.trim();
  const named = headerValue(headers, credentialHeader);
  // Both compared (no short-circuit), so the time taken does not tell which one was checked.
  const byBearer = bearer !== undefined && constantTimeEqual(bearer, secret);
  const byHeader = named !== undefined && constantTimeEqual(named, secret);
  return byBearer || byHeader;
}

const credentialHeaderOf = (settings: Record<string, unknown>): string => {
  const name = settings.credentialHeader;
  return typeof name === 'string' && /^[A-Za-z0-9-]{1,100}$/.test(name)
    ? name
    : CONTACT_CENTER_DEFAULT_CREDENTIAL_HEADER;
};

export interface ContactCenterAdapterOptions {
  now?: () => Date;
}

/**
 * Synchronous contact-centre bot connector (modelled on Genesys Cloud's Digital Bot Connector):
 * the platform posts each customer message to `hooks/{streamId}` (streamId: the connection's
 * externalIdentifier) and waits for the reply in the response. Session key: `botSessionId`.
 */
export const createContactCenterAdapter = (options: ContactCenterAdapterOptions = {}): SyncChannelAdapter => {
  const now = options.now ?? (() => new Date());
  return {
    channelType: CONTACT_CENTER_CHANNEL_TYPE,
    delivery: 'sync_response',

    verifyRequest(req, connection) {
      try {
        return verifyContactCenterSecret(
          req.headers,
          connection.credentials.clientSecret ?? '',
          credentialHeaderOf(connection.settings),
        );
      } catch {
        return false;
      }
    },

    parseIncoming(req) {
      return parseContactCenterRequest(jsonBody(req.body, req.rawBody), now());
    },

    respond(outcome) {
      return renderContactCenterResponse(outcome);
    },

    async sendResponse() {
      // The reply travels in the webhook's response (respond); there is no API to send to later.
      return {
        ok: false,
        retryable: false,
        error: 'synchronous channel: replies go in the webhook response',
      };
    },
  };
};
