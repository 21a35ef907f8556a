import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { comparePositions, type EventStore, type Position } from '@parley/eventstore';
import type { Pool } from '@parley/platform';
import { type Projection, projectionStatus } from '@parley/projection-runner';

/** The WhatsApp Cloud API webhook of one user message (text, or a tap on a reply button), signed. */
export function whatsappWebhook(
  phoneNumberId: string,
  appSecret: string,
  n: number,
  content: { text: string } | { buttonId: string; title: string },
) {
  const message =
    'text' in content
      ? { type: 'text', text: { body: content.text } }
      : {
          type: 'interactive',
          interactive: { type: 'button_reply', button_reply: { id: content.buttonId, title: content.title } },
        };
  const payload = JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '102290129340398',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550783881', phone_number_id: phoneNumberId },
              contacts: [{ profile: { name: 'Sheena Nelson' }, wa_id: '16505551234' }],
              messages: [
                {
                  from: '16505551234',
                  id: `wamid.SCENARIO-${n}-${Date.now()}`,
                  timestamp: '1749416383',
                  ...message,
                },
              ],
            },
          },
        ],
      },
    ],
  });
  return {
    method: 'POST' as const,
    url: '/api/v1/channels/whatsapp/webhook',
    headers: {
      'content-type': 'application/json',
      'x-hub-signature-256': `sha256=${createHmac('sha256', appSecret).update(payload).digest('hex')}`,
    },
    payload,
  };
}

/** A local order service (the http tool's target): GET /orders/{id} with a bearer token. */
export async function startOrderService(token: string): Promise<{
  origin: string;
  requests: Array<{ url: string; authorization: string | undefined }>;
  close(): Promise<void>;
}> {
  const requests: Array<{ url: string; authorization: string | undefined }> = [];
  const server: Server = createServer((req, res) => {
    requests.push({ url: req.url ?? '', authorization: req.headers.authorization });
    const match = /^\/orders\/([^/?]+)$/.exec(req.url ?? '');
    if (req.headers.authorization !== `Bearer ${token}`) res.writeHead(401).end();
    else if (match?.[1] === 'A-1001') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ orderId: 'A-1001', status: 'shipped', eta: '2025-06-12' }));
    } else {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":"no such order"}');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Waits until the log's head reaches `last` and every projection has no lag. */
export async function caughtUp(
  pool: Pool,
  store: EventStore,
  projections: readonly Projection[],
  last: Position,
): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const head = await store.head();
    if (head !== null && comparePositions(head.position, last) >= 0) {
      const statuses = await projectionStatus(pool, store, projections);
      if (statuses.some((s) => s.state === 'failed')) throw new Error('a projection failed');
      if (statuses.every((s) => s.generations.find((g) => g.status === 'live')?.eventsBehind === 0)) return;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('projections did not catch up');
}
