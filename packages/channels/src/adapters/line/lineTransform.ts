import type { ActionSet } from '@parley/events';
import type { OutgoingReply } from '../../types.js';
import { encodeAction, splitText } from '../shared.js';

/**
 * LINE Messaging API limits: text message 5,000 characters; 5 message objects per reply or push
 * request; quick reply 13 items, action label 20 characters, postback data and displayText 300.
 * Lengths are counted in UTF-16 code units, which is never less than LINE's character count.
 */
export const LINE_LIMITS = {
  text: 5000,
  messagesPerRequest: 5,
  quickReplyItems: 13,
  label: 20,
  postbackData: 300,
  displayText: 300,
} as const;

export interface LinePostbackAction {
  type: 'postback';
  label: string;
  data: string;
  /** Shown in the chat as the user's message when tapped (LINE does not send it to the webhook). */
  displayText: string;
}

export interface LineQuickReplyItem {
  type: 'action';
  action: LinePostbackAction;
}

export interface LineTextMessage {
  type: 'text';
  text: string;
  quickReply?: { items: LineQuickReplyItem[] };
}

/** The reply's message objects, in order; sendResponse sends them five per request. */
export interface LineOutput {
  messages: LineTextMessage[];
}

/** Cuts to at most `max` UTF-16 code units without splitting a surrogate pair; `…` marks a cut. */
export const cutUtf16 = (text: string, max: number): string => {
  if (text.length <= max) return text;
  let out = '';
  for (const char of text) {
    if (out.length + char.length > max - 1) break;
    out += char;
  }
  return `${out}…`;
};

/**
 * Splits text into LINE text messages: at most 5,000 UTF-16 code units each. splitText counts
 * code points, so a chunk full of astral characters (emoji) is split once more at half the size.
 */
export const splitLineText = (text: string): string[] =>
  splitText(text, LINE_LIMITS.text).flatMap((chunk) =>
    chunk.length <= LINE_LIMITS.text ? [chunk] : splitText(chunk, LINE_LIMITS.text / 2),
  );

const fits = (encoded: string) => encoded.length <= LINE_LIMITS.postbackData;
const cut = (encoded: string) => {
  let out = '';
  for (const char of encoded) {
    if (out.length + char.length > LINE_LIMITS.postbackData) break;
    out += char;
  }
  return out;
};

const item = (label: string, id: string, value: string): LineQuickReplyItem => ({
  type: 'action',
  action: {
    type: 'postback',
    label: cutUtf16(label, LINE_LIMITS.label),
    data: encodeAction(id, value, fits, cut),
    displayText: cutUtf16(label, LINE_LIMITS.displayText),
  },
});

/** Buttons first, then each select's options, as postback quick reply items (at most 13). */
export const lineQuickReplyItems = (actionSet: ActionSet): LineQuickReplyItem[] => {
  const items: LineQuickReplyItem[] = [];
  for (const element of actionSet.elements) {
    if (element.type === 'button') items.push(item(element.label, element.id, element.value ?? element.id));
    else if (element.type === 'select') {
      for (const option of element.options) items.push(item(option.label, element.id, option.value));
    }
  }
  return items.slice(0, LINE_LIMITS.quickReplyItems);
};

/**
 * The reply as LINE text messages: reply text, ACTION_SET prompt and text-input labels joined and
 * split at 5,000 code units; buttons and select options become postback quick reply items on the
 * last message (LINE shows a quick reply only on the last message it received).
 */
export const toLineOutput = (reply: OutgoingReply): LineOutput => {
  const set = reply.actionSet;
  const inputs = set?.elements.filter((e) => e.type === 'text_input').map((e) => e.label) ?? [];
  const text = [reply.text, set?.prompt ?? '', ...inputs].filter((t) => t.trim() !== '').join('\n\n');
  const items = set === undefined ? [] : lineQuickReplyItems(set);
  // LINE refuses an empty text message; quick replies alone still need a line above them.
  const body = text === '' && items.length > 0 ? 'Choose an option' : text;
  const messages: LineTextMessage[] = splitLineText(body)
    .filter((c) => c !== '')
    .map((c) => ({ type: 'text', text: c }));
  const last = messages.at(-1);
  if (last !== undefined && items.length > 0) last.quickReply = { items };
  return { messages };
};
