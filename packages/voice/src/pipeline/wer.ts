/** Words of a transcript for scoring: lower case, letters, digits and apostrophes only. */
export function wordsOf(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9' ]+/g, ' ')
    .split(' ')
    .filter((w) => w !== '' && w !== "'");
}

/** Word-level edit distance: substitutions + deletions + insertions turning `reference` into `hypothesis`. */
export function wordErrors(reference: readonly string[], hypothesis: readonly string[]): number {
  let previous = Array.from({ length: hypothesis.length + 1 }, (_, j) => j);
  for (let i = 1; i <= reference.length; i++) {
    const row = [i];
    for (let j = 1; j <= hypothesis.length; j++) {
      const same = reference[i - 1] === hypothesis[j - 1] ? 0 : 1;
      row[j] = Math.min(
        (previous[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (previous[j - 1] as number) + same,
      );
    }
    previous = row;
  }
  return previous[hypothesis.length] as number;
}

/**
 * Word error rate over pairs (reference, hypothesis): total word errors / total reference words
 * (corpus WER, so long phrases weigh more than short ones). 0 for no reference words.
 */
export function wordErrorRate(pairs: ReadonlyArray<{ reference: string; hypothesis: string }>): number {
  let errors = 0;
  let words = 0;
  for (const { reference, hypothesis } of pairs) {
    const ref = wordsOf(reference);
    errors += wordErrors(ref, wordsOf(hypothesis));
    words += ref.length;
  }
  return words === 0 ? 0 : errors / words;
}
