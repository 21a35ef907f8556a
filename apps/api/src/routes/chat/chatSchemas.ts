import { actionSetSchema, CONTAINMENT_TYPES, ENVIRONMENTS, SESSION_STATES } from '@parley/events';
import { mediaResponse, textBody } from '@parley/http';
import { z } from 'zod';

/** Spec 000 §8: session ids are 1..256 characters. */
export const sessionIdSchema = z.string().min(1).max(256);
const projectIdSchema = z.string().min(1).max(128);
/** The synchronous protocol channels of the manifest that these endpoints serve (`http` never streams). */
export const PROTOCOL_CHANNELS = ['api', 'http'] as const;

/** Longest user message accepted, in characters (the 1 MB body limit would allow far more). */
export const MAX_MESSAGE_CHARS = 32_000;

const turnFields = {
  message: z.string().min(1).max(MAX_MESSAGE_CHARS).describe('The user message'),
  projectId: projectIdSchema.optional().describe('The project; needed to start a session'),
  sessionId: sessionIdSchema.optional().describe('The session to continue; absent: a new session'),
  agentName: z
    .string()
    .regex(/^[A-Za-z0-9][\w.-]{0,63}$/)
    .optional()
    .describe("New session: the agent to talk to (default: the project's first agent)"),
  environment: z
    .enum(ENVIRONMENTS)
    .optional()
    .describe("New session: its environment (default: the agent's)"),
  channelUserId: z.string().min(1).max(512).optional().describe('New session: the end user on the channel'),
  actionEvent: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('Interactive callback data answering an earlier ACTION_SET (button click, selection)'),
  channel: z
    .enum(PROTOCOL_CHANNELS)
    .optional()
    .describe(
      'New session: the protocol channel it is recorded under (spec 001 §1), `api` (default) or `http`; `http` does not stream',
    ),
};

/** Body of chat/send and chat/stream (spec 001 §4.3): `projectId` to start, `sessionId` to continue. */
export const chatTurnBody = z
  .object(turnFields)
  .refine((body) => body.projectId !== undefined || body.sessionId !== undefined, {
    message: 'projectId (to start a session) or sessionId (to continue one) is required',
    path: ['projectId'],
  });
export type ChatTurnBody = z.output<typeof chatTurnBody>;

/** Body of chat/agent: the project is always named. */
export const chatAgentBody = z.object({ ...turnFields, projectId: projectIdSchema });

const usage = z.object({
  inputTokens: z.int().min(0),
  cachedTokens: z.int().min(0),
  completionTokens: z.int().min(0),
  reasoningTokens: z.int().min(0),
  outputTokens: z.int().min(0),
  totalTokens: z.int().min(0),
});

export const chatTurnReply = z.object({
  success: z.literal(true),
  data: z.object({
    sessionId: z.string(),
    created: z.boolean().describe('True when this message started the session'),
    userMessageId: z.string(),
    agentName: z.string().describe('The agent that answered (after any handoff)'),
    reply: z.object({
      messageId: z.string(),
      text: z.string(),
      actionSet: actionSetSchema.optional(),
    }),
    usage,
    latencyMs: z.int().min(0).describe('Time of the turn inside Parley, provider included'),
    ended: z
      .object({ status: z.enum(SESSION_STATES), containmentType: z.enum(CONTAINMENT_TYPES).optional() })
      .nullable()
      .describe('Set when the agent ended the conversation in this turn'),
  }),
});

export const endSessionParams = z.object({ sessionId: sessionIdSchema });

export const endSessionReply = z.object({
  success: z.literal(true),
  data: z.object({
    sessionId: z.string(),
    ended: z.boolean().describe('False when the session had already ended'),
    status: z.string().describe('The state the session is in now (ended, completed, escalated, …)'),
  }),
});

/** The SSE stream, for the OpenAPI document (the events are listed in docs/api.md). */
export const chatStreamReply = mediaResponse(
  'text/event-stream: `chunk` and `text_delta` per piece of the reply, `usage`, `done` (full text), ' +
    '`complete` (tokens, latency); `: heartbeat` comments every 15 s; `error` when the turn fails after the stream started',
  { 'text/event-stream': textBody },
);
