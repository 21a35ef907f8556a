import type { Logger, Pool, PoolClient } from '@parley/platform';
import type PgBoss from 'pg-boss';
import type { ChannelAdapter, InboundRequest } from '../adapter.js';
import type { NormalizedMessage, ResolvedConnection, VerifyTokenLookup } from '../types.js';
import { inboundJobId } from './ids.js';
import { CHANNEL_INBOUND_QUEUE, type InboundJobData } from './jobs.js';

/**
 * An adapter as the inbound routes use it. `connectionIdentifier` reads the routing key from a
 * request that does not name it in the path (the generic and provider routes of spec 001 §4.1,
 * e.g. WhatsApp's phone number id, Slack's `<team_id>:<app_id>`); adapters without it can only be
 * reached through the routes that carry the identifier.
 */
export type InboundAdapter = ChannelAdapter & {
  connectionIdentifier?(req: InboundRequest): string | null;
};

/** The five inbound route shapes of spec 001 §4.1. */
export type WebhookRoute =
  | { kind: 'generic' }
  | { kind: 'identifier'; identifier: string }
  | { kind: 'provider'; provider: string }
  | { kind: 'hooks'; streamId: string }
  | { kind: 'slash'; identifier: string };

export interface WebhookCall {
  method: 'GET' | 'POST';
  channelType: string;
  route: WebhookRoute;
  request: InboundRequest;
}

export type WebhookOutcome =
  /** A verification challenge answered (GET hub.challenge, Slack url_verification...). */
  | { kind: 'challenge'; status: number; body: string }
  /** Verified and processed: `accepted` new messages enqueued, `duplicates` already seen, `ignored` why nothing ran. */
  | { kind: 'accepted'; accepted: number; duplicates: number; ignored?: 'connection_inactive' }
  | { kind: 'refused'; reason: WebhookRefusal };

export type WebhookRefusal =
  /** No adapter for the channel type (404). */
  | 'unknown_channel_type'
  /** The request names no connection identifier and the adapter cannot read one (400). */
  | 'identifier_missing'
  /** No connection of the channel type with that identifier (404). */
  | 'connection_not_found'
  /** The signature or token did not verify (401). Nothing was recorded. */
  | 'signature_invalid'
  /** A GET that is not a verification challenge the adapter answers (404). */
  | 'challenge_not_answered';

/** What the inbound pipeline needs from the connection store (@parley/channels createConnectionStore). */
export interface InboundConnectionLookup {
  resolve(channelType: string, externalIdentifier: string): Promise<ResolvedConnection | null>;
  findByVerifyToken: VerifyTokenLookup;
}

export interface InboundPipelineDeps {
  pool: Pool;
  /** pg-boss (createChannelJobQueue): jobs are inserted in the transaction of their dedupe row. */
  boss: PgBoss;
  /** Adapters by channel type; a provider variant by `<channelType>/<provider>` (falls back to the type). */
  adapters: ReadonlyMap<string, InboundAdapter>;
  connections: InboundConnectionLookup;
  logger: Logger;
  now?: () => Date;
}

/** The queue is missing (the worker never started): the webhook is answered 503 so the platform retries. */
export class InboundQueueUnavailableError extends Error {
  override readonly name = 'InboundQueueUnavailableError';
}

export interface InboundPipeline {
  handle(call: WebhookCall): Promise<WebhookOutcome>;
  /**
   * Step 6 alone, for ingress that is not an HTTP webhook (SMTP, the A2A API): the caller has
   * resolved an active connection and verified and normalized the messages; each is enqueued with
   * its idempotency key, duplicates counted, exactly as for a webhook.
   */
  deliver(
    connection: ResolvedConnection,
    messages: readonly NormalizedMessage[],
  ): Promise<{ accepted: number; duplicates: number }>;
}

function adapterFor(
  adapters: ReadonlyMap<string, InboundAdapter>,
  channelType: string,
  route: WebhookRoute,
): InboundAdapter | undefined {
  if (route.kind === 'provider') {
    const variant = adapters.get(`${channelType}/${route.provider}`);
    if (variant) return variant;
  }
  return adapters.get(channelType);
}

function identifierOf(adapter: InboundAdapter, call: WebhookCall): string | null {
  switch (call.route.kind) {
    case 'identifier':
    case 'slash':
      return call.route.identifier;
    case 'hooks':
      return call.route.streamId;
    case 'generic':
    case 'provider':
      return adapter.connectionIdentifier?.(call.request) ?? null;
  }
}

/**
 * The inbound webhook pipeline (spec 001 §4.1), in the spec's order: look up the adapter; answer
 * verification challenges; resolve the connection; verify the signature with the connection's
 * secrets; normalize and filter (the adapter's parseIncoming drops bot messages and irrelevant
 * subtypes; content is read only once the request is verified); enqueue each message with its
 * idempotency key, duplicates filtered by the (connection, external message id) primary key;
 * answer 200. See packages/channels README "Inbound pipeline".
 */
export function createInboundPipeline(deps: InboundPipelineDeps): InboundPipeline {
  const { pool, boss, adapters, connections, logger } = deps;
  const now = deps.now ?? (() => new Date());

  /** Inserts the dedupe row and the job in one transaction; false: a duplicate. */
  async function enqueue(connection: ResolvedConnection, message: NormalizedMessage): Promise<boolean> {
    const jobId = inboundJobId(connection.id, message.externalMessageId);
    const client: PoolClient = await pool.connect();
    try {
      await client.query('begin');
      const inserted = await client.query(
        `insert into channel_inbound_messages (connection_id, external_message_id, external_session_key, job_id)
         values ($1, $2, $3, $4) on conflict do nothing`,
        [connection.id, message.externalMessageId, message.externalSessionKey, jobId],
      );
      if (inserted.rowCount !== 1) {
        await client.query('rollback');
        return false;
      }
      const data: InboundJobData = {
        connectionId: connection.id,
        channelType: connection.channelType,
        message,
        receivedAt: now().toISOString(),
      };
      const sent = await boss.send(CHANNEL_INBOUND_QUEUE, data as unknown as object, {
        id: jobId,
        db: { executeSql: (text, values) => client.query(text, values) },
      });
      if (sent === null)
        throw new InboundQueueUnavailableError(`the ${CHANNEL_INBOUND_QUEUE} queue does not exist`);
      await client.query('commit');
      return true;
    } catch (err) {
      await client.query('rollback').catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  }

  async function deliver(connection: ResolvedConnection, messages: readonly NormalizedMessage[]) {
    let accepted = 0;
    let duplicates = 0;
    for (const message of messages) {
      if (await enqueue(connection, message)) accepted += 1;
      else duplicates += 1;
    }
    return { accepted, duplicates };
  }

  return {
    async handle(call) {
      // 1. The adapter of the channel type.
      const adapter = adapterFor(adapters, call.channelType, call.route);
      if (adapter === undefined) return { kind: 'refused', reason: 'unknown_channel_type' };

      // 2. Verification challenges (GET hub.challenge; POST handshakes such as Slack url_verification).
      if (adapter.challenge) {
        const answer = await adapter.challenge(call.request, connections.findByVerifyToken);
        if (answer !== null) return { kind: 'challenge', status: answer.status, body: answer.body };
      }
      if (call.method === 'GET') return { kind: 'refused', reason: 'challenge_not_answered' };

      // 3. The connection: tenant, project and agent.
      const identifier = identifierOf(adapter, call);
      if (identifier === null || identifier === '') return { kind: 'refused', reason: 'identifier_missing' };
      const connection = await connections.resolve(call.channelType, identifier);
      if (connection === null) return { kind: 'refused', reason: 'connection_not_found' };

      // 4. The signature, with the connection's own secrets. Nothing is recorded before this.
      if (!(await adapter.verifyRequest(call.request, connection))) {
        logger.warn(
          { channelType: adapter.channelType, connectionId: connection.id },
          'inbound webhook refused: signature did not verify',
        );
        return { kind: 'refused', reason: 'signature_invalid' };
      }
      // An inactive connection keeps its configuration but processes nothing (spec 001 §3).
      if (!connection.active)
        return { kind: 'accepted', accepted: 0, duplicates: 0, ignored: 'connection_inactive' };

      // 5. Normalize (and filter), 6. enqueue with idempotency keys.
      const counts = await deliver(connection, adapter.parseIncoming(call.request, connection));
      return { kind: 'accepted', ...counts };
    },
    deliver,
  };
}
