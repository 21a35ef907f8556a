import type { OutgoingReply } from '../../types.js';
import { splitText, truncate } from '../shared.js';

/** Block Kit limits used here. */
export const SLACK_LIMITS = {
  messageText: 40_000,
  sectionText: 3000,
  blocks: 50,
  actionsElements: 25,
  buttonText: 75,
  buttonValue: 2000,
  actionId: 255,
  selectOptions: 100,
  optionText: 75,
  optionValue: 150,
  placeholder: 150,
} as const;

interface PlainText {
  type: 'plain_text';
  text: string;
  emoji?: boolean;
}
export type SlackBlockElement =
  | { type: 'button'; action_id: string; text: PlainText; value: string; style?: 'primary' | 'danger' }
  | {
      type: 'static_select';
      action_id: string;
      placeholder: PlainText;
      options: { text: PlainText; value: string }[];
    };
export type SlackBlock =
  | { type: 'section'; text: { type: 'mrkdwn'; text: string } }
  | { type: 'actions'; elements: SlackBlockElement[] };

/** A chat.postMessage body without `channel` / `thread_ts` (sendResponse adds those). */
export interface SlackMessageBody {
  text: string;
  blocks?: SlackBlock[];
}
export interface SlackOutput {
  messages: SlackMessageBody[];
}

/** Markdown to Slack mrkdwn: escapes &, <, >; bold, strike, links and headings. */
export const markdownToMrkdwn = (markdown: string): string =>
  markdown
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\[([^\]\n]+)\]\((https?:\/\/[^)\s|]+)\)/g, '<$2|$1>')
    .replace(/\*\*([^*\n]+)\*\*/g, '*$1*')
    .replace(/__([^_\n]+)__/g, '*$1*')
    .replace(/~~([^~\n]+)~~/g, '~$1~')
    .replace(/^#{1,6}\s+(.+)$/gm, '*$1*');

const plain = (text: string, max: number): PlainText => ({
  type: 'plain_text',
  text: truncate(text, max),
  emoji: true,
});
const sections = (text: string): SlackBlock[] =>
  text.trim() === ''
    ? []
    : splitText(text, SLACK_LIMITS.sectionText).map((chunk) => ({
        type: 'section',
        text: { type: 'mrkdwn', text: chunk },
      }));

/**
 * The reply as chat.postMessage bodies. Plain replies: mrkdwn text, split at 40,000 characters.
 * With an ACTION_SET: section blocks for the text, then actions blocks (25 elements each) of
 * buttons and static_selects; text inputs become a line of text (answered by a plain message).
 * At most 50 blocks: elements beyond that are dropped.
 */
export const toSlackOutput = (reply: OutgoingReply): SlackOutput => {
  const text = markdownToMrkdwn(reply.text);
  const set = reply.actionSet;
  if (set === undefined) {
    return {
      messages: text.trim() === '' ? [] : splitText(text, SLACK_LIMITS.messageText).map((t) => ({ text: t })),
    };
  }
  const inputs = set.elements.filter((e) => e.type === 'text_input').map((e) => markdownToMrkdwn(e.label));
  const lead = [text, markdownToMrkdwn(set.prompt ?? ''), ...inputs]
    .filter((t) => t.trim() !== '')
    .join('\n\n');
  const elements: SlackBlockElement[] = [];
  for (const element of set.elements) {
    if (element.type === 'button') {
      elements.push({
        type: 'button',
        action_id: truncate(element.id, SLACK_LIMITS.actionId),
        text: plain(element.label, SLACK_LIMITS.buttonText),
        value: truncate(element.value ?? element.id, SLACK_LIMITS.buttonValue),
        ...(element.style === 'primary' || element.style === 'danger' ? { style: element.style } : {}),
      });
    } else if (element.type === 'select') {
      elements.push({
        type: 'static_select',
        action_id: truncate(element.id, SLACK_LIMITS.actionId),
        placeholder: plain(element.placeholder ?? element.label, SLACK_LIMITS.placeholder),
        options: element.options.slice(0, SLACK_LIMITS.selectOptions).map((o) => ({
          text: plain(o.label, SLACK_LIMITS.optionText),
          value: truncate(o.value, SLACK_LIMITS.optionValue),
        })),
      });
    }
  }
  const blocks: SlackBlock[] = sections(lead).slice(0, SLACK_LIMITS.blocks - 1);
  for (
    let i = 0;
    i < elements.length && blocks.length < SLACK_LIMITS.blocks;
    i += SLACK_LIMITS.actionsElements
  ) {
    blocks.push({ type: 'actions', elements: elements.slice(i, i + SLACK_LIMITS.actionsElements) });
  }
  // `text` is the notification and accessibility fallback when blocks are present.
  const fallback = truncate(lead.trim() === '' ? 'Choose an option' : lead, SLACK_LIMITS.sectionText);
  return { messages: [{ text: fallback, blocks }] };
};
