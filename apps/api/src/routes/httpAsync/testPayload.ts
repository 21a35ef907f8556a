import {
  agentResponsePayload,
  agentStatusPayload,
  callbackPayloadSchemas,
  type WebhookEventType,
} from '@parley/channels';

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
  const message = {
    messageId: input.messageId,
    sessionKey: testSessionKey(input.subscriptionId),
    metadata: { test: true },
  };
  switch (input.eventType) {
    case 'agent.response':
      return agentResponsePayload(
        message,
        {
          kind: 'replied',
          sessionId: null,
          created: false,
          text: TEST_MESSAGE_TEXT,
          usedFallback: false,
          isLlmGenerated: false,
          llmCalls: 0,
          ended: false,
        },
        input.deliveryId,
      );
    case 'agent.status':
      return agentStatusPayload(message, { status: 'completed', sessionId: null, occurredAt: input.now });
    case 'agent.media':
      return callbackPayloadSchemas['agent.media'].parse({
        message_id: message.messageId,
        session_key: message.sessionKey,
        session_id: null,
        media: [
          {
            type: 'image',
            url: 'https://example.com/parley-test-message.png',
            mime_type: 'image/png',
            name: 'parley-test-message.png',
          },
        ],
        metadata: message.metadata,
      });
    default: {
      const unreachable: never = input.eventType;
      return unreachable;
    }
  }
}
