import type { OutgoingReply } from '../../types.js';
import { type MessengerQuickReply, metaQuickReplyOutput, metaTextMessages } from '../messenger/index.js';

/** Instagram messaging limits: text of at most 1,000 UTF-8 bytes, 13 quick replies. */
export const INSTAGRAM_LIMITS = {
  textBytes: 1000,
  quickReplies: 13,
  quickReplyTitle: 20,
  payload: 1000,
} as const;

/** One Send API `message` object (sendResponse adds `recipient`). */
export interface InstagramMessageBody {
  text: string;
  quick_replies?: MessengerQuickReply[];
}

export interface InstagramOutput {
  messages: InstagramMessageBody[];
}

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

/** Splits text into chunks of at most `max` UTF-8 bytes, preferring line then word breaks. */
export const splitTextBytes = (text: string, max: number): string[] => {
  const chunks: string[] = [];
  let rest = Array.from(text);
  while (bytes(rest.join('')) > max) {
    let size = 0;
    let end = 0;
    while (end < rest.length && size + bytes(rest[end] ?? '') <= max) {
      size += bytes(rest[end] ?? '');
      end += 1;
    }
    const window = rest.slice(0, end);
    let breakAt = -1;
    for (let i = window.length - 1; i > end / 2; i -= 1) {
      if (window[i] === '\n' || window[i] === ' ') {
        breakAt = i;
        break;
      }
    }
    const cut = breakAt > 0 ? breakAt : Math.max(end, 1);
    chunks.push(rest.slice(0, cut).join(''));
    rest = rest.slice(cut);
    while (rest[0] === '\n' || rest[0] === ' ') rest = rest.slice(1);
  }
  if (rest.length > 0 || chunks.length === 0) chunks.push(rest.join(''));
  return chunks;
};

const split = (text: string) => splitTextBytes(text, INSTAGRAM_LIMITS.textBytes);
const limits = { ...INSTAGRAM_LIMITS, text: INSTAGRAM_LIMITS.textBytes };

/**
 * The reply as Instagram messages: text split at 1,000 UTF-8 bytes; an ACTION_SET as quick replies
 * (at most 13: buttons first, then select options) on the prompt, or on the reply text when there
 * is no prompt. Instagram has no button template for this: buttons are quick replies too.
 */
export const toInstagramOutput = (reply: OutgoingReply): InstagramOutput => {
  const actionSet = reply.actionSet;
  if (actionSet === undefined) return { messages: metaTextMessages(reply.text, split) };
  return {
    messages: metaQuickReplyOutput(
      reply,
      actionSet,
      limits,
      split,
      (t) => bytes(t) <= INSTAGRAM_LIMITS.textBytes,
    ),
  };
};
