import type {
  ChannelHttp,
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

/** A channel adapter (spec 001 "Adapter interface"). */
export interface ChannelAdapter {
  readonly channelType: string;
  verifyRequest(req: InboundRequest, connection: ResolvedConnection): boolean | Promise<boolean>;
  /** Events to process (0..n), already filtered (bot messages, irrelevant subtypes), each with its external message id. */
  parseIncoming(req: InboundRequest, connection: ResolvedConnection): NormalizedMessage[];
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
