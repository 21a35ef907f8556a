import type { InboundRequest } from '../adapter.js';
import type { NormalizedMessage, OutgoingReply, ResolvedConnection } from '../types.js';
import { jsonBody } from './shared.js';
import { webhookBodyProblem } from './webhookBody.js';

/** What a platform that posts JSON webhooks brings of its own: reading its body and writing its replies. */
export interface JsonWebhookParts<Output> {
  /** The messages of a (verified) webhook body, for the connection it came to. */
  parse(body: unknown, connection: ResolvedConnection): NormalizedMessage[];
  /** The connection identifier a webhook body is addressed to (page, number, bot...), or null. */
  identify(body: unknown): string | null;
  /** The reply in the platform's format (stored with the queued message; storedOutput reads it). */
  render(reply: OutgoingReply): Output;
}

/**
 * The part of a ChannelAdapter every JSON-webhook platform writes the same way (Meta's, LINE,
 * Zendesk): the body must be JSON; parseIncoming and connectionIdentifier read the parsed body (or
 * the raw bytes when the route did not parse it); transformOutput renders the reply. The adapter
 * spreads it and adds what differs: signature verification, sending, typing, challenges.
 */
export const jsonWebhook = <Output>(parts: JsonWebhookParts<Output>) => ({
  checkBody: (req: InboundRequest) => webhookBodyProblem(req, ['json']),
  parseIncoming: (req: InboundRequest, connection: ResolvedConnection): NormalizedMessage[] =>
    parts.parse(jsonBody(req.body, req.rawBody), connection),
  connectionIdentifier: (req: InboundRequest): string | null =>
    parts.identify(jsonBody(req.body, req.rawBody)),
  transformOutput: (reply: OutgoingReply): Output => parts.render(reply),
});
