import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for the telephony provider's recording server (Twilio's REST API shapes):
 * `GET /2010-04-01/Accounts/<AccountSid>/Recordings/<RecordingSid>.wav` with HTTP basic auth,
 * answering `audio/x-wav` with Twilio's headers, or Twilio's JSON error bodies.
 */
export type Behaviour =
  | { kind: 'ok' }
  | { kind: 'status'; status: number; times?: number }
  | { kind: 'reset'; times: number }
  | { kind: 'stall'; onStalled: () => void };

export interface RecordingServer {
  baseUrl: string;
  accountSid: string;
  /** The media a URL path serves (WAV bytes). */
  media: Map<string, Buffer>;
  behaviours: Map<string, Behaviour>;
  hits: Map<string, number>;
  /** Authorization headers seen, per path. */
  authorizations: Map<string, string | undefined>;
  close(): Promise<void>;
}

/** A small real WAV: 8 kHz 16-bit mono, a tone of `ms` milliseconds. */
export function wav(ms: number, frequency = 440): Buffer {
  const rate = 8000;
  const samples = Math.round((rate * ms) / 1000);
  const buffer = Buffer.alloc(44 + samples * 2);
  buffer.write('RIFF', 0, 'ascii');
  buffer.writeUInt32LE(36 + samples * 2, 4);
  buffer.write('WAVEfmt ', 8, 'ascii');
  buffer.writeUInt32LE(16, 16);
  buffer.writeUInt16LE(1, 20);
  buffer.writeUInt16LE(1, 22);
  buffer.writeUInt32LE(rate, 24);
  buffer.writeUInt32LE(rate * 2, 28);
  buffer.writeUInt16LE(2, 32);
  buffer.writeUInt16LE(16, 34);
  buffer.write('data', 36, 'ascii');
  buffer.writeUInt32LE(samples * 2, 40);
  for (let i = 0; i < samples; i++) {
    buffer.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * frequency * i) / rate)), 44 + i * 2);
  }
  return buffer;
}

function twilioError(res: ServerResponse, status: number, path: string) {
  const bodies: Record<number, object> = {
    401: {
      code: 20003,
      detail: 'Your AccountSid or AuthToken was incorrect.',
      message: 'Authenticate',
      more_info: 'https://www.twilio.com/docs/errors/20003',
      status: 401,
    },
    404: {
      code: 20404,
      message: `The requested resource ${path} was not found`,
      more_info: 'https://www.twilio.com/docs/errors/20404',
      status: 404,
    },
  };
  const body = JSON.stringify(bodies[status] ?? { code: 20500, message: 'Internal Server Error', status });
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'twilio-request-id': 'RQ00000000000000000000000000000000',
  });
  res.end(body);
}

export async function startRecordingServer(options: {
  accountSid: string;
  authToken: string;
}): Promise<RecordingServer> {
  const media = new Map<string, Buffer>();
  const behaviours = new Map<string, Behaviour>();
  const hits = new Map<string, number>();
  const authorizations = new Map<string, string | undefined>();
  const expectedAuth = `Basic ${Buffer.from(`${options.accountSid}:${options.authToken}`).toString('base64')}`;

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const hit = (hits.get(path) ?? 0) + 1;
    hits.set(path, hit);
    authorizations.set(path, req.headers.authorization);
    if (req.headers.authorization !== expectedAuth) return twilioError(res, 401, path);
    const behaviour = behaviours.get(path) ?? { kind: 'ok' };
    const body = media.get(path);
    if (behaviour.kind === 'status' && hit <= (behaviour.times ?? Number.POSITIVE_INFINITY)) {
      return twilioError(res, behaviour.status, path);
    }
    if (!body) return twilioError(res, 404, path);
    res.writeHead(200, {
      'content-type': 'audio/x-wav',
      'content-length': body.length,
      'accept-ranges': 'bytes',
      'cache-control': 'max-age=315360000',
      etag: '"0123456789abcdef"',
      'last-modified': 'Sat, 21 Nov 2026 09:59:42 GMT',
      'twilio-request-id': 'RQ00000000000000000000000000000000',
    });
    const half = body.subarray(0, Math.floor(body.length / 2));
    if (behaviour.kind === 'reset' && hit <= behaviour.times) {
      res.write(half, () => setTimeout(() => res.socket?.destroy(), 20));
      return;
    }
    if (behaviour.kind === 'stall' && hit === 1) {
      // Half the file, then nothing: the downloader is mid-download until it dies.
      res.write(half, () => behaviour.onStalled());
      return;
    }
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    accountSid: options.accountSid,
    media,
    behaviours,
    hits,
    authorizations,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
