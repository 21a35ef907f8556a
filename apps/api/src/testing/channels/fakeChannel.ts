import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { InboundAdapter, NormalizedMessage } from '@parley/channels';
import { constantTimeEqual } from '@parley/platform';

/**
 * Test-only: a channel adapter standing in for a real platform (registered under `whatsapp`, a
 * connectable type with an `accessToken`, an `appSecret` and a `verifyToken`), and a local HTTP server standing in
 * for its API. Signature: `x-fake-signature` = hex HMAC-SHA256 of the raw body with the
 * connection's appSecret. Body: `{ bot: "<identifier>", messages: [{ id, chat, text, from?, isBot? }] }`.
 */
export const FAKE_CHANNEL = 'whatsapp';

export const signBody = (secret: string, raw: string): string =>
  createHmac('sha256', secret).update(raw).digest('hex');

interface FakeBody {
  bot?: string;
  messages?: Array<{
    id: string;
    chat: string;
    text: string;
    from?: string;
    isBot?: boolean;
    action?: string;
  }>;
}

export const fakeAdapter: InboundAdapter = {
  channelType: FAKE_CHANNEL,
  connectionIdentifier: (req) => {
    const bot = (req.body as FakeBody | null)?.bot;
    return typeof bot === 'string' ? bot : null;
  },
  verifyRequest(req, connection) {
    const header = req.headers['x-fake-signature'];
    const secret = connection.credentials.appSecret;
    if (typeof header !== 'string' || secret === undefined) return false;
    return constantTimeEqual(header, signBody(secret, req.rawBody.toString('utf8')));
  },
  parseIncoming(req) {
    const body = req.body as FakeBody | null;
    return (body?.messages ?? [])
      .filter((m) => m.isBot !== true)
      .map(
        (m): NormalizedMessage => ({
          externalMessageId: m.id,
          externalSessionKey: m.chat,
          text: m.text,
          metadata: { chatId: m.chat },
          timestamp: '2026-11-21T10:00:00.000Z',
          ...(m.from === undefined ? {} : { channelUserId: m.from }),
          ...(m.action === undefined
            ? {}
            : { actionEvent: { actionId: m.action, value: m.action, type: 'button' } }),
        }),
      );
  },
  transformOutput: (reply) => ({
    text: reply.text,
    buttons: reply.actionSet?.elements.map((e) => e.id) ?? [],
  }),
  async sendResponse(message, connection, http) {
    const res = await http.fetch(`${http.apiBaseUrl}/bot${connection.credentials.accessToken}/sendMessage`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ chat_id: message.metadata.chatId, output: message.channelOutput }),
    });
    if (res.ok) {
      const body = (await res.json()) as { message_id: number };
      return { ok: true, externalMessageId: String(body.message_id) };
    }
    return { ok: false, retryable: res.status >= 500, error: `HTTP ${res.status}`, status: res.status };
  },
  async sendTypingIndicator(connection, externalSessionKey, _metadata, http) {
    await http.fetch(`${http.apiBaseUrl}/bot${connection.credentials.accessToken}/sendChatAction`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ chat_id: externalSessionKey, action: 'typing' }),
    });
  },
  async challenge(req, lookup) {
    if (req.query['hub.mode'] !== 'subscribe') return null;
    const token = req.query['hub.verify_token'];
    if (token === undefined) return null;
    const connection = await lookup(FAKE_CHANNEL, token);
    return connection === null
      ? { status: 403, body: 'forbidden' }
      : { status: 200, body: req.query['hub.challenge'] ?? '' };
  },
};

export interface PlatformStandIn {
  url: string;
  /** Requests received, in order: path and JSON body. */
  requests: Array<{ path: string; body: Record<string, unknown> }>;
  /** Chats whose sends are answered with this status instead of 200. */
  failChats: Map<string, number>;
  close(): Promise<void>;
}

const readJson = async (req: IncomingMessage): Promise<Record<string, unknown>> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
};

export async function startPlatformStandIn(): Promise<PlatformStandIn> {
  const requests: PlatformStandIn['requests'] = [];
  const failChats = new Map<string, number>();
  let next = 1000;
  const server: Server = createServer((req, res) => {
    void readJson(req).then((body) => {
      requests.push({ path: req.url ?? '', body });
      const fail = failChats.get(String(body.chat_id));
      res.setHeader('content-type', 'application/json');
      if (req.url?.endsWith('/sendMessage') && fail !== undefined) {
        res.statusCode = fail;
        res.end(JSON.stringify({ ok: false }));
        return;
      }
      const id = next++;
      // Both shapes: the fake's `message_id`, Telegram's `result.message_id`.
      res.end(JSON.stringify({ ok: true, message_id: id, result: { message_id: id } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    failChats,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
