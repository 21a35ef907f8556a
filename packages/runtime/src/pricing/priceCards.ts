import { ParleyError } from '@parley/platform';
import type { LlmUsage } from '../providers/types.js';
import { BUILT_IN_PRICE_CARDS } from './builtInPriceCards.js';
import { type ModelPrice, type PriceCard, parsePriceCard } from './priceCard.js';

export interface CallCost {
  /** USD, rounded to 1e-10 (a 1-token call at $0.005/MTok is 5e-9). */
  cost: number;
  priceCardVersion: string;
  /** False when the card has no price for the model: the cost is 0 and says nothing. */
  priced: boolean;
}

export type CostUsage = Pick<
  LlmUsage,
  'inputTokens' | 'cachedTokens' | 'completionTokens' | 'reasoningTokens'
>;

export interface PriceCards {
  current(): PriceCard;
  byVersion(version: string): PriceCard | undefined;
  versions(): string[];
  cost(card: PriceCard, model: string, usage: CostUsage): CallCost;
}

export class DuplicatePriceCardVersionError extends ParleyError {
  constructor(readonly version: string) {
    super('DUPLICATE_PRICE_CARD_VERSION', 500, `Two price cards share version "${version}"`);
    this.name = 'DuplicatePriceCardVersionError';
  }
}

/**
 * The price of a model on a card: the exact name, else the longest card name the model extends
 * with `-` (a dated snapshot such as gpt-4o-2024-08-06 is priced as gpt-4o).
 */
export function priceFor(card: PriceCard, model: string): ModelPrice | undefined {
  const exact = card.models[model];
  if (exact !== undefined) return exact;
  let best: string | undefined;
  for (const name of Object.keys(card.models)) {
    if (model.startsWith(`${name}-`) && (best === undefined || name.length > best.length)) best = name;
  }
  return best === undefined ? undefined : card.models[best];
}

/**
 * USD for one call. Each token is priced once: uncached input (inputTokens - cachedTokens) at the
 * input price, cached input at the cached price, visible output at the output price, reasoning at
 * the reasoning price. outputTokens and totalTokens are sums of these and are never priced again.
 * cachedTokens above inputTokens (inconsistent usage) are clamped to inputTokens.
 */
export function costOf(price: ModelPrice, usage: CostUsage): number {
  const input = nonNegative(usage.inputTokens);
  const cached = Math.min(nonNegative(usage.cachedTokens), input);
  const micro =
    (input - cached) * price.inputPerMTok +
    cached * (price.cachedInputPerMTok ?? price.inputPerMTok) +
    nonNegative(usage.completionTokens) * price.outputPerMTok +
    nonNegative(usage.reasoningTokens) * (price.reasoningPerMTok ?? price.outputPerMTok);
  return Math.round(micro * 1e4) / 1e10;
}

const nonNegative = (n: number): number => (Number.isFinite(n) && n > 0 ? n : 0);

/** Cards by version; `current` defaults to the last card given. Cards are validated. */
export function createPriceCards(
  options: { cards?: readonly PriceCard[]; current?: string } = {},
): PriceCards {
  const cards = (options.cards ?? BUILT_IN_PRICE_CARDS).map((card) => parsePriceCard(card));
  const byVersion = new Map<string, PriceCard>();
  for (const card of cards) {
    if (byVersion.has(card.version)) throw new DuplicatePriceCardVersionError(card.version);
    byVersion.set(card.version, card);
  }
  const currentVersion = options.current ?? cards.at(-1)?.version;
  const current = currentVersion === undefined ? undefined : byVersion.get(currentVersion);
  if (current === undefined) throw new Error(`No price card with version "${currentVersion ?? '(none)'}"`);

  return {
    current: () => current,
    byVersion: (version) => byVersion.get(version),
    versions: () => cards.map((card) => card.version),
    cost(card, model, usage) {
      const price = priceFor(card, model);
      return {
        cost: price === undefined ? 0 : costOf(price, usage),
        priceCardVersion: card.version,
        priced: price !== undefined,
      };
    },
  };
}
