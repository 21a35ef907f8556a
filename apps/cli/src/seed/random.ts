/** A small seeded random source, so that `parley seed --random-seed S` makes the same data every time. */
export interface Random {
  /** In [0, 1). */
  next(): number;
  /** A whole number in [min, max]. */
  int(min: number, max: number): number;
  chance(p: number): boolean;
  pick<T>(values: readonly T[]): T;
  /** Picks by weight: `[[value, weight], …]`. */
  weighted<T>(entries: ReadonlyArray<readonly [T, number]>): T;
  /** `length` lowercase hex digits. */
  hex(length: number): string;
}

/** mulberry32: fast, 32-bit state, good enough for demo data (not for anything secret). */
export function createRandom(seed: number): Random {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    chance: (p) => next() < p,
    pick: (values) => values[Math.floor(next() * values.length)]!,
    weighted(entries) {
      const total = entries.reduce((sum, [, w]) => sum + w, 0);
      let r = next() * total;
      for (const [value, weight] of entries) {
        r -= weight;
        if (r < 0) return value;
      }
      return entries[entries.length - 1]![0];
    },
    hex(length) {
      let out = '';
      while (out.length < length)
        out += Math.floor(next() * 0x1_0000_0000)
          .toString(16)
          .padStart(8, '0');
      return out.slice(0, length);
    },
  };
}
