import { toAppend } from '@parley/events';
import { eventExamples } from '@parley/events/testing';
import type { EventToAppend } from '@parley/eventstore';

/**
 * A session's transcript as the log holds it: a start, a user message with an action event, an
 * agent reply with an ACTION_SET and usedFallback, a second user message, a proactive reply
 * without inReplyTo or usedFallback, and a second user message recorded in the same millisecond
 * as the reply before it (order then follows the log).
 */
export function exampleTranscript(projectId: string, sessionId: string) {
  const scope = { projectId, sessionId };
  const events: EventToAppend[] = [
    toAppend('SessionStarted', {
      ...eventExamples.SessionStarted,
      ...scope,
      startedAt: '2026-11-21T09:00:00.000Z',
    }),
    toAppend('MessageReceived', {
      ...scope,
      messageId: 'msg_u1',
      text: 'I was charged twice.',
      actionEvent: { id: 'start', value: 'billing' },
      receivedAt: '2026-11-21T09:00:01.000Z',
    }),
    toAppend('AgentReplied', {
      ...scope,
      messageId: 'msg_a1',
      inReplyTo: 'msg_u1',
      agentName: 'billing-assistant',
      text: 'Refund the duplicate?',
      actionSet: {
        prompt: 'Refund the duplicate charge?',
        elements: [{ type: 'button', id: 'refund_yes', label: 'Yes' }],
      },
      usedFallback: false,
      repliedAt: '2026-11-21T09:00:02.000Z',
    }),
    toAppend('MessageReceived', {
      ...scope,
      messageId: 'msg_u2',
      text: 'Yes',
      receivedAt: '2026-11-21T09:00:03.000Z',
    }),
    toAppend('AgentReplied', {
      ...scope,
      messageId: 'msg_a2',
      agentName: 'billing-assistant',
      text: 'Done.',
      repliedAt: '2026-11-21T09:00:04.000Z',
    }),
    toAppend('MessageReceived', {
      ...scope,
      messageId: 'msg_u3',
      text: 'Thanks!',
      receivedAt: '2026-11-21T09:00:04.000Z',
    }),
  ];
  return { stream: `session-${sessionId}`, events };
}
