import { z } from 'zod';
import type { HttpAsyncTurnJobData } from '../httpAsync/jobs.js';
import type { NormalizedMessage, ResolvedConnection } from '../types.js';

/**
 * Where a suspended turn's reply goes when it resumes (the runtime's TurnRequest.origin, stored with
 * the suspension and handed back with the resumed turn): a channel connection's conversation (a
 * send job, as an inbound job would queue) or an HTTP async message (its delayed agent.response).
 * Parsed on receipt: it crossed the database.
 */
export const resumeOriginSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('channel'),
    connectionId: z.string().min(1),
    channelType: z.string().min(1),
    externalSessionKey: z.string().min(1),
    metadata: z.record(z.string(), z.unknown()),
  }),
  z.object({
    kind: z.literal('http_async'),
    messageId: z.string().min(1),
    subscriptionId: z.string().min(1),
    projectId: z.string().min(1),
    tenantId: z.string().min(1),
    sessionKey: z.string().min(1),
    route: z.enum(['message', 'send']),
    metadata: z.record(z.string(), z.unknown()),
  }),
]);
export type ResumeOrigin = z.infer<typeof resumeOriginSchema>;

export const channelOrigin = (
  connection: ResolvedConnection,
  channelType: string,
  message: NormalizedMessage,
): ResumeOrigin => ({
  kind: 'channel',
  connectionId: connection.id,
  channelType,
  externalSessionKey: message.externalSessionKey,
  metadata: message.metadata,
});

export const httpAsyncOrigin = (data: HttpAsyncTurnJobData): ResumeOrigin => ({
  kind: 'http_async',
  messageId: data.messageId,
  subscriptionId: data.subscriptionId,
  projectId: data.projectId,
  tenantId: data.tenantId,
  sessionKey: data.sessionKey,
  route: data.route,
  metadata: data.metadata,
});
