/** The media WebSocket of a call, as the voice gateway serves it. */
export const MEDIA_STREAM_PATH = '/api/v1/voice/media';

const escapeXml = (value: string) =>
  value.replace(/[<>&"']/g, (c) =>
    c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '&' ? '&amp;' : c === '"' ? '&quot;' : '&apos;',
  );

/** `wss://host/prefix` from the public base URL (`http` gives `ws`, for local tests). */
export function websocketBaseOf(publicBaseUrl: string): string {
  const base = publicBaseUrl.replace(/\/+$/, '');
  return base.replace(/^http(s?):\/\//i, (_m, s: string) => `ws${s.toLowerCase()}://`);
}

/**
 * The answer to the provider's voice webhook: connect the call's audio to Parley's media
 * WebSocket (`<base>/api/v1/voice/media/<CallSid>`), with the ids the gateway needs as stream
 * parameters (the provider sends them in the stream's `start` message).
 */
export function connectTwiml(input: {
  publicBaseUrl: string;
  callSid: string;
  parameters: Readonly<Record<string, string>>;
}): string {
  const url = `${websocketBaseOf(input.publicBaseUrl)}${MEDIA_STREAM_PATH}/${encodeURIComponent(input.callSid)}`;
  const parameters = Object.entries(input.parameters)
    .map(([name, value]) => `<Parameter name="${escapeXml(name)}" value="${escapeXml(value)}"/>`)
    .join('');
  const stream =
    parameters === ''
      ? `<Stream url="${escapeXml(url)}"/>`
      : `<Stream url="${escapeXml(url)}">${parameters}</Stream>`;
  return `<?xml version="1.0" encoding="UTF-8"?><Response><Connect>${stream}</Connect></Response>`;
}
