import { callbackPayloadSchemas, type WebhookEventType } from '@parley/channels';

/** The text of a test message's agent.response. */
export const TEST_MESSAGE_TEXT = 'This is a test message from Parley.';

/**
 * The conversation key of test messages: namespaced like the canonical keys (`ha:<subscription>:…`)
 * but never one the service issues (those end in 22 base62 characters), so a receiver can tell a
 * test from a conversation, and a caller who sends it back is refused rather than joined to one.
 */
export const testSessionKey = (subscriptionId: string): string => `ha:${subscriptionId}:test`;

/**
 * The body of a test message for one event type, valid against its callback schema (payloads.ts):
 * no runtime session, `metadata: { test: true }`, a fixed reply for agent.response, `completed` for
 * agent.status and one sample image for agent.media.
 */
export function testCallbackPayload(input: {
  eventType: WebhookEventType;
  subscriptionId: string;
  messageId: string;
  deliveryId: string;
  now: Date;
}): Record<string, unknown> {
  const common = {
    message_id: input.messageId,
    session_key: testSessionKey(input.subscriptionId),
    session_id: null,
  };
  const metadata = { test: true };
  switch (input.eventType) {
    case 'agent.response':
      return callbackPayloadSchemas['agent.response'].parse({
        ...common,
        response: TEST_MESSAGE_TEXT,
        channel_output: { kind: 'text', text: TEST_MESSAGE_TEXT },
        outcome: { status: 'ok', usedFallback: false },
        trace_context: { session_id: null, delivery: input.deliveryId },
        is_new_session: false,
        response_metadata: {
          isLlmGenerated: false,
          responseProvenance: {
            schemaVersion: 1,
            kind: 'static',
            disclaimerRequired: false,
            usedLlmInternally: false,
          },
        },
        metadata,
      });
    case 'agent.status':
      return callbackPayloadSchemas['agent.status'].parse({
        ...common,
        status: 'completed',
        previous_status: 'processing',
        occurred_at: input.now.toISOString(),
        reason: null,
        session_ended: false,
        metadata,
      });
    case 'agent.media':
      return callbackPayloadSchemas['agent.media'].parse({
        ...common,
        media: [
          {
            type: 'image',
            url: 'https://example.com/parley-test-message.png',
            mime_type: 'image/png',
            name: 'parley-test-message.png',
          },
        ],
        metadata,
      });
    default: {
      const unreachable: never = input.eventType;
      return unreachable;
    }
  }
}
