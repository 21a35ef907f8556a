import type { ActionSet, ActionSetElement } from '@parley/events';
import type { OutgoingReply } from '../../types.js';
import { splitText, truncate } from '../shared.js';
import { PARLEY_ACTION_KEY, SELECT_INPUT_PREFIX, TEXT_INPUT_PREFIX } from './msteamsPayload.js';

export const ADAPTIVE_CARD_CONTENT_TYPE = 'application/vnd.microsoft.card.adaptive';

/** Teams limits used here. */
export const MSTEAMS_LIMITS = {
  /** Teams refuses bot messages above about 28 KB (text and card payload): UTF-8 bytes of the activity JSON. */
  activityBytes: 28_000,
  /**
   * Characters per text message: JSON escapes a code point into at most 6 bytes (`\u0001`), so
   * 4,000 stay within activityBytes whatever the text.
   */
  textChunk: 4_000,
  /** Teams' Adaptive Card host config renders at most 6 actions per action set (`actions.maxActions`). */
  actionsPerSet: 6,
  /** Choices kept per Input.ChoiceSet (the ACTION_SET maximum; fewer when the card is too large). */
  choices: 100,
  /** Adaptive Card schema version (Teams takes up to 1.5 from bots; nothing of 1.5 is used). */
  cardVersion: '1.4',
  elementId: 100,
  label: 200,
  value: 1000,
  prompt: 4000,
} as const;

export interface AdaptiveCard {
  type: 'AdaptiveCard';
  $schema: string;
  version: string;
  body: Record<string, unknown>[];
  actions?: Record<string, unknown>[];
}

/** A message activity as the Bot Connector API takes it (sendResponse adds nothing but the address). */
export interface MsTeamsActivity {
  type: 'message';
  text?: string;
  textFormat?: 'markdown';
  attachments?: { contentType: typeof ADAPTIVE_CARD_CONTENT_TYPE; content: AdaptiveCard }[];
}
export interface MsTeamsOutput {
  activities: MsTeamsActivity[];
}

/** UTF-8 bytes of an activity as it is sent. */
export const activityBytes = (activity: MsTeamsActivity): number =>
  Buffer.byteLength(JSON.stringify(activity), 'utf8');

/** Cuts ids and values without an ellipsis: they travel back to the agent and must stay prefixes. */
const cut = (text: string, max: number): string => Array.from(text).slice(0, max).join('');

const BUTTON_STYLE = { primary: 'positive', danger: 'destructive' } as const;

interface Shape {
  /** Choices kept per select. */
  choices: number;
  /** Elements kept (from the start). */
  elements: number;
  /** Prompt characters kept. */
  prompt: number;
}

const buttonAction = (element: Extract<ActionSetElement, { type: 'button' }>) => {
  const id = cut(element.id, MSTEAMS_LIMITS.elementId);
  const label = truncate(element.label, MSTEAMS_LIMITS.label);
  const value = element.value === undefined ? undefined : cut(element.value, MSTEAMS_LIMITS.value);
  const style =
    element.style === 'primary' || element.style === 'danger' ? BUTTON_STYLE[element.style] : undefined;
  return {
    type: 'Action.Submit',
    title: label,
    // Teams merges the card's input values into this object when the button is clicked.
    data: { [PARLEY_ACTION_KEY]: { id, ...(value === undefined || value === id ? {} : { value }), label } },
    ...(style === undefined ? {} : { style }),
  };
};

const inputElement = (element: Exclude<ActionSetElement, { type: 'button' }>, choices: number) => {
  const label = truncate(element.label, MSTEAMS_LIMITS.label);
  const placeholder =
    element.placeholder === undefined ? undefined : truncate(element.placeholder, MSTEAMS_LIMITS.label);
  const id = cut(element.id, MSTEAMS_LIMITS.elementId);
  if (element.type === 'select') {
    return {
      type: 'Input.ChoiceSet',
      id: `${SELECT_INPUT_PREFIX}${id}`,
      label,
      style: 'compact',
      ...(placeholder === undefined ? {} : { placeholder }),
      choices: element.options.slice(0, choices).map((option) => ({
        title: truncate(option.label, MSTEAMS_LIMITS.label),
        value: cut(option.value, MSTEAMS_LIMITS.value),
      })),
    };
  }
  return {
    type: 'Input.Text',
    id: `${TEXT_INPUT_PREFIX}${id}`,
    label,
    ...(placeholder === undefined ? {} : { placeholder }),
    ...(element.multiline === true ? { isMultiline: true } : {}),
    ...(element.maxLength === undefined ? {} : { maxLength: element.maxLength }),
  };
};

const buildCard = (set: ActionSet, shape: Shape): AdaptiveCard => {
  const body: Record<string, unknown>[] = [];
  const prompt = truncate((set.prompt ?? '').trim(), shape.prompt);
  if (prompt !== '') body.push({ type: 'TextBlock', text: prompt, wrap: true });
  const buttons: ReturnType<typeof buttonAction>[] = [];
  const inputIds = new Set<string>();
  for (const element of set.elements.slice(0, shape.elements)) {
    if (element.type === 'button') {
      buttons.push(buttonAction(element));
      continue;
    }
    const input = inputElement(element, shape.choices);
    // Input ids must be unique in a card: a repeated element id keeps its first input.
    if (inputIds.has(input.id)) continue;
    inputIds.add(input.id);
    body.push(input);
  }
  for (let i = 0; i < buttons.length; i += MSTEAMS_LIMITS.actionsPerSet) {
    body.push({ type: 'ActionSet', actions: buttons.slice(i, i + MSTEAMS_LIMITS.actionsPerSet) });
  }
  const card: AdaptiveCard = {
    type: 'AdaptiveCard',
    $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
    version: MSTEAMS_LIMITS.cardVersion,
    body,
  };
  // Inputs without any button still need a way to be sent.
  if (buttons.length === 0 && inputIds.size > 0) {
    card.actions = [{ type: 'Action.Submit', title: 'Submit', data: { [PARLEY_ACTION_KEY]: {} } }];
  }
  return card;
};

const cardActivity = (card: AdaptiveCard): MsTeamsActivity => ({
  type: 'message',
  attachments: [{ contentType: ADAPTIVE_CARD_CONTENT_TYPE, content: card }],
});

/**
 * Ever smaller cards, tried in order until one fits: fewer choices per select, then fewer
 * elements (from the end), then a shorter prompt. The last shape (one element of schema size,
 * one choice, no prompt) is far below the limit.
 */
const shapesFor = (set: ActionSet): Shape[] => {
  const count = set.elements.length;
  const full = MSTEAMS_LIMITS.prompt;
  const shapes: Shape[] = [100, 50, 20, 10].map((choices) => ({ choices, elements: count, prompt: full }));
  for (let elements = count - 1; elements >= 1; elements -= 1)
    shapes.push({ choices: 10, elements, prompt: full });
  shapes.push({ choices: 5, elements: 1, prompt: full }, { choices: 1, elements: 1, prompt: full });
  shapes.push({ choices: 1, elements: 1, prompt: 500 }, { choices: 1, elements: 1, prompt: 0 });
  return shapes;
};

/** The ACTION_SET as one Adaptive Card message within activityBytes. */
export const fitCard = (set: ActionSet): MsTeamsActivity => {
  let last: MsTeamsActivity | undefined;
  for (const shape of shapesFor(set)) {
    last = cardActivity(buildCard(set, shape));
    if (activityBytes(last) <= MSTEAMS_LIMITS.activityBytes) return last;
  }
  return last ?? cardActivity(buildCard(set, { choices: 1, elements: 1, prompt: 0 }));
};

/**
 * The reply as Bot Connector message activities. Text is markdown (`textFormat: 'markdown'`),
 * split at 4,000 characters. An ACTION_SET becomes one Adaptive Card (version 1.4): its prompt a
 * TextBlock, selects Input.ChoiceSet (compact), text inputs Input.Text, buttons Action.Submit in
 * action sets of at most 6; a card with inputs but no button gets a Submit. The text travels in
 * the card's message when both fit in 28,000 bytes, else as messages of its own before the card.
 */
export const toMsTeamsOutput = (reply: OutgoingReply): MsTeamsOutput => {
  const chunks = reply.text.trim() === '' ? [] : splitText(reply.text, MSTEAMS_LIMITS.textChunk);
  const texts: MsTeamsActivity[] = chunks.map((text) => ({ type: 'message', text, textFormat: 'markdown' }));
  if (reply.actionSet === undefined || reply.actionSet.elements.length === 0) return { activities: texts };
  const card = fitCard(reply.actionSet);
  const [only] = texts;
  if (texts.length === 1 && only !== undefined) {
    const combined: MsTeamsActivity = { ...only, ...card };
    if (activityBytes(combined) <= MSTEAMS_LIMITS.activityBytes) return { activities: [combined] };
  }
  return { activities: [...texts, card] };
};
