import { resolve } from 'node:path';
import type { Config, Logger } from '@parley/platform';
import { sessionsCurl } from '../seed/sessionsCurl.js';

export interface CliContext {
  config: Config;
  logger: Logger;
  /** Where command output goes (stdout); logs go to the logger. */
  out: NodeJS.WritableStream;
  err: NodeJS.WritableStream;
}

function steps(url: string): string[] {
  const rows: Array<[string, string]> = [
    [`curl ${url}/readyz`, 'is it ready?'],
    ['npx parley seed --sessions 200', 'a demo project, its three API keys and 200 sessions'],
    ['npx parley chat --project demo', "talk to the demo project's agent (after the seed)"],
    ['npx parley projections status', 'read models and their lag'],
    ['npx parley replay --type SessionStarted', 'the log as JSON lines'],
    ['npx parley --help', 'every command'],
  ];
  const width = Math.max(...rows.map(([command]) => command.length));
  return [
    ...rows.map(([command, what]) => `    ${command.padEnd(width)}  ${what}`),
    '',
    '  Then the sessions API, with the analytics key and project id the seed prints (it prints this',
    '  command ready to run):',
    `    ${sessionsCurl(url, '<project id>', '<analytics key>')}`,
  ];
}

export function printNextSteps(info: { url: string; dataDir: string; embeddedPort: number | null }): void {
  const lines = [
    '',
    `  Parley is running at ${info.url}`,
    '',
    info.embeddedPort === null
      ? '  Database: DATABASE_URL'
      : `  Database: embedded PostgreSQL on 127.0.0.1:${info.embeddedPort}, data in ${resolve(info.dataDir)}`,
    '',
    '  Next steps (in another terminal):',
    ...steps(info.url),
    '',
    '  Press Ctrl-C to stop.',
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
