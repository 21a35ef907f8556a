import fc from 'fast-check';
import { simpleParser } from 'mailparser';
import { describe, expect, it } from 'vitest';
import { testConnection } from '../../testing/standInServer.js';
import { composeReplyEmail, outboundMessageId, replyReferences } from './emailMessage.js';
import { emailConfigOf, emailSettingsSchema } from './emailSettings.js';
import { MAX_OUTBOUND_ATTACHMENT_BYTES, toEmailOutput } from './emailTransform.js';

const connection = (settings: Record<string, unknown>, credentials: Record<string, string> = {}) => ({
  ...testConnection('email', 'Support@Acme.example', credentials),
  settings,
});

describe('emailConfigOf', () => {
  it('defaults the port and TLS mode from each other, and the sender from the inbound address', () => {
    expect(emailConfigOf(connection({ smtpHost: 'smtp.acme.example' }))).toEqual({
      ok: true,
      from: { address: 'support@acme.example' },
      autoReplyThresholdSeconds: 60,
      transport: {
        kind: 'smtp',
        host: 'smtp.acme.example',
        port: 587,
        tlsMode: 'starttls',
        rejectUnauthorized: true,
      },
    });
    const implicit = emailConfigOf(connection({ smtpHost: 'h', smtpPort: 465 }));
    expect(implicit.ok && implicit.transport).toMatchObject({ port: 465, tlsMode: 'implicit' });
    const none = emailConfigOf(connection({ smtpHost: 'h', tlsMode: 'none' }));
    expect(none.ok && none.transport).toMatchObject({ port: 25, tlsMode: 'none' });
  });

  it('names what is wrong without showing a secret', () => {
    expect(emailConfigOf(connection({ smtpHost: 'h', tlsMode: 'ssl' }))).toMatchObject({
      ok: false,
      error: expect.stringContaining('tlsMode'),
    });
    const half = emailConfigOf(connection({ smtpHost: 'h' }, { smtpUsername: 'u' }));
    expect(half).toEqual({
      ok: false,
      error: 'email smtp transport: smtpUsername and smtpPassword go together',
    });
    const graph = emailConfigOf(connection({ transport: 'graph' }, { graphClientSecret: 'top-secret' }));
    expect(graph).toEqual({
      ok: false,
      error: 'email graph transport: missing credentials graphClientId, graphTenantId',
    });
    expect(emailSettingsSchema.safeParse({ transport: 'smtp' }).success).toBe(false);
    expect(emailSettingsSchema.safeParse({ transport: 'graph', displayName: 'x' }).success).toBe(true);
  });
});

describe('toEmailOutput', () => {
  it('writes the ACTION_SET as numbered options under the text', () => {
    const output = toEmailOutput({
      text: 'Pick **one**',
      actionSet: {
        prompt: 'Size?',
        elements: [
          { type: 'button', id: 's', label: 'Small' },
          { type: 'button', id: 'l', label: 'Large' },
        ],
      },
    });
    expect(output.text).toBe('Pick one\n\nSize?\n1. Small\n2. Large\nReply with the number of your choice.');
  });

  it('attaches inline base64 content and drops the rest, within the size limit', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ size: fc.nat({ max: 4 * 1024 * 1024 }), ok: fc.boolean() }), { maxLength: 8 }),
        (items) => {
          const attachments = items.map((item, i) =>
            item.ok
              ? { filename: `f${i}.bin`, contentBase64: Buffer.alloc(item.size, 1).toString('base64') }
              : { url: `https://x.example/${i}` },
          );
          const output = toEmailOutput({ text: 'x', richContent: { attachments } });
          const total = output.attachments.reduce((n, a) => n + a.content.length, 0);
          expect(total).toBeLessThanOrEqual(MAX_OUTBOUND_ATTACHMENT_BYTES);
          expect(output.attachments.length + output.dropped).toBe(items.length);
          for (const a of output.attachments) expect(a.contentType).toBe('application/octet-stream');
        },
      ),
      { numRuns: 30 },
    );
  });
});

describe('composeReplyEmail', () => {
  it('derives one Message-ID per reply and threads with References', async () => {
    const id = outboundMessageId('conn_1', 'msg_1', 'support@acme.example');
    expect(id).toBe(outboundMessageId('conn_1', 'msg_1', 'support@acme.example'));
    expect(id).not.toBe(outboundMessageId('conn_1', 'msg_2', 'support@acme.example'));
    expect(id).toMatch(/@acme\.example$/);
    const refs = replyReferences(['a@x', 'b@x'], 'c@x');
    expect(refs).toEqual(['a@x', 'b@x', 'c@x']);
    expect(
      replyReferences(
        Array.from({ length: 40 }, (_, i) => `r${i}@x`),
        'c@x',
      ),
    ).toHaveLength(20);

    const raw = await composeReplyEmail({
      from: { address: 'support@acme.example', name: 'Acme Support' },
      to: 'alice@customer.example',
      replyTo: 'help@acme.example',
      subject: 'Re: Help',
      text: 'Hello',
      messageId: id,
      inReplyTo: 'c@x',
      references: refs,
      attachments: [{ filename: 'a.txt', contentType: 'text/plain', content: Buffer.from('file') }],
      date: new Date('2026-11-21T10:00:00.000Z'),
    });
    const mail = await simpleParser(raw);
    expect(mail.messageId).toBe(`<${id}>`);
    expect(mail.inReplyTo).toBe('<c@x>');
    expect(mail.references).toEqual(['<a@x>', '<b@x>', '<c@x>']);
    expect(mail.headers.get('auto-submitted')).toBe('auto-replied');
    expect(mail.headers.get('x-auto-response-suppress')).toBe('All');
    expect(mail.from?.text).toBe('"Acme Support" <support@acme.example>');
    expect(mail.replyTo?.text).toBe('help@acme.example');
    expect(mail.date?.toISOString()).toBe('2026-11-21T10:00:00.000Z');
    expect(mail.attachments.map((a) => [a.filename, a.content.toString()])).toEqual([['a.txt', 'file']]);
  });
});
