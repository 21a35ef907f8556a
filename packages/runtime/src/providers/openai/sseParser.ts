/**
 * Server-sent events, parsed as the WHATWG HTML standard says (§9.2.6): UTF-8 with a leading BOM
 * dropped; lines end with CRLF, LF or CR (a CRLF split across chunks is one line end); `:` starts
 * a comment; one space after the field's colon is dropped; `data` lines join with `\n`; a blank
 * line dispatches; an event without data is not dispatched; at the end of the stream, an event
 * not yet terminated by a blank line is discarded. Chunk boundaries never change the result.
 */
export interface SseEvent {
  /** The `event` field; `message` when absent. */
  event: string;
  data: string;
  /** The last event id seen so far (the `id` field persists across events), when any. */
  id?: string;
}

export interface SseParser {
  /** Bytes (decoded as streaming UTF-8) or already decoded text; returns the events it completed. */
  feed(chunk: Uint8Array | string): SseEvent[];
  /** The end of the stream: flushes the decoder; an unterminated event is discarded. */
  end(): SseEvent[];
}

export function createSseParser(): SseParser {
  // ignoreBOM: the BOM is dropped below, the same way for bytes and for text.
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  let started = false;
  let pendingLine = '';
  let afterCR = false;
  let dataLines: string[] = [];
  let eventType = '';
  let lastEventId: string | undefined;

  const handleLine = (line: string, out: SseEvent[]): void => {
    if (line === '') {
      if (dataLines.length > 0) {
        out.push({
          event: eventType === '' ? 'message' : eventType,
          data: dataLines.join('\n'),
          ...(lastEventId === undefined ? {} : { id: lastEventId }),
        });
      }
      dataLines = [];
      eventType = '';
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') dataLines.push(value);
    else if (field === 'event') eventType = value;
    else if (field === 'id' && !value.includes('\0')) lastEventId = value;
    // `retry` and unknown fields are ignored: reconnection is not ours to do.
  };

  const process = (input: string): SseEvent[] => {
    let text = input;
    if (!started && text.length > 0) {
      started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    const out: SseEvent[] = [];
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code !== 10 && code !== 13) {
        afterCR = false;
        continue;
      }
      if (code === 10 && afterCR) {
        afterCR = false;
        start = i + 1;
        continue;
      }
      handleLine(pendingLine + text.slice(start, i), out);
      pendingLine = '';
      start = i + 1;
      afterCR = code === 13;
    }
    pendingLine += text.slice(start);
    return out;
  };

  return {
    feed: (chunk) => process(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true })),
    end() {
      const out = process(decoder.decode());
      pendingLine = '';
      dataLines = [];
      eventType = '';
      return out;
    },
  };
}

/** Events of a byte stream (e.g. a fetch Response body), in order. */
export async function* parseSseStream(body: AsyncIterable<Uint8Array>): AsyncGenerator<SseEvent> {
  const parser = createSseParser();
  for await (const chunk of body) yield* parser.feed(chunk);
  yield* parser.end();
}
