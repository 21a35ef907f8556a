import type { EventStore } from '@parley/eventstore';
import type { Logger, Pool } from '@parley/platform';
import type { AgentStore } from '../../agents/store.js';
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

interface ProjectRow {
  tenant_id: string;
  settings: { payloads?: { store?: boolean } } | null;
}

/** The project's tenant must be the caller's; `storePayloads` unless settings.payloads.store is false. */
export async function loadProject(
  parts: Pick<RuntimeParts, 'pool'>,
  projectId: string,
  tenantId: string,
): Promise<{ storePayloads: boolean }> {
  const { rows } = await parts.pool.query<ProjectRow>(
    'select tenant_id, settings from projects where id = $1',
    [projectId],
  );
  const row = rows[0];
  if (row === undefined || row.tenant_id !== tenantId) throw new ProjectNotFoundError(projectId);
  return { storePayloads: row.settings?.payloads?.store !== false };
}
