import { randomUUID } from 'node:crypto';
import { toAppend } from '@parley/events';
import { eventDataArbitraries, recordedFrom } from '@parley/events/testing';
import { type EventToAppend, type RecordedEvent, START } from '@parley/eventstore';
import { memoryRows, projectInMemory } from '@parley/projection-runner/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toSessionMessageRecord } from './sessionMessageReads.js';
import { type SessionMessageRow, sessionMessagesProjection } from './sessionMessagesProjection.js';
import { exampleTranscript } from './testing/transcript.js';

let seq = 0;
/** The events as one stream of the log: revisions 0, 1, ... and increasing positions. */
const recorded = (events: readonly EventToAppend[], stream = 'session-s'): RecordedEvent[] =>
  events.map((e, revision) => {
    seq += 1;
    return recordedFrom(e, {
      stream,
      revision: BigInt(revision),
      position: { commit: BigInt(seq), prepare: BigInt(seq) },
    });
  });

const rows = (events: readonly RecordedEvent[]) => {
  const state = projectInMemory(sessionMessagesProjection, events);
  return {
    messages: memoryRows(state, 'session_messages'),
    sessions: memoryRows(state, 'session_message_sessions'),
  };
};

/** The transcript order of the reads module: at, then log position. */
const ordered = (messages: readonly Record<string, unknown>[]) =>
  [...messages].sort((a, b) => {
    const at = (a.at as Date).getTime() - (b.at as Date).getTime();
    return at !== 0 ? at : (a.position_commit as number) - (b.position_commit as number);
  });

describe('sessionMessagesProjection', () => {
  it('projects one row per message, every column, and the session', () => {
    const { events } = exampleTranscript('proj_1', 'sess_1');
    const log = recorded(events);
    const { messages, sessions } = rows(log);
    expect(sessions).toEqual([
      { project_id: 'proj_1', session_id: 'sess_1', started_at: new Date('2026-11-21T09:00:00.000Z') },
    ]);
    expect(messages).toHaveLength(5);
    const user = messages.find((m) => m.message_id === 'msg_u1');
    expect(user).toEqual({
      project_id: 'proj_1',
      session_id: 'sess_1',
      role: 'user',
      message_id: 'msg_u1',
      event_id: events[1]!.eventId,
      at: new Date('2026-11-21T09:00:01.000Z'),
      position_commit: Number(log[1]!.position.commit),
      position_prepare: Number(log[1]!.position.prepare),
      message_text: 'I was charged twice.',
      in_reply_to: null,
      agent_name: null,
      action_set: null,
      action_event: { id: 'start', value: 'billing' },
      used_fallback: null,
    });
    const reply = messages.find((m) => m.message_id === 'msg_a1');
    expect(reply).toEqual({
      project_id: 'proj_1',
      session_id: 'sess_1',
      role: 'agent',
      message_id: 'msg_a1',
      event_id: events[2]!.eventId,
      at: new Date('2026-11-21T09:00:02.000Z'),
      position_commit: Number(log[2]!.position.commit),
      position_prepare: Number(log[2]!.position.prepare),
      message_text: 'Refund the duplicate?',
      in_reply_to: 'msg_u1',
      agent_name: 'billing-assistant',
      action_set: {
        prompt: 'Refund the duplicate charge?',
        elements: [{ type: 'button', id: 'refund_yes', label: 'Yes' }],
      },
      action_event: null,
      used_fallback: false,
    });
    expect(messages.find((m) => m.message_id === 'msg_a2')).toMatchObject({
      in_reply_to: null,
      used_fallback: null,
      action_set: null,
    });
    expect(ordered(messages).map((m) => m.message_id)).toEqual([
      'msg_u1',
      'msg_a1',
      'msg_u2',
      'msg_a2',
      'msg_u3',
    ]);
  });

  it('maps a row to the wire record', () => {
    const { messages } = rows(recorded(exampleTranscript('proj_1', 'sess_1').events));
    const reply = messages.find((m) => m.message_id === 'msg_a1') as SessionMessageRow;
    expect(toSessionMessageRecord(reply)).toEqual({
      messageId: 'msg_a1',
      role: 'agent',
      text: 'Refund the duplicate?',
      at: '2026-11-21T09:00:02.000Z',
      inReplyTo: 'msg_u1',
      agentName: 'billing-assistant',
      actionSet: {
        prompt: 'Refund the duplicate charge?',
        elements: [{ type: 'button', id: 'refund_yes', label: 'Yes' }],
      },
      actionEvent: null,
      usedFallback: false,
    });
  });

  it('knows a session from a message alone (no start): started_at null', () => {
    const { sessions, messages } = rows(
      recorded([toAppend('MessageReceived', { ...eventDataArbitrary(), projectId: 'p', sessionId: 's' })]),
    );
    expect(sessions).toEqual([{ project_id: 'p', session_id: 's', started_at: null }]);
    expect(messages).toHaveLength(1);
  });

  it('a message recorded twice keeps its first record; the earliest start wins', () => {
    const scope = { projectId: 'p', sessionId: 's' };
    const reply = { ...scope, messageId: 'm', agentName: 'a' };
    const first = toAppend('AgentReplied', {
      ...reply,
      text: 'first',
      repliedAt: '2026-01-01T00:00:02.000Z',
    });
    const again = toAppend('AgentReplied', {
      ...reply,
      text: 'again',
      repliedAt: '2026-01-01T00:00:09.000Z',
    });
    const start = {
      ...fc.sample(eventDataArbitraries.SessionStarted, { numRuns: 1, seed: 1 })[0]!,
      ...scope,
    };
    const late = toAppend('SessionStarted', { ...start, startedAt: '2026-01-01T00:00:05.000Z' });
    const early = toAppend('SessionStarted', { ...start, startedAt: '2026-01-01T00:00:01.000Z' });
    const { messages, sessions } = rows(recorded([first, late, again, early]));
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({ message_text: 'first', at: new Date('2026-01-01T00:00:02.000Z') });
    expect(sessions[0]?.started_at).toEqual(new Date('2026-01-01T00:00:01.000Z'));
  });

  it('a user message and an agent reply sharing a message id are two rows', () => {
    const scope = { projectId: 'p', sessionId: 's', messageId: 'same', text: 't' };
    const { messages } = rows(
      recorded([
        toAppend('MessageReceived', { ...scope, receivedAt: '2026-01-01T00:00:00.000Z' }),
        toAppend('AgentReplied', { ...scope, agentName: 'a', repliedAt: '2026-01-01T00:00:01.000Z' }),
      ]),
    );
    expect(messages.map((m) => m.role).sort()).toEqual(['agent', 'user']);
  });

  it('replayed events, in any batch cut and redelivered after the checkpoint, change nothing; other types are ignored', () => {
    const one = recorded(exampleTranscript('proj_1', 'sess_1').events, 'session-sess_1');
    const two = recorded(exampleTranscript('proj_1', 'sess_2').events.slice(1, 4), 'session-sess_2');
    const all = [...one, ...two];
    const expected = rows(all);
    fc.assert(
      fc.property(
        fc.array(fc.nat({ max: all.length - 1 }), { maxLength: 6 }),
        fc.nat({ max: all.length }),
        fc.array(fc.nat({ max: all.length - 1 }), { maxLength: 4 }),
        (replays, cut, redelivered) => {
          // Each chosen event also appears again right after itself (same id, revision, position).
          const withReplays = all.flatMap((e, i) => (replays.includes(i) ? [e, { ...e }] : [e]));
          const noise = [
            recordedFrom(
              {
                eventId: randomUUID(),
                type: 'SomethingNew',
                data: { projectId: 'proj_1', sessionId: 'sess_1' },
              },
              { position: { commit: 0n, prepare: 0n } },
            ),
            recordedFrom(
              toAppend('SessionEnded', {
                projectId: 'proj_1',
                sessionId: 'sess_9',
                status: 'ended',
                endedAt: '2026-11-21T10:00:00.000Z',
              }),
              { position: { commit: 0n, prepare: 0n } },
            ),
          ];
          const list = [...noise, ...withReplays];
          const first = projectInMemory(sessionMessagesProjection, list.slice(0, cut));
          const state = projectInMemory(sessionMessagesProjection, list.slice(cut), first);
          expect(memoryRows(state, 'session_messages')).toEqual(expected.messages);
          expect(memoryRows(state, 'session_message_sessions')).toEqual(expected.sessions);
          // The handlers themselves are idempotent: events folded again past the checkpoint.
          const again = projectInMemory(
            sessionMessagesProjection,
            redelivered.map((i) => all[i]!),
            { ...state, checkpoint: START },
          );
          expect(memoryRows(again, 'session_messages')).toEqual(expected.messages);
          expect(memoryRows(again, 'session_message_sessions')).toEqual(expected.sessions);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('any generated message or reply gives one row whose text and time are the event’s', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          eventDataArbitraries.MessageReceived.map((d) => toAppend('MessageReceived', d)),
          eventDataArbitraries.AgentReplied.map((d) => toAppend('AgentReplied', d)),
        ),
        (event) => {
          const { messages, sessions } = rows(recorded([event]));
          const data = event.data as { text: string; receivedAt?: string; repliedAt?: string };
          expect(messages).toHaveLength(1);
          expect(sessions).toHaveLength(1);
          expect(messages[0]?.message_text).toBe(data.text);
          expect(messages[0]!.at).toEqual(new Date((data.receivedAt ?? data.repliedAt)!));
        },
      ),
      { numRuns: 100 },
    );
  });

  it('reads only the three session events', () => {
    expect(sessionMessagesProjection.eventTypes).toEqual([
      'SessionStarted',
      'MessageReceived',
      'AgentReplied',
    ]);
  });
});

function eventDataArbitrary() {
  return fc.sample(eventDataArbitraries.MessageReceived, { numRuns: 1, seed: 7 })[0]!;
}
