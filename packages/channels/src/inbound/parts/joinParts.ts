import type { MessagePart, NormalizedMessage } from '../../types.js';

/** A received part: its place in the whole and the message it came as. */
export interface ReceivedPart {
  index: number;
  message: NormalizedMessage;
}

/**
 * Where a joined message records its parts (its channel metadata, so MessageReceived keeps it):
 * the platform's reference, how many parts the whole has, which came (in order) with their ids,
 * and whether it is complete (false: released at the part timeout with parts missing).
 */
export const PARTS_METADATA_KEY = 'parts';

/**
 * One message from the parts of a message delivered in pieces: the texts in part order, each part
 * once (a duplicate index keeps its first), joined without separators (a part ends mid-word as
 * often as not). It takes the first present part's id (the dedupe key of the joined message),
 * conversation, sender, time and metadata. Pure; the caller says whether the set is complete.
 */
export function joinParts(parts: readonly ReceivedPart[], total: number): NormalizedMessage {
  const byIndex = new Map<number, NormalizedMessage>();
  for (const part of [...parts].sort((a, b) => a.index - b.index)) {
    if (!byIndex.has(part.index)) byIndex.set(part.index, part.message);
  }
  const ordered = [...byIndex.entries()];
  const first = ordered[0]?.[1];
  if (first === undefined) throw new Error('joinParts needs at least one part');
  const { part, ...head } = first;
  const indexes = ordered.map(([index]) => index);
  const complete = indexes.length === total && indexes.every((index, i) => index === i + 1);
  return {
    ...head,
    text: ordered.map(([, message]) => message.text).join(''),
    metadata: {
      ...first.metadata,
      [PARTS_METADATA_KEY]: {
        group: part?.group ?? null,
        total,
        received: indexes,
        externalMessageIds: ordered.map(([, message]) => message.externalMessageId),
        complete,
      },
    },
  };
}

/** A part description a platform could send (1 ≤ index ≤ total ≤ MAX_PARTS). */
export const MAX_PARTS = 255;
export const isValidPart = (part: MessagePart): boolean =>
  Number.isInteger(part.index) &&
  Number.isInteger(part.total) &&
  part.index >= 1 &&
  part.total >= 2 &&
  part.index <= part.total &&
  part.total <= MAX_PARTS &&
  part.group !== '';
