/**
 * Quoted reply history removed from an inbound email's text, where it can be recognised reliably:
 *
 * 1. From the first attribution line to the end: `On <date>, <name> wrote:` followed by quoted
 *    lines (also when a client wrapped it over two lines), `-----Original Message-----`, and an
 *    Outlook header block (a line `From: ...` followed within the next three lines by `Sent:` or
 *    `Date:`, and `To:` or `Subject:`).
 * 2. The trailing run of `>` quoted lines (and the blank lines around it).
 *
 * Quoted lines between the sender's own lines (an interleaved answer) are kept: cutting them
 * would lose the context of what follows. When stripping would leave nothing (a mail that is only a
 * quote, or a forward), the text is returned unchanged (trimmed).
 */
export function stripQuotedReply(text: string): string {
  const original = text.replace(/\r\n?/g, '\n');
  const lines = original.split('\n');
  let end = lines.length;
  for (let i = 0; i < lines.length; i += 1) {
    if (isAttribution(lines, i)) {
      end = i;
      break;
    }
  }
  let kept = lines.slice(0, end);
  // The trailing quoted block (with blank lines inside or after it).
  let cut = kept.length;
  while (cut > 0 && (kept[cut - 1]?.trim() === '' || isQuoted(kept[cut - 1] ?? ''))) cut -= 1;
  if (kept.slice(cut).some(isQuoted)) kept = kept.slice(0, cut);
  const result = kept.join('\n').trim();
  return result === '' ? original.trim() : result;
}

const isQuoted = (line: string): boolean => /^\s*>/.test(line);

/** The first non-blank line at or after `from` (looking at most two lines ahead) is quoted. */
const quoteFollows = (lines: readonly string[], from: number): boolean => {
  for (let i = from; i < Math.min(lines.length, from + 3); i += 1) {
    const line = lines[i] ?? '';
    if (line.trim() !== '') return isQuoted(line);
  }
  return false;
};

const WROTE = /^\s*On\s.{1,200}\swrote:\s*$/;
const WROTE_START = /^\s*On\s.{1,200}$/;
const WROTE_END = /^.{0,200}\swrote:\s*$/;
const ORIGINAL_MESSAGE = /^\s*-{2,}\s*Original Message\s*-{2,}\s*$/i;
const OUTLOOK_FROM = /^\s*\*?From:\*?\s+\S/;

function isAttribution(lines: readonly string[], i: number): boolean {
  const line = lines[i] ?? '';
  // "On ... wrote:" is only an attribution when quoted lines follow it (a sentence of the sender's
  // own may end in "wrote:").
  if (WROTE.test(line)) return quoteFollows(lines, i + 1);
  if (WROTE_START.test(line) && !line.includes('wrote:') && WROTE_END.test(lines[i + 1] ?? '')) {
    return quoteFollows(lines, i + 2);
  }
  if (ORIGINAL_MESSAGE.test(line)) return true;
  if (OUTLOOK_FROM.test(line)) {
    const next = lines.slice(i + 1, i + 4);
    return (
      next.some((l) => /^\s*\*?(Sent|Date):\*?\s/.test(l)) &&
      next.some((l) => /^\s*\*?(To|Subject):\*?\s/.test(l))
    );
  }
  return false;
}
