import type { NormalizedMessage } from '../../types.js';
import { decodeAction, isRecord, str } from '../shared.js';

/**
 * WhatsApp Cloud API webhook payloads (object `whatsapp_business_account`, field `messages`) to
 * normalized messages (only those to `onlyPhoneNumberId` when given). Kept: text, interactive button_reply / list_reply, template quick-reply
 * `button`, and media captions. Ignored: `statuses` (sent/delivered/read/failed), reactions,
 * system messages, errors and other fields.
 */
export const parseWhatsAppPayload = (payload: unknown, onlyPhoneNumberId?: string): NormalizedMessage[] => {
  if (!isRecord(payload) || payload.object !== 'whatsapp_business_account') return [];
  const out: NormalizedMessage[] = [];
  for (const entry of Array.isArray(payload.entry) ? payload.entry : []) {
    if (!isRecord(entry)) continue;
    for (const change of Array.isArray(entry.changes) ? entry.changes : []) {
      if (!isRecord(change) || change.field !== 'messages' || !isRecord(change.value)) continue;
      const value = change.value;
      const metadata = isRecord(value.metadata) ? value.metadata : {};
      const phoneNumberId = str(metadata.phone_number_id);
      // One business account webhook can carry several numbers; a connection is one number.
      if (onlyPhoneNumberId !== undefined && phoneNumberId !== onlyPhoneNumberId) continue;
      const contacts = Array.isArray(value.contacts) ? value.contacts.filter(isRecord) : [];
      for (const message of Array.isArray(value.messages) ? value.messages : []) {
        const parsed = isRecord(message) ? parseMessage(message) : null;
        const from = isRecord(message) ? str(message.from) : undefined;
        const id = isRecord(message) ? str(message.id) : undefined;
        const seconds = isRecord(message) ? Number(str(message.timestamp)) : Number.NaN;
        if (parsed === null || from === undefined || id === undefined || !Number.isFinite(seconds)) continue;
        const contact = contacts.find((c) => c.wa_id === from);
        const profile = contact !== undefined && isRecord(contact.profile) ? contact.profile : {};
        const profileName = str(profile.name);
        out.push({
          externalMessageId: id,
          externalSessionKey: from,
          text: parsed.text,
          metadata: {
            phoneNumberId,
            displayPhoneNumber: str(metadata.display_phone_number),
            from,
            messageId: id,
            messageType: parsed.type,
            ...(profileName === undefined ? {} : { profileName }),
          },
          timestamp: new Date(seconds * 1000).toISOString(),
          ...(parsed.actionEvent === undefined ? {} : { actionEvent: parsed.actionEvent }),
          channelUserId: from,
        });
      }
    }
  }
  return out;
};

interface ParsedMessage {
  type: string;
  text: string;
  actionEvent?: NormalizedMessage['actionEvent'];
}

const CAPTIONED = ['image', 'video', 'document'] as const;

const parseMessage = (message: Record<string, unknown>): ParsedMessage | null => {
  const type = str(message.type);
  if (type === 'text' && isRecord(message.text)) {
    const body = str(message.text.body);
    return body === undefined ? null : { type, text: body };
  }
  if (type === 'interactive' && isRecord(message.interactive)) {
    const interactive = message.interactive;
    const kind = str(interactive.type);
    const reply = kind === 'button_reply' ? interactive.button_reply : interactive.list_reply;
    if ((kind !== 'button_reply' && kind !== 'list_reply') || !isRecord(reply)) return null;
    const replyId = str(reply.id);
    if (replyId === undefined) return null;
    const title = str(reply.title) ?? '';
    const action = decodeAction(replyId);
    return {
      type,
      text: title,
      actionEvent: { ...action, type: kind === 'button_reply' ? 'button' : 'select', title },
    };
  }
  if (type === 'button' && isRecord(message.button)) {
    // A template's quick-reply button: the payload is what the template defined.
    const payload = str(message.button.payload);
    const text = str(message.button.text) ?? '';
    if (payload === undefined) return { type, text };
    return { type, text, actionEvent: { actionId: payload, value: payload, type: 'button', title: text } };
  }
  if ((CAPTIONED as readonly (string | undefined)[]).includes(type) && type !== undefined) {
    const media = message[type];
    const caption = isRecord(media) ? str(media.caption) : undefined;
    return caption === undefined ? null : { type, text: caption };
  }
  return null;
};

/** The connection identifier of a webhook payload: the receiving phone number id. */
export const whatsAppPhoneNumberId = (payload: unknown): string | null => {
  if (!isRecord(payload) || !Array.isArray(payload.entry)) return null;
  for (const entry of payload.entry) {
    if (!isRecord(entry) || !Array.isArray(entry.changes)) continue;
    for (const change of entry.changes) {
      if (!isRecord(change) || !isRecord(change.value) || !isRecord(change.value.metadata)) continue;
      const id = str(change.value.metadata.phone_number_id);
      if (id !== undefined) return id;
    }
  }
  return null;
};
