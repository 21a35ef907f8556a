import type { PriceCard } from './priceCard.js';

/**
 * Parley's built-in cards, oldest first; the last is current. Prices are OpenAI's list prices in
 * USD per million tokens as of each version's date; reasoning tokens are billed as output.
 * `scripted-1` (the offline scripted provider) costs nothing, stated explicitly.
 */
export const BUILT_IN_PRICE_CARDS: readonly PriceCard[] = [
  {
    version: '2025-04-14',
    effectiveFrom: '2025-04-14',
    currency: 'USD',
    models: {
      'scripted-1': { inputPerMTok: 0, outputPerMTok: 0 },
      'gpt-4o': { inputPerMTok: 2.5, cachedInputPerMTok: 1.25, outputPerMTok: 10 },
      'gpt-4o-mini': { inputPerMTok: 0.15, cachedInputPerMTok: 0.075, outputPerMTok: 0.6 },
      'gpt-4.1': { inputPerMTok: 2, cachedInputPerMTok: 0.5, outputPerMTok: 8 },
      'gpt-4.1-mini': { inputPerMTok: 0.4, cachedInputPerMTok: 0.1, outputPerMTok: 1.6 },
      'gpt-4.1-nano': { inputPerMTok: 0.1, cachedInputPerMTok: 0.025, outputPerMTok: 0.4 },
      o3: { inputPerMTok: 10, cachedInputPerMTok: 2.5, outputPerMTok: 40 },
      'o4-mini': { inputPerMTok: 1.1, cachedInputPerMTok: 0.275, outputPerMTok: 4.4 },
    },
  },
  {
    version: '2025-08-07',
    effectiveFrom: '2025-08-07',
    currency: 'USD',
    models: {
      'scripted-1': { inputPerMTok: 0, outputPerMTok: 0 },
      'gpt-4o': { inputPerMTok: 2.5, cachedInputPerMTok: 1.25, outputPerMTok: 10 },
      'gpt-4o-mini': { inputPerMTok: 0.15, cachedInputPerMTok: 0.075, outputPerMTok: 0.6 },
      'gpt-4.1': { inputPerMTok: 2, cachedInputPerMTok: 0.5, outputPerMTok: 8 },
      'gpt-4.1-mini': { inputPerMTok: 0.4, cachedInputPerMTok: 0.1, outputPerMTok: 1.6 },
      'gpt-4.1-nano': { inputPerMTok: 0.1, cachedInputPerMTok: 0.025, outputPerMTok: 0.4 },
      o3: { inputPerMTok: 2, cachedInputPerMTok: 0.5, outputPerMTok: 8 },
      'o4-mini': { inputPerMTok: 1.1, cachedInputPerMTok: 0.275, outputPerMTok: 4.4 },
      'gpt-5': { inputPerMTok: 1.25, cachedInputPerMTok: 0.125, outputPerMTok: 10 },
      'gpt-5-mini': { inputPerMTok: 0.25, cachedInputPerMTok: 0.025, outputPerMTok: 2 },
      'gpt-5-nano': { inputPerMTok: 0.05, cachedInputPerMTok: 0.005, outputPerMTok: 0.4 },
    },
  },
  {
    // Anthropic's list prices added (a new version: published cards never change). Cache reads at
    // 10% of input; cache writes are billed as input here (Parley records them inside inputTokens).
    version: '2025-09-15',
    effectiveFrom: '2025-09-15',
    currency: 'USD',
    models: {
      'scripted-1': { inputPerMTok: 0, outputPerMTok: 0 },
      'gpt-4o': { inputPerMTok: 2.5, cachedInputPerMTok: 1.25, outputPerMTok: 10 },
      'gpt-4o-mini': { inputPerMTok: 0.15, cachedInputPerMTok: 0.075, outputPerMTok: 0.6 },
      'gpt-4.1': { inputPerMTok: 2, cachedInputPerMTok: 0.5, outputPerMTok: 8 },
      'gpt-4.1-mini': { inputPerMTok: 0.4, cachedInputPerMTok: 0.1, outputPerMTok: 1.6 },
      'gpt-4.1-nano': { inputPerMTok: 0.1, cachedInputPerMTok: 0.025, outputPerMTok: 0.4 },
      o3: { inputPerMTok: 2, cachedInputPerMTok: 0.5, outputPerMTok: 8 },
      'o4-mini': { inputPerMTok: 1.1, cachedInputPerMTok: 0.275, outputPerMTok: 4.4 },
      'gpt-5': { inputPerMTok: 1.25, cachedInputPerMTok: 0.125, outputPerMTok: 10 },
      'gpt-5-mini': { inputPerMTok: 0.25, cachedInputPerMTok: 0.025, outputPerMTok: 2 },
      'gpt-5-nano': { inputPerMTok: 0.05, cachedInputPerMTok: 0.005, outputPerMTok: 0.4 },
      'claude-opus-4': { inputPerMTok: 15, cachedInputPerMTok: 1.5, outputPerMTok: 75 },
      'claude-opus-4-1': { inputPerMTok: 15, cachedInputPerMTok: 1.5, outputPerMTok: 75 },
      'claude-sonnet-4': { inputPerMTok: 3, cachedInputPerMTok: 0.3, outputPerMTok: 15 },
      'claude-3-7-sonnet': { inputPerMTok: 3, cachedInputPerMTok: 0.3, outputPerMTok: 15 },
      'claude-3-5-haiku': { inputPerMTok: 0.8, cachedInputPerMTok: 0.08, outputPerMTok: 4 },
    },
  },
];
