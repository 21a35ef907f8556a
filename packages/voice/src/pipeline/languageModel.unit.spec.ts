import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arpaLanguageModel } from './languageModel.js';

/** The n-gram sections of an ARPA text: per order, entry → [log10 p, log10 backoff?]. */
function parseArpa(text: string) {
  const sections = new Map<number, Map<string, number[]>>();
  const declared = new Map<number, number>();
  let order = 0;
  for (const line of text.split('\n')) {
    const count = /^ngram (\d+)=(\d+)$/.exec(line);
    if (count) declared.set(Number(count[1]), Number(count[2]));
    const head = /^\\(\d+)-grams:$/.exec(line);
    if (head) {
      order = Number(head[1]);
      sections.set(order, new Map());
      continue;
    }
    if (order === 0 || line === '' || line.startsWith('\\')) continue;
    const parts = line.split(' ');
    const p = Number(parts[0]);
    const words = parts.slice(1, 1 + order).join(' ');
    const rest = parts.slice(1 + order).map(Number);
    sections.get(order)?.set(words, [p, ...rest]);
  }
  return { sections, declared };
}

describe('arpaLanguageModel', () => {
  it('writes a trigram model whose declared counts, probabilities and backoffs are consistent', () => {
    const text = arpaLanguageModel(['Please cancel my order.', 'cancel my booking', 'where is my order']);
    expect(text.startsWith('\\data\\\n')).toBe(true);
    expect(text.trimEnd().endsWith('\\end\\')).toBe(true);
    const { sections, declared } = parseArpa(text);
    for (const [n, entries] of sections) expect(entries.size).toBe(declared.get(n));
    expect(sections.get(1)?.get('<s>')?.[0]).toBe(-99);
    expect(sections.get(2)?.get('cancel my')?.[0]).toBeCloseTo(Math.log10((2 - 0.5) / 2), 3);
    expect(sections.get(3)?.get('cancel my order')?.[0]).toBeCloseTo(Math.log10((1 - 0.5) / 2), 3);
  });

  it('leaves out sentences with words outside the vocabulary; refuses an empty model', () => {
    const text = arpaLanguageModel(
      ['cancel my order', 'cancel my zorblax'],
      new Set(['cancel', 'my', 'order']),
    );
    expect(text).not.toContain('zorblax');
    expect(() => arpaLanguageModel(['zorblax'], new Set(['order']))).toThrow(/no sentence/);
  });

  it('every context keeps a distribution: unigrams sum to 1, followers plus backoff mass do not exceed 1', () => {
    const word = fc.constantFrom('a', 'b', 'c', 'd', 'e');
    const sentence = fc.array(word, { minLength: 1, maxLength: 6 }).map((w) => w.join(' '));
    fc.assert(
      fc.property(fc.array(sentence, { minLength: 1, maxLength: 8 }), (sentences) => {
        const { sections } = parseArpa(arpaLanguageModel(sentences));
        let sum = 0;
        for (const [w, [p]] of sections.get(1) ?? new Map()) if (w !== '<s>') sum += 10 ** (p as number);
        expect(sum).toBeCloseTo(1, 3);
        const followers = new Map<string, number>();
        for (const [key, [p]] of sections.get(2) ?? new Map()) {
          const h = key.split(' ')[0] as string;
          followers.set(h, (followers.get(h) ?? 0) + 10 ** (p as number));
        }
        for (const mass of followers.values()) expect(mass).toBeLessThan(1);
        for (const [, values] of sections.get(1) ?? new Map())
          if (values[1] !== undefined) expect(Number.isFinite(values[1])).toBe(true);
      }),
    );
  });
});
