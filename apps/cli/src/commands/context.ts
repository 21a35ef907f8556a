import { join, resolve } from 'node:path';
import type { Config, Logger } from '@parley/platform';
import { sessionsCurl } from '../seed/sessionsCurl.js';

/** Where the embedded default keeps the demo console key (a local file, like the cluster itself). */
export const consoleKeyFile = (dataDir: string): string => join(resolve(dataDir), 'console-key');

export interface CliContext {
  config: Config;
  logger: Logger;
  /** Where command output goes (stdout); logs go to the logger. */
  out: NodeJS.WritableStream;
  err: NodeJS.WritableStream;
}

function steps(info: NextStepsInfo): string[] {
  const { url } = info;
  const demo = info.seeding === true || Boolean(info.consoleKeyFile && info.demoProjectId);
  const rows: Array<[string, string]> = [
    [`curl ${url}/readyz`, 'is it ready?'],
    demo
      ? ['npx parley seed --sessions 200', 'more demo sessions (and new demo API keys)']
      : [
          'npx parley seed --sessions 200',
          'a demo project, its API keys (one for the console) and 200 sessions',
        ],
    ['npx parley chat --project demo', `talk to the demo project's agent${demo ? '' : ' (after the seed)'}`],
    ['npx parley projections status', 'read models and their lag'],
    ['npx parley replay --type SessionStarted', 'the log as JSON lines'],
    ['npx parley --help', 'every command'],
  ];
  const width = Math.max(...rows.map(([command]) => command.length));
  const lines = rows.map(([command, what]) => `    ${command.padEnd(width)}  ${what}`);
  if (info.seeding) return lines;
  if (demo) {
    // The console key reads the analytics APIs too; $(cat …) keeps it out of the terminal's history.
    const key = `$(cat ${relativeOrAbsolute(info.consoleKeyFile!)})`;
    return [
      ...lines,
      '',
      "  Then the sessions API, with the demo's console key:",
      `    ${sessionsCurl(url, info.demoProjectId!, key)}`,
    ];
  }
  return [
    ...lines,
    '',
    '  Then the sessions API, with the analytics key and project id the seed prints (it prints this',
    '  command ready to run):',
    `    ${sessionsCurl(url, '<project id>', '<analytics key>')}`,
  ];
}

export interface NextStepsInfo {
  url: string;
  dataDir: string;
  embeddedPort: number | null;
  /** The demo console key's file (embedded default), when there is one. */
  consoleKeyFile?: string | null;
  /** The demo project's id (embedded default), when there is one. */
  demoProjectId?: string | null;
  /** This start created the demo project. */
  seeded?: boolean;
  /** The demo project is being created (the first start's first banner). */
  seeding?: boolean;
}

function consoleLines(info: NextStepsInfo): string[] {
  const where = `  Console: ${info.url}/console/`;
  if (info.seeding) {
    return [
      where,
      `    the demo project is being created: its console key goes to ${relativeOrAbsolute(consoleKeyFile(info.dataDir))}`,
      '    (this is printed again, with it, when the demo is ready)',
    ];
  }
  if (info.consoleKeyFile) {
    return [
      where,
      `    sign in with the demo console key: cat ${relativeOrAbsolute(info.consoleKeyFile)}`,
      info.seeded
        ? '    (the demo project was just created: 200 sessions and 12 recorded calls)'
        : '    (the demo project of the first start)',
    ];
  }
  return [
    where,
    '    sign in with a key from `npx parley seed` (its console key) or `npx parley keys create`',
  ];
}

function relativeOrAbsolute(path: string): string {
  const here = `${process.cwd()}/`;
  return path.startsWith(here) ? path.slice(here.length) : path;
}

export function printNextSteps(info: NextStepsInfo): void {
  const lines = [
    '',
    `  Parley is running at ${info.url}`,
    '',
    info.embeddedPort === null
      ? '  Database: DATABASE_URL'
      : `  Database: embedded PostgreSQL on 127.0.0.1:${info.embeddedPort}, data in ${resolve(info.dataDir)}`,
    '',
    ...consoleLines(info),
    '',
    '  Next steps (in another terminal):',
    ...steps(info),
    '',
    '  Press Ctrl-C to stop.',
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
