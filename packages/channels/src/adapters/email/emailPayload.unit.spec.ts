import fc from 'fast-check';
import { simpleParser } from 'mailparser';
import { describe, expect, it } from 'vitest';
import {
  automatedReason,
  MAX_REFERENCES,
  messageIdsIn,
  readInboundEmail,
  toNormalizedMessage,
} from './emailPayload.js';

const received = new Date('2026-11-21T10:00:05.000Z');
const mime = (headers: string[], body: string) => Buffer.from(`${headers.join('\r\n')}\r\n\r\n${body}`);

describe('readInboundEmail', () => {
  it('reads addresses, threading headers, date, text without the quote, and attachment metadata', async () => {
    const raw = mime(
      [
        'From: "Alice Doe" <Alice@Customer.example>',
        'To: Support <support@acme.example>, other@acme.example',
        'Cc: boss@customer.example',
        'Reply-To: alice.replies@customer.example',
        'Subject: Re: Order 42',
        'Date: Sat, 21 Nov 2026 09:59:00 +0000',
        'Message-ID: <m2@customer.example>',
        'In-Reply-To: <out1@acme.example>',
        'References: <m1@customer.example>\r\n <out1@acme.example>',
        'MIME-Version: 1.0',
        'Content-Type: multipart/mixed; boundary="b1"',
      ],
      [
        '--b1',
        'Content-Type: text/plain; charset=utf-8',
        '',
        'Thanks!',
        '',
        'On Sat, 21 Nov 2026 at 09:00, Acme <support@acme.example> wrote:',
        '> Your order ships today',
        '--b1',
        'Content-Type: application/pdf; name="invoice.pdf"',
        'Content-Disposition: attachment; filename="invoice.pdf"',
        'Content-Transfer-Encoding: base64',
        '',
        Buffer.from('%PDF-1.4 test').toString('base64'),
        '--b1--',
      ].join('\r\n'),
    );
    const email = readInboundEmail(await simpleParser(raw), raw, received);
    expect(email).toEqual({
      messageId: 'm2@customer.example',
      inReplyTo: 'out1@acme.example',
      references: ['m1@customer.example', 'out1@acme.example'],
      from: 'alice@customer.example',
      fromName: 'Alice Doe',
      replyTo: 'alice.replies@customer.example',
      to: ['support@acme.example', 'other@acme.example'],
      cc: ['boss@customer.example'],
      subject: 'Re: Order 42',
      text: 'Thanks!',
      timestamp: '2026-11-21T09:59:00.000Z',
      attachments: [{ filename: 'invoice.pdf', contentType: 'application/pdf', size: 13 }],
    });
    expect(toNormalizedMessage(email, 'm1@customer.example')).toMatchObject({
      externalMessageId: 'm2@customer.example',
      externalSessionKey: 'm1@customer.example',
      channelUserId: 'alice@customer.example',
      text: 'Thanks!',
      metadata: { messageId: 'm2@customer.example', inReplyTo: 'out1@acme.example', subject: 'Re: Order 42' },
    });
  });

  it('converts an HTML-only body to text', async () => {
    const raw = mime(
      [
        'From: a@x.example',
        'To: support@acme.example',
        'Message-ID: <h@x.example>',
        'Content-Type: text/html',
      ],
      '<p>Hello <b>there</b></p><blockquote>old</blockquote>',
    );
    const email = readInboundEmail(await simpleParser(raw), raw, received);
    expect(email.text).toContain('Hello there');
  });

  it('uses a hash of the raw message without Message-ID, the receipt time without Date, the subject without body', async () => {
    const raw = mime(['From: a@x.example', 'To: support@acme.example', 'Subject: Call me'], '');
    const email = readInboundEmail(await simpleParser(raw), raw, received);
    expect(email.messageId).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(readInboundEmail(await simpleParser(raw), raw, received).messageId).toBe(email.messageId);
    expect(email.timestamp).toBe(received.toISOString());
    expect(toNormalizedMessage(email, email.messageId).text).toBe('Call me');
  });
});

describe('messageIdsIn', () => {
  const id = fc.stringMatching(/^[A-Za-z0-9._$%+-]{1,20}@[a-z0-9.-]{1,20}$/);
  it('reads bracketed ids in any spacing and bare ids', () => {
    fc.assert(
      fc.property(fc.array(id, { maxLength: 10 }), fc.constantFrom(' ', '\r\n ', ',', ''), (ids, sep) => {
        expect(messageIdsIn(ids.map((i) => `<${i}>`).join(sep))).toEqual(ids);
        if (sep !== '') expect(messageIdsIn(ids.join(sep === ',' ? ', ' : sep))).toEqual(ids);
        expect(messageIdsIn(ids.map((i) => `<${i}>`))).toEqual(ids);
      }),
    );
  });

  it('never throws and keeps References bounded when read', async () => {
    fc.assert(fc.property(fc.string({ maxLength: 300 }), (text) => Array.isArray(messageIdsIn(text))));
    const refs = Array.from({ length: MAX_REFERENCES + 10 }, (_, i) => `<r${i}@x.example>`).join(' ');
    const raw = mime(['From: a@x.example', `References: ${refs}`, 'Message-ID: <m@x.example>'], 'hi');
    const email = readInboundEmail(await simpleParser(raw), raw, received);
    expect(email.references).toHaveLength(MAX_REFERENCES);
    expect(email.references.at(-1)).toBe(`r${MAX_REFERENCES + 9}@x.example`);
  });
});

describe('automatedReason', () => {
  const reasonOf = async (headers: string[], envelopeFrom: string | false = 'a@x.example') => {
    const raw = mime(['From: a@x.example', 'To: support@acme.example', ...headers], 'body');
    return automatedReason(await simpleParser(raw), envelopeFrom);
  };

  it.each([
    [['Auto-Submitted: auto-replied'], 'auto_submitted'],
    [['Auto-Submitted: auto-generated'], 'auto_submitted'],
    [['Auto-Submitted: Auto-Notified; owner-email="x@y"'], 'auto_submitted'],
    [['X-Autoreply: yes'], 'auto_reply_header'],
    [['X-Autorespond: vacation'], 'auto_reply_header'],
    [['Precedence: bulk'], 'precedence'],
    [['Precedence: Junk'], 'precedence'],
    [['Precedence: list'], 'precedence'],
    [['X-Auto-Response-Suppress: DR, AutoReply'], 'auto_response_suppressed'],
    [['X-Auto-Response-Suppress: All'], 'auto_response_suppressed'],
    [['Content-Type: multipart/report; report-type=delivery-status; boundary="x"'], 'delivery_report'],
    [['Auto-Submitted: no'], null],
    [['Precedence: first-class'], null],
    [['X-Auto-Response-Suppress: OOF'], null],
    [['List-Id: <support.acme.example>'], null],
    [[], null],
  ])('%j -> %s', async (headers, reason) => {
    expect(await reasonOf(headers)).toBe(reason);
  });

  it('treats a null envelope sender as a bounce', async () => {
    expect(await reasonOf([], '')).toBe('null_sender');
    expect(await reasonOf([], false)).toBe('null_sender');
  });
});
