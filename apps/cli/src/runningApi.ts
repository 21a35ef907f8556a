import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * Where a running `parley start` on the embedded database serves its API, so that commands in
 * another terminal (`parley seed`) print the address it really has (PORT=0, or another PORT than
 * theirs). Written when the API listens, removed when it stops, in PARLEY_DATA_DIR.
 */
const fileOf = (dataDir: string) => join(resolve(dataDir), 'api.json');

interface RunningApi {
  url: string;
  pid: number;
}

export function recordRunningApi(dataDir: string, url: string): void {
  writeFileSync(fileOf(dataDir), `${JSON.stringify({ url, pid: process.pid } satisfies RunningApi)}\n`);
}

export function forgetRunningApi(dataDir: string): void {
  rmSync(fileOf(dataDir), { force: true });
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it runs, as another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** The URL of the API a live `parley start` serves from this data directory, or null. */
export function runningApiUrl(dataDir: string): string | null {
  const file = fileOf(dataDir);
  if (!existsSync(file)) return null;
  try {
    const running = JSON.parse(readFileSync(file, 'utf8')) as RunningApi;
    return typeof running.url === 'string' && alive(running.pid) ? running.url : null;
  } catch {
    return null;
  }
}
