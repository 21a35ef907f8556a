// The normalised session-list filters (spec 000 §4.2) are @parley/analytics's output: every value
// already in its stored spelling (aliases expanded, keys normalised). Type only: no runtime import.
export type { SessionListFilter } from '@parley/analytics';
