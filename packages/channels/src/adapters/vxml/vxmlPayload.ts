import { createHash } from 'node:crypto';
import type { InboundRequest } from '../../adapter.js';
import type { NormalizedMessage } from '../../types.js';
import { isRecord, jsonBody, str } from '../shared.js';

/**
 * The fields the IVR posts (a VoiceXML `<submit namelist="…">`, form-encoded; JSON is read too):
 * `session_id` the call (required; the conversation key), `utterance` the recognized text (empty
 * or absent at call start and when nothing was recognized), `turn` the counter our documents
 * carry (the message id is `<session_id>:<turn>`), `message_id` an IVR's own message id (wins over
 * `turn`), `caller` the calling number (channelUserId), `called` the number dialled.
 */
export interface VxmlFields {
  sessionId: string;
  utterance: string;
  turn?: number;
  messageId?: string;
  caller?: string;
  called?: string;
}

/** The most of a field we keep: IVR fields are short; a longer one is cut, not refused. */
const MAX_FIELD = 2000;

const field = (body: Record<string, unknown>, name: string): string | undefined => {
  const value = str(body[name]) ?? (typeof body[name] === 'number' ? String(body[name]) : undefined);
  return value === undefined ? undefined : value.slice(0, MAX_FIELD);
};

/** The posted fields; null without a session id. */
export function vxmlFields(req: Pick<InboundRequest, 'body' | 'rawBody'>): VxmlFields | null {
  const body = isRecord(req.body) ? req.body : jsonBody(req.body, req.rawBody);
  if (!isRecord(body)) return null;
  const sessionId = field(body, 'session_id')?.trim() ?? '';
  if (sessionId === '') return null;
  const fields: VxmlFields = { sessionId, utterance: field(body, 'utterance')?.trim() ?? '' };
  const turn = Number(field(body, 'turn'));
  if (Number.isSafeInteger(turn) && turn >= 0) fields.turn = turn;
  for (const [name, key] of [
    ['message_id', 'messageId'],
    ['caller', 'caller'],
    ['called', 'called'],
  ] as const) {
    const value = field(body, name)?.trim();
    if (value !== undefined && value !== '') fields[key] = value;
  }
  return fields;
}

/**
 * The request's message: none without a session id or an utterance (call start, nothing
 * recognized: the document re-prompts without a turn). Message id: `message_id`, else
 * `<session_id>:<turn>`, else a hash of the request body (a resubmitted request still dedupes).
 */
export function parseVxmlRequest(
  req: Pick<InboundRequest, 'body' | 'rawBody'>,
  now: Date,
): NormalizedMessage[] {
  const fields = vxmlFields(req);
  if (fields === null || fields.utterance === '') return [];
  const externalMessageId =
    fields.messageId ??
    (fields.turn === undefined
      ? `${fields.sessionId}:body:${createHash('sha256').update(req.rawBody).digest('hex').slice(0, 32)}`
      : `${fields.sessionId}:${fields.turn}`);
  const metadata: Record<string, unknown> = { sessionId: fields.sessionId };
  if (fields.turn !== undefined) metadata.turn = fields.turn;
  if (fields.caller !== undefined) metadata.caller = fields.caller;
  if (fields.called !== undefined) metadata.called = fields.called;
  return [
    {
      externalMessageId,
      externalSessionKey: fields.sessionId,
      text: fields.utterance,
      metadata,
      timestamp: now.toISOString(),
      ...(fields.caller === undefined ? {} : { channelUserId: fields.caller }),
    },
  ];
}
