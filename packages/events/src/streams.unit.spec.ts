import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  auditStream,
  httpAsyncStream,
  llmStream,
  parseStreamName,
  recordingStream,
  STREAM_KINDS,
  sessionStream,
  streamForLlmCall,
  voiceCallStream,
} from './streams.js';

const builders = {
  session: sessionStream,
  recording: recordingStream,
  llm: llmStream,
  audit: auditStream,
  httpasync: httpAsyncStream,
  voicecall: voiceCallStream,
};

describe('stream names', () => {
  it('follow DESIGN.md', () => {
    expect(sessionStream('s1')).toBe('session-s1');
    expect(recordingStream('r1')).toBe('recording-r1');
    expect(llmStream('p1')).toBe('llm-p1');
    expect(auditStream('p1')).toBe('audit-p1');
    expect(voiceCallStream('CA1')).toBe('voicecall-CA1');
  });

  it('round-trip through parseStreamName for any non-empty id, dashes included', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...STREAM_KINDS),
        fc.string({ minLength: 1, unit: 'binary' }),
        (kind, id) => {
          expect(parseStreamName(builders[kind](id))).toEqual({ kind, id });
        },
      ),
    );
    expect(parseStreamName(sessionStream('0b6f-4c1e-9a2d'))).toEqual({
      kind: 'session',
      id: '0b6f-4c1e-9a2d',
    });
  });

  it('refuse an empty id', () => {
    for (const build of Object.values(builders)) expect(() => build('')).toThrow(/must not be empty/);
  });

  it.each(['', 'session', 'session-', '-s1', 'sessions-s1', 'Session-s1', '$ce-session', 'test-stream'])(
    'parse %j as no Parley stream',
    (stream) => {
      expect(parseStreamName(stream)).toBeNull();
    },
  );

  it('put an LLM call in its session stream, or in its project LLM stream when it has no session', () => {
    expect(streamForLlmCall({ sessionId: 's1', projectId: 'p1' })).toBe('session-s1');
    expect(streamForLlmCall({ projectId: 'p1' })).toBe('llm-p1');
  });
});
