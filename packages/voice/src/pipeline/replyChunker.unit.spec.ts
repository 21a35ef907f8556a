import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ReplyChunker } from './replyChunker.js';

const chunksOf = (deltas: string[]) => {
  const chunker = new ReplyChunker();
  return [...deltas.flatMap((d) => chunker.push(d)), ...chunker.end()];
};

describe('ReplyChunker', () => {
  it('cuts the first clause, then sentences, as the deltas come', () => {
    const chunker = new ReplyChunker();
    expect(chunker.push('Sure, ')).toEqual([]); // too short a clause to be worth a chunk
    expect(chunker.push('the weather in Paris, ')).toEqual(['Sure, the weather in Paris,']);
    expect(chunker.push('as of this morning, is sunny. It will')).toEqual(['as of this morning, is sunny.']);
    expect(chunker.push(' rain later!  Bring')).toEqual(['It will rain later!']);
    expect(chunker.push(' an umbrella')).toEqual([]);
    expect(chunker.end()).toEqual(['Bring an umbrella']);
    expect(chunker.end()).toEqual([]);
  });

  it('cuts a whole reply given at once the same way, and long unpunctuated text at a space', () => {
    expect(chunksOf(['Hello there, how are you today? Fine.\nBye'])).toEqual([
      'Hello there,',
      'how are you today?',
      'Fine.',
      'Bye',
    ]);
    const long = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');
    const chunks = chunksOf([long]);
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) expect(c.length).toBeLessThanOrEqual(200);
  });

  it('loses and reorders no word, however the text is split into deltas', () => {
    const token = fc.constantFrom(
      'hi',
      'there',
      'you',
      ',',
      '.',
      '!',
      '?',
      ';',
      ' ',
      '  ',
      '\n',
      'x'.repeat(30),
    );
    fc.assert(
      fc.property(
        fc.array(token, { maxLength: 40 }),
        fc.array(fc.nat(40), { maxLength: 6 }),
        (tokens, cuts) => {
          const text = tokens.join('');
          const points = [...new Set(cuts.map((c) => Math.min(c, text.length)))].sort((a, b) => a - b);
          const deltas: string[] = [];
          let from = 0;
          for (const p of [...points, text.length]) {
            deltas.push(text.slice(from, p));
            from = p;
          }
          const words = (s: string) => s.split(/\s+/).filter((w) => w !== '');
          const chunks = chunksOf(deltas);
          expect(words(chunks.join(' '))).toEqual(words(text));
          for (const c of chunks) expect(c.trim()).toBe(c);
          for (const c of chunks) expect(c).not.toBe('');
        },
      ),
    );
  });
});
