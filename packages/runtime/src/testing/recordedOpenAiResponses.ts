/**
 * Test data: response shapes as OpenAI's /v1/chat/completions sends them (ids, fingerprints and
 * texts from recorded calls, shortened). The provider's tests replay them from a local server.
 */

export const completionJson = {
  id: 'chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT',
  object: 'chat.completion',
  created: 1741569952,
  model: 'gpt-4o-mini-2024-07-18',
  choices: [
    {
      index: 0,
      message: {
        role: 'assistant',
        content: 'Your order #4412 shipped yesterday and should arrive on Thursday.',
        refusal: null,
        annotations: [],
      },
      logprobs: null,
      finish_reason: 'stop',
    },
  ],
  usage: {
    prompt_tokens: 1240,
    completion_tokens: 96,
    total_tokens: 1336,
    prompt_tokens_details: { cached_tokens: 1024, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  },
  service_tier: 'default',
  system_fingerprint: 'fp_06737a9306',
};

export const toolCallCompletionJson = {
  id: 'chatcmpl-BRrSCoIfAXq1OmEx2F7bCzhtEnkU5',
  object: 'chat.completion',
  created: 1745940000,
  model: 'o4-mini-2025-04-16',
  choices: [
    {
      index: 0,
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_Dn2RJJSxzDm49vlVTehseJ0k',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' },
          },
        ],
        refusal: null,
        annotations: [],
      },
      finish_reason: 'tool_calls',
    },
  ],
  usage: {
    prompt_tokens: 310,
    completion_tokens: 530,
    total_tokens: 840,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 448,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  },
  service_tier: 'default',
  system_fingerprint: null,
};

const chunk = (fields: Record<string, unknown>) => ({
  id: 'chatcmpl-BA5sF0lBxkqDX8dVZqn8zHnD7H8jL',
  object: 'chat.completion.chunk',
  created: 1741740231,
  model: 'gpt-4o-mini-2024-07-18',
  service_tier: 'default',
  system_fingerprint: 'fp_b8bc95a0ac',
  usage: null,
  ...fields,
});
const delta = (d: Record<string, unknown>, finish: string | null = null) =>
  chunk({ choices: [{ index: 0, delta: d, logprobs: null, finish_reason: finish }] });

const sse = (values: unknown[]): string =>
  `${values.map((v) => `data: ${JSON.stringify(v)}\n\n`).join('')}data: [DONE]\n\n`;

/** A streamed text answer with stream_options.include_usage: usage in a last chunk with no choices. */
export const textStreamChunks = [
  delta({ role: 'assistant', content: '', refusal: null }),
  delta({ content: 'Your' }),
  delta({ content: ' order' }),
  delta({ content: ' shipped' }),
  delta({ content: ' – it arrives Thursday 📦.' }),
  delta({}, 'stop'),
  chunk({
    choices: [],
    usage: {
      prompt_tokens: 1240,
      completion_tokens: 9,
      total_tokens: 1249,
      prompt_tokens_details: { cached_tokens: 1152, audio_tokens: 0 },
      completion_tokens_details: {
        reasoning_tokens: 0,
        audio_tokens: 0,
        accepted_prediction_tokens: 0,
        rejected_prediction_tokens: 0,
      },
    },
  }),
];
export const textStream = sse(textStreamChunks);
export const textStreamText = 'Your order shipped – it arrives Thursday 📦.';

/** Two parallel tool calls streamed as deltas: id and name first, then argument fragments. */
export const toolCallStream = sse([
  delta({
    role: 'assistant',
    content: null,
    tool_calls: [
      { index: 0, id: 'call_8wPzUJp3', type: 'function', function: { name: 'get_weather', arguments: '' } },
    ],
    refusal: null,
  }),
  delta({ tool_calls: [{ index: 0, function: { arguments: '{"ci' } }] }),
  delta({ tool_calls: [{ index: 0, function: { arguments: 'ty": "Par' } }] }),
  delta({ tool_calls: [{ index: 0, function: { arguments: 'is"}' } }] }),
  delta({
    tool_calls: [
      { index: 1, id: 'call_Q2kLm9Xa', type: 'function', function: { name: 'get_time', arguments: '' } },
    ],
  }),
  delta({ tool_calls: [{ index: 1, function: { arguments: '{"tz": "Europe/Paris"}' } }] }),
  delta({}, 'tool_calls'),
  chunk({
    choices: [],
    usage: {
      prompt_tokens: 412,
      completion_tokens: 51,
      total_tokens: 463,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
    },
  }),
]);

/** A server error sent inside a stream that had started. */
export const streamWithError =
  `data: ${JSON.stringify(delta({ role: 'assistant', content: 'Let me' }))}\n\n` +
  `data: ${JSON.stringify({ error: { message: 'The server had an error while processing your request. Sorry about that!', type: 'server_error', param: null, code: null } })}\n\n`;

export const rateLimitError = {
  error: {
    message:
      'Rate limit reached for gpt-4o-mini in organization org-3kQ9 on tokens per min (TPM): Limit 200000, Used 199867, Requested 1240. Please try again in 332ms.',
    type: 'tokens',
    param: null,
    code: 'rate_limit_exceeded',
  },
};

export const serverError = {
  error: {
    message: 'The server had an error while processing your request. Sorry about that!',
    type: 'server_error',
    param: null,
    code: null,
  },
};

export const invalidKeyError = {
  error: {
    message:
      'Incorrect API key provided: sk-proj-********************abcd. You can find your API key at https://platform.openai.com/account/api-keys.',
    type: 'invalid_request_error',
    param: null,
    code: 'invalid_api_key',
  },
};
