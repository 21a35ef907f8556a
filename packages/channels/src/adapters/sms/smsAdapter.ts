import { verifyRequestSignature } from '@parley/telephony';
import type { ChannelAdapter, InboundRequest } from '../../adapter.js';
import type { OutgoingMessage, ResolvedConnection, SendResult } from '../../types.js';
import { headerValue, isRecord, isRetryableStatus, type PlatformResponse, postForm, str } from '../shared.js';
import { storedOutput } from '../storedOutput.js';
import { webhookBodyProblem } from '../webhookBody.js';
import { parseSmsWebhook, smsParams, smsToNumber } from './smsPayload.js';
import { toSmsOutput } from './smsTransform.js';

export const SMS_CHANNEL_TYPE = 'sms';
export const SMS_API_BASE_URL = 'https://api.twilio.com';
/** Connection credentials: the provider account SID and its auth token. */
export const SMS_CREDENTIALS = ['accountSid', 'authToken'] as const;

/**
 * The provider's request signature (`X-Twilio-Signature`: base64 HMAC-SHA1 of the full webhook URL
 * and the sorted form parameters, keyed with the auth token), checked with @parley/telephony.
 * False, never a throw, for a missing token, header or malformed request.
 */
export const verifySmsSignature = (req: InboundRequest, authToken: string): boolean => {
  if (authToken === '') return false;
  try {
    return verifyRequestSignature({
      authToken,
      url: req.url,
      params: smsParams(req.body, req.rawBody),
      signature: headerValue(req.headers, 'x-twilio-signature'),
    });
  } catch {
    return false;
  }
};

const toSendFailure = (response: PlatformResponse): SendResult => {
  const json = isRecord(response.json) ? response.json : {};
  const code = typeof json.code === 'number' ? json.code : undefined;
  return {
    ok: false,
    retryable: isRetryableStatus(response.status) || code === 20429,
    error: `sms ${response.status}${code === undefined ? '' : ` code ${code}`}: ${str(json.message) ?? 'request failed'}`,
    ...(response.status === 0 ? {} : { status: response.status }),
  };
};

export interface SmsAdapterOptions {
  /** The clock for inbound message times (the provider sends none). */
  now?: () => Date;
}

export interface SmsAdapter extends ChannelAdapter {
  readonly provider: 'twilio';
  /** The connection identifier (the provider number, `To`) of a webhook, for the generic route. */
  connectionIdentifier(req: InboundRequest): string | null;
}

/**
 * SMS over the Twilio-style telephony provider. Connection identifier: the provider phone number
 * (E.164, the webhook's `To`). Session key: the sender's number. Replies go from the connection's
 * number with the Messages API.
 */
export const createSmsAdapter = (options: SmsAdapterOptions = {}): SmsAdapter => {
  const now = options.now ?? (() => new Date());
  const endpoint = (connection: ResolvedConnection, apiBaseUrl: string | undefined) =>
    `${apiBaseUrl ?? SMS_API_BASE_URL}/2010-04-01/Accounts/${encodeURIComponent(connection.credentials.accountSid ?? '')}/Messages.json`;
  const auth = (connection: ResolvedConnection) =>
    `Basic ${Buffer.from(`${connection.credentials.accountSid ?? ''}:${connection.credentials.authToken ?? ''}`).toString('base64')}`;

  return {
    channelType: SMS_CHANNEL_TYPE,
    // The default provider of `sms` (manifest providers): also reachable as /sms/twilio/webhook.
    provider: 'twilio',

    checkBody: (req) => webhookBodyProblem(req, ['form']),

    verifyRequest(req, connection) {
      return verifySmsSignature(req, connection.credentials.authToken ?? '');
    },

    parseIncoming(req, connection) {
      const accountSid = connection.credentials.accountSid;
      return parseSmsWebhook(smsParams(req.body, req.rawBody), {
        onlyNumber: connection.externalIdentifier,
        ...(accountSid === undefined ? {} : { accountSid }),
        now: now(),
      });
    },

    connectionIdentifier(req) {
      return smsToNumber(smsParams(req.body, req.rawBody));
    },

    transformOutput(reply) {
      return toSmsOutput(reply);
    },

    async sendResponse(message: OutgoingMessage, connection, http) {
      const output = storedOutput(message, 'bodies', toSmsOutput);
      let lastSid: string | undefined;
      for (const body of output.bodies) {
        const response = await postForm(
          http.fetch,
          endpoint(connection, http.apiBaseUrl),
          { To: message.externalSessionKey, From: connection.externalIdentifier, Body: body },
          { authorization: auth(connection) },
        );
        if (response.status < 200 || response.status >= 300) return toSendFailure(response);
        lastSid = (isRecord(response.json) ? str(response.json.sid) : undefined) ?? lastSid;
      }
      return lastSid === undefined ? { ok: true } : { ok: true, externalMessageId: lastSid };
    },
  };
};
