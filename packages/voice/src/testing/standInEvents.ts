/** Server events of the Realtime API stand-in that are built in one piece (GA event schema). */

let ids = 0;
export const nextId = (prefix: string): string => `${prefix}_${++ids}`;

export interface StandInUsage {
  input_tokens: number;
  output_tokens: number;
  cached_tokens: number;
}

/** `response.done`: completed, or cancelled with status_details; usage as the published RealtimeResponseUsage. */
export function responseDone(
  response: { id: string; cancelled: boolean },
  output: Record<string, unknown>,
  usage: StandInUsage = { input_tokens: 120, output_tokens: 80, cached_tokens: 20 },
): Record<string, unknown> {
  return {
    type: 'response.done',
    response: {
      id: response.id,
      object: 'realtime.response',
      status: response.cancelled ? 'cancelled' : 'completed',
      status_details: response.cancelled ? { type: 'cancelled', reason: 'client_cancelled' } : null,
      output: [output],
      usage: {
        total_tokens: usage.input_tokens + usage.output_tokens,
        input_tokens: usage.input_tokens,
        output_tokens: usage.output_tokens,
        input_token_details: {
          cached_tokens: usage.cached_tokens,
          text_tokens: 20,
          audio_tokens: usage.input_tokens - 20,
        },
        output_token_details: { text_tokens: 10, audio_tokens: usage.output_tokens - 10 },
      },
    },
  };
}

/** A function call's events in order (item added, arguments delta and done, item done) and its item. */
export function functionCall(
  responseId: string,
  call: { name: string; arguments: string },
): { events: Array<Record<string, unknown>>; item: Record<string, unknown> } {
  const item = { id: nextId('item'), type: 'function_call', call_id: nextId('call'), name: call.name };
  const at = { response_id: responseId, item_id: item.id, output_index: 0, call_id: item.call_id };
  const done = { ...item, arguments: call.arguments, status: 'completed' };
  return {
    item: done,
    events: [
      {
        type: 'response.output_item.added',
        response_id: responseId,
        output_index: 0,
        item: { ...item, arguments: '' },
      },
      { type: 'response.function_call_arguments.delta', ...at, delta: call.arguments },
      { type: 'response.function_call_arguments.done', ...at, name: call.name, arguments: call.arguments },
      { type: 'response.output_item.done', response_id: responseId, output_index: 0, item: done },
    ],
  };
}
