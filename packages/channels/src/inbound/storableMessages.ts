import { type Logger, replaceUnstorableText } from '@parley/platform';
import type { NormalizedMessage } from '../types.js';

/**
 * Where a message records that some of its text could not be stored as sent: the paths of the
 * fields whose U+0000 or unpaired surrogates became U+FFFD (in the message's channel metadata, so
 * the MessageReceived event keeps it).
 */
export const REPLACED_TEXT_METADATA_KEY = 'unstorableTextReplaced';

/**
 * A platform's messages as PostgreSQL can store them. Platforms that retry on errors would retry a
 * refused message forever, and the message would be lost: its text (and every other string of
 * it: ids, metadata) is kept with U+FFFD in place of each unstorable character, recorded in the
 * message's metadata and logged (paths only, never the text).
 */
export function storableMessages(
  messages: readonly NormalizedMessage[],
  log: Pick<Logger, 'warn'>,
): NormalizedMessage[] {
  return messages.map((message) => {
    const { value, replaced } = replaceUnstorableText(message);
    if (replaced.length === 0) return message;
    log.warn(
      { externalMessageId: value.externalMessageId, fields: replaced },
      'inbound message held text PostgreSQL cannot store: replaced with U+FFFD',
    );
    return { ...value, metadata: { ...value.metadata, [REPLACED_TEXT_METADATA_KEY]: replaced } };
  });
}
