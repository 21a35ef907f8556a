import { z } from 'zod';

/**
 * A price card: USD per million tokens for each model, under a version. Cards are immutable once
 * published: a price change is a new version, so a recorded LlmCallRecorded.priceCardVersion
 * always names the prices its cost came from.
 */
const perMTok = z.number().nonnegative().finite();

export const modelPriceSchema = z.object({
  /** Prompt tokens that were not served from the provider's cache. */
  inputPerMTok: perMTok,
  /** Prompt tokens served from cache; absent: inputPerMTok. */
  cachedInputPerMTok: perMTok.optional(),
  /** Visible generated tokens. */
  outputPerMTok: perMTok,
  /** Hidden reasoning tokens; absent: outputPerMTok (how OpenAI bills them). */
  reasoningPerMTok: perMTok.optional(),
});
export type ModelPrice = z.infer<typeof modelPriceSchema>;

export const priceCardSchema = z.object({
  version: z.string().min(1).max(64),
  /** When the card took effect (informational; `current` decides which card prices new calls). */
  effectiveFrom: z.iso.date().optional(),
  currency: z.literal('USD').default('USD'),
  models: z.record(z.string().min(1), modelPriceSchema),
});
export type PriceCard = z.input<typeof priceCardSchema>;

/** Parses a card from JSON (e.g. a file an operator supplies); throws a ZodError naming bad fields. */
export function parsePriceCard(json: unknown): PriceCard {
  return priceCardSchema.parse(json);
}
