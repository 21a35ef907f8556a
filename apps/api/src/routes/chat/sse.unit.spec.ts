import { createSseParser } from '@parley/runtime';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatEvent, HEARTBEAT } from './sse.js';

describe('formatEvent', () => {
  it('writes an event line, one data line of JSON and a blank line', () => {
    expect(formatEvent('chunk', { messageId: 'm1', text: 'a\nb', done: false })).toBe(
      'event: chunk\ndata: {"messageId":"m1","text":"a\\nb","done":false}\n\n',
    );
  });

  it('round-trips any JSON payload through a WHATWG SSE parser, however the bytes are chunked, heartbeats between', () => {
    const name = fc.constantFrom('chunk', 'text_delta', 'usage', 'done', 'complete', 'error');
    fc.assert(
      fc.property(
        fc.array(fc.tuple(name, fc.jsonValue()), { minLength: 1, maxLength: 5 }),
        fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 20 }),
        (events, cuts) => {
          const wire = new TextEncoder().encode(
            events.map(([n, data]) => HEARTBEAT + formatEvent(n, data)).join(''),
          );
          const parser = createSseParser();
          const parsed = [];
          let at = 0;
          for (let i = 0; at < wire.length; i += 1) {
            const size = cuts[i % cuts.length]!;
            parsed.push(...parser.feed(wire.slice(at, at + size)));
            at += size;
          }
          parsed.push(...parser.end());
          expect(parsed.map((e) => ({ event: e.event, data: JSON.parse(e.data) }))).toEqual(
            events.map(([n, data]) => ({ event: n, data: JSON.parse(JSON.stringify(data)) })),
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});
