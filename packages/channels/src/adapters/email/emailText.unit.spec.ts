import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stripQuotedReply } from './emailQuotes.js';
import { replySubject } from './emailSubject.js';
import { markdownToText } from './markdownToText.js';

/** Words without markdown, quoting or attribution syntax. */
const word = fc.stringMatching(/^[a-zA-Z0-9]{1,10}$/);
const plainLine = fc.array(word, { minLength: 1, maxLength: 8 }).map((w) => w.join(' '));
const plainText = fc.array(plainLine, { minLength: 1, maxLength: 6 }).map((l) => l.join('\n'));

describe('replySubject', () => {
  it.each([
    ['Order 42', 'Re: Order 42'],
    ['Re: Order 42', 'Re: Order 42'],
    ['RE: re:Re : Order 42', 'Re: Order 42'],
    ['Re[2]: Order 42', 'Re: Order 42'],
    ['Fwd: Order 42', 'Re: Fwd: Order 42'],
    ['Regarding the order', 'Re: Regarding the order'],
    ['', 'Re:'],
    [undefined, 'Re:'],
    ['Line\r\nbreak', 'Re: Line break'],
  ])('%j -> %j', (subject, expected) => {
    expect(replySubject(subject)).toBe(expected);
  });

  it('has exactly one Re: prefix however many there were, and is idempotent', () => {
    const prefix = fc.constantFrom('Re:', 'RE:', 're: ', 'Re[3]:', 'Re (2):', 'RE :');
    fc.assert(
      fc.property(fc.array(prefix, { maxLength: 5 }), plainLine, (prefixes, subject) => {
        const reply = replySubject(`${prefixes.join(' ')} ${subject}`);
        expect(reply).toBe(`Re: ${subject}`);
        expect(replySubject(reply)).toBe(reply);
        expect(reply).not.toMatch(/^Re:\s*re\s*(\[\d+\]|\(\d+\))?\s*:/i);
      }),
    );
  });
});

describe('stripQuotedReply', () => {
  const attributions = fc.constantFrom(
    'On Sat, 21 Nov 2026 at 10:00, Acme Support <support@acme.example> wrote:',
    'On 21/11/2026 10:00, support@acme.example wrote:',
  );

  it('removes the attribution line and the quote below the answer', () => {
    fc.assert(
      fc.property(plainText, attributions, plainText, (answer, attribution, quoted) => {
        const quote = quoted
          .split('\n')
          .map((l) => `> ${l}`)
          .join('\n');
        expect(stripQuotedReply(`${answer}\n\n${attribution}\n${quote}\n`)).toBe(answer.trim());
        expect(stripQuotedReply(`${answer}\r\n\r\n${attribution}\r\n\r\n${quote}`)).toBe(answer.trim());
      }),
    );
  });

  it('removes Outlook header blocks and Original Message separators with what follows', () => {
    fc.assert(
      fc.property(plainText, plainText, (answer, old) => {
        expect(
          stripQuotedReply(
            `${answer}\n\nFrom: Acme <support@acme.example>\nSent: Saturday\nTo: Alice\nSubject: Re: x\n\n${old}`,
          ),
        ).toBe(answer.trim());
        expect(stripQuotedReply(`${answer}\n-----Original Message-----\n${old}`)).toBe(answer.trim());
      }),
    );
  });

  it('leaves text without quotes alone and is idempotent', () => {
    fc.assert(
      fc.property(plainText, (text) => {
        expect(stripQuotedReply(text)).toBe(text.trim());
        expect(stripQuotedReply(stripQuotedReply(text))).toBe(stripQuotedReply(text));
      }),
    );
  });

  it('never returns nothing for a message that has text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (text) => {
        if (text.trim() !== '') expect(stripQuotedReply(text)).not.toBe('');
      }),
    );
  });

  it('keeps interleaved quotes, a sentence ending in "wrote:", and a mail that is only a quote', () => {
    expect(stripQuotedReply('> question one\nanswer one\n> question two\nanswer two')).toBe(
      '> question one\nanswer one\n> question two\nanswer two',
    );
    expect(stripQuotedReply('On Monday my manager wrote:\nwe need the invoice')).toBe(
      'On Monday my manager wrote:\nwe need the invoice',
    );
    expect(stripQuotedReply('> only a quote')).toBe('> only a quote');
    expect(stripQuotedReply('Thanks\n\n> old\n> older\n')).toBe('Thanks');
  });
});

describe('markdownToText', () => {
  it.each([
    ['**bold** and __strong__', 'bold and strong'],
    ['*em* and _em_ but snake_case_name and 2*3*4', 'em and em but snake_case_name and 2*3*4'],
    ['~~gone~~ `**code**`', 'gone **code**'],
    ['[docs](https://x.example/a_b "Title")', 'docs (https://x.example/a_b)'],
    ['[https://x.example](https://x.example)', 'https://x.example'],
    ['![logo](https://x.example/l.png)', 'logo (https://x.example/l.png)'],
    ['<https://x.example>', 'https://x.example'],
    ['# Title #\n## Sub', 'Title\nSub'],
    ['* one\n+ two\n  - nested\n1. first', '- one\n- two\n  - nested\n1. first'],
    ['```js\nconst a = **b**;\n```', '    const a = **b**;'],
    ['a\n\n---\n\nb', 'a\n\n----------\n\nb'],
    ['\\*not em\\*', '*not em*'],
    ['a\n\n\n\nb', 'a\n\nb'],
  ])('%j -> %j', (markdown, text) => {
    expect(markdownToText(markdown)).toBe(text);
  });

  it('leaves plain text as it is', () => {
    fc.assert(
      fc.property(plainText, (text) => {
        expect(markdownToText(text)).toBe(text.trim());
      }),
    );
  });

  it('keeps every link target and drops the emphasis markers of well-formed markup', () => {
    const url = word.map((w) => `https://example.com/${w}`);
    const piece = fc.oneof(
      word,
      word.map((w) => `**${w}**`),
      word.map((w) => `*${w}*`),
      word.map((w) => `~~${w}~~`),
      fc.tuple(word, url).map(([t, u]) => `[${t}](${u})`),
    );
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 10 }), (pieces) => {
        const text = markdownToText(pieces.join(' '));
        for (const p of pieces) {
          const link = /\((https:[^)]+)\)$/.exec(p);
          if (link !== null) expect(text).toContain(link[1]);
        }
        expect(text).not.toMatch(/\*|~~|\]\(/);
      }),
    );
  });

  it('never throws on any input', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 500 }), (markdown) => {
        const text = markdownToText(markdown);
        expect(typeof text).toBe('string');
      }),
    );
  });
});
