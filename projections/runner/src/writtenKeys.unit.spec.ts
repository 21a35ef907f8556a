import { describe, expect, it } from 'vitest';
import { KeyFilter, WrittenKeys } from './writtenKeys.js';

describe('KeyFilter', () => {
  it('has every key added, through its growth, and few it was not given', () => {
    const filter = new KeyFilter();
    const n = 200_000;
    for (let i = 0; i < n; i++) filter.add(`["project-${i % 7}","sess-${i}:call-${i}"]`);
    let missing = 0;
    for (let i = 0; i < n; i++) if (!filter.mayHave(`["project-${i % 7}","sess-${i}:call-${i}"]`)) missing++;
    expect(missing).toBe(0);
    let falsePositives = 0;
    for (let i = n; i < 2 * n; i++)
      if (filter.mayHave(`["project-${i % 7}","sess-${i}:call-${i}"]`)) falsePositives++;
    expect(falsePositives / n).toBeLessThan(0.03);
  });

  it('keeps one filter per table', () => {
    const written = new WrittenKeys();
    written.of('a').add('["k"]');
    expect(written.of('a').mayHave('["k"]')).toBe(true);
    expect(written.of('b').mayHave('["k"]')).toBe(false);
  });
});
