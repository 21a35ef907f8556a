import { spawn } from 'node:child_process';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliRun, cleanEnv, parleyBin, repoRoot, runCli } from './testing/runCli.js';

/** Runs `parley <args>` with `lines` written to its stdin, then closed. */
function runWithInput(
  args: string[],
  env: NodeJS.ProcessEnv,
  lines: string[],
  timeoutMs = 60_000,
): Promise<CliRun> {
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
    child.stdin.end(lines.map((l) => `${l}\n`).join(''));
  });
}

describe('parley chat', () => {
  let db: TestDatabase;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    db = await createTestDatabase();
    env = cleanEnv({ DATABASE_URL: db.url });
    const migrate = await runCli(['migrate'], env);
    expect(migrate.code, migrate.stderr).toBe(0);
    const tenant = JSON.parse(
      (await runCli(['tenants', 'create', '--name', 'Chatty', '--json'], env)).stdout,
    );
    const project = await runCli(
      ['projects', 'create', '--tenant', tenant.id, '--slug', 'talk', '--json'],
      env,
    );
    expect(project.code, project.stderr).toBe(0);
  }, 120_000);
  afterAll(() => db.close());

  it('talks to the agent line by line, shows the session id, and ends the session with .end', async () => {
    const run = await runWithInput(['chat', '--project', 'talk'], env, [
      'Hello, who are you?',
      'What can you do? /buttons Yes | No',
      '.end',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const replies = run.stdout.split('\n').filter((l) => l.startsWith('agent> '));
    expect(replies).toHaveLength(2);
    const sessionId = /session (\S+) \(continue later with --session/.exec(run.stderr)?.[1];
    expect(sessionId).toBeTruthy();
    expect(run.stderr).toMatch(/\[\d+ in \/ \d+ out tokens, \d+ ms\]/);
    expect(run.stderr).toContain(`session ${sessionId} ended`);

    // The session has ended: continuing it is refused with the reason.
    const again = await runCli(
      ['chat', '--project', 'talk', '--session', sessionId!, '--message', 'hi'],
      env,
    );
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/ended/);
  }, 120_000);

  it('sends one message with --message and reports an agent-ended session', async () => {
    const run = await runCli(
      ['chat', '--project', 'talk', '--message', 'thanks, that is all /end contained_resolved'],
      env,
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^agent> .+\n$/);
    expect(run.stderr).toMatch(/session ended by the agent: \w+ \(contained_resolved\)/);
  }, 60_000);

  it('--url: talks to a running `parley api` over chat/stream with a chat.write key', async () => {
    const projects = JSON.parse((await runCli(['projects', 'list', '--json'], env)).stdout) as Array<{
      id: string;
      slug: string;
    }>;
    const projectId = projects.find((p) => p.slug === 'talk')!.id;
    const key = (
      await runCli(['keys', 'create', '--project', 'talk', '--scope', 'chat.write'], env)
    ).stdout.trim();
    const api = spawn(process.execPath, [parleyBin, 'api'], {
      cwd: repoRoot,
      env: { ...env, PORT: '0', LOG_LEVEL: 'info' },
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let seen = '';
        const timer = setTimeout(() => reject(new Error(`parley api did not listen\n${seen}`)), 60_000);
        api.stdout.on('data', (d) => {
          seen += d;
          const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(seen);
          if (match) {
            clearTimeout(timer);
            resolve(match[1]!);
          }
        });
      });
      const run = await runWithInput(
        ['chat', '--project', projectId, '--url', url],
        { ...env, PARLEY_API_KEY: key },
        ['Hello over HTTP', '.end'],
      );
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout.split('\n').filter((l) => l.startsWith('agent> '))).toHaveLength(1);
      const sessionId = /session (\S+) \(continue later/.exec(run.stderr)?.[1];
      expect(run.stderr).toContain(`session ${sessionId} ended`);
      const noKey = await runCli(['chat', '--project', projectId, '--url', url, '--message', 'hi'], env);
      expect(noKey.code).not.toBe(0);
      expect(noKey.stderr).toMatch(/PARLEY_API_KEY/);
      const badKey = await runCli(
        [
          'chat',
          '--project',
          projectId,
          '--url',
          url,
          '--message',
          'hi',
          '--api-key',
          'plat_wrong_0123456789',
        ],
        env,
      );
      expect(badKey.code).not.toBe(0);
      expect(badKey.stderr).toMatch(/Missing or invalid credentials/);
    } finally {
      const exited = new Promise((resolve) => api.once('close', resolve));
      api.kill('SIGINT');
      await exited;
    }
  }, 120_000);

  it('says which project is unknown', async () => {
    const run = await runCli(['chat', '--project', 'nope', '--message', 'hi'], env);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/no project with id or slug "nope"/);
  }, 60_000);
});
