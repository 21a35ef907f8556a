import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentExistsError, AgentNotFoundError, ProjectNotFoundError } from '../errors.js';
import { createRuntimeHarness, type RuntimeHarness } from '../spec/harness.js';
import { createTestCipher } from '../testing/testCipher.js';
import { SecretsMissingError, SecretsNotConfiguredError } from './secretsCipher.js';
import { createAgentStore, DEFAULT_AGENT } from './store.js';

let h: RuntimeHarness;
beforeAll(async () => {
  h = await createRuntimeHarness();
});
afterAll(() => h?.close());

describe('agent store', () => {
  it('creates with defaults, reads, updates only the given fields, deletes', async () => {
    const { projectId } = await h.newProject();
    const created = await h.agents.create(projectId, { name: 'helper' });
    expect(created).toMatchObject({
      projectId,
      name: 'helper',
      description: null,
      provider: 'scripted',
      model: 'scripted-1',
      systemPrompt: '',
      tools: [],
      guardrails: {},
      environment: null,
      deploymentId: null,
    });
    const openai = await h.agents.create(projectId, { name: 'gpt', provider: 'openai-compatible' });
    expect(openai.model).toBe('gpt-4o-mini');

    const updated = await h.agents.update(projectId, 'helper', {
      description: 'Helps',
      tools: [{ name: 'weather' }],
      deploymentId: 'dep_1',
    });
    expect(updated).toMatchObject({
      description: 'Helps',
      tools: [{ name: 'weather', description: '', parameters: { type: 'object', properties: {} } }],
      deploymentId: 'dep_1',
      model: 'scripted-1',
    });
    expect(updated.updatedAt.getTime()).toBeGreaterThanOrEqual(created.updatedAt.getTime());
    const cleared = await h.agents.update(projectId, 'helper', { description: null, deploymentId: null });
    expect(cleared).toMatchObject({ description: null, deploymentId: null, tools: [{ name: 'weather' }] });

    expect((await h.agents.list(projectId)).map((a) => a.name)).toEqual(['helper', 'gpt']);
    expect(await h.agents.get(projectId, 'helper')).toEqual(cleared);
    expect(await h.agents.delete(projectId, 'helper')).toBe(true);
    expect(await h.agents.delete(projectId, 'helper')).toBe(false);
    expect(await h.agents.get(projectId, 'helper')).toBeNull();
  });

  it('lists the agents with the project row in one query, as list does', async () => {
    const { tenantId, projectId } = await h.newProject({ payloads: { store: false } });
    expect(await h.agents.listWithProject?.(projectId)).toEqual({
      project: { tenantId, settings: { payloads: { store: false } } },
      agents: [],
    });
    await h.agents.create(projectId, { name: 'second-by-name' });
    await h.agents.create(projectId, { name: 'first', tools: [{ name: 'weather' }] });
    const both = await h.agents.listWithProject?.(projectId);
    expect(both?.project?.tenantId).toBe(tenantId);
    expect(both?.agents).toEqual(await h.agents.list(projectId));
    expect(both?.agents).toHaveLength(2);
    expect(await h.agents.listWithProject?.('prj_none')).toEqual({ project: null, agents: [] });
  });

  it('refuses duplicates, unknown projects and unknown agents', async () => {
    const { projectId } = await h.newProject();
    await h.agents.create(projectId, { name: 'one' });
    await expect(h.agents.create(projectId, { name: 'one' })).rejects.toBeInstanceOf(AgentExistsError);
    // Same name in another project is fine.
    const other = await h.newProject();
    await expect(h.agents.create(other.projectId, { name: 'one' })).resolves.toMatchObject({ name: 'one' });
    await expect(h.agents.create('proj_missing', { name: 'x' })).rejects.toBeInstanceOf(ProjectNotFoundError);
    await expect(h.agents.update(projectId, 'nobody', { model: 'm' })).rejects.toBeInstanceOf(
      AgentNotFoundError,
    );
  });

  it('resolves the named agent, else the oldest, else the built-in default', async () => {
    const { projectId } = await h.newProject();
    expect(await h.agents.resolve(projectId)).toMatchObject({ ...DEFAULT_AGENT, projectId });
    expect(await h.agents.resolve(projectId, 'default')).toMatchObject({
      name: 'default',
      provider: 'scripted',
    });
    await expect(h.agents.resolve(projectId, 'other')).rejects.toBeInstanceOf(AgentNotFoundError);
    await h.agents.create(projectId, { name: 'first' });
    await h.agents.create(projectId, { name: 'second' });
    expect((await h.agents.resolve(projectId)).name).toBe('first');
    expect((await h.agents.resolve(projectId, 'second')).name).toBe('second');
    // Once the project has agents, `default` is only a stored agent's name.
    await expect(h.agents.resolve(projectId, 'default')).rejects.toBeInstanceOf(AgentNotFoundError);
  });
});

describe('agent secrets', () => {
  it('are stored encrypted, listed by name only, merged on update (null deletes), refused without a key', async () => {
    const { projectId } = await h.newProject();
    const store = createAgentStore(h.db.pool, createTestCipher());
    const tool = {
      name: 'crm',
      implementation: {
        type: 'http' as const,
        url: 'https://crm.example',
        auth: { type: 'bearer' as const, secret: 'A' },
      },
    };
    const agent = await store.create(projectId, {
      name: 'keeper',
      tools: [tool],
      secrets: { A: 'alpha-1', B: 'beta-2' },
    });
    expect(agent).toMatchObject({
      secretNames: ['A', 'B'],
      maxIterations: 5,
      systemTools: { handoff: true },
    });
    expect(JSON.stringify(agent)).not.toContain('alpha-1');
    expect(await store.secrets(agent)).toEqual({ A: 'alpha-1', B: 'beta-2' });
    const updated = await store.update(projectId, 'keeper', { secrets: { B: null, C: 'gamma-3' } });
    expect(updated.secretNames).toEqual(['A', 'C']);
    expect(await store.secrets(updated)).toEqual({ A: 'alpha-1', C: 'gamma-3' });
    await expect(store.update(projectId, 'keeper', { secrets: { A: null } })).rejects.toBeInstanceOf(
      SecretsMissingError,
    );
    // Without a key nothing can be encrypted (nor read back).
    await expect(
      createAgentStore(h.db.pool).create(projectId, { name: 'nokey', secrets: { A: 'x' } }),
    ).rejects.toBeInstanceOf(SecretsNotConfiguredError);
    // A ciphertext moved to another agent does not decrypt (the agent id is authenticated).
    const other = await store.create(projectId, { name: 'other' });
    await h.db.pool.query(
      `update agents set secrets_key_id = a.secrets_key_id, secrets_ciphertext = a.secrets_ciphertext
       from agents a where a.id = $1 and agents.id = $2`,
      [agent.id, other.id],
    );
    await expect(store.secrets(other)).rejects.toThrow();
  });
});
