export const AGENT_PROVIDERS = ['scripted', 'openai-compatible', 'anthropic'] as const;
export type AgentProvider = (typeof AGENT_PROVIDERS)[number];

/** The model a provider's agents use when created without one. */
export const DEFAULT_MODELS: Record<AgentProvider, string> = {
  scripted: 'scripted-1',
  'openai-compatible': 'gpt-4o-mini',
  anthropic: 'claude-sonnet-4-20250514',
};
