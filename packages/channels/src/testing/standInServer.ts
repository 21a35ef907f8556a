import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ResolvedConnection } from '../types.js';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

export interface StandInReply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/**
 * A local HTTP server standing in for a platform API: records every request (JSON and form bodies parsed)
 * and answers with `reply(request)`.
 */
export const startStandIn = async (reply: (request: RecordedRequest) => StandInReply) => {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body:
          raw === ''
            ? undefined
            : (req.headers['content-type'] ?? '').includes('application/x-www-form-urlencoded')
              ? Object.fromEntries(new URLSearchParams(raw))
              : (JSON.parse(raw) as unknown),
      };
      requests.push(recorded);
      const answer = reply(recorded);
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  };
};

export const testConnection = (
  channelType: string,
  externalIdentifier: string,
  credentials: Record<string, string>,
): ResolvedConnection => ({
  id: 'conn_test',
  tenantId: 'ten_test',
  projectId: 'prj_test',
  channelType,
  externalIdentifier,
  agentName: null,
  deploymentId: null,
  active: true,
  status: 'active',
  credentials,
  settings: {},
});
