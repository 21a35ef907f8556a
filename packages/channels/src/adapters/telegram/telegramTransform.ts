import type { OutgoingReply } from '../../types.js';
import { encodeAction, splitText, truncate, truncateBytes } from '../shared.js';

/** Telegram Bot API limits: message text 4096 characters, callback_data 1-64 bytes. */
export const TELEGRAM_LIMITS = {
  text: 4096,
  callbackDataBytes: 64,
  buttonsPerRow: 3,
  buttonText: 64,
} as const;

export interface InlineKeyboardButton {
  text: string;
  callback_data: string;
}

/** A sendMessage body without `chat_id` / `message_thread_id` (sendResponse adds those). */
export interface TelegramMessageBody {
  text: string;
  reply_markup?: { inline_keyboard: InlineKeyboardButton[][] };
}

export interface TelegramOutput {
  messages: TelegramMessageBody[];
}

const fits = (encoded: string) => Buffer.byteLength(encoded, 'utf8') <= TELEGRAM_LIMITS.callbackDataBytes;
const cut = (encoded: string) => truncateBytes(encoded, TELEGRAM_LIMITS.callbackDataBytes);
const button = (label: string, id: string, value: string): InlineKeyboardButton => ({
  text: truncate(label, TELEGRAM_LIMITS.buttonText),
  callback_data: encodeAction(id, value, fits, cut),
});

/**
 * The reply as sendMessage bodies: text split at 4096 characters, an ACTION_SET as an inline
 * keyboard on the last one (buttons three to a row, each select option on its own row). Text
 * inputs have no inline form: their labels join the text and the user answers with a message.
 */
export const toTelegramOutput = (reply: OutgoingReply): TelegramOutput => {
  const set = reply.actionSet;
  const inputs = set?.elements.filter((e) => e.type === 'text_input').map((e) => e.label) ?? [];
  const text = [reply.text, set?.prompt ?? '', ...inputs].filter((t) => t.trim() !== '').join('\n\n');
  const rows: InlineKeyboardButton[][] = [];
  let buttonRow: InlineKeyboardButton[] = [];
  for (const element of set?.elements ?? []) {
    if (element.type === 'button') {
      if (buttonRow.length === TELEGRAM_LIMITS.buttonsPerRow) buttonRow = [];
      if (buttonRow.length === 0) rows.push(buttonRow);
      buttonRow.push(button(element.label, element.id, element.value ?? element.id));
    } else if (element.type === 'select') {
      buttonRow = [];
      for (const option of element.options) rows.push([button(option.label, element.id, option.value)]);
    }
  }
  // Telegram refuses an empty text; a keyboard alone still needs a line above it.
  const chunks = splitText(text === '' && rows.length > 0 ? 'Choose an option' : text, TELEGRAM_LIMITS.text);
  const messages: TelegramMessageBody[] = chunks.filter((c) => c !== '').map((c) => ({ text: c }));
  const last = messages.at(-1);
  if (last !== undefined && rows.length > 0) last.reply_markup = { inline_keyboard: rows };
  return { messages };
};
