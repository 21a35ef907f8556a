import type { InboundRequest, WebhookBodyProblem } from '../adapter.js';
import { headerValue, isRecord, jsonBody } from './shared.js';

/** The body encodings platforms post: a JSON object, or an urlencoded form. */
export type WebhookBodyFormat = 'json' | 'form';

const MEDIA_TYPES: Record<WebhookBodyFormat, (mediaType: string) => boolean> = {
  json: (type) => type === 'application/json' || /^application\/[\w.+-]+\+json$/.test(type),
  form: (type) => type === 'application/x-www-form-urlencoded',
};

/** The media type of the Content-Type header, lower-cased, without parameters ('' when absent). */
const mediaTypeOf = (req: Pick<InboundRequest, 'headers'>): string =>
  (headerValue(req.headers, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase();

/**
 * What is wrong with a webhook body for a platform that posts `formats` (spec 001 §7: a clear 4xx,
 * never `200 accepted: 0` nor processing): a content type the platform never sends, or a body that
 * is empty or not what the content type says (JSON that is not an object). Null: readable.
 */
export function webhookBodyProblem(
  req: Pick<InboundRequest, 'headers' | 'body' | 'rawBody'>,
  formats: readonly WebhookBodyFormat[],
): WebhookBodyProblem | null {
  const mediaType = mediaTypeOf(req);
  const format = formats.find((candidate) => MEDIA_TYPES[candidate](mediaType));
  if (format === undefined) return 'content_type_unsupported';
  switch (format) {
    case 'json':
      return isRecord(jsonBody(req.body, req.rawBody)) ? null : 'body_malformed';
    case 'form':
      return req.rawBody.length > 0 || (isRecord(req.body) && Object.keys(req.body).length > 0)
        ? null
        : 'body_malformed';
  }
}
