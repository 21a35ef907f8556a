import type { NormalizedMessage } from '../../types.js';
import { decodeAction, isRecord, str } from '../shared.js';

/**
 * The bot connector's turn request, as Genesys Cloud's Digital Bot Connector (v2) posts it to the
 * bot's "handle utterance" URL: `botId`, `botVersion`, `botSessionId` (one per conversation),
 * `messageId` (one per customer message: the deduplication key), `inputMessage` (`{ type: 'Text',
 * text }`, or `{ type: 'Structured', content: [{ contentType: 'ButtonResponse', buttonResponse:
 * { type: 'QuickReply', text, payload } }] }` when the customer picked a quick reply),
 * `languageCode`, `botSessionTimeout`, `genesysConversationId`, `parameters` (string map).
 */
export interface ContactCenterRequest {
  botId?: string;
  botVersion?: string;
  botSessionId: string;
  messageId: string;
  inputMessage: {
    type: string;
    text?: string;
    content?: unknown[];
  };
  languageCode?: string;
  genesysConversationId?: string;
  parameters?: Record<string, string>;
}

/** The quick reply the customer picked (a Structured input's ButtonResponse), if any. */
const buttonResponseOf = (content: unknown): { text: string; payload: string } | undefined => {
  if (!Array.isArray(content)) return undefined;
  for (const item of content) {
    if (!isRecord(item) || !isRecord(item.buttonResponse)) continue;
    const text = str(item.buttonResponse.text) ?? '';
    const payload = str(item.buttonResponse.payload) ?? text;
    if (payload !== '') return { text, payload };
  }
  return undefined;
};

const stringMap = (value: unknown): Record<string, string> | undefined => {
  if (!isRecord(value)) return undefined;
  const out: Record<string, string> = {};
  for (const [key, entry] of Object.entries(value)) if (typeof entry === 'string') out[key] = entry;
  return out;
};

/**
 * The request's one message, or none when it is not a readable turn request (no session or
 * message id, or neither text nor a quick reply). The session key is the bot session id; a quick
 * reply's payload (encodeAction of the ACTION_SET element id and value) becomes the actionEvent.
 */
export function parseContactCenterRequest(body: unknown, now: Date): NormalizedMessage[] {
  if (!isRecord(body) || !isRecord(body.inputMessage)) return [];
  const sessionId = str(body.botSessionId) ?? '';
  const messageId = str(body.messageId) ?? '';
  if (sessionId === '' || messageId === '') return [];
  const input = body.inputMessage;
  const button = buttonResponseOf(input.content);
  const text = (button === undefined ? str(input.text) : button.text || str(input.text)) ?? '';
  if (button === undefined && text.trim() === '') return [];

  const parameters = stringMap(body.parameters);
  const metadata: Record<string, unknown> = { botSessionId: sessionId };
  for (const key of ['botId', 'botVersion', 'languageCode', 'genesysConversationId'] as const) {
    const value = str(body[key]);
    if (value !== undefined) metadata[key] = value;
  }
  if (parameters !== undefined && Object.keys(parameters).length > 0) metadata.parameters = parameters;
  const message: NormalizedMessage = {
    externalMessageId: messageId,
    externalSessionKey: sessionId,
    text,
    metadata,
    timestamp: now.toISOString(),
  };
  if (button !== undefined) {
    const { actionId, value } = decodeAction(button.payload);
    message.actionEvent = { actionId, value, type: 'button' };
  }
  return [message];
}
