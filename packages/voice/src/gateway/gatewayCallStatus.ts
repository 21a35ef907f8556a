import { sessionStream, toAppend, voiceCallStream } from '@parley/events';
import { EventIdConflictError, type EventStore } from '@parley/eventstore';
import { derivedUuid } from '../ids.js';

/**
 * A gateway call's lifecycle in the log, as a provider's status callbacks give it for Twilio calls:
 * `in-progress` when its audio started, `completed` (with its duration) when the socket ended. In
 * the call's session stream when it had one, else `voicecall-<callId>`; `accountId` is the
 * connection's id. Idempotent: the event ids derive from (connection, call, status).
 */
export async function recordGatewayCall(
  store: EventStore,
  call: {
    connection: { id: string; tenantId: string; projectId: string };
    callId: string;
    sessionId: string | null;
    direction?: string;
    startedAt: Date;
    endedAt: Date;
  },
): Promise<void> {
  const { connection } = call;
  const base = {
    callId: call.callId,
    projectId: connection.projectId,
    tenantId: connection.tenantId,
    accountId: connection.id,
    ...(call.sessionId === null ? {} : { sessionId: call.sessionId }),
    direction: call.direction ?? 'inbound',
  };
  const metadata = { tenantId: connection.tenantId, projectId: connection.projectId };
  const idOf = (status: string) =>
    derivedUuid('call-status', JSON.stringify([connection.id, call.callId, status]));
  const events = [
    {
      ...toAppend('VoiceCallStatusChanged', {
        ...base,
        status: 'in-progress',
        occurredAt: call.startedAt.toISOString(),
        reportedAt: call.startedAt.toISOString(),
      }),
      eventId: idOf('in-progress'),
      metadata,
    },
    {
      ...toAppend('VoiceCallStatusChanged', {
        ...base,
        status: 'completed',
        durationSeconds: Math.round((call.endedAt.getTime() - call.startedAt.getTime()) / 1000),
        occurredAt: call.endedAt.toISOString(),
        reportedAt: call.endedAt.toISOString(),
      }),
      eventId: idOf('completed'),
      metadata,
    },
  ];
  const stream = call.sessionId === null ? voiceCallStream(call.callId) : sessionStream(call.sessionId);
  try {
    await store.append(stream, events);
  } catch (err) {
    if (!(err instanceof EventIdConflictError)) throw err;
  }
}
