import type { ActionSet } from '@parley/events';
import type { OutgoingReply } from '../../types.js';
import { encodeAction, splitText, truncate } from '../shared.js';

/** WhatsApp Cloud API limits (interactive messages; spec 001 §8: 3 reply buttons / 10 list items). */
export const WHATSAPP_LIMITS = {
  textBody: 4096,
  interactiveBody: 1024,
  replyButtons: 3,
  buttonTitle: 20,
  buttonId: 256,
  listRows: 10,
  listSections: 10,
  listButton: 20,
  sectionTitle: 24,
  rowTitle: 24,
  rowId: 200,
  rowDescription: 72,
} as const;

export interface WhatsAppButton {
  type: 'reply';
  reply: { id: string; title: string };
}
export interface WhatsAppListRow {
  id: string;
  title: string;
  description?: string;
}
export interface WhatsAppListSection {
  title?: string;
  rows: WhatsAppListRow[];
}

/** One Graph API message body without the envelope (`messaging_product`, `to`) sendResponse adds. */
export type WhatsAppMessageBody =
  | { type: 'text'; text: { preview_url: false; body: string } }
  | {
      type: 'interactive';
      interactive:
        | { type: 'button'; body: { text: string }; action: { buttons: WhatsAppButton[] } }
        | {
            type: 'list';
            body: { text: string };
            action: { button: string; sections: WhatsAppListSection[] };
          };
    };

export interface WhatsAppOutput {
  messages: WhatsAppMessageBody[];
}

const textMessages = (text: string): WhatsAppMessageBody[] =>
  text.trim() === ''
    ? []
    : splitText(text, WHATSAPP_LIMITS.textBody).map((body) => ({
        type: 'text',
        text: { preview_url: false, body },
      }));

const fitsBytes = (max: number) => (encoded: string) => Array.from(encoded).length <= max;
const cut = (max: number) => (encoded: string) => Array.from(encoded).slice(0, max).join('');

/** Titles must be unique within a message: a repeated title gets a counter. */
const uniqueTitle = (title: string, max: number, used: Set<string>): string => {
  let candidate = truncate(title, max);
  for (let n = 2; used.has(candidate); n += 1) {
    const suffix = ` ${n}`;
    candidate = `${truncate(title, max - suffix.length)}${suffix}`;
  }
  used.add(candidate);
  return candidate;
};

const interactiveFor = (actionSet: ActionSet, bodyText: string): WhatsAppMessageBody | null => {
  const buttons = actionSet.elements.filter((e) => e.type === 'button');
  const selects = actionSet.elements.filter((e) => e.type === 'select');
  const used = new Set<string>();
  if (selects.length === 0 && buttons.length > 0 && buttons.length <= WHATSAPP_LIMITS.replyButtons) {
    return {
      type: 'interactive',
      interactive: {
        type: 'button',
        body: { text: bodyText },
        action: {
          buttons: buttons.map((b) => ({
            type: 'reply',
            reply: {
              id: encodeAction(
                b.id,
                b.value ?? b.id,
                fitsBytes(WHATSAPP_LIMITS.buttonId),
                cut(WHATSAPP_LIMITS.buttonId),
              ),
              title: uniqueTitle(b.label, WHATSAPP_LIMITS.buttonTitle, used),
            },
          })),
        },
      },
    };
  }
  // More than 3 buttons, or a select menu: one list message holding at most 10 rows in total.
  const sections: WhatsAppListSection[] = [];
  let rowsLeft: number = WHATSAPP_LIMITS.listRows;
  const rowId = (id: string, value: string) =>
    encodeAction(id, value, fitsBytes(WHATSAPP_LIMITS.rowId), cut(WHATSAPP_LIMITS.rowId));
  if (buttons.length > 0) {
    const rows = buttons.slice(0, rowsLeft).map((b) => ({
      id: rowId(b.id, b.value ?? b.id),
      title: uniqueTitle(b.label, WHATSAPP_LIMITS.rowTitle, used),
    }));
    rowsLeft -= rows.length;
    sections.push({ rows });
  }
  for (const select of selects) {
    if (rowsLeft === 0 || sections.length === WHATSAPP_LIMITS.listSections) break;
    const rows = select.options.slice(0, rowsLeft).map((o) => ({
      id: rowId(select.id, o.value),
      title: uniqueTitle(o.label, WHATSAPP_LIMITS.rowTitle, used),
    }));
    rowsLeft -= rows.length;
    sections.push({ title: truncate(select.label, WHATSAPP_LIMITS.sectionTitle), rows });
  }
  if (sections.length === 0) return null;
  // With several sections WhatsApp requires each to have a title.
  if (sections.length > 1) for (const s of sections) s.title ??= 'Options';
  const button = selects[0]?.placeholder ?? selects[0]?.label ?? 'Choose';
  return {
    type: 'interactive',
    interactive: {
      type: 'list',
      body: { text: bodyText },
      action: { button: truncate(button, WHATSAPP_LIMITS.listButton), sections },
    },
  };
};

/**
 * The reply as WhatsApp messages: text split at 4096 characters; an ACTION_SET as reply buttons
 * (up to 3 buttons, no select) or else one list (at most 10 rows, the rest dropped). Text inputs
 * have no native form: their labels join the text (the user answers with a plain message).
 */
export const toWhatsAppOutput = (reply: OutgoingReply): WhatsAppOutput => {
  const actionSet = reply.actionSet;
  if (actionSet === undefined) return { messages: textMessages(reply.text) };
  const inputs = actionSet.elements.filter((e) => e.type === 'text_input').map((e) => e.label);
  const prompt = [actionSet.prompt ?? '', ...inputs].filter((t) => t.trim() !== '').join('\n');
  const text = reply.text.trim();
  // The reply text rides in the interactive body when it fits; otherwise it goes first on its own.
  const inBody = prompt === '' && text !== '' && Array.from(text).length <= WHATSAPP_LIMITS.interactiveBody;
  const leading = inBody || text === prompt ? [] : textMessages(reply.text);
  const bodyText = truncate(inBody ? text : prompt || 'Choose an option', WHATSAPP_LIMITS.interactiveBody);
  const interactive = interactiveFor(actionSet, bodyText);
  if (interactive === null) return { messages: [...leading, ...textMessages(inBody ? text : prompt)] };
  return { messages: [...leading, interactive] };
};
