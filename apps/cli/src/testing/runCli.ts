import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';

/** The repository root and the `parley` bin, for end-to-end tests that run the CLI as a user would. */
export const repoRoot = resolve(import.meta.dirname, '../../../..');
export const parleyBin = join(repoRoot, 'apps/cli/bin/parley.js');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment of a newcomer: nothing configured but what the test sets. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, LOG_FORMAT: 'json', LOG_LEVEL: 'warn', ...extra };
}

/** Runs `parley <args>` to completion; rejects (after killing it) past timeoutMs. */
export function runCli(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 60_000): Promise<CliRun> {
  return new Promise((res, rej) => {
    const child = spawn(process.execPath, [parleyBin, ...args], { cwd: repoRoot, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      rej(new Error(`parley ${args.join(' ')} timed out\n${stderr}`));
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      res({ code, stdout, stderr });
    });
  });
}
