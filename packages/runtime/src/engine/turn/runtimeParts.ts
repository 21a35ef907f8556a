import type { EventStore } from '@parley/eventstore';
import type { Logger, Pool } from '@parley/platform';
import type { AgentStore, TurnProject } from '../../agents/store.js';
import { ProjectNotFoundError } from '../../errors.js';
import type { PriceCards } from '../../pricing/index.js';
import type { ProviderRegistry } from '../../providers/types.js';
import type { SuspensionStore } from '../../suspensions/suspensionStore.js';
import type { ToolFetch } from '../../tools/httpTool.js';
import type { SessionViewCache } from '../session/sessionViewCache.js';

/** The runtime's dependencies as its stages use them (createRuntime fills the defaults). */
export interface RuntimeParts {
  pool: Pool;
  store: EventStore;
  providers: ProviderRegistry;
  priceCards: PriceCards;
  logger: Logger;
  agents: AgentStore;
  now: () => Date;
  toolFetch: ToolFetch | undefined;
  suspensions: SuspensionStore | undefined;
  publicBaseUrl: string | undefined;
  suspensionTimeoutSeconds: number;
  /** This process's views of the sessions it ran the last turn of (none: every turn reads the stream). */
  sessionViews?: SessionViewCache;
}

/**
 * The project's tenant must be the caller's; `storePayloads` unless settings.payloads.store is false.
 * `prefetched`: the row as the turn already reads it (with its agents, turnAgents); else one query.
 */
export async function loadProject(
  parts: Pick<RuntimeParts, 'pool'>,
  projectId: string,
  tenantId: string,
  prefetched?: Promise<TurnProject | null>,
): Promise<{ storePayloads: boolean }> {
  const project = await (prefetched ?? readProject(parts.pool, projectId));
  if (project === null || project.tenantId !== tenantId) throw new ProjectNotFoundError(projectId);
  return { storePayloads: project.settings?.payloads?.store !== false };
}

async function readProject(pool: Pool, projectId: string): Promise<TurnProject | null> {
  const { rows } = await pool.query<{ tenant_id: string; settings: TurnProject['settings'] }>(
    'select tenant_id, settings from projects where id = $1',
    [projectId],
  );
  const row = rows[0];
  return row === undefined ? null : { tenantId: row.tenant_id, settings: row.settings };
}
