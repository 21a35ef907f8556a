import { sessionStream, toAppend } from '@parley/events';
import type { EventStore } from '@parley/eventstore';
import type { Logger, Pool } from '@parley/platform';
import type { DeliveryReceipt, ResolvedConnection } from '../types.js';
import { derivedUuid } from './ids.js';

/** The event of one platform status of one sent message: a report delivered twice is appended once. */
export const receiptEventId = (connectionId: string, externalMessageId: string, status: string): string =>
  derivedUuid('delivery-receipt', JSON.stringify([connectionId, externalMessageId, status]));

/**
 * Keeps the platform's ids of a reply's messages (SendResult.externalMessageIds), for the
 * receipts that will name them. A send job run again keeps the first mapping.
 */
export async function recordOutboundMessages(
  pool: Pool,
  connectionId: string,
  externalMessageIds: readonly string[],
  reply: { sessionId: string; messageId: string },
): Promise<void> {
  if (externalMessageIds.length === 0) return;
  await pool.query(
    `insert into channel_outbound_messages (connection_id, external_message_id, session_id, message_id)
     select $1, id, $3, $4 from unnest($2::text[]) as id
     on conflict do nothing`,
    [connectionId, [...new Set(externalMessageIds)], reply.sessionId, reply.messageId],
  );
}

/**
 * Records the receipts of a verified webhook: each one naming a message the service sent becomes
 * a `ChannelDeliveryReported` on that reply's session (its derived id makes a repeat a no-op); a
 * receipt of a message sent otherwise (not by Parley, or before its send was recorded) is skipped.
 * Returns how many were recorded.
 */
export async function recordReceipts(
  deps: { pool: Pool; store: EventStore | undefined; logger: Logger },
  connection: ResolvedConnection,
  receipts: readonly DeliveryReceipt[],
): Promise<number> {
  if (receipts.length === 0) return 0;
  const log = deps.logger.child({ channelType: connection.channelType, connectionId: connection.id });
  if (deps.store === undefined) {
    log.warn({ receipts: receipts.length }, 'delivery receipts not recorded: no event store');
    return 0;
  }
  const { rows } = await deps.pool.query<{
    external_message_id: string;
    session_id: string;
    message_id: string;
  }>(
    `select external_message_id, session_id, message_id from channel_outbound_messages
     where connection_id = $1 and external_message_id = any($2::text[])`,
    [connection.id, receipts.map((r) => r.externalMessageId)],
  );
  const sent = new Map(rows.map((r) => [r.external_message_id, r]));
  let recorded = 0;
  for (const receipt of receipts) {
    const reply = sent.get(receipt.externalMessageId);
    if (reply === undefined) {
      log.debug(
        { status: receipt.status },
        'delivery receipt of a message not sent by this service: skipped',
      );
      continue;
    }
    const event = toAppend(
      'ChannelDeliveryReported',
      {
        sessionId: reply.session_id,
        projectId: connection.projectId,
        connectionId: connection.id,
        channelType: connection.channelType,
        ...(connection.provider ? { provider: connection.provider } : {}),
        messageId: reply.message_id,
        externalMessageId: receipt.externalMessageId,
        status: receipt.status,
        outcome: receipt.outcome,
        ...(receipt.errorCode === undefined ? {} : { errorCode: receipt.errorCode }),
        reportedAt: receipt.timestamp,
      },
      { tenantId: connection.tenantId, correlationId: reply.message_id },
      receiptEventId(connection.id, receipt.externalMessageId, receipt.status),
    );
    await deps.store.append(sessionStream(reply.session_id), [event]);
    recorded += 1;
  }
  return recorded;
}
