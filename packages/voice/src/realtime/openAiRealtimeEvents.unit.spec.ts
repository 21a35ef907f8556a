import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { portEventOf, serverEventSchema, sessionUpdateOf } from './openAiRealtimeEvents.js';

const port = (raw: unknown) => {
  const parsed = serverEventSchema.safeParse(raw);
  return parsed.success ? portEventOf(parsed.data) : null;
};

describe('OpenAI Realtime server events', () => {
  it('reads the published events Parley uses', () => {
    const delta = Buffer.from([1, 2, 3]).toString('base64');
    const at = { event_id: 'e', response_id: 'resp_1', item_id: 'item_2', output_index: 0, content_index: 0 };
    expect(
      port({ type: 'input_audio_buffer.speech_started', event_id: 'e', audio_start_ms: 10, item_id: 'i1' }),
    ).toEqual({
      type: 'speech_started',
      itemId: 'i1',
    });
    expect(port({ type: 'response.output_audio.delta', ...at, delta })).toEqual({
      type: 'audio',
      responseId: 'resp_1',
      itemId: 'item_2',
      audio: Buffer.from([1, 2, 3]),
    });
    // The beta name of the same event.
    expect(port({ type: 'response.audio.delta', ...at, delta })).toMatchObject({ type: 'audio' });
    expect(port({ type: 'response.audio_transcript.delta', ...at, delta: 'Hi' })).toEqual({
      type: 'transcript_delta',
      responseId: 'resp_1',
      delta: 'Hi',
    });
    expect(
      port({
        type: 'response.function_call_arguments.done',
        ...at,
        call_id: 'call_1',
        name: 'get_weather',
        arguments: '{"city":"Paris"}',
      }),
    ).toEqual({
      type: 'function_call',
      responseId: 'resp_1',
      callId: 'call_1',
      name: 'get_weather',
      arguments: '{"city":"Paris"}',
    });
    expect(
      port({
        type: 'conversation.item.input_audio_transcription.completed',
        event_id: 'e',
        item_id: 'i1',
        content_index: 0,
        transcript: 'hello',
        usage: { type: 'duration', seconds: 1 },
      }),
    ).toEqual({ type: 'user_transcript', itemId: 'i1', transcript: 'hello' });
  });

  it('takes the usage and status of response.done', () => {
    expect(
      port({
        type: 'response.done',
        event_id: 'e',
        response: {
          id: 'resp_1',
          object: 'realtime.response',
          status: 'cancelled',
          status_details: { type: 'cancelled', reason: 'client_cancelled' },
          usage: {
            total_tokens: 30,
            input_tokens: 20,
            output_tokens: 10,
            input_token_details: { cached_tokens: 5 },
          },
        },
      }),
    ).toEqual({
      type: 'response_done',
      responseId: 'resp_1',
      status: 'cancelled',
      usage: { inputTokens: 20, cachedTokens: 5, outputTokens: 10 },
    });
    expect(
      port({
        type: 'response.done',
        response: {
          id: 'r',
          status: 'failed',
          status_details: { type: 'failed', error: { type: 'server_error', code: 'boom' } },
        },
      }),
    ).toMatchObject({
      status: 'failed',
      usage: { inputTokens: 0, outputTokens: 0 },
      error: { code: 'boom' },
    });
  });

  it('never throws on arbitrary events', () => {
    const types = serverEventSchema.options.map((o) => (o.shape.type as { value: string }).value);
    fc.assert(
      fc.property(
        fc.record({ type: fc.constantFrom(...types, 'session.created', 'x') }, { requiredKeys: [] }),
        fc.dictionary(fc.string(), fc.jsonValue()),
        (head, rest) => {
          port({ ...rest, ...head });
        },
      ),
    );
  });
});

describe('session.update', () => {
  it('asks for server VAD without interruption, transcription and the agent tools', () => {
    expect(
      sessionUpdateOf(
        {
          model: 'gpt-realtime',
          instructions: 'Be brief.',
          tools: [{ name: 'lookup' }],
          audioFormat: 'g711_alaw',
          history: [],
        },
        'whisper-1',
      ),
    ).toEqual({
      type: 'session.update',
      session: {
        type: 'realtime',
        output_modalities: ['audio'],
        instructions: 'Be brief.',
        audio: {
          input: {
            format: { type: 'audio/pcma' },
            transcription: { model: 'whisper-1' },
            turn_detection: {
              type: 'server_vad',
              silence_duration_ms: 500,
              create_response: true,
              interrupt_response: false,
            },
          },
          output: { format: { type: 'audio/pcma' } },
        },
        tools: [{ type: 'function', name: 'lookup', parameters: { type: 'object', properties: {} } }],
        tool_choice: 'auto',
      },
    });
  });
});
