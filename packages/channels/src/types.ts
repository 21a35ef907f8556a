import type { ActionSet } from '@parley/events';

/**
 * A normalized inbound message (spec 001 §2.1): what an adapter's parseIncoming gives the inbound
 * pipeline. JSON-serialisable (it travels in the inbound job payload): `timestamp` is an ISO 8601
 * string.
 */
export interface NormalizedMessage {
  /** Message id on the external platform; the pipeline deduplicates on (connection, this). */
  externalMessageId: string;
  /** Conversation or thread identifier on the platform; maps to one runtime session. */
  externalSessionKey: string;
  /** Message text ('' for a pure interactive callback without text). */
  text: string;
  /** Channel-specific metadata (chat id, thread ts, sender name...). Never credentials. */
  metadata: Record<string, unknown>;
  /** Original message time, ISO 8601. */
  timestamp: string;
  /** Interactive callback data (button clicks, menu selections), when the message is one. */
  actionEvent?: ActionEvent;
  /** The end user on the platform (runtime TurnRequest.channelUserId). */
  channelUserId?: string;
  /**
   * Turn-scoped metadata the sender attached (A2A `message.metadata.messageMetadata`), validated
   * with @parley/runtime's messageMetadataSchema: the agent reads it during this turn only.
   */
  messageMetadata?: Record<string, unknown>;
  /**
   * One part of a message the platform delivers in pieces (a concatenated SMS through Vonage's
   * SMS API): the pipeline keeps the parts and queues one joined message (inbound/parts).
   */
  part?: MessagePart;
  /**
   * The conversation before this message as another agent forwarded it on a remote handoff (A2A
   * `message.metadata.history`, validated and capped at ingress): the runtime gives it to the model
   * as the prior turns of the receiving agent's conversation.
   */
  forwardedHistory?: ForwardedTurn[];
}

/** One message of a forwarded conversation (@parley/runtime ForwardedMessage). */
export interface ForwardedTurn {
  role: 'user' | 'agent';
  text: string;
}

/** Which part of a message delivered in pieces a message is. */
export interface MessagePart {
  /** The platform's reference of the whole (Vonage `concat-ref`), per sender. */
  group: string;
  /** 1-based position (Vonage `concat-part`). */
  index: number;
  /** How many parts the whole has (Vonage `concat-total`). */
  total: number;
}

/** Interactive callback data: which ACTION_SET element the user acted on and with what value. */
export interface ActionEvent {
  /** ACTION_SET element id (button id, select id). */
  actionId: string;
  /** Button value (its id when it had none) or the selected option's value. */
  value: string;
  /** The element kind as the platform reported it. */
  type: 'button' | 'select' | 'text_input';
  [key: string]: unknown;
}

/**
 * A platform's report on a message the service sent (a delivery receipt, a status callback):
 * what an adapter's parseReceipts gives the inbound pipeline, which records it on the reply's
 * session (`ChannelDeliveryReported`).
 */
export interface DeliveryReceipt {
  /** The platform's id of the sent message (SendResult.externalMessageIds). */
  externalMessageId: string;
  /** The platform's own status word (`delivered`, `rejected`, `buffered`...). */
  status: string;
  /** The status in Parley's terms. */
  outcome: DeliveryOutcome;
  /** The platform's error code, when it reports one. */
  errorCode?: string;
  /** When the platform says the status was reached (else when the report arrived), ISO 8601. */
  timestamp: string;
}

export type DeliveryOutcome = 'pending' | 'delivered' | 'read' | 'failed' | 'unknown';

/** The agent's reply to transform into the channel's native form (spec 001 adapter interface). */
export interface OutgoingReply {
  text: string;
  actionSet?: ActionSet;
  /** Rich content other than an ACTION_SET (opaque JSON), when the agent produced any. */
  richContent?: Record<string, unknown>;
}

/** One message to deliver on the channel. */
export interface OutgoingMessage {
  /** Where to send it: the conversation or thread of the inbound message. */
  externalSessionKey: string;
  /** The reply as the agent gave it. */
  reply: OutgoingReply;
  /** transformOutput's result when the adapter has one (the native payload); else absent. */
  channelOutput?: unknown;
  /** The inbound message's metadata (chat id, thread ts, phone number...). */
  metadata: Record<string, unknown>;
  /** Idempotency key of this send (the reply message id). */
  messageId: string;
}

/** What sendResponse reports. `retryable` false: the failure is permanent, no retry. */
export type SendResult =
  /** `suppressed`: deliberately not delivered, and why (the channel's own rule, e.g. a cooldown). */
  | {
      ok: true;
      externalMessageId?: string;
      /** Every message id the platform gave (a reply sent in parts has several); for delivery receipts. */
      externalMessageIds?: string[];
      suppressed?: string;
    }
  | { ok: false; retryable: boolean; error: string; status?: number };

/**
 * Injectable HTTP for platform calls: `fetch` (tests pass one pointing at a local stand-in) and the
 * platform API base URL to use (the connection's `apiBaseUrl` setting when set, else the adapter's
 * default, e.g. https://graph.facebook.com/v21.0).
 */
export interface ChannelHttp {
  fetch: typeof fetch;
  /** Base URL override for the platform API; adapters use their default when undefined. */
  apiBaseUrl?: string;
}

export type ConnectionStatus = 'active' | 'inactive' | 'error';

/**
 * A channel connection with its credentials decrypted: what adapters and the inbound pipeline get.
 * Never returned by the API, never logged.
 */
export interface ResolvedConnection {
  id: string;
  tenantId: string;
  projectId: string;
  channelType: string;
  /**
   * The provider variant serving the connection (`vonage` for an SMS connection on Vonage);
   * null or absent: the channel type's only implementation, or its default provider.
   */
  provider?: string | null;
  /** Routing key for inbound messages (spec 001 §4.1 identifier shapes). */
  externalIdentifier: string;
  /** Agent binding: the agent new sessions start with; null: the project's default agent. */
  agentName: string | null;
  /** Deployment; null: the latest. */
  deploymentId: string | null;
  active: boolean;
  status: ConnectionStatus;
  /** Decrypted channel credentials (bot token, signing secret, app secret...). */
  credentials: Record<string, string>;
  /** Non-secret settings (apiBaseUrl, displayName, email settings without the password...). */
  settings: Record<string, unknown>;
}

/**
 * Hashed verify-token lookup for GET challenges (spec 001 §4.1): the active connection of the
 * channel type whose stored verify token hash matches the SHA-256 of `token`, or null.
 */
export type VerifyTokenLookup = (channelType: string, token: string) => Promise<ResolvedConnection | null>;
