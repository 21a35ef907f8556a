/**
 * Reply prefixes a mail client may have put in front of the subject: `Re:`, `RE:`, `Re[2]:`,
 * `Re(2):` and the same with a space before the colon. Translated prefixes (AW:, SV:...) are kept as
 * part of the original subject: they are rare in replies to an agent and a false match would eat
 * a word of the subject.
 */
const REPLY_PREFIX = /^\s*re\s*(?:\[\d+\]|\(\d+\))?\s*:\s*/i;

/**
 * The subject of a reply (spec 001 "Email channel": the original subject with a Re: prefix): the
 * original without any run of reply prefixes, then exactly one `Re: `. Never `Re: Re:`.
 */
export function replySubject(original: string | undefined): string {
  let subject = (original ?? '').replace(/[\r\n]+/g, ' ').trim();
  for (;;) {
    const stripped = subject.replace(REPLY_PREFIX, '');
    if (stripped === subject) break;
    subject = stripped;
  }
  return subject === '' ? 'Re:' : `Re: ${subject}`;
}
