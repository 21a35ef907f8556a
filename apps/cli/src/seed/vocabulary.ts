import type { Random } from './random.js';

/**
 * What the demo sessions are made of. Values are spelled as the platform's components record them
 * (spec 000 §2.2, §2.3, §4.2, §4.3), including some older spellings the read side must translate.
 */

export const DEMO_CHANNELS = [
  'web_chat',
  'sdk_web',
  'voice_pipeline',
  'voice_realtime',
  'http_async',
  'email',
  'api',
] as const;
export type DemoChannel = (typeof DEMO_CHANNELS)[number];

/** How often each channel carries a session after the first rounds (which visit every one). */
export const CHANNEL_WEIGHTS: ReadonlyArray<readonly [DemoChannel, number]> = [
  ['web_chat', 30],
  ['sdk_web', 12],
  ['voice_pipeline', 20],
  ['voice_realtime', 10],
  ['http_async', 10],
  ['email', 8],
  ['api', 10],
];

export const isVoice = (channel: string) => channel.startsWith('voice_');

/** Transport-specific channel types, where a channel has several. */
export const CHANNEL_TYPES: Partial<Record<DemoChannel, readonly string[]>> = {
  voice_pipeline: ['pstn', 'sip'],
  voice_realtime: ['webrtc', 'pstn'],
  sdk_web: ['widget', 'headless'],
  http_async: ['webhook'],
};

export const DEMO_ENVIRONMENTS = ['production', 'staging', 'dev', 'working-copy'] as const;
export const ENVIRONMENT_WEIGHTS: ReadonlyArray<readonly [(typeof DEMO_ENVIRONMENTS)[number], number]> = [
  ['production', 60],
  ['staging', 15],
  ['dev', 18],
  ['working-copy', 7],
];

/** How a session turns out: its end (none while active) and what its conversation looks like. */
export interface Outcome {
  status: 'active' | 'completed' | 'escalated' | 'abandoned' | 'ended' | 'failed';
  containmentType?:
    | 'contained'
    | 'contained_resolved'
    | 'contained_partial'
    | 'contained_unresolved'
    | 'escalated'
    | 'abandoned';
  reason?: string;
}

export const OUTCOMES: ReadonlyArray<readonly [Outcome, number]> = [
  [{ status: 'completed', containmentType: 'contained_resolved', reason: 'user_ended' }, 30],
  [{ status: 'completed', containmentType: 'contained', reason: 'goal_reached' }, 10],
  [{ status: 'ended', containmentType: 'contained_partial', reason: 'user_ended' }, 10],
  [{ status: 'ended', containmentType: 'contained_unresolved', reason: 'idle_timeout' }, 8],
  [{ status: 'escalated', containmentType: 'escalated', reason: 'handoff' }, 14],
  [{ status: 'abandoned', containmentType: 'abandoned', reason: 'user_left' }, 10],
  [{ status: 'failed', reason: 'error' }, 4],
  [{ status: 'active' }, 6],
];

export const AGENTS = ['support-assistant', 'billing-assistant', 'booking-agent'] as const;

/** The caller identities the brief names, in the formats telephony gives them; repeats are returning callers. */
export const CALLER_NUMBERS = [
  '+44 20 7183 8750',
  '020 7183 8750',
  'tel:+1-212-555-0134',
  'sip:+33142685300@carrier.example',
  '(212) 555-0134',
  'Anonymous',
] as const;

/** A caller: one of the named identities, or a number of a small pool in one of several formats. */
export function callerNumber(random: Random): string {
  if (random.chance(0.45)) return random.pick(CALLER_NUMBERS);
  const n = random.int(0, 59);
  const last = String(1000 + n * 37).slice(-3);
  return random.pick([
    `+44 20 7946 0${last}`,
    `+44 (0)20 7946 0${last}`,
    `tel:+1-415-555-0${last}`,
    `+1 (415) 555-0${last}`,
    `sip:+4930901820${last.slice(-2)}@pbx.example`,
    `+49 30 9018 20${last.slice(-2)}`,
  ]);
}

export const TRACE_DIMENSIONS = {
  region: ['emea', 'amer', 'apac'],
  plan: ['free', 'pro', 'enterprise'],
  locale: ['en-GB', 'en-US', 'fr-FR', 'de-DE'],
  campaign: ['black-friday', 'renewal-2026', 'onboarding'],
} as const;

/**
 * What end users ask, with the tool an agent would call for it and a reply that answers it, so that
 * a demo transcript reads like a conversation.
 */
export interface Topic {
  question: string;
  tool: string;
  reply: string;
}

export const TOPICS: readonly Topic[] = [
  {
    question: 'Where is my order?',
    tool: 'lookup_order',
    reply: 'Your order shipped yesterday and should arrive on Thursday. Anything else?',
  },
  {
    question: 'I was charged twice this month.',
    tool: 'lookup_invoices',
    reply: 'Sorry about that. I have raised a refund for the duplicate charge.',
  },
  {
    question: 'Can I change my delivery address?',
    tool: 'update_address',
    reply: 'Done: your next deliveries go to the new address. Anything else?',
  },
  {
    question: 'How do I reset my password?',
    tool: 'reset_password',
    reply: 'I have sent a reset link to the e-mail address on your account.',
  },
  {
    question: 'I want to cancel my subscription.',
    tool: 'cancel_subscription',
    reply: 'I can do that. Your plan stays active until the end of this billing period.',
  },
  {
    question: 'Can I book a table for four on Friday?',
    tool: 'check_availability',
    reply: 'Friday at 19:30 is free for four. Shall I book it?',
  },
  {
    question: 'My invoice shows the wrong VAT number.',
    tool: 'lookup_invoices',
    reply: 'I found the invoice. I have corrected the VAT number and sent you a new copy.',
  },
  {
    question: 'Is there an outage in my area?',
    tool: 'check_service_status',
    reply: 'There is no known outage near you. Let me check your line instead.',
  },
  {
    question: 'How do I upgrade to the enterprise plan?',
    tool: 'lookup_plan',
    reply: 'Our sales team handles upgrades; I have asked them to call you today.',
  },
  {
    question: 'The app keeps logging me out.',
    tool: 'reset_password',
    reply: 'I have signed out your other devices; please sign in again and it should stay.',
  },
];

export const GUARDRAILS = ['pii_filter', 'toxicity', 'prompt_injection'];

export interface DemoModel {
  provider?: string;
  model?: string;
  /** USD per million input and output tokens. */
  price: readonly [number, number];
  weight: number;
}

/** Providers and models as recorded; a few calls know neither (the ledger shows `unknown`). */
export const MODELS: readonly DemoModel[] = [
  { provider: 'openai', model: 'gpt-4o-mini-2024-07-18', price: [0.15, 0.6], weight: 35 },
  { provider: 'openai', model: 'gpt-4o-2024-08-06', price: [2.5, 10], weight: 12 },
  { provider: 'anthropic', model: 'claude-3-5-sonnet-20241022', price: [3, 15], weight: 12 },
  { provider: 'anthropic', model: 'claude-3-5-haiku-20241022', price: [0.8, 4], weight: 12 },
  { provider: 'google', model: 'gemini-1.5-flash-002', price: [0.075, 0.3], weight: 10 },
  { provider: 'azure_openai', model: 'gpt-4o-mini', price: [0.165, 0.66], weight: 8 },
  { provider: 'openai', price: [0.15, 0.6], weight: 2 },
  { price: [0.5, 1.5], weight: 1 },
];

/** Source and subtype of calls inside a session, some in older spellings. */
export const RUNTIME_PURPOSES: ReadonlyArray<readonly [readonly [string, string], number]> = [
  [['runtime', 'response_generation'], 50],
  [['runtime', 'tool_use_iteration'], 12],
  [['runtime', 'conversation_history_compaction'], 5],
  [['runtime', 'tool_result_summarization'], 6],
  [['runtime', 'ner_gather_llm_extraction'], 4],
  [['knowledge', 'searchai_kb_query_intelligence'], 6],
  [['guardrails', 'guardrails'], 6],
  [['pipelines', 'routing_pipeline'], 4],
  [['agent_session', 'response_gen'], 4],
  [['search_ai', 'kb_classify_rewrite'], 2],
];

/** Calls made outside any session (design time): no session, environment or channel. */
export const DESIGN_TIME_PURPOSES: ReadonlyArray<readonly [readonly [string, string], number]> = [
  [['arch', 'project_assistance'], 4],
  [['arch', 'agent_building'], 2],
  [['evals', 'evaluation_suite_generation'], 3],
  [['eval', 'eval_suite_creation'], 1],
  [['analytics_query', 'text_to_sql'], 3],
  [['prompt_library', 'prompt_test'], 3],
  [['studio_test_calls', 'studio_test_calls'], 2],
  [['channels', 'widget_copy_translation'], 1],
  [['model_health', 'credential_health_check'], 1],
];
