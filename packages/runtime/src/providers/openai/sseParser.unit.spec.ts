import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSseParser, parseSseStream, type SseEvent } from './sseParser.js';

const encoder = new TextEncoder();

function parseWhole(text: string): SseEvent[] {
  const parser = createSseParser();
  return [...parser.feed(text), ...parser.end()];
}

/** Feeds bytes cut at the given points (possibly inside a multi-byte character or a CRLF). */
function parseChunked(bytes: Uint8Array, cuts: number[]): SseEvent[] {
  const parser = createSseParser();
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const events: SseEvent[] = [];
  let from = 0;
  for (const point of [...points, bytes.length]) {
    events.push(...parser.feed(bytes.subarray(from, point)));
    from = point;
  }
  return [...events, ...parser.end()];
}

// Field values without line breaks; a mix of ASCII, accents, CJK and emoji (4-byte UTF-8).
const value = fc
  .array(fc.constantFrom('a', 'Z', ' ', ':', '{', '"', 'é', '中', '😀', '\t', 'data', '[DONE]'), {
    maxLength: 12,
  })
  .map((parts) => parts.join(''));
const eol = fc.constantFrom('\n', '\r\n', '\r');

interface Block {
  event?: string;
  id?: string;
  data: string[];
  comment?: string;
}
const block: fc.Arbitrary<Block> = fc.record(
  {
    event: value.filter((v) => v !== ''),
    id: value,
    data: fc.array(value, { minLength: 0, maxLength: 3 }),
    comment: value,
  },
  { requiredKeys: ['data'] },
);

/** A stream text and the events a correct parser must produce from it. */
const stream = fc.array(fc.tuple(block, eol, fc.boolean()), { maxLength: 8 }).map((blocks) => {
  let text = '';
  const expected: SseEvent[] = [];
  let lastId: string | undefined;
  for (const [b, nl, spaceAfterColon] of blocks) {
    // Without a space after the colon, a value starting with a space would lose it (as it must).
    const sep = (v: string) => (spaceAfterColon || v.startsWith(' ') ? ': ' : ':');
    if (b.comment !== undefined) text += `:${b.comment}${nl}`;
    if (b.event !== undefined) text += `event${sep(b.event)}${b.event}${nl}`;
    if (b.id !== undefined) {
      text += `id${sep(b.id)}${b.id}${nl}`;
      lastId = b.id;
    }
    for (const d of b.data) text += `data${sep(d)}${d}${nl}`;
    text += nl;
    if (b.data.length > 0) {
      expected.push({
        event: b.event ?? 'message',
        data: b.data.join('\n'),
        ...(lastId === undefined ? {} : { id: lastId }),
      });
    }
  }
  return { text, expected };
});

describe('SSE parser', () => {
  it('parses a stream into the events it encodes', () => {
    fc.assert(
      fc.property(stream, ({ text, expected }) => {
        expect(parseWhole(text)).toEqual(expected);
      }),
    );
  });

  it('any chunking of the bytes gives the same events (split CRLFs and UTF-8 sequences included)', () => {
    fc.assert(
      fc.property(stream, fc.array(fc.nat(), { maxLength: 20 }), ({ text, expected }, cuts) => {
        expect(parseChunked(encoder.encode(text), cuts)).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('byte by byte gives the same events', () => {
    fc.assert(
      fc.property(stream, ({ text, expected }) => {
        const bytes = encoder.encode(text);
        expect(parseChunked(bytes, [...bytes.keys()])).toEqual(expected);
      }),
      { numRuns: 50 },
    );
  });

  it('reads an OpenAI stream: data lines, [DONE], no event names', () => {
    const text =
      'data: {"choices":[{"delta":{"content":"Hi"}}]}\n\n' +
      ': keep-alive\n\n' +
      'data: {"choices":[],"usage":{"prompt_tokens":5}}\n\n' +
      'data: [DONE]\n\n';
    expect(parseWhole(text).map((e) => e.data)).toEqual([
      '{"choices":[{"delta":{"content":"Hi"}}]}',
      '{"choices":[],"usage":{"prompt_tokens":5}}',
      '[DONE]',
    ]);
  });

  it('follows the standard on the edges', () => {
    // A leading BOM is dropped; only one space after the colon is; a field without colon has an empty value.
    expect(parseWhole('\uFEFFdata:  two spaces\n\n')).toEqual([{ event: 'message', data: ' two spaces' }]);
    expect(parseWhole('data\n\n')).toEqual([{ event: 'message', data: '' }]);
    // No data: nothing dispatched, and the event name does not leak into the next event.
    expect(parseWhole('event: ping\n\ndata: x\n\n')).toEqual([{ event: 'message', data: 'x' }]);
    // The id persists; an id with NUL is ignored; retry and unknown fields are ignored.
    expect(parseWhole('id: 7\ndata: a\n\nretry: 10\nfoo: bar\ndata: b\n\nid: x\0y\ndata: c\n\n')).toEqual([
      { event: 'message', data: 'a', id: '7' },
      { event: 'message', data: 'b', id: '7' },
      { event: 'message', data: 'c', id: '7' },
    ]);
    // An event not terminated by a blank line before the end is discarded.
    expect(parseWhole('data: complete\n\ndata: cut off')).toEqual([{ event: 'message', data: 'complete' }]);
    expect(parseWhole('data: a\r\rdata: b\r\n\r\n')).toEqual([
      { event: 'message', data: 'a' },
      { event: 'message', data: 'b' },
    ]);
  });

  it('parseSseStream reads an async byte stream', async () => {
    async function* body() {
      yield encoder.encode('data: o');
      yield encoder.encode('ne\r');
      yield encoder.encode('\n\r\ndata: two\n\n');
    }
    const events: SseEvent[] = [];
    for await (const event of parseSseStream(body())) events.push(event);
    expect(events.map((e) => e.data)).toEqual(['one', 'two']);
  });
});
