import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliRun, cleanEnv, runCli } from './testing/runCli.js';

const run = (args: string[], databaseUrl: string): Promise<CliRun> =>
  runCli(args, cleanEnv({ DATABASE_URL: databaseUrl }), 60_000);

async function ok(args: string[], url: string): Promise<CliRun> {
  const result = await run(args, url);
  expect(result.code, result.stderr).toBe(0);
  return result;
}

describe('parley agents', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.close());

  it('creates, lists, shows, updates and deletes agents', async () => {
    const tenant = JSON.parse((await ok(['tenants', 'create', '--name', 'Acme', '--json'], db.url)).stdout);
    await ok(['projects', 'create', '--tenant', tenant.id, '--slug', 'bot'], db.url);
    const promptFile = join(tmpdir(), `parley-agent-prompt-${process.pid}.txt`);
    writeFileSync(promptFile, 'You are helpful.\nBe brief.');

    const created = JSON.parse(
      (
        await ok(
          [
            'agents',
            'create',
            'support',
            '--project',
            'bot',
            '--system-prompt-file',
            promptFile,
            '--tools',
            '[{"name":"weather"}]',
            '--guardrails',
            '{"blockedTerms":["password"]}',
            '--json',
          ],
          db.url,
        )
      ).stdout,
    );
    expect(created).toMatchObject({
      name: 'support',
      provider: 'scripted',
      model: 'scripted-1',
      systemPrompt: 'You are helpful.\nBe brief.',
      tools: [{ name: 'weather', description: '', parameters: { type: 'object', properties: {} } }],
      guardrails: { blockedTerms: ['password'] },
    });

    const list = await ok(['agents', 'list', '--project', 'bot'], db.url);
    expect(list.stdout).toMatch(/support\s+agt_\w+\s+scripted\s+scripted-1\s+weather/);

    const updated = await ok(
      [
        'agents',
        'update',
        'support',
        '--project',
        'bot',
        '--model',
        'scripted-2',
        '--environment',
        'staging',
      ],
      db.url,
    );
    expect(updated.stdout).toMatch(/^updated agent support \(agt_\w+\): scripted\/scripted-2, 1 tool/);

    const shown = await ok(['agents', 'show', 'support', '--project', 'bot'], db.url);
    expect(shown.stdout).toMatch(/environment:\s+staging/);
    expect(shown.stdout).toMatch(/system prompt:\n {2}You are helpful.\n {2}Be brief./);

    const duplicate = await run(['agents', 'create', 'support', '--project', 'bot'], db.url);
    expect(duplicate.code).toBe(2);
    expect(duplicate.stderr).toMatch(/already exists/);
    const invalid = await run(['agents', 'create', 'x', '--project', 'bot', '--provider', 'magic'], db.url);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(/provider/);
    const badJson = await run(['agents', 'create', 'y', '--project', 'bot', '--tools', '[oops'], db.url);
    expect(badJson.code).toBe(2);
    expect(badJson.stderr).toMatch(/--tools must be JSON/);

    await ok(['agents', 'delete', 'support', '--project', 'bot'], db.url);
    const gone = await run(['agents', 'show', 'support', '--project', 'bot'], db.url);
    expect(gone.code).toBe(2);
    expect(JSON.parse((await ok(['agents', 'list', '--project', 'bot', '--json'], db.url)).stdout)).toEqual(
      [],
    );
  });
});
