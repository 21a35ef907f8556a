import type { SyncOutcome, SyncResponse } from '../../adapter.js';
import type { OutgoingReply } from '../../types.js';
import { encodeAction, splitText, truncate } from '../shared.js';

/**
 * Our limits for the bot connector's reply (conservative; the connector documents no numbers we
 * rely on): text per reply message, reply messages per turn, quick replies per turn, a quick
 * reply's label and its payload.
 */
export const CONTACT_CENTER_LIMITS = {
  text: 4000,
  messages: 10,
  quickReplies: 10,
  quickReplyText: 200,
  payload: 1000,
} as const;

export interface QuickReplyContent {
  contentType: 'QuickReply';
  quickReply: { text: string; payload: string; action: 'Message' };
}

export type ContactCenterReplyMessage =
  | { type: 'Text'; text: string }
  | { type: 'Structured'; text: string; content: QuickReplyContent[] };

/** The connector's response: `botState` MoreData (the conversation goes on), Complete or Failed. */
export interface ContactCenterResponseBody {
  botState: 'MoreData' | 'Complete' | 'Failed';
  replymessages: ContactCenterReplyMessage[];
  errorInfo?: { errorCode: string; errorMessage: string };
}

const quickReply = (label: string, id: string, value: string): QuickReplyContent => ({
  contentType: 'QuickReply',
  quickReply: {
    text: truncate(label, CONTACT_CENTER_LIMITS.quickReplyText),
    payload: encodeAction(
      id,
      value,
      (encoded) => Array.from(encoded).length <= CONTACT_CENTER_LIMITS.payload,
      (encoded) => truncate(encoded, CONTACT_CENTER_LIMITS.payload),
    ),
    action: 'Message',
  },
});

/**
 * The agent's reply as connector reply messages: the text (split at the text limit), then the
 * ACTION_SET as one Structured message whose text is the prompt (or the text inputs' labels, which
 * have no native form) and whose content is a quick reply per button and per select option, at
 * most CONTACT_CENTER_LIMITS.quickReplies. A blank reply is no message.
 */
export function toContactCenterMessages(reply: OutgoingReply): ContactCenterReplyMessage[] {
  const messages: ContactCenterReplyMessage[] = [];
  const text = reply.text.trim();
  if (text !== '')
    for (const chunk of splitText(text, CONTACT_CENTER_LIMITS.text))
      if (chunk !== '') messages.push({ type: 'Text', text: chunk });
  const actionSet = reply.actionSet;
  if (actionSet !== undefined) {
    const content: QuickReplyContent[] = [];
    const asText: string[] = [];
    for (const element of actionSet.elements) {
      if (element.type === 'button')
        content.push(quickReply(element.label, element.id, element.value ?? element.id));
      else if (element.type === 'select')
        for (const option of element.options)
          content.push(quickReply(option.label, element.id, option.value));
      else asText.push(element.label);
    }
    const prompt = [actionSet.prompt?.trim() ?? '', ...asText].filter((t) => t !== '').join('\n');
    const structuredText = truncate(prompt, CONTACT_CENTER_LIMITS.text);
    const quickReplies = content.slice(0, CONTACT_CENTER_LIMITS.quickReplies);
    if (quickReplies.length > 0)
      messages.push({ type: 'Structured', text: structuredText, content: quickReplies });
    else if (structuredText !== '') messages.push({ type: 'Text', text: structuredText });
  }
  // The quick replies are kept when there are too many messages: the last one is the Structured one.
  if (messages.length > CONTACT_CENTER_LIMITS.messages) {
    const last = messages[messages.length - 1] as ContactCenterReplyMessage;
    return [...messages.slice(0, CONTACT_CENTER_LIMITS.messages - 1), last];
  }
  return messages;
}

const ERRORS: Record<
  Exclude<SyncOutcome, { kind: 'reply' }>['kind'] | (SyncOutcome & { kind: 'error' })['error'],
  { status: number; errorCode: string; errorMessage: string }
> = {
  no_message: {
    status: 400,
    errorCode: 'InvalidRequest',
    errorMessage: 'The request carries no message to answer',
  },
  connection_inactive: { status: 200, errorCode: 'BotUnavailable', errorMessage: 'The bot is switched off' },
  error: { status: 500, errorCode: 'BotError', errorMessage: 'The bot could not answer' },
  turn_failed: {
    status: 200,
    errorCode: 'TurnFailed',
    errorMessage: 'The bot could not answer this message',
  },
  turn_timeout: { status: 200, errorCode: 'TurnTimeout', errorMessage: 'The bot did not answer in time' },
  busy: { status: 503, errorCode: 'Busy', errorMessage: 'The conversation is busy; retry' },
  unavailable: { status: 503, errorCode: 'Unavailable', errorMessage: 'The bot is not available; retry' },
};

/**
 * The HTTP response of one turn request: 200 with `botState` MoreData and the reply messages, or
 * Complete when the agent ended the session. No reply: Failed with `errorInfo`, 200 when retrying
 * would not help (turn failed or timed out, connection off: the flow takes its failure path), 503
 * when it may (busy, unavailable), 400 for an unreadable request.
 */
export function renderContactCenterResponse(outcome: SyncOutcome): SyncResponse {
  let status = 200;
  let body: ContactCenterResponseBody;
  if (outcome.kind === 'reply') {
    body = {
      botState: outcome.sessionEnded ? 'Complete' : 'MoreData',
      replymessages: toContactCenterMessages(outcome.reply),
    };
  } else {
    const error = ERRORS[outcome.kind === 'error' ? outcome.error : outcome.kind] ?? ERRORS.error;
    status = error.status;
    body = {
      botState: 'Failed',
      replymessages: [],
      errorInfo: { errorCode: error.errorCode, errorMessage: error.errorMessage },
    };
  }
  return { status, contentType: 'application/json; charset=utf-8', body: JSON.stringify(body) };
}
