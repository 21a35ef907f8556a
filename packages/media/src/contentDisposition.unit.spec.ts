import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contentDisposition } from './contentDisposition.js';

const disposition = fc.constantFrom('inline' as const, 'attachment' as const);
const anyName = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc.string({ unit: 'grapheme', maxLength: 80 }),
  fc.string({
    unit: fc.constantFrom('"', '\\', '\r', '\n', ';', '%', '/', "'", 'a', 'é', '😀', ' ', '\u0000'),
  }),
);

/** Decodes the header as a client would: the fallback, and filename* when present. */
function parse(header: string): { type: string; filename?: string; filenameStar?: string } {
  const match =
    /^(inline|attachment)(?:; filename="([^"]*)")?(?:; filename\*=UTF-8''([A-Za-z0-9!#$&+.^_`|~%-]*))?$/.exec(
      header,
    );
  if (match === null) throw new Error(`unparseable: ${header}`);
  return {
    type: match[1]!,
    ...(match[2] === undefined ? {} : { filename: match[2] }),
    ...(match[3] === undefined ? {} : { filenameStar: decodeURIComponent(match[3]) }),
  };
}

describe('contentDisposition', () => {
  it('is the bare disposition without a file name', () => {
    expect(contentDisposition('inline', null)).toBe('inline');
    expect(contentDisposition('attachment', null)).toBe('attachment');
    expect(contentDisposition('attachment', '')).toBe('attachment');
    expect(contentDisposition('attachment', '\r\n')).toBe('attachment');
  });

  it('quotes a plain ASCII name and adds no filename*', () => {
    expect(contentDisposition('attachment', 'call-1 caller.wav')).toBe(
      'attachment; filename="call-1 caller.wav"',
    );
  });

  it('adds filename* (RFC 8187) and an ASCII fallback for other names', () => {
    expect(contentDisposition('inline', 'Müller.wav')).toBe(
      `inline; filename="Muller.wav"; filename*=UTF-8''M%C3%BCller.wav`,
    );
    expect(contentDisposition('attachment', '通话.wav')).toBe(
      `attachment; filename="__.wav"; filename*=UTF-8''%E9%80%9A%E8%AF%9D.wav`,
    );
    expect(contentDisposition('attachment', `a"b\\c'(1)*.wav`)).toBe(
      `attachment; filename="a_b_c'(1)*.wav"; filename*=UTF-8''a%22b_c%27%281%29%2A.wav`,
    );
    expect(contentDisposition('attachment', 'x\r\nSet-Cookie: a=b')).toBe(
      'attachment; filename="xSet-Cookie: a=b"',
    );
  });

  it('never throws, and is always one line of printable ASCII a client can parse', () => {
    fc.assert(
      fc.property(disposition, fc.option(anyName, { nil: null }), (d, name) => {
        const header = contentDisposition(d, name);
        expect(header).toMatch(/^[\x20-\x7e]*$/);
        expect(parse(header).type).toBe(d);
      }),
      { numRuns: 2000 },
    );
  });

  it('never lets a quote, backslash, CR or LF into the quoted fallback', () => {
    fc.assert(
      fc.property(disposition, anyName, (d, name) => {
        const { filename } = parse(contentDisposition(d, name));
        if (filename !== undefined) {
          expect(filename).not.toMatch(/["\\\r\n%]/);
          expect(filename.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('filename* round-trips the (cleaned) name; the fallback equals it when the name is plain ASCII', () => {
    const cleanName = fc
      .string({ unit: 'grapheme', minLength: 1, maxLength: 60 })
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the cleaning step is not under test here
      .filter((s) => !/[\u0000-\u001f\u007f-\u009f\u2028\u2029/\\]/.test(s) && s.trim() === s && s !== '');
    fc.assert(
      fc.property(disposition, cleanName, (d, name) => {
        const parsed = parse(contentDisposition(d, name));
        const shown = parsed.filenameStar ?? parsed.filename;
        expect(shown).toBe(Array.from(name).slice(0, 200).join(''));
        if (/^[\x20-\x7e]*$/.test(name) && !/["\\%]/.test(name)) expect(parsed.filenameStar).toBeUndefined();
      }),
      { numRuns: 1000 },
    );
  });

  it('cuts very long names', () => {
    const header = contentDisposition('attachment', `${'a'.repeat(1000)}.wav`);
    expect(parse(header).filename).toHaveLength(200);
  });
});
