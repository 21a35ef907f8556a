import type { NormalizedMessage } from '../../types.js';
import { isRecord, str } from '../shared.js';

/**
 * The request body as an object: Events API bodies are JSON; slash commands are form-encoded;
 * interactivity callbacks are form-encoded with the JSON in `payload`.
 */
export const slackBody = (body: unknown, rawBody: Buffer): Record<string, unknown> | null => {
  let fields: Record<string, unknown> | null = isRecord(body) ? body : null;
  if (fields === null) {
    const raw = rawBody.toString('utf8');
    if (raw.trimStart().startsWith('{')) {
      try {
        const parsed = JSON.parse(raw) as unknown;
        fields = isRecord(parsed) ? parsed : null;
      } catch {
        return null;
      }
    } else {
      fields = Object.fromEntries(new URLSearchParams(raw));
    }
  }
  if (fields === null) return null;
  if (typeof fields.payload === 'string') {
    try {
      const payload = JSON.parse(fields.payload) as unknown;
      return isRecord(payload) ? payload : null;
    } catch {
      return null;
    }
  }
  return fields;
};

/** `<team_id>:<app_id>` (spec 001 §4.1) from an event, slash command or interactivity body. */
export const slackConnectionIdentifier = (body: Record<string, unknown>): string | null => {
  const team = str(body.team_id) ?? (isRecord(body.team) ? str(body.team.id) : undefined);
  const app = str(body.api_app_id);
  return team === undefined || app === undefined ? null : `${team}:${app}`;
};

const isDirect = (channel: string, channelType?: string) => channelType === 'im' || channel.startsWith('D');

/**
 * One session per thread in channels (a top-level message starts one; the reply goes into it),
 * one per conversation in direct messages unless the user opened a thread there.
 */
const sessionOf = (channel: string, ts: string, threadTs: string | undefined, direct: boolean) => {
  if (direct)
    return { key: threadTs === undefined ? channel : `${channel}:${threadTs}`, replyThreadTs: threadTs };
  const root = threadTs ?? ts;
  return { key: `${channel}:${root}`, replyThreadTs: root };
};

const slackTime = (ts: string | undefined, fallback: Date): string => {
  const seconds = Number(ts);
  return ts !== undefined && Number.isFinite(seconds)
    ? new Date(Math.round(seconds * 1000)).toISOString()
    : fallback.toISOString();
};

// Message subtypes that are still a person writing: everything else (edits, deletions, joins,
// bot_message...) is ignored.
const USER_SUBTYPES = new Set([undefined, 'thread_broadcast', 'file_share']);

const parseEvent = (body: Record<string, unknown>, now: Date): NormalizedMessage[] => {
  const event = isRecord(body.event) ? body.event : {};
  const type = str(event.type);
  if (type !== 'message' && type !== 'app_mention') return [];
  const subtype = str(event.subtype);
  if (!USER_SUBTYPES.has(subtype) || event.bot_id !== undefined || event.hidden === true) return [];
  const channel = str(event.channel);
  const user = str(event.user);
  const ts = str(event.ts);
  const text = str(event.text);
  if (channel === undefined || user === undefined || ts === undefined || text === undefined) return [];
  const threadTs = str(event.thread_ts);
  const channelType = str(event.channel_type);
  const session = sessionOf(channel, ts, threadTs, isDirect(channel, channelType));
  return [
    {
      // channel + ts, not event_id: an app_mention and its message event are one message.
      externalMessageId: `${channel}:${ts}`,
      externalSessionKey: session.key,
      text,
      metadata: {
        teamId: str(body.team_id),
        channel,
        ...(channelType === undefined ? {} : { channelType }),
        ts,
        ...(session.replyThreadTs === undefined ? {} : { threadTs: session.replyThreadTs }),
        userId: user,
      },
      timestamp: slackTime(ts, now),
      channelUserId: user,
    },
  ];
};

const parseSlashCommand = (body: Record<string, unknown>, now: Date): NormalizedMessage[] => {
  const command = str(body.command);
  const channel = str(body.channel_id);
  const user = str(body.user_id);
  const trigger = str(body.trigger_id);
  if (command === undefined || channel === undefined || user === undefined || trigger === undefined)
    return [];
  const text = str(body.text) ?? '';
  return [
    {
      externalMessageId: `slash:${trigger}`,
      // A command has no thread: one session per user and channel.
      externalSessionKey: `${channel}:${user}`,
      text: text.trim() === '' ? command : text,
      metadata: { teamId: str(body.team_id), channel, command, userId: user },
      timestamp: now.toISOString(),
      channelUserId: user,
    },
  ];
};

const parseBlockActions = (body: Record<string, unknown>, now: Date): NormalizedMessage[] => {
  const user = isRecord(body.user) ? str(body.user.id) : undefined;
  const container = isRecord(body.container) ? body.container : {};
  const channel = (isRecord(body.channel) ? str(body.channel.id) : undefined) ?? str(container.channel_id);
  const message = isRecord(body.message) ? body.message : {};
  const messageTs = str(container.message_ts) ?? str(message.ts);
  if (user === undefined || channel === undefined || messageTs === undefined) return [];
  const session = sessionOf(channel, messageTs, str(message.thread_ts), isDirect(channel));
  const out: NormalizedMessage[] = [];
  for (const action of Array.isArray(body.actions) ? body.actions : []) {
    if (!isRecord(action)) continue;
    const actionId = str(action.action_id);
    const actionTs = str(action.action_ts);
    if (actionId === undefined || actionTs === undefined) continue;
    const selected = isRecord(action.selected_option) ? action.selected_option : undefined;
    const isSelect = action.type === 'static_select';
    const value = isSelect ? str(selected?.value) : (str(action.value) ?? actionId);
    if (value === undefined) continue;
    const label = isSelect
      ? isRecord(selected?.text)
        ? str(selected.text.text)
        : undefined
      : isRecord(action.text)
        ? str(action.text.text)
        : undefined;
    out.push({
      externalMessageId: `action:${channel}:${messageTs}:${actionTs}`,
      externalSessionKey: session.key,
      text: label ?? value,
      metadata: {
        teamId: isRecord(body.team) ? str(body.team.id) : undefined,
        channel,
        ...(session.replyThreadTs === undefined ? {} : { threadTs: session.replyThreadTs }),
        userId: user,
      },
      timestamp: slackTime(actionTs, now),
      actionEvent: {
        actionId,
        value,
        type: isSelect ? 'select' : 'button',
        ...(label === undefined ? {} : { title: label }),
        ...(str(action.block_id) === undefined ? {} : { blockId: str(action.block_id) }),
      },
      channelUserId: user,
    });
  }
  return out;
};

/**
 * A Slack request body to normalized messages: Events API `event_callback` message and
 * app_mention events, slash commands, and `block_actions` interactivity (buttons, static_select).
 * Ignored: url_verification, bot messages, message subtypes other than thread_broadcast and
 * file_share, other event and interaction types.
 */
export const parseSlackBody = (body: Record<string, unknown> | null, now: Date): NormalizedMessage[] => {
  if (body === null) return [];
  if (body.type === 'event_callback') return parseEvent(body, now);
  if (body.type === 'block_actions') return parseBlockActions(body, now);
  if (typeof body.command === 'string') return parseSlashCommand(body, now);
  return [];
};
