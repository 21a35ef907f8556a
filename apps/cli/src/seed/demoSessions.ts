import { randomUUID } from 'node:crypto';
import { completeUsage, sessionStream, toAppend } from '@parley/events';
import type { EventToAppend } from '@parley/eventstore';

export interface DemoSession {
  stream: string;
  events: EventToAppend[];
}

const channels = ['web_chat', 'voice_pipeline', 'http_async', 'email', 'api'] as const;
const environments = ['production', 'staging', 'dev'] as const;
const questions = [
  'Where is my order?',
  'I was charged twice this month.',
  'Can I change my delivery address?',
  'How do I reset my password?',
];
const endings = [
  { status: 'completed', containmentType: 'contained_resolved' },
  { status: 'escalated', containmentType: 'escalated' },
  { status: 'abandoned', containmentType: 'abandoned' },
  { status: 'ended', containmentType: 'contained_partial' },
] as const;

/**
 * Demo sessions built through the event catalog (so every event is valid):
 * a start, a few user turns each with a trace event, an LLM call and a reply,
 * and an end. Deterministic shape, random ids, times spread over the last day.
 */
export function demoSession(projectId: string, index: number, now = Date.now()): DemoSession {
  const sessionId = `demo_${randomUUID()}`;
  const traceId = randomUUID().replaceAll('-', '');
  const channel = channels[index % channels.length]!;
  const environment = environments[index % environments.length]!;
  let at = now - ((index * 7_919) % 86_400_000);
  const tick = (ms: number) => {
    at += ms;
    return new Date(at).toISOString();
  };
  const events: EventToAppend[] = [];
  const metadata = { projectId, correlationId: sessionId };

  events.push(
    toAppend(
      'SessionStarted',
      {
        sessionId,
        projectId,
        agentName: 'support-assistant',
        channel,
        environment,
        channelUserId: `user-${index % 97}`,
        traceDimensions: { region: index % 2 === 0 ? 'emea' : 'amer' },
        startedAt: tick(0),
      },
      metadata,
    ),
  );
  const turns = 1 + (index % 3);
  for (let turn = 0; turn < turns; turn++) {
    const messageId = `msg_${randomUUID()}`;
    events.push(
      toAppend(
        'MessageReceived',
        {
          sessionId,
          projectId,
          messageId,
          text: questions[(index + turn) % questions.length]!,
          receivedAt: tick(4_000),
        },
        metadata,
      ),
    );
    const callId = `llm_${randomUUID()}`;
    const input = 600 + ((index * 31 + turn * 17) % 900);
    const completion = 40 + ((index + turn) % 80);
    events.push(
      toAppend(
        'LlmCallRecorded',
        {
          callId,
          projectId,
          sessionId,
          provider: 'scripted',
          model: 'parley-scripted-1',
          agentName: 'support-assistant',
          environment,
          channel,
          status: 'success',
          statusCode: 200,
          usage: completeUsage({
            inputTokens: input,
            cachedTokens: 0,
            completionTokens: completion,
            reasoningTokens: 0,
          }),
          latencyMs: 300 + (index % 500),
          timeToFirstTokenMs: 120,
          streamingUsed: false,
          cost: 0,
          source: 'runtime',
          sourceSubtype: 'response_generation',
          traceId,
          startedAt: tick(50),
        },
        metadata,
      ),
    );
    events.push(
      toAppend(
        'TraceEventRecorded',
        {
          sessionId,
          projectId,
          traceId,
          spanId: randomUUID().slice(0, 16).replaceAll('-', '0'),
          eventType: 'llm_call',
          name: 'response_generation',
          status: 'ok',
          startedAt: tick(0),
          durationMs: 300 + (index % 500),
          attributes: { callId },
        },
        metadata,
      ),
    );
    events.push(
      toAppend(
        'AgentReplied',
        {
          sessionId,
          projectId,
          messageId: `msg_${randomUUID()}`,
          inReplyTo: messageId,
          agentName: 'support-assistant',
          text: 'Thanks, let me look into that for you.',
          repliedAt: tick(400),
        },
        metadata,
      ),
    );
  }
  const ending = endings[index % endings.length]!;
  events.push(toAppend('SessionEnded', { sessionId, projectId, ...ending, endedAt: tick(30_000) }, metadata));
  return { stream: sessionStream(sessionId), events };
}
