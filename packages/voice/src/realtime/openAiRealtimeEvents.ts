import { z } from 'zod';
import type { RealtimeAudioFormat } from './realtimeAudio.js';
import type { RealtimeEvent, RealtimeSessionConfig } from './realtimeProvider.js';

/**
 * The OpenAI Realtime API's WebSocket events that Parley sends and reads (the published client
 * and server event reference; the GA names, and the beta names of the audio events
 * `response.audio.delta` / `response.audio_transcript.*` that older sessions send). Server events
 * are parsed with these schemas on receipt; any other event type is ignored.
 */

const usageSchema = z
  .object({
    input_tokens: z.number().int().nonnegative().optional(),
    output_tokens: z.number().int().nonnegative().optional(),
    total_tokens: z.number().int().nonnegative().optional(),
    input_token_details: z
      .object({ cached_tokens: z.number().int().nonnegative().optional() })
      .loose()
      .optional(),
  })
  .loose();

const id = z.string().min(1).max(256);

export const serverEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('input_audio_buffer.speech_started'), item_id: id }),
  z.object({ type: z.literal('input_audio_buffer.speech_stopped'), item_id: id }),
  z.object({ type: z.literal('input_audio_buffer.committed'), item_id: id }),
  z.object({
    type: z.literal('conversation.item.input_audio_transcription.completed'),
    item_id: id,
    transcript: z.string(),
  }),
  z.object({
    type: z.literal('conversation.item.input_audio_transcription.failed'),
    item_id: id,
    error: z.object({ message: z.string().optional() }).loose().optional(),
  }),
  z.object({ type: z.literal('response.created'), response: z.object({ id }).loose() }),
  z.object({
    type: z.literal('response.output_audio.delta'),
    response_id: id,
    item_id: id,
    delta: z.string(),
  }),
  z.object({ type: z.literal('response.audio.delta'), response_id: id, item_id: id, delta: z.string() }),
  z.object({ type: z.literal('response.output_audio_transcript.delta'), response_id: id, delta: z.string() }),
  z.object({ type: z.literal('response.audio_transcript.delta'), response_id: id, delta: z.string() }),
  z.object({
    type: z.literal('response.function_call_arguments.done'),
    response_id: id,
    call_id: id,
    name: z.string().min(1).max(128),
    arguments: z.string(),
  }),
  z.object({
    type: z.literal('response.done'),
    response: z
      .object({
        id,
        status: z.enum(['completed', 'cancelled', 'failed', 'incomplete', 'in_progress']).optional(),
        status_details: z
          .object({
            type: z.string().optional(),
            reason: z.string().nullish(),
            error: z.object({ type: z.string().optional(), code: z.string().nullish() }).loose().nullish(),
          })
          .loose()
          .nullish(),
        usage: usageSchema.nullish(),
      })
      .loose(),
  }),
  z.object({
    type: z.literal('error'),
    error: z.object({ message: z.string(), type: z.string().optional(), code: z.string().nullish() }).loose(),
  }),
]);
export type ServerEvent = z.infer<typeof serverEventSchema>;

/** A server event as the port's event; null for events the port has no use for. */
export function portEventOf(event: ServerEvent): RealtimeEvent | null {
  switch (event.type) {
    case 'input_audio_buffer.speech_started':
      return { type: 'speech_started', itemId: event.item_id };
    case 'input_audio_buffer.speech_stopped':
      return { type: 'speech_stopped', itemId: event.item_id };
    case 'input_audio_buffer.committed':
      return { type: 'input_committed', itemId: event.item_id };
    case 'conversation.item.input_audio_transcription.completed':
      return { type: 'user_transcript', itemId: event.item_id, transcript: event.transcript };
    case 'conversation.item.input_audio_transcription.failed':
      return { type: 'user_transcript_failed', itemId: event.item_id, message: event.error?.message ?? '' };
    case 'response.created':
      return { type: 'response_started', responseId: event.response.id };
    case 'response.output_audio.delta':
    case 'response.audio.delta':
      return {
        type: 'audio',
        responseId: event.response_id,
        itemId: event.item_id,
        audio: Buffer.from(event.delta, 'base64'),
      };
    case 'response.output_audio_transcript.delta':
    case 'response.audio_transcript.delta':
      return { type: 'transcript_delta', responseId: event.response_id, delta: event.delta };
    case 'response.function_call_arguments.done':
      return {
        type: 'function_call',
        responseId: event.response_id,
        callId: event.call_id,
        name: event.name,
        arguments: event.arguments,
      };
    case 'response.done':
      return responseDoneOf(event.response);
    case 'error':
      return {
        type: 'error',
        code: event.error.code ?? event.error.type ?? 'error',
        message: event.error.message,
      };
    default: {
      const exhaustive: never = event;
      throw new Error(`unhandled realtime event ${JSON.stringify(exhaustive)}`);
    }
  }
}

function responseDoneOf(
  response: Extract<ServerEvent, { type: 'response.done' }>['response'],
): RealtimeEvent {
  const status =
    response.status === undefined || response.status === 'in_progress' ? 'completed' : response.status;
  const usage = response.usage ?? {};
  const details = response.status_details;
  return {
    type: 'response_done',
    responseId: response.id,
    status,
    usage: {
      inputTokens: usage.input_tokens ?? 0,
      cachedTokens: usage.input_token_details?.cached_tokens ?? 0,
      outputTokens: usage.output_tokens ?? 0,
    },
    ...(status === 'failed'
      ? {
          error: {
            code: details?.error?.code ?? details?.error?.type ?? 'response_failed',
            message: details?.reason ?? 'the realtime response failed',
          },
        }
      : {}),
  };
}

/** voice.realtime.audioFormat as the GA session's audio format object. */
export function audioFormatOf(format: RealtimeAudioFormat): { type: string; rate?: number } {
  switch (format) {
    case 'pcm16':
      return { type: 'audio/pcm', rate: 24_000 };
    case 'g711_ulaw':
      return { type: 'audio/pcmu' };
    case 'g711_alaw':
      return { type: 'audio/pcma' };
    default: {
      const exhaustive: never = format;
      throw new Error(`unknown realtime audio format ${String(exhaustive)}`);
    }
  }
}

/**
 * The `session.update` Parley sends first: audio in and out in the configured format, server VAD
 * that creates responses but does NOT interrupt them (Parley does: it cancels the response and
 * clears the telephony provider's buffer together), input transcription for the transcript, the
 * agent's instructions and tools.
 */
export function sessionUpdateOf(config: RealtimeSessionConfig, transcriptionModel: string) {
  const format = audioFormatOf(config.audioFormat);
  return {
    type: 'session.update',
    session: {
      type: 'realtime',
      output_modalities: ['audio'],
      instructions: config.instructions,
      audio: {
        input: {
          format,
          transcription: { model: transcriptionModel },
          turn_detection: {
            type: 'server_vad',
            silence_duration_ms: config.silenceDurationMs ?? 500,
            create_response: true,
            interrupt_response: false,
          },
        },
        output: { format, ...(config.voice === undefined ? {} : { voice: config.voice }) },
      },
      tools: config.tools.map((t) => ({
        type: 'function',
        name: t.name,
        ...(t.description === undefined ? {} : { description: t.description }),
        parameters: t.parameters ?? { type: 'object', properties: {} },
      })),
      tool_choice: 'auto',
    },
  };
}

/** An earlier turn as a conversation item (user `input_text`, assistant `output_text`). */
export function historyItemOf(turn: { role: 'user' | 'assistant'; text: string }) {
  return {
    type: 'conversation.item.create',
    item: {
      type: 'message',
      role: turn.role,
      content: [{ type: turn.role === 'user' ? 'input_text' : 'output_text', text: turn.text }],
    },
  };
}
