/**
 * Test data: Anthropic Messages API answers in their wire format (POST /v1/messages), ids, texts
 * and counts as in Anthropic's published recorded examples, shortened. The provider's tests replay
 * them from a local server.
 */

export const messageJson = {
  id: 'msg_013Zva2CMHLNnXjNJJKqJ2EF',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-20250514',
  content: [{ type: 'text', text: 'Your order #4412 shipped yesterday and should arrive on Thursday.' }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: {
    input_tokens: 216,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 1024,
    output_tokens: 19,
    service_tier: 'standard',
  },
};

/** Text, then two parallel tool_use blocks (Claude 4 calls independent tools in one message). */
export const toolUseJson = {
  id: 'msg_01Aq9w938a90dw8q',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-20250514',
  content: [
    { type: 'text', text: "I'll check the weather and the local time in Paris." },
    {
      type: 'tool_use',
      id: 'toolu_01A09q90qw90lq917835lq9',
      name: 'get_weather',
      input: { location: 'Paris, France', unit: 'celsius' },
    },
    {
      type: 'tool_use',
      id: 'toolu_01BcD3fH9jKq7sT2vWx4yZ8m',
      name: 'get_time',
      input: { timezone: 'Europe/Paris' },
    },
  ],
  stop_reason: 'tool_use',
  stop_sequence: null,
  usage: {
    input_tokens: 472,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: 112,
    service_tier: 'standard',
  },
};

const sse = (events: Array<Record<string, unknown>>): string =>
  events.map((e) => `event: ${String(e.type)}\ndata: ${JSON.stringify(e)}\n\n`).join('');

const messageStart = (id: string, usage: Record<string, unknown>) => ({
  type: 'message_start',
  message: {
    id,
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-20250514',
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage,
  },
});

export const textStreamEvents = [
  messageStart('msg_01XFDUDYJgAACzvnptvVoYEL', {
    input_tokens: 25,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 1152,
    output_tokens: 1,
    service_tier: 'standard',
  }),
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'ping' },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Your' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: ' order shipped' } },
  {
    type: 'content_block_delta',
    index: 0,
    delta: { type: 'text_delta', text: ' – it arrives Thursday 📦.' },
  },
  { type: 'content_block_stop', index: 0 },
  {
    type: 'message_delta',
    delta: { stop_reason: 'end_turn', stop_sequence: null },
    usage: { output_tokens: 15 },
  },
  { type: 'message_stop' },
];
export const textStream = sse(textStreamEvents);
export const textStreamText = 'Your order shipped – it arrives Thursday 📦.';

/** Text, then two tool_use blocks whose input arrives as input_json_delta fragments. */
export const toolUseStream = sse([
  messageStart('msg_014p7gG3wDgGV9EUtLvnow3U', {
    input_tokens: 472,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: 2,
    service_tier: 'standard',
  }),
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Okay, let me check' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: ' the weather for Paris:' } },
  { type: 'content_block_stop', index: 0 },
  {
    type: 'content_block_start',
    index: 1,
    content_block: { type: 'tool_use', id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6', name: 'get_weather', input: {} },
  },
  { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '' } },
  {
    type: 'content_block_delta',
    index: 1,
    delta: { type: 'input_json_delta', partial_json: '{"location":' },
  },
  {
    type: 'content_block_delta',
    index: 1,
    delta: { type: 'input_json_delta', partial_json: ' "Paris, France"' },
  },
  { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '}' } },
  { type: 'content_block_stop', index: 1 },
  {
    type: 'content_block_start',
    index: 2,
    content_block: { type: 'tool_use', id: 'toolu_01Jq3nWmT7hQ4tNTrLk2xS9b', name: 'get_time', input: {} },
  },
  {
    type: 'content_block_delta',
    index: 2,
    delta: { type: 'input_json_delta', partial_json: '{"timezone": "Europe/Paris"}' },
  },
  { type: 'content_block_stop', index: 2 },
  {
    type: 'message_delta',
    delta: { stop_reason: 'tool_use', stop_sequence: null },
    usage: { output_tokens: 89 },
  },
  { type: 'message_stop' },
]);

/** During high load the API can send an error event in a stream that had started (HTTP 529 otherwise). */
export const streamWithError =
  sse(textStreamEvents.slice(0, 4)) +
  sse([{ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }]);

export const rateLimitError = {
  type: 'error',
  error: {
    type: 'rate_limit_error',
    message:
      'This request would exceed the rate limit for your organization (4d2c1a7e-5f0b-4c3a-9f1e-0b6a2d9c8e71) of 50,000 input tokens per minute.',
  },
};

export const overloadedError = { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } };

export const invalidKeyError = {
  type: 'error',
  error: { type: 'authentication_error', message: 'invalid x-api-key' },
};
