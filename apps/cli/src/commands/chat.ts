import { createInterface } from 'node:readline';
import { createAuthStore } from '@parley/auth';
import { ParleyError } from '@parley/platform';
import { runtimeOf } from '@parley/process-services';
import { createSseParser } from '@parley/runtime';
import { CHAT_COMMANDS } from '../chatHelp.js';
import { openSystem, UsageError } from '../system.js';
import type { CliContext } from './context.js';
import { resolveProject } from './projects.js';

export interface ChatFlags {
  project: string;
  agent?: string;
  session?: string;
  /** Send this one message, print the reply and exit (no prompt). */
  message?: string;
  /** Talk to a running API (chat/stream) instead of running the agent in this process. */
  url?: string;
  apiKey?: string;
}

/** What a turn answered, whichever way it ran. */
interface TurnSummary {
  sessionId: string;
  inputTokens: number;
  outputTokens: number;
  latencyMs: number;
  ended: null | { status: string; containmentType?: string };
}

interface ChatClient {
  /** Runs one turn; `onDelta` gets the reply as it streams. */
  send(message: string, sessionId: string | undefined, onDelta: (text: string) => void): Promise<TurnSummary>;
  end(sessionId: string): Promise<{ ended: boolean; status: string }>;
  close(): Promise<void>;
}

const HELP = CHAT_COMMANDS.join('\n');

/**
 * `parley chat`: talk to a project's agent in the terminal. By default the
 * agent runs in this process against the same database as `parley start`
 * (embedded or DATABASE_URL), so no API key is needed; with `--url` it talks
 * to a running API over chat/stream with a `chat.write` key, as any client
 * would. Replies stream as they are produced; the session id is shown so the
 * conversation can be continued later with `--session`.
 */
export async function chatCommand(
  ctx: CliContext,
  flags: ChatFlags,
  input: NodeJS.ReadableStream = process.stdin,
): Promise<void> {
  const client = flags.url === undefined ? await inProcessClient(ctx, flags) : httpClient(flags);
  let sessionId = flags.session;
  const note = (text: string) => ctx.err.write(`${text}\n`);

  const turn = async (message: string): Promise<boolean> => {
    let first = true;
    const summary = await client.send(message, sessionId, (text) => {
      if (first) ctx.out.write('agent> ');
      first = false;
      ctx.out.write(text);
    });
    ctx.out.write(first ? 'agent> (no text)\n' : '\n');
    if (sessionId === undefined)
      note(`session ${summary.sessionId} (continue later with --session ${summary.sessionId})`);
    sessionId = summary.sessionId;
    note(
      `  [${summary.inputTokens} in / ${summary.outputTokens} out tokens, ${Math.round(summary.latencyMs)} ms]`,
    );
    if (summary.ended !== null) {
      const how = summary.ended.containmentType === undefined ? '' : ` (${summary.ended.containmentType})`;
      note(`session ended by the agent: ${summary.ended.status}${how}`);
      return false;
    }
    return true;
  };

  try {
    if (flags.message !== undefined) {
      await turn(flags.message);
      return;
    }
    note(HELP);
    const lines = createInterface({ input, terminal: false });
    const prompt = () => {
      if (process.stdin.isTTY && input === process.stdin) ctx.out.write('you> ');
    };
    prompt();
    for await (const raw of lines) {
      const line = raw.trim();
      if (line === '') {
        prompt();
        continue;
      }
      if (line === '.exit') break;
      if (line === '.end') {
        if (sessionId === undefined) note('no session yet');
        else {
          const ended = await client.end(sessionId);
          note(
            ended.ended
              ? `session ${sessionId} ended`
              : `session ${sessionId} had already ended (${ended.status})`,
          );
          break;
        }
        prompt();
        continue;
      }
      try {
        if (!(await turn(line))) break;
      } catch (err) {
        // A refused message (limit, ended session, provider failure) ends nothing: say why and go on.
        if (!(err instanceof UsageError || err instanceof ParleyError)) throw err;
        note(`error: ${err.message}`);
      }
      prompt();
    }
    lines.close();
    if (sessionId !== undefined) note(`bye (session ${sessionId})`);
  } finally {
    await client.close();
  }
}

async function inProcessClient(ctx: CliContext, flags: ChatFlags): Promise<ChatClient> {
  const system = await openSystem(ctx.config, ctx.logger, { database: 'attach', migrate: true, poolMax: 4 });
  try {
    const project = await resolveProject(createAuthStore(system.pool), flags.project);
    const runtime = runtimeOf(system);
    let agentName = flags.agent;
    return {
      async send(message, sessionId, onDelta) {
        try {
          const result = await runtime.runTurn(
            {
              tenantId: project.tenantId,
              projectId: project.id,
              message,
              channel: 'cli',
              stream: true,
              ...(sessionId === undefined ? {} : { sessionId }),
              ...(sessionId === undefined && agentName !== undefined ? { agentName } : {}),
            },
            { onEvent: (e) => e.type === 'text_delta' && onDelta(e.delta) },
          );
          agentName = undefined;
          return {
            sessionId: result.sessionId,
            inputTokens: result.usage.inputTokens,
            outputTokens: result.usage.outputTokens,
            latencyMs: result.latencyMs,
            ended: result.ended,
          };
        } catch (err) {
          throw asUsageError(err);
        }
      },
      async end(sessionId) {
        try {
          return await runtime.endSession(project.id, sessionId, 'cli');
        } catch (err) {
          throw asUsageError(err);
        }
      },
      close: () => system.close(),
    };
  } catch (err) {
    await system.close();
    throw asUsageError(err);
  }
}

function asUsageError(err: unknown): unknown {
  return err instanceof ParleyError && err.status < 500 ? new UsageError(err.message) : err;
}

function httpClient(flags: ChatFlags): ChatClient {
  const apiKey = flags.apiKey ?? process.env.PARLEY_API_KEY;
  if (apiKey === undefined || apiKey === '') {
    throw new UsageError(
      '--url needs a platform API key with the chat.write scope: --api-key or PARLEY_API_KEY',
    );
  }
  const base = flags.url!.replace(/\/+$/, '');
  const headers = { 'content-type': 'application/json', 'x-api-key': apiKey };
  let agentName = flags.agent;

  const refusal = async (res: Response): Promise<UsageError> => {
    const body = (await res.json().catch(() => ({}))) as { error?: unknown; retryAfterMs?: number };
    const error = body.error;
    const text =
      typeof error === 'string'
        ? error
        : typeof error === 'object' && error !== null
          ? `${(error as { code?: string }).code}: ${(error as { message?: string }).message}`
          : `HTTP ${res.status}`;
    return new UsageError(
      body.retryAfterMs === undefined ? text : `${text} (retry in ${body.retryAfterMs} ms)`,
    );
  };

  return {
    async send(message, sessionId, onDelta) {
      const body =
        sessionId === undefined
          ? { projectId: flags.project, message, ...(agentName === undefined ? {} : { agentName }) }
          : { sessionId, message };
      const res = await fetch(`${base}/api/v1/chat/stream`, {
        method: 'POST',
        headers: { ...headers, accept: 'text/event-stream' },
        body: JSON.stringify(body),
      });
      if (!res.ok || res.body === null) throw await refusal(res);
      agentName = undefined;
      const parser = createSseParser();
      let complete: TurnSummary | undefined;
      const handle = (events: ReturnType<typeof parser.feed>) => {
        for (const event of events) {
          const data = JSON.parse(event.data) as Record<string, unknown>;
          if (event.event === 'text_delta') onDelta(String(data.delta));
          else if (event.event === 'complete') complete = data as unknown as TurnSummary;
          else if (event.event === 'error') throw new UsageError(`${data.code}: ${data.message}`);
        }
      };
      for await (const chunk of res.body) handle(parser.feed(chunk));
      handle(parser.end());
      if (complete === undefined) throw new Error('the stream ended before its complete event');
      return complete;
    },
    async end(sessionId) {
      const res = await fetch(`${base}/api/v1/sessions/${encodeURIComponent(sessionId)}/end`, {
        method: 'POST',
        headers: { 'x-api-key': apiKey },
      });
      if (!res.ok) throw await refusal(res);
      return ((await res.json()) as { data: { ended: boolean; status: string } }).data;
    },
    close: async () => {},
  };
}
