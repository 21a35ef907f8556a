import { sessionStream, toAppend } from '@parley/events';
import type { EventStore } from '@parley/eventstore';
import {
  type CoalescedNotify,
  isStorableText,
  type Logger,
  type Pool,
  type PoolClient,
  replaceUnstorableText,
} from '@parley/platform';
import type { PgBoss } from 'pg-boss';
import {
  type ChannelAdapter,
  type InboundRequest,
  isSyncAdapter,
  type SyncChannelAdapter,
  type SyncOutcome,
  type SyncResponse,
  type WebhookBodyProblem,
} from '../adapter.js';
import { adapterKey, providerVariant, providerVariants } from '../manifest/providers.js';
import type { NormalizedMessage, ResolvedConnection, VerifyTokenLookup } from '../types.js';
import { enqueueInbound, InboundQueueUnavailableError } from './enqueueInbound.js';
import { deliveryEventId, inboundJobId } from './ids.js';
import { createChannelJobWakeups } from './jobs.js';
import { isValidPart } from './parts/joinParts.js';
import { acceptPart } from './parts/partStore.js';
import {
  type ChannelTurnResult,
  type ChannelTurnRunner,
  isFinalTurnError,
  recordChannelTurn,
  runChannelTurn,
  withClient,
  withConversationLock,
} from './processor.js';
import { recordReceipts } from './receipts.js';
import { storableMessages } from './storableMessages.js';

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
  /**
   * Verified and processed: `accepted` new messages enqueued, `duplicates` already seen, `ignored`
   * why nothing ran; `receipts`: of the delivery receipts the request carried (when it carried
   * any), how many report on replies this service sent (each recorded once).
   */
  | {
      kind: 'accepted';
      accepted: number;
      duplicates: number;
      ignored?: 'connection_inactive';
      receipts?: number;
    }
  /** A synchronous channel (delivery `sync_response`): the adapter's rendered HTTP response, as is. */
  | { kind: 'sync'; response: SyncResponse }
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
  | 'challenge_not_answered'
  /** Verified, but the body is not one the platform sends (415, 400). Nothing was recorded. */
  | WebhookBodyProblem;

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
  /**
   * The log, for the ChannelMessageSent (or ChannelSendFailed) of synchronous replies. Without it
   * (or without a runTurn) a synchronous channel is answered with its `unavailable` error.
   */
  store?: EventStore;
  /** runtime.runTurn, for synchronous channels; `handle`'s context may give it instead. */
  runTurn?: ChannelTurnRunner;
  /**
   * Budget of a synchronous request, waiting for the conversation's lock included
   * (default SYNC_TURN_TIMEOUT_MS): past it the platform is answered with the adapter's
   * `turn_timeout` error.
   */
  syncTurnTimeoutMs?: number;
  /**
   * The workers' wake-up after a message's statement commits (default: createChannelJobWakeups on
   * `pool`, one per pipeline). Pass one to share it with the process's other job writers.
   */
  wakeups?: Pick<CoalescedNotify, 'notify'>;
}

/**
 * Default budget of a synchronous turn: below the usual 30 s fetch/webhook timeouts of IVR
 * platforms and contact-centre bot connectors, leaving room for the network and the rendering.
 */
export const SYNC_TURN_TIMEOUT_MS = 15_000;

export { InboundQueueUnavailableError };

export interface InboundPipeline {
  /**
   * `context.runTurn` runs synchronous channels' turns (the API passes its chat runtime's); it
   * takes precedence over the deps' runTurn.
   */
  handle(call: WebhookCall, context?: { runTurn?: ChannelTurnRunner }): Promise<WebhookOutcome>;
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
    const variant = adapters.get(adapterKey(channelType, route.provider));
    if (variant) return variant;
    // A type with provider variants has no others; a type without any takes the route as its own.
    if (providerVariants(channelType).length > 0) return undefined;
  }
  return adapters.get(channelType);
}

/**
 * Whether the adapter serving a route is the connection's provider's: a connection is reached only
 * through its own provider's signing scheme (a Vonage number is not a Twilio-signed webhook).
 */
function servesConnection(adapter: InboundAdapter, connection: ResolvedConnection): boolean {
  const provider = providerVariant(connection.channelType, connection.provider)?.provider;
  return (adapter.provider ?? undefined) === (provider ?? undefined);
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
  const syncTimeoutMs = deps.syncTurnTimeoutMs ?? SYNC_TURN_TIMEOUT_MS;
  const wakeups = deps.wakeups ?? createChannelJobWakeups(pool, logger);

  interface StoredOutcome {
    outcome: SyncOutcome;
    sessionId: string | null;
    replyMessageId: string | null;
  }

  /** How a synchronous message was answered, once its turn is over (null before). */
  async function storedOutcome(
    client: Pool | PoolClient,
    connectionId: string,
    externalMessageId: string,
  ): Promise<StoredOutcome | null> {
    const { rows } = await client.query<{
      sync_outcome: SyncOutcome | null;
      session_id: string | null;
      reply_message_id: string | null;
    }>(
      `select sync_outcome, session_id, reply_message_id
       from channel_inbound_messages where connection_id = $1 and external_message_id = $2`,
      [connectionId, externalMessageId],
    );
    const row = rows[0];
    if (row === undefined || row.sync_outcome === null) return null;
    return { outcome: row.sync_outcome, sessionId: row.session_id, replyMessageId: row.reply_message_id };
  }

  /**
   * The reply's delivery outcome event, with the asynchronous path's derived id: appending it again
   * (a repeated request re-asserting it) is a no-op, so a reply has one outcome event.
   */
  async function recordDelivery(
    store: EventStore,
    connection: ResolvedConnection,
    sessionId: string,
    replyMessageId: string,
    failure?: string,
  ): Promise<void> {
    const scope = {
      sessionId,
      projectId: connection.projectId,
      connectionId: connection.id,
      channelType: connection.channelType,
      messageId: replyMessageId,
      attempts: 1,
    };
    const metadata = { tenantId: connection.tenantId, correlationId: replyMessageId };
    const eventId = deliveryEventId(connection.id, replyMessageId);
    const event =
      failure === undefined
        ? toAppend('ChannelMessageSent', { ...scope, sentAt: now().toISOString() }, metadata, eventId)
        : toAppend(
            'ChannelSendFailed',
            { ...scope, error: failure, retryable: false, failedAt: now().toISOString() },
            metadata,
            eventId,
          );
    await store.append(sessionStream(sessionId), [event]);
  }

  /** A repeated request: rendered from the stored outcome; a reply re-asserts its ChannelMessageSent. */
  async function replay(
    connection: ResolvedConnection,
    stored: StoredOutcome,
    render: (outcome: SyncOutcome) => SyncResponse,
  ): Promise<SyncResponse> {
    if (
      stored.outcome.kind === 'reply' &&
      deps.store !== undefined &&
      stored.sessionId !== null &&
      stored.replyMessageId !== null
    )
      await recordDelivery(deps.store, connection, stored.sessionId, stored.replyMessageId);
    return render(stored.outcome);
  }

  /**
   * A synchronous channel's request (spec 001 §2.2 `sync_webhook` + `sync_response`): one message,
   * deduplicated on its dedupe row like a queued one, its turn run here under the conversation's
   * lock with the worker's session semantics, the outcome stored on the row (a repeated request is
   * rendered from it, without a second turn) and the adapter's rendering returned for the route.
   */
  async function answerSync(
    adapter: SyncChannelAdapter,
    connection: ResolvedConnection,
    req: InboundRequest,
    runTurn: ChannelTurnRunner | undefined,
  ): Promise<SyncResponse> {
    const log = logger.child({ channelType: adapter.channelType, connectionId: connection.id });
    const messages = storableMessages(adapter.parseIncoming(req, connection), log);
    const [message] = messages;
    const render = (outcome: SyncOutcome) =>
      adapter.respond(outcome, { message: message ?? null, connection, req });
    if (message === undefined) return render({ kind: 'no_message' });
    if (messages.length > 1) {
      // One HTTP response carries one reply: a request the adapter reads as several is not guessed at.
      log.warn({ messages: messages.length }, 'synchronous request with several messages: none answered');
      return adapter.respond({ kind: 'no_message' }, { message: null, connection, req });
    }
    const store = deps.store;
    if (runTurn === undefined || store === undefined) {
      log.error('synchronous channel request, but no runTurn or event store is configured');
      return render({ kind: 'error', error: 'unavailable' });
    }

    const started = Date.now();
    const deadline = started + syncTimeoutMs;
    const inserted = await pool.query(
      `insert into channel_inbound_messages (connection_id, external_message_id, external_session_key, job_id)
       values ($1, $2, $3, $4) on conflict do nothing`,
      [
        connection.id,
        message.externalMessageId,
        message.externalSessionKey,
        inboundJobId(connection.id, message.externalMessageId),
      ],
    );
    if (inserted.rowCount !== 1) {
      // A repeated request whose first one is answered: the same response, no wait for the lock.
      const stored = await storedOutcome(pool, connection.id, message.externalMessageId);
      if (stored !== null) return replay(connection, stored, render);
    }

    let answer!: (response: SyncResponse) => void;
    let fail!: (err: unknown) => void;
    const answered = new Promise<SyncResponse>((resolve, reject) => {
      answer = resolve;
      fail = reject;
    });
    let settled = false;
    const settle = (response: SyncResponse) => {
      settled = true;
      answer(response);
    };

    // The lock is held until the turn settles, also when the platform was answered at the timeout
    // before it: the conversation's next turn must not overlap it.
    const work = withConversationLock(
      pool,
      connection.id,
      message.externalSessionKey,
      async () => {
        const stored = await storedOutcome(pool, connection.id, message.externalMessageId);
        if (stored !== null) return settle(await replay(connection, stored, render));
        const record = (result: ChannelTurnResult | null, outcome: SyncOutcome) =>
          withClient(pool, (client) =>
            recordChannelTurn(client, connection.id, message, result, { syncOutcome: outcome }),
          );

        const controller = new AbortController();
        const turn = runChannelTurn(pool, runTurn, connection, message, { signal: controller.signal }).then(
          (result) => ({ ok: true as const, result }),
          (err: unknown) => ({ ok: false as const, err }),
        );
        let timer: NodeJS.Timeout | undefined;
        const timedOut = new Promise<'timeout'>((resolve) => {
          timer = setTimeout(() => resolve('timeout'), Math.max(0, deadline - Date.now()));
        });
        const first = await Promise.race([turn, timedOut]);
        clearTimeout(timer);

        if (first === 'timeout') {
          controller.abort();
          const outcome: SyncOutcome = { kind: 'error', error: 'turn_timeout' };
          const response = render(outcome);
          // Stored first: the platform's retry of this message gets the same answer, not a second turn.
          await record(null, outcome);
          log.warn({ timeoutMs: syncTimeoutMs }, 'synchronous turn timed out: answered without the reply');
          settle(response);
          const late = await turn;
          if (!late.ok) return;
          // The reply came too late for the platform: mapped (the conversation continues in its
          // session) and recorded as not delivered.
          await record(late.result, outcome);
          await recordDelivery(
            store,
            connection,
            late.result.sessionId,
            late.result.reply.messageId,
            'turn timed out: the platform was answered without the reply',
          );
          return;
        }

        if (!first.ok) {
          if (!isFinalTurnError(first.err)) {
            // Not stored: like a failed job, the platform's retry runs the turn again.
            log.error({ err: first.err }, 'synchronous turn failed');
            return settle(render({ kind: 'error', error: 'turn_failed' }));
          }
          log.warn({ error: first.err.name }, 'synchronous message not answered: the turn failed');
          const outcome: SyncOutcome = { kind: 'error', error: 'turn_failed' };
          await record(null, outcome);
          return settle(render(outcome));
        }

        const result: ChannelTurnResult = first.result;
        const outcome: SyncOutcome = {
          kind: 'reply',
          reply: {
            text: result.reply.text,
            ...(result.reply.actionSet === undefined ? {} : { actionSet: result.reply.actionSet }),
          },
          sessionEnded: result.ended !== undefined && result.ended !== null,
        };
        // Rendered before anything is recorded: a rendering that throws (an adapter bug) stores nothing.
        const response = render(outcome);
        await record(result, outcome);
        await recordDelivery(store, connection, result.sessionId, result.reply.messageId);
        settle(response);
      },
      {
        deadline,
        // A concurrent repeat waits for the first request's answer, which may be stored (at its
        // timeout) while its late turn still holds the lock.
        giveUp: async () => (await storedOutcome(pool, connection.id, message.externalMessageId)) !== null,
      },
    );
    work
      .then(
        async (outcome) => {
          if (outcome.locked || settled) return;
          const stored = await storedOutcome(pool, connection.id, message.externalMessageId);
          settle(
            stored === null
              ? render({ kind: 'error', error: 'busy' })
              : await replay(connection, stored, render),
          );
        },
        (err: unknown) => {
          if (settled) log.error({ err }, 'synchronous turn: recording after the answer failed');
          else fail(err);
        },
      )
      .catch((err: unknown) => {
        if (!settled) fail(err);
      });
    return answered;
  }

  /**
   * One message: its dedupe row and job in one statement (false: a duplicate); a part of a
   * message delivered in pieces is kept until its message is complete (inbound/parts): a new part
   * counts as accepted, the joined message is queued with the last one.
   */
  async function enqueue(connection: ResolvedConnection, message: NormalizedMessage): Promise<boolean> {
    if (message.part !== undefined && isValidPart(message.part)) {
      const outcome = await acceptPart(pool, boss, connection, { ...message, part: message.part }, now());
      return outcome.kind !== 'duplicate';
    }
    const { part: _ignored, ...whole } = message;
    return enqueueInbound(pool, boss, connection, whole, now(), wakeups);
  }

  async function deliver(connection: ResolvedConnection, messages: readonly NormalizedMessage[]) {
    let accepted = 0;
    let duplicates = 0;
    const log = logger.child({ channelType: connection.channelType, connectionId: connection.id });
    for (const message of storableMessages(messages, log)) {
      if (await enqueue(connection, message)) accepted += 1;
      else duplicates += 1;
    }
    return { accepted, duplicates };
  }

  return {
    async handle(call, context) {
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
      // No connection has such an identifier (connections refuse it), and PostgreSQL would refuse the
      // lookup: an unauthenticated body never reaches it with such text.
      if (!isStorableText(identifier)) return { kind: 'refused', reason: 'connection_not_found' };
      const connection = await connections.resolve(call.channelType, identifier);
      if (connection === null || !servesConnection(adapter, connection))
        return { kind: 'refused', reason: 'connection_not_found' };

      // 4. The signature, with the connection's own secrets. Nothing is recorded before this.
      if (!(await adapter.verifyRequest(call.request, connection))) {
        logger.warn(
          { channelType: adapter.channelType, connectionId: connection.id },
          'inbound webhook refused: signature did not verify',
        );
        return { kind: 'refused', reason: 'signature_invalid' };
      }
      // Verified but unreadable (malformed JSON, an XML or text/plain body, an empty one): a clear 4xx.
      const bodyProblem = adapter.checkBody?.(call.request) ?? null;
      if (bodyProblem !== null) return { kind: 'refused', reason: bodyProblem };
      // An inactive connection keeps its configuration but processes nothing (spec 001 §3).
      if (!connection.active) {
        if (isSyncAdapter(adapter)) {
          const response = adapter.respond(
            { kind: 'connection_inactive' },
            { message: null, connection, req: call.request },
          );
          return { kind: 'sync', response };
        }
        return { kind: 'accepted', accepted: 0, duplicates: 0, ignored: 'connection_inactive' };
      }

      // Synchronous channels: the turn runs in this request and its reply is the response.
      if (isSyncAdapter(adapter)) {
        const runTurn = context?.runTurn ?? deps.runTurn;
        return { kind: 'sync', response: await answerSync(adapter, connection, call.request, runTurn) };
      }

      // 5. Normalize (and filter), 6. enqueue with idempotency keys; receipts on the sent replies.
      const counts = await deliver(connection, adapter.parseIncoming(call.request, connection));
      // Receipts are the platform's text too: storable, like its messages.
      const receipts = replaceUnstorableText(adapter.parseReceipts?.(call.request, connection) ?? []).value;
      if (receipts.length === 0) return { kind: 'accepted', ...counts };
      const recorded = await recordReceipts({ pool, store: deps.store, logger }, connection, receipts);
      return { kind: 'accepted', ...counts, receipts: recorded };
    },
    deliver,
  };
}
