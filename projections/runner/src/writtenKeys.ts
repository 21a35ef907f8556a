/**
 * The keys a rebuild has written into its new generation, per table, as Bloom filters: "no" is
 * certain, "maybe" is checked by loading the row. A rebuild that started the generation empty and
 * holds its writer lock knows every row the generation has, so a batch's keys that the filter has
 * never seen need no load query (most keys of a rebuild are new: one ledger row per call, a
 * session's first events). Deleted keys stay "maybe", which is only a wasted lookup.
 *
 * Sized as it grows: each layer holds twice the keys of the one before at ~1% false positives
 * (10 bits and 7 probes a key), so a million keys take about 1.3 MB.
 */
const BITS_PER_KEY = 10;
const PROBES = 7;
const FIRST_LAYER_KEYS = 1 << 15;

interface Layer {
  readonly bits: Uint32Array;
  /** Number of bits, a power of two. */
  readonly size: number;
  readonly capacity: number;
  count: number;
}

function newLayer(capacity: number): Layer {
  let size = 32;
  while (size < capacity * BITS_PER_KEY) size *= 2;
  return { bits: new Uint32Array(size / 32), size, capacity, count: 0 };
}

/** Two 32-bit FNV-1a hashes of the string's UTF-16 units, with different offset bases. */
function hashes(key: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ key.length;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  b ^= b >>> 15;
  return [a >>> 0, (b | 1) >>> 0];
}

function layerHas(layer: Layer, a: number, b: number): boolean {
  const mask = layer.size - 1;
  for (let i = 0; i < PROBES; i++) {
    const bit = (a + Math.imul(i, b)) & mask;
    if (((layer.bits[bit >>> 5] as number) & (1 << (bit & 31))) === 0) return false;
  }
  return true;
}

function layerAdd(layer: Layer, a: number, b: number): void {
  const mask = layer.size - 1;
  for (let i = 0; i < PROBES; i++) {
    const bit = (a + Math.imul(i, b)) & mask;
    layer.bits[bit >>> 5] = (layer.bits[bit >>> 5] as number) | (1 << (bit & 31));
  }
  layer.count++;
}

export class KeyFilter {
  private readonly layers: Layer[] = [newLayer(FIRST_LAYER_KEYS)];

  /** False: the key was never added. True: it may have been. */
  mayHave(key: string): boolean {
    const [a, b] = hashes(key);
    return this.layers.some((layer) => layerHas(layer, a, b));
  }

  add(key: string): void {
    const [a, b] = hashes(key);
    if (this.layers.some((layer) => layerHas(layer, a, b))) return;
    let last = this.layers.at(-1) as Layer;
    if (last.count >= last.capacity) {
      last = newLayer(last.capacity * 2);
      this.layers.push(last);
    }
    layerAdd(last, a, b);
  }
}

/** A rebuild's filters, one per logical table (see KeyFilter). */
export class WrittenKeys {
  private readonly tables = new Map<string, KeyFilter>();

  of(logical: string): KeyFilter {
    let filter = this.tables.get(logical);
    if (!filter) {
      filter = new KeyFilter();
      this.tables.set(logical, filter);
    }
    return filter;
  }
}
