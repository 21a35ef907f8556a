import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BUILT_IN_PRICE_CARDS } from './builtInPriceCards.js';
import { type ModelPrice, type PriceCard, parsePriceCard } from './priceCard.js';
import {
  type CostUsage,
  costOf,
  createPriceCards,
  DuplicatePriceCardVersionError,
  priceFor,
} from './priceCards.js';

const usage = (u: Partial<CostUsage>): CostUsage => ({
  inputTokens: 0,
  cachedTokens: 0,
  completionTokens: 0,
  reasoningTokens: 0,
  ...u,
});

const tokens = fc.integer({ min: 0, max: 5_000_000 });
const price = fc.double({ min: 0, max: 200, noNaN: true, noDefaultInfinity: true });
const priceArb: fc.Arbitrary<ModelPrice> = fc.record(
  {
    inputPerMTok: price,
    cachedInputPerMTok: price,
    outputPerMTok: price,
    reasoningPerMTok: price,
  },
  { requiredKeys: ['inputPerMTok', 'outputPerMTok'] },
);
const usageArb: fc.Arbitrary<CostUsage> = fc
  .record({
    inputTokens: tokens,
    cachedShare: fc.double({ min: 0, max: 1, noNaN: true }),
    completionTokens: tokens,
    reasoningTokens: tokens,
  })
  .map(({ cachedShare, ...u }) => ({ ...u, cachedTokens: Math.floor(u.inputTokens * cachedShare) }));

/** Rounding to 1e-10 USD per call: sums of rounded costs differ from the rounded sum by at most this per term. */
const EPS = 1e-9;

describe('costOf', () => {
  it('prices each kind of token once: 1M of each at the card prices', () => {
    const p = { inputPerMTok: 2.5, cachedInputPerMTok: 1.25, outputPerMTok: 10, reasoningPerMTok: 12 };
    // 1M uncached + 1M cached input, 1M visible + 1M reasoning output
    expect(
      costOf(
        p,
        usage({
          inputTokens: 2_000_000,
          cachedTokens: 1_000_000,
          completionTokens: 1e6,
          reasoningTokens: 1e6,
        }),
      ),
    ).toBe(2.5 + 1.25 + 10 + 12);
  });

  it('a recorded gpt-4o-mini call: 1,240 prompt tokens of which 1,024 cached, 96 completion', () => {
    const card = createPriceCards().byVersion('2025-08-07')!;
    const cost = createPriceCards().cost(
      card,
      'gpt-4o-mini-2024-07-18',
      usage({ inputTokens: 1240, cachedTokens: 1024, completionTokens: 96 }),
    );
    // 216 * 0.15 + 1024 * 0.075 + 96 * 0.6 = 32.4 + 76.8 + 57.6 = 166.8 micro-USD
    expect(cost).toEqual({ cost: 0.0001668, priceCardVersion: '2025-08-07', priced: true });
  });

  it('cached tokens are never counted twice: at the input price, caching changes nothing', () => {
    fc.assert(
      fc.property(priceArb, usageArb, (p, u) => {
        const sameCachedPrice = { ...p, cachedInputPerMTok: p.inputPerMTok };
        expect(costOf(sameCachedPrice, u)).toBeCloseTo(costOf(sameCachedPrice, { ...u, cachedTokens: 0 }), 8);
      }),
    );
  });

  it('equals the sum of its parts, each token kind priced alone', () => {
    fc.assert(
      fc.property(priceArb, usageArb, (p, u) => {
        const parts =
          costOf(p, usage({ inputTokens: u.inputTokens - u.cachedTokens })) +
          costOf(p, usage({ inputTokens: u.cachedTokens, cachedTokens: u.cachedTokens })) +
          costOf(p, usage({ completionTokens: u.completionTokens })) +
          costOf(p, usage({ reasoningTokens: u.reasoningTokens }));
        expect(Math.abs(costOf(p, u) - parts)).toBeLessThanOrEqual(4 * EPS);
      }),
    );
  });

  it('is additive over calls (two calls cost what their summed usage costs)', () => {
    fc.assert(
      fc.property(priceArb, usageArb, usageArb, (p, a, b) => {
        const sum = {
          inputTokens: a.inputTokens + b.inputTokens,
          cachedTokens: a.cachedTokens + b.cachedTokens,
          completionTokens: a.completionTokens + b.completionTokens,
          reasoningTokens: a.reasoningTokens + b.reasoningTokens,
        };
        expect(Math.abs(costOf(p, a) + costOf(p, b) - costOf(p, sum))).toBeLessThanOrEqual(2 * EPS);
      }),
    );
  });

  it('is non-negative, zero for no tokens, and does not grow when tokens move from uncached to a cheaper cache', () => {
    fc.assert(
      fc.property(priceArb, usageArb, fc.integer({ min: 0, max: 1000 }), (p, u, moved) => {
        expect(costOf(p, u)).toBeGreaterThanOrEqual(0);
        expect(costOf(p, usage({}))).toBe(0);
        const cheapCache = {
          ...p,
          cachedInputPerMTok: Math.min(p.cachedInputPerMTok ?? p.inputPerMTok, p.inputPerMTok),
        };
        const more = { ...u, cachedTokens: Math.min(u.inputTokens, u.cachedTokens + moved) };
        expect(costOf(cheapCache, more)).toBeLessThanOrEqual(costOf(cheapCache, u) + EPS);
      }),
    );
  });

  it('clamps inconsistent usage: cached above input counts as all input cached; negatives count as 0', () => {
    const p = { inputPerMTok: 1, cachedInputPerMTok: 0.5, outputPerMTok: 2 };
    expect(costOf(p, usage({ inputTokens: 100, cachedTokens: 500 }))).toBe(
      costOf(p, usage({ inputTokens: 100, cachedTokens: 100 })),
    );
    expect(costOf(p, usage({ inputTokens: -5, completionTokens: Number.NaN }))).toBe(0);
  });
});

describe('price cards', () => {
  it('current is the last built-in card; every version is reachable and validates', () => {
    const cards = createPriceCards();
    expect(cards.current().version).toBe(BUILT_IN_PRICE_CARDS.at(-1)?.version);
    expect(cards.versions()).toEqual(BUILT_IN_PRICE_CARDS.map((c) => c.version));
    for (const card of BUILT_IN_PRICE_CARDS)
      expect(cards.byVersion(card.version)?.models).toEqual(card.models);
    expect(cards.byVersion('1999-01-01')).toBeUndefined();
  });

  it('prices a call with the card it is given, so history keeps its prices', () => {
    const cards = createPriceCards();
    const u = usage({ inputTokens: 1_000_000, completionTokens: 1_000_000 });
    expect(cards.cost(cards.byVersion('2025-04-14')!, 'o3', u)).toEqual({
      cost: 50,
      priceCardVersion: '2025-04-14',
      priced: true,
    });
    expect(cards.cost(cards.byVersion('2025-08-07')!, 'o3', u)).toEqual({
      cost: 10,
      priceCardVersion: '2025-08-07',
      priced: true,
    });
  });

  it('the scripted model is priced at zero; an unknown model is not priced', () => {
    const cards = createPriceCards();
    const u = usage({ inputTokens: 500, completionTokens: 50 });
    expect(cards.cost(cards.current(), 'scripted-1', u)).toEqual({
      cost: 0,
      priceCardVersion: cards.current().version,
      priced: true,
    });
    expect(cards.cost(cards.current(), 'llama-3-70b', u)).toEqual({
      cost: 0,
      priceCardVersion: cards.current().version,
      priced: false,
    });
  });

  it('a dated snapshot takes the price of the longest model name it extends', () => {
    const card = createPriceCards().current();
    expect(priceFor(card, 'gpt-4o-mini-2024-07-18')).toBe(card.models['gpt-4o-mini']);
    expect(priceFor(card, 'gpt-4o-2024-08-06')).toBe(card.models['gpt-4o']);
    expect(priceFor(card, 'gpt-4omni')).toBeUndefined();
  });

  it('custom cards: a chosen current version, validation, duplicate versions refused', () => {
    const a: PriceCard = { version: 'a', models: { m: { inputPerMTok: 1, outputPerMTok: 2 } } };
    const b: PriceCard = { version: 'b', models: { m: { inputPerMTok: 3, outputPerMTok: 4 } } };
    expect(createPriceCards({ cards: [a, b], current: 'a' }).current().version).toBe('a');
    expect(() => createPriceCards({ cards: [a, a] })).toThrow(DuplicatePriceCardVersionError);
    expect(() => createPriceCards({ cards: [a], current: 'zzz' })).toThrow(/zzz/);
    expect(() =>
      parsePriceCard({ version: 'x', models: { m: { inputPerMTok: -1, outputPerMTok: 1 } } }),
    ).toThrow();
    expect(parsePriceCard({ version: 'x', models: {} }).currency).toBe('USD');
  });
});
