import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
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

  it('creates the agents of the docs/agents.md example from their files, secrets encrypted', async () => {
    const examples = join(import.meta.dirname, '../../../docs/examples/agents');
    const env = cleanEnv({
      DATABASE_URL: db.url,
      CHANNEL_CREDENTIALS_KEY: randomBytes(32).toString('base64'),
    });
    const cli = async (args: string[]) => {
      const result = await runCli(args, env, 60_000);
      expect(result.code, result.stderr).toBe(0);
      return result;
    };
    const tenant = JSON.parse((await cli(['tenants', 'create', '--name', 'Docs', '--json'])).stdout);
    await cli(['projects', 'create', '--tenant', tenant.id, '--slug', 'docs-example']);
    const file = join(examples, 'concierge.json');
    const concierge = JSON.parse(
      (await cli(['agents', 'create', 'concierge', '--project', 'docs-example', '--file', file, '--json']))
        .stdout,
    );
    const definition = JSON.parse(readFileSync(file, 'utf8'));
    expect(concierge).toMatchObject({
      name: 'concierge',
      provider: 'openai-compatible',
      maxIterations: 6,
      secretNames: ['ORDERS_TOKEN', 'PARTNER_TOKEN', 'REFUNDS_KEY'],
      handoffs: definition.handoffs,
      contextAccess: definition.contextAccess,
    });
    expect(concierge.tools.map((t: { name: string }) => t.name)).toEqual([
      'order_status',
      'request_refund',
      'weather',
    ]);
    expect(JSON.stringify(concierge)).not.toContain('replace-with-the-orders-api-token');
    const billing = JSON.parse(
      (
        await cli([
          'agents',
          'create',
          'billing',
          '--project',
          'docs-example',
          '--file',
          join(examples, 'billing.json'),
          '--json',
        ])
      ).stdout,
    );
    expect(billing).toMatchObject({ provider: 'anthropic', guardrails: { pii: { input: 'redact' } } });
    // Without the credentials key, secrets cannot be kept: refused, nothing stored.
    const nokey = await runCli(
      ['agents', 'create', 'concierge', '--project', 'docs-example', '--file', file],
      cleanEnv({ DATABASE_URL: db.url }),
    );
    expect(nokey.code).not.toBe(0);
    expect(nokey.stderr).toMatch(/CHANNEL_CREDENTIALS_KEY/);
  });
});
