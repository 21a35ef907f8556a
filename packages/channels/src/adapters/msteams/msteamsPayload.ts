import type { ActionEvent, NormalizedMessage } from '../../types.js';
import { isRecord, jsonBody, str } from '../shared.js';

/** The Bot Framework channel id of Microsoft Teams; activities of other channels are ignored. */
export const MSTEAMS_BOT_CHANNEL_ID = 'msteams';
/** Key of the Action.Submit data this adapter writes into its cards (msteamsTransform). */
export const PARLEY_ACTION_KEY = 'parley';
/** Card input ids carry the ACTION_SET element kind, so the submit tells a select from a text input. */
export const SELECT_INPUT_PREFIX = 'select:';
export const TEXT_INPUT_PREFIX = 'text:';

/** The activity (request body) as an object, or null. */
export const msteamsActivity = (body: unknown, rawBody: Buffer): Record<string, unknown> | null => {
  const parsed = jsonBody(body, rawBody);
  return isRecord(parsed) ? parsed : null;
};

/** A bot's channel account id is `28:<app id>`; the app id is the connection identifier. */
export const appIdOf = (channelAccountId: string): string => channelAccountId.replace(/^28:/, '');

/** The app id the activity was sent to (`recipient.id` without `28:`), for the generic webhook route. */
export const msteamsConnectionIdentifier = (activity: Record<string, unknown>): string | null => {
  const recipient = isRecord(activity.recipient) ? str(activity.recipient.id) : undefined;
  if (recipient === undefined) return null;
  const appId = appIdOf(recipient);
  return appId === '' ? null : appId;
};

/** The Azure AD tenant the activity comes from (`channelData.tenant.id`, else `conversation.tenantId`). */
export const msteamsTenantId = (activity: Record<string, unknown>): string | undefined => {
  const channelData = isRecord(activity.channelData) ? activity.channelData : {};
  const tenant = isRecord(channelData.tenant) ? str(channelData.tenant.id) : undefined;
  const conversation = isRecord(activity.conversation) ? activity.conversation : {};
  return tenant ?? str(conversation.tenantId);
};

/**
 * A channel thread's conversation id ends in `;messageid=<root id>`; without it, the id of the
 * channel (or chat) itself.
 */
export const baseConversationId = (conversationId: string): string => conversationId.split(';')[0] ?? '';

/**
 * Message text without the bot's @mention: the text of each mention entity of the recipient is
 * removed; other people's `<at>Name</at>` become `@Name`.
 */
export const stripBotMention = (
  text: string,
  entities: unknown,
  botId: string | undefined,
  botName: string | undefined,
): string => {
  let out = text;
  for (const entity of Array.isArray(entities) ? entities : []) {
    if (!isRecord(entity) || entity.type !== 'mention' || !isRecord(entity.mentioned)) continue;
    const mentionedId = str(entity.mentioned.id);
    const mentionText = str(entity.text);
    if (mentionText !== undefined && mentionText !== '' && botId !== undefined && mentionedId === botId) {
      out = out.split(mentionText).join('');
    }
  }
  if (botName !== undefined && botName !== '') out = out.split(`<at>${botName}</at>`).join('');
  return out.replace(/<at>([^<]*)<\/at>/g, '@$1').trim();
};

/** The user's action on one of this adapter's cards: which element, which value, and every input. */
const decodeCardAction = (data: unknown): { event: ActionEvent; text: string } | null => {
  if (!isRecord(data) || !isRecord(data[PARLEY_ACTION_KEY])) return null;
  const marker = data[PARLEY_ACTION_KEY];
  const inputs: Record<string, string> = {};
  const kinds: Record<string, 'select' | 'text_input'> = {};
  for (const [key, value] of Object.entries(data)) {
    if (typeof value !== 'string') continue;
    const kind = key.startsWith(SELECT_INPUT_PREFIX)
      ? 'select'
      : key.startsWith(TEXT_INPUT_PREFIX)
        ? 'text_input'
        : undefined;
    if (kind === undefined) continue;
    const id = key.slice(kind === 'select' ? SELECT_INPUT_PREFIX.length : TEXT_INPUT_PREFIX.length);
    if (id === '') continue;
    inputs[id] = value;
    kinds[id] = kind;
  }
  const withInputs = Object.keys(inputs).length === 0 ? {} : { inputs };
  const buttonId = str(marker.id);
  if (buttonId !== undefined && buttonId !== '') {
    const value = str(marker.value) ?? buttonId;
    const label = str(marker.label);
    return {
      event: {
        actionId: buttonId,
        value,
        type: 'button',
        ...(label === undefined ? {} : { title: label }),
        ...withInputs,
      },
      text: label ?? value,
    };
  }
  // The form's own Submit (a card without buttons): the first input the user filled in.
  const first = Object.entries(inputs).find(([, value]) => value.trim() !== '');
  if (first === undefined) return null;
  const [actionId, value] = first;
  return { event: { actionId, value, type: kinds[actionId] ?? 'text_input', ...withInputs }, text: value };
};

const timestampOf = (activity: Record<string, unknown>, now: Date): string => {
  const stamp = str(activity.timestamp);
  const millis = stamp === undefined ? Number.NaN : Date.parse(stamp);
  return Number.isFinite(millis) ? new Date(millis).toISOString() : now.toISOString();
};

/**
 * A Bot Framework activity from Teams to normalized messages (spec 001 §2.1): `message` activities
 * of users with text (the bot's @mention removed), Action.Submit of this adapter's cards (a
 * `message` with `value`) and `invoke` `adaptiveCard/action` (Action.Execute). Ignored:
 * conversationUpdate, typing, messageReaction, other invokes and events, the bot's own activities,
 * other Bot Framework channels, messages without text (attachments only).
 */
export const parseMsTeamsActivity = (
  activity: Record<string, unknown> | null,
  now: Date,
): NormalizedMessage[] => {
  if (activity === null || activity.channelId !== MSTEAMS_BOT_CHANNEL_ID) return [];
  const type = str(activity.type);
  const id = str(activity.id);
  const serviceUrl = str(activity.serviceUrl);
  const from = isRecord(activity.from) ? activity.from : {};
  const recipient = isRecord(activity.recipient) ? activity.recipient : {};
  const conversation = isRecord(activity.conversation) ? activity.conversation : {};
  const conversationId = str(conversation.id);
  const userId = str(from.id);
  const botId = str(recipient.id);
  if (id === undefined || serviceUrl === undefined || conversationId === undefined || userId === undefined)
    return [];
  if (userId === botId || from.role === 'bot') return [];

  let text: string;
  let actionEvent: ActionEvent | undefined;
  if (type === 'message') {
    const action = decodeCardAction(activity.value);
    if (action !== null) {
      text = action.text;
      actionEvent = action.event;
    } else {
      text = stripBotMention(str(activity.text) ?? '', activity.entities, botId, str(recipient.name));
      if (text === '') return [];
    }
  } else if (type === 'invoke' && activity.name === 'adaptiveCard/action') {
    const invokeAction =
      isRecord(activity.value) && isRecord(activity.value.action) ? activity.value.action : {};
    const action = decodeCardAction(invokeAction.data);
    if (action === null) return [];
    text = action.text;
    actionEvent = action.event;
  } else {
    return [];
  }

  const tenantId = msteamsTenantId(activity);
  const conversationType = str(conversation.conversationType);
  const userName = str(from.name);
  const aadObjectId = str(from.aadObjectId);
  return [
    {
      // Teams message ids are timestamps, unique within a conversation only.
      externalMessageId: `${baseConversationId(conversationId)}:${id}`,
      // A channel thread's id keeps `;messageid=`: the reply goes into the thread.
      externalSessionKey: conversationId,
      text,
      metadata: {
        serviceUrl,
        conversationId,
        ...(conversationType === undefined ? {} : { conversationType }),
        replyToId: id,
        userId,
        ...(userName === undefined ? {} : { userName }),
        ...(aadObjectId === undefined ? {} : { aadObjectId }),
        ...(tenantId === undefined ? {} : { tenantId }),
        ...(botId === undefined ? {} : { botId }),
      },
      timestamp: timestampOf(activity, now),
      ...(actionEvent === undefined ? {} : { actionEvent }),
      channelUserId: userId,
    },
  ];
};
