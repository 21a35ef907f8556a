import type { ActionSet } from '@parley/events';
import type { OutgoingReply } from '../../types.js';
import { encodeAction, splitText, truncate } from '../shared.js';

/**
 * Limits the transform keeps (Sunshine Conversations v2): text 4,096 characters per message (the
 * API's bound for rich text); reply actions shown as quick replies, at most 13 (the smallest
 * channel bound, Messenger's), button text 40 characters (Web Messenger and the mobile SDKs cut
 * there, Messenger at 20 itself); payload 1,000 characters (Messenger's quick reply payload).
 */
export const ZENDESK_LIMITS = {
  text: 4096,
  actions: 13,
  actionText: 40,
  payload: 1000,
} as const;

export interface ZendeskReplyAction {
  type: 'reply';
  text: string;
  payload: string;
}

/** One message `content` (sendResponse adds `author: { type: 'business' }`). Text is markdown. */
export interface ZendeskTextContent {
  type: 'text';
  text: string;
  actions?: ZendeskReplyAction[];
}

export interface ZendeskOutput {
  messages: ZendeskTextContent[];
}

const fits = (encoded: string) => Array.from(encoded).length <= ZENDESK_LIMITS.payload;
const cut = (encoded: string) => Array.from(encoded).slice(0, ZENDESK_LIMITS.payload).join('');
const action = (label: string, id: string, value: string): ZendeskReplyAction => ({
  type: 'reply',
  text: truncate(label, ZENDESK_LIMITS.actionText),
  payload: encodeAction(id, value, fits, cut),
});

/** Buttons first, then each select's options, as reply actions (at most 13). */
export const zendeskReplyActions = (actionSet: ActionSet): ZendeskReplyAction[] => {
  const actions: ZendeskReplyAction[] = [];
  for (const element of actionSet.elements) {
    if (element.type === 'button')
      actions.push(action(element.label, element.id, element.value ?? element.id));
    else if (element.type === 'select') {
      for (const option of element.options) actions.push(action(option.label, element.id, option.value));
    }
  }
  return actions.slice(0, ZENDESK_LIMITS.actions);
};

/**
 * The reply as Sunshine Conversations text messages: reply text, ACTION_SET prompt and text-input
 * labels joined (markdown kept) and split at 4,096 characters; buttons and select options become
 * `reply` actions on the last message. A tapped reply comes back as the user's text message with
 * the action's payload.
 */
export const toZendeskOutput = (reply: OutgoingReply): ZendeskOutput => {
  const set = reply.actionSet;
  const inputs = set?.elements.filter((e) => e.type === 'text_input').map((e) => e.label) ?? [];
  const text = [reply.text, set?.prompt ?? '', ...inputs].filter((t) => t.trim() !== '').join('\n\n');
  const actions = set === undefined ? [] : zendeskReplyActions(set);
  const body = text === '' && actions.length > 0 ? 'Choose an option' : text;
  const messages: ZendeskTextContent[] = splitText(body, ZENDESK_LIMITS.text)
    .filter((c) => c !== '')
    .map((c) => ({ type: 'text', text: c }));
  const last = messages.at(-1);
  if (last !== undefined && actions.length > 0) last.actions = actions;
  return { messages };
};
