import type {
  ChannelHttp,
  DeliveryReceipt,
  NormalizedMessage,
  OutgoingMessage,
  OutgoingReply,
  ResolvedConnection,
  SendResult,
  VerifyTokenLookup,
} from './types.js';

export type {
  ActionEvent,
  ChannelHttp,
  ConnectionStatus,
  DeliveryOutcome,
  DeliveryReceipt,
  NormalizedMessage,
  OutgoingMessage,
  OutgoingReply,
  ResolvedConnection,
  SendResult,
  VerifyTokenLookup,
} from './types.js';

/** An inbound webhook request as the pipeline hands it to an adapter. */
export interface InboundRequest {
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  rawBody: Buffer;
  /** Full public webhook URL (what URL-signing schemes sign). */
  url: string;
  query: Record<string, string>;
}

/**
 * Why a verified webhook body cannot be read: `content_type_unsupported` (415: not a content type
 * the platform posts, e.g. XML or text/plain to a JSON platform), `body_malformed` (400: empty, not
 * JSON, not the object the platform sends).
 */
export type WebhookBodyProblem = 'content_type_unsupported' | 'body_malformed';

/** A channel adapter (spec 001 "Adapter interface"). */
export interface ChannelAdapter {
  readonly channelType: string;
  /**
   * The provider variant this adapter implements (manifest `providers`), for channel types that
   * have several; the pipeline serves a connection only with its own provider's adapter.
   */
  readonly provider?: string;
  verifyRequest(req: InboundRequest, connection: ResolvedConnection): boolean | Promise<boolean>;
  /**
   * What is wrong with a verified request's body for this platform, or null (webhookBodyProblem
   * does the usual checks). The pipeline answers 415 or 400 and records nothing. Adapters without
   * it (and synchronous ones, which answer unreadable requests in their platform's format) take any
   * body.
   */
  checkBody?(req: InboundRequest): WebhookBodyProblem | null;
  /** Events to process (0..n), already filtered (bot messages, irrelevant subtypes), each with its external message id. */
  parseIncoming(req: InboundRequest, connection: ResolvedConnection): NormalizedMessage[];
  /**
   * Delivery receipts and status callbacks in a verified request (0..n), for platforms that send
   * them to the same webhook. The pipeline records those of replies it sent; and, for an adapter
   * with this method, keeps the ids of what it sends (SendResult.externalMessageIds) to match them.
   */
  parseReceipts?(req: InboundRequest, connection: ResolvedConnection): DeliveryReceipt[];
  transformOutput?(reply: OutgoingReply, connection: ResolvedConnection): unknown;
  sendResponse(
    message: OutgoingMessage,
    connection: ResolvedConnection,
    http: ChannelHttp,
  ): Promise<SendResult>;
  sendTypingIndicator?(
    connection: ResolvedConnection,
    externalSessionKey: string,
    metadata: Record<string, unknown>,
    http: ChannelHttp,
  ): Promise<void>;
  /**
   * Platforms where the service registers its own webhook (spec 001 §4.2: the bot platform): the
   * credentials to add to a connection before registering (e.g. a generated webhook secret), given
   * the ones it has; {} when nothing is missing. Called when a connection is created or changed.
   */
  webhookCredentials?(connection: ResolvedConnection): Record<string, string>;
  /** Registers `url` (the connection's public webhook URL) with the platform. */
  registerWebhook?(connection: ResolvedConnection, url: string, http: ChannelHttp): Promise<SendResult>;
  /** GET verification challenge, where the platform has one (hub.challenge...). */
  challenge?(
    req: InboundRequest,
    lookup: VerifyTokenLookup,
  ): Promise<{ status: number; body: string } | null>;
}

/**
 * The HTTP answer of a synchronous channel (manifest delivery `sync_response`), rendered by the
 * adapter's `respond` in the platform's own format. Stored on the dedupe row, so a repeated
 * request (same external message id) is answered with exactly these bytes.
 */
export interface SyncResponse {
  status: number;
  contentType: string;
  body: string;
}

/**
 * What a synchronous request ends with, for `SyncChannelAdapter.respond`:
 * - `reply`: the agent's reply; `sessionEnded` when the agent ended the conversation in this turn.
 * - `no_message`: the request carried nothing to answer (no utterance yet, an unreadable body);
 *   no turn ran and nothing was recorded.
 * - `connection_inactive`: the connection is switched off (after verification); nothing ran.
 * - `error`: `turn_failed` (the turn could not produce a reply), `turn_timeout` (no reply within
 *   the pipeline's turn timeout), `busy` (another turn of the conversation held it past the
 *   timeout), `unavailable` (synchronous turns are not configured in this process).
 */
export type SyncOutcome =
  | { kind: 'reply'; reply: OutgoingReply; sessionEnded: boolean }
  | { kind: 'no_message' }
  | { kind: 'connection_inactive' }
  | { kind: 'error'; error: 'turn_failed' | 'turn_timeout' | 'busy' | 'unavailable' };

/**
 * A channel whose platform waits for the reply in the webhook's own HTTP response (contact-centre
 * bot connectors, VoiceXML IVRs): the pipeline runs the turn in the request instead of queueing
 * it, and answers with `respond`'s rendering. `parseIncoming` gives at most one message per
 * request; `sendResponse` is never called by the pipeline (there is nothing to send later).
 */
export interface SyncChannelAdapter extends ChannelAdapter {
  readonly delivery: 'sync_response';
  /**
   * Renders the HTTP response; pure and never throws. `message` is the request's message (null for
   * `no_message`/`connection_inactive` without one); `req` the request (its URL, for documents
   * that post back to the same hook).
   */
  respond(
    outcome: SyncOutcome,
    context: { message: NormalizedMessage | null; connection: ResolvedConnection; req: InboundRequest },
  ): SyncResponse;
}

/** Whether an adapter answers in the webhook response (delivery `sync_response`). */
export const isSyncAdapter = (adapter: ChannelAdapter): adapter is SyncChannelAdapter =>
  (adapter as { delivery?: unknown }).delivery === 'sync_response' &&
  typeof (adapter as { respond?: unknown }).respond === 'function';
