import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { wordsOf } from './wer.js';

/** Absolute discount taken from every seen n-gram's count (Ney's D for small corpora). */
const DISCOUNT = 0.5;
const ORDER = 3;

const log10 = (p: number) => (p <= 0 ? -99 : Math.log10(p)).toFixed(4);

/**
 * A trigram language model in ARPA format from domain sentences, with absolute discounting and
 * backoff (so any sequence of its words stays possible, the sentences' ones likelier). Words are
 * lower-cased (wordsOf); a sentence with a word outside `vocabulary` (the recognizer's dictionary)
 * is left out. Unigrams add one to each count.
 */
export function arpaLanguageModel(sentences: readonly string[], vocabulary?: ReadonlySet<string>): string {
  const counts: Array<Map<string, number>> = Array.from({ length: ORDER + 1 }, () => new Map());
  for (const sentence of sentences) {
    const words = wordsOf(sentence);
    if (words.length === 0 || (vocabulary !== undefined && words.some((w) => !vocabulary.has(w)))) continue;
    const tokens = ['<s>', ...words, '</s>'];
    for (let n = 1; n <= ORDER; n++)
      for (let i = 0; i + n <= tokens.length; i++) {
        const key = tokens.slice(i, i + n).join(' ');
        counts[n]?.set(key, (counts[n]?.get(key) ?? 0) + 1);
      }
  }
  const unigrams = counts[1] as Map<string, number>;
  if (unigrams.size === 0) throw new Error('no sentence in the vocabulary: no language model');
  const prob: Array<Map<string, number>> = Array.from({ length: ORDER + 1 }, () => new Map());
  const total = [...unigrams].reduce((n, [w, c]) => (w === '<s>' ? n : n + c + 1), 0);
  for (const [w, c] of unigrams) prob[1]?.set(w, w === '<s>' ? 0 : (c + 1) / total);
  for (let n = 2; n <= ORDER; n++) {
    const context = new Map<string, number>();
    for (const [key, c] of counts[n] as Map<string, number>) {
      const h = key.slice(0, key.lastIndexOf(' '));
      context.set(h, (context.get(h) ?? 0) + c);
    }
    for (const [key, c] of counts[n] as Map<string, number>) {
      const h = key.slice(0, key.lastIndexOf(' '));
      prob[n]?.set(key, (c - DISCOUNT) / (context.get(h) as number));
    }
  }
  // Backoff weight of a context h: the mass left over its seen followers, spread over the rest.
  const backoff = new Map<string, number>();
  for (let n = 2; n <= ORDER; n++) {
    const seen = new Map<string, { mass: number; lower: number }>();
    for (const [key, p] of prob[n] as Map<string, number>) {
      const h = key.slice(0, key.lastIndexOf(' '));
      const lower = prob[n - 1]?.get(key.slice(key.indexOf(' ') + 1)) ?? 0;
      const s = seen.get(h) ?? { mass: 0, lower: 0 };
      s.mass += p;
      s.lower += lower;
      seen.set(h, s);
    }
    for (const [h, s] of seen) backoff.set(h, s.lower >= 1 ? 1 : (1 - s.mass) / (1 - s.lower));
  }
  const lines = ['\\data\\'];
  for (let n = 1; n <= ORDER; n++) lines.push(`ngram ${n}=${(prob[n] as Map<string, number>).size}`);
  for (let n = 1; n <= ORDER; n++) {
    lines.push('', `\\${n}-grams:`);
    for (const [key, p] of prob[n] as Map<string, number>) {
      const b = backoff.get(key);
      const pText = n === 1 && key === '<s>' ? '-99' : log10(p);
      lines.push(n < ORDER && b !== undefined ? `${pText} ${key} ${log10(b)}` : `${pText} ${key}`);
    }
  }
  lines.push('', '\\end\\', '');
  return lines.join('\n');
}

/** The words of a pocketsphinx dictionary (`word PHONES`, alternates `word(2)`). */
export function dictionaryWords(path: string): Set<string> {
  const words = new Set<string>();
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const word = line.split(/\s/, 1)[0];
    if (word) words.add(word.replace(/\(\d+\)$/, ''));
  }
  return words;
}

/**
 * A domain language model for pocketsphinx, written once to a temporary folder: the ARPA model of
 * the phrases and the dictionary cut down to their words (the full one takes seconds to load with
 * a text model; the recognizer process is started per utterance).
 */
export function writeDomainModel(
  phrases: readonly string[],
  dictionary: string,
): { lm: string; dict: string } {
  const lines = readFileSync(dictionary, 'utf8').split('\n');
  const known = new Set(lines.map((l) => (l.split(/\s/, 1)[0] ?? '').replace(/\(\d+\)$/, '')));
  const arpa = arpaLanguageModel(phrases, known);
  const vocabulary = new Set(wordsOf(phrases.filter((p) => wordsOf(p).every((w) => known.has(w))).join(' ')));
  const dir = mkdtempSync(join(tmpdir(), 'parley-lm-'));
  const lm = join(dir, 'domain.arpa');
  const dict = join(dir, 'domain.dict');
  writeFileSync(lm, arpa);
  writeFileSync(
    dict,
    `${lines.filter((l) => vocabulary.has((l.split(/\s/, 1)[0] ?? '').replace(/\(\d+\)$/, ''))).join('\n')}\n`,
  );
  return { lm, dict };
}
