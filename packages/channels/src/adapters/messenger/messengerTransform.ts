import type { ActionSet } from '@parley/events';
import type { OutgoingReply } from '../../types.js';
import { encodeAction, splitText, truncate } from '../shared.js';

/** Messenger Send API limits (text, button template, quick replies). */
export const MESSENGER_LIMITS = {
  text: 2000,
  buttonTemplateText: 640,
  buttons: 3,
  buttonTitle: 20,
  quickReplies: 13,
  quickReplyTitle: 20,
  payload: 1000,
} as const;

export interface MessengerQuickReply {
  content_type: 'text';
  title: string;
  payload: string;
}
export interface MessengerPostbackButton {
  type: 'postback';
  title: string;
  payload: string;
}

/** One Send API `message` object (sendResponse adds `recipient` and `messaging_type`). */
export type MessengerMessageBody =
  | { text: string; quick_replies?: MessengerQuickReply[] }
  | {
      attachment: {
        type: 'template';
        payload: { template_type: 'button'; text: string; buttons: MessengerPostbackButton[] };
      };
    };

export interface MessengerOutput {
  messages: MessengerMessageBody[];
}

/** The limits a Meta messaging channel's transform obeys (Messenger's; Instagram's are smaller). */
export interface MetaTextLimits {
  text: number;
  quickReplies: number;
  quickReplyTitle: number;
  payload: number;
}

const fits = (max: number) => (encoded: string) => Array.from(encoded).length <= max;
const cut = (max: number) => (encoded: string) => Array.from(encoded).slice(0, max).join('');

/** Text messages of at most `limits.text` (split by `split`); none for blank text. */
export const metaTextMessages = (text: string, split: (text: string) => string[]): { text: string }[] =>
  text.trim() === '' ? [] : split(text).map((t) => ({ text: t }));

/** Buttons first, then each select's options, as quick replies (at most `limits.quickReplies`). */
export const metaQuickReplies = (actionSet: ActionSet, limits: MetaTextLimits): MessengerQuickReply[] => {
  const payload = (id: string, value: string) =>
    encodeAction(id, value, fits(limits.payload), cut(limits.payload));
  const all: MessengerQuickReply[] = [];
  for (const element of actionSet.elements) {
    if (element.type === 'button') {
      all.push({
        content_type: 'text',
        title: truncate(element.label, limits.quickReplyTitle),
        payload: payload(element.id, element.value ?? element.id),
      });
    } else if (element.type === 'select') {
      for (const option of element.options) {
        all.push({
          content_type: 'text',
          title: truncate(option.label, limits.quickReplyTitle),
          payload: payload(element.id, option.value),
        });
      }
    }
  }
  return all.slice(0, limits.quickReplies);
};

/** The ACTION_SET prompt with the labels of its text inputs (they have no native form). */
export const metaPrompt = (actionSet: ActionSet): string => {
  const inputs = actionSet.elements.filter((e) => e.type === 'text_input').map((e) => e.label);
  return [actionSet.prompt ?? '', ...inputs].filter((t) => t.trim() !== '').join('\n');
};

/**
 * Quick-reply layout shared by Messenger and Instagram: the reply text (or the prompt) carries the
 * quick replies when it fits one message; otherwise the text goes first on its own.
 */
export const metaQuickReplyOutput = (
  reply: OutgoingReply,
  actionSet: ActionSet,
  limits: MetaTextLimits,
  split: (text: string) => string[],
  fitsText: (text: string) => boolean,
): { text: string; quick_replies?: MessengerQuickReply[] }[] => {
  const prompt = metaPrompt(actionSet);
  const text = reply.text.trim();
  const quickReplies = metaQuickReplies(actionSet, limits);
  const inBody = prompt === '' && text !== '' && fitsText(text);
  const leading = inBody || text === prompt ? [] : metaTextMessages(reply.text, split);
  if (quickReplies.length === 0) return [...leading, ...metaTextMessages(inBody ? text : prompt, split)];
  const bodyText = inBody ? text : prompt || 'Choose an option';
  const parts = split(bodyText);
  const last = parts.pop() ?? bodyText;
  return [...leading, ...parts.map((t) => ({ text: t })), { text: last, quick_replies: quickReplies }];
};

const splitMessenger = (text: string) => splitText(text, MESSENGER_LIMITS.text);

/**
 * The reply as Messenger messages: text split at 2,000 characters; an ACTION_SET of up to 3 buttons
 * and no select as a button template (postback buttons), anything else as quick replies (at most
 * 13: buttons first, then select options). Text inputs join the prompt.
 */
export const toMessengerOutput = (reply: OutgoingReply): MessengerOutput => {
  const actionSet = reply.actionSet;
  if (actionSet === undefined) return { messages: metaTextMessages(reply.text, splitMessenger) };
  const buttons = actionSet.elements.filter((e) => e.type === 'button');
  const selects = actionSet.elements.filter((e) => e.type === 'select');
  if (selects.length > 0 || buttons.length === 0 || buttons.length > MESSENGER_LIMITS.buttons) {
    return {
      messages: metaQuickReplyOutput(
        reply,
        actionSet,
        MESSENGER_LIMITS,
        splitMessenger,
        fits(MESSENGER_LIMITS.text),
      ),
    };
  }
  const prompt = metaPrompt(actionSet);
  const text = reply.text.trim();
  const inBody = prompt === '' && text !== '' && fits(MESSENGER_LIMITS.buttonTemplateText)(text);
  const leading = inBody || text === prompt ? [] : metaTextMessages(reply.text, splitMessenger);
  const templateText = truncate(
    inBody ? text : prompt || 'Choose an option',
    MESSENGER_LIMITS.buttonTemplateText,
  );
  const payload = (id: string, value: string) =>
    encodeAction(id, value, fits(MESSENGER_LIMITS.payload), cut(MESSENGER_LIMITS.payload));
  return {
    messages: [
      ...leading,
      {
        attachment: {
          type: 'template',
          payload: {
            template_type: 'button',
            text: templateText,
            buttons: buttons.map((b) => ({
              type: 'postback',
              title: truncate(b.label, MESSENGER_LIMITS.buttonTitle),
              payload: payload(b.id, b.value ?? b.id),
            })),
          },
        },
      },
    ],
  };
};
