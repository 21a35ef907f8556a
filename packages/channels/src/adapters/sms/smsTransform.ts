import type { ActionSet } from '@parley/events';
import type { OutgoingReply } from '../../types.js';
import { splitText } from '../shared.js';

/** The provider's limit: a message body of at most 1,600 characters. */
export const SMS_LIMITS = { body: 1600 } as const;

export interface SmsOutput {
  /** Message bodies, sent in order. */
  bodies: string[];
}

/**
 * An ACTION_SET as text: the prompt, then every button and select option numbered from 1 (a
 * select's label before its options), then the text inputs' labels.
 */
export const actionSetAsText = (actionSet: ActionSet): string => {
  const lines: string[] = [];
  if (actionSet.prompt !== undefined && actionSet.prompt.trim() !== '') lines.push(actionSet.prompt);
  let n = 0;
  for (const element of actionSet.elements) {
    if (element.type === 'button') lines.push(`${++n}. ${element.label}`);
    else if (element.type === 'select') {
      lines.push(`${element.label}:`);
      for (const option of element.options) lines.push(`${++n}. ${option.label}`);
    }
  }
  for (const element of actionSet.elements) if (element.type === 'text_input') lines.push(element.label);
  if (n > 0) lines.push('Reply with the number of your choice.');
  return lines.join('\n');
};

/**
 * The reply as SMS bodies: the text, then the ACTION_SET as numbered options (SMS has no rich
 * output), split at `maxBody` characters (1,600, the Twilio-style provider's limit, by default;
 * line then word breaks preferred). Blank: no message.
 */
export const toSmsOutput = (reply: OutgoingReply, maxBody: number = SMS_LIMITS.body): SmsOutput => {
  const options = reply.actionSet === undefined ? '' : actionSetAsText(reply.actionSet);
  const text = [reply.text.trim(), options].filter((t) => t.trim() !== '').join('\n\n');
  return { bodies: text === '' ? [] : splitText(text, maxBody).filter((b) => b !== '') };
};
