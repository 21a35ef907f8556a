import { resolve } from 'node:path';
import type { Config, Logger } from '@parley/platform';

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
    ['npx parley seed --events 1000', 'append demo sessions to the log'],
    ['npx parley projections status', 'read models and their lag'],
    ['npx parley replay --type SessionStarted', 'the log as JSON lines'],
    ['npx parley --help', 'every command'],
  ];
  const width = Math.max(...rows.map(([command]) => command.length));
  return rows.map(([command, what]) => `    ${command.padEnd(width)}  ${what}`);
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
