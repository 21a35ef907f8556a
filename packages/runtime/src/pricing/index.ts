export { BUILT_IN_PRICE_CARDS } from './builtInPriceCards.js';
export {
  type ModelPrice,
  modelPriceSchema,
  type PriceCard,
  parsePriceCard,
  priceCardSchema,
} from './priceCard.js';
export {
  type CallCost,
  type CostUsage,
  costOf,
  createPriceCards,
  DuplicatePriceCardVersionError,
  type PriceCards,
  priceFor,
} from './priceCards.js';
