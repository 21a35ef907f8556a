import type { AuthStore, Project, Tenant } from '@parley/auth';

export const DEMO_TENANT_NAME = 'Parley demo';
/** Marks the tenant the seed made, so that a later seed finds it again (and never takes a real tenant). */
export const DEMO_FEATURE = 'demo';

export interface DemoProject {
  tenant: Tenant;
  project: Project;
  reused: { tenant: boolean; project: boolean };
}

export interface DemoKeys {
  analytics: string;
  ingest: string;
  recordings: string;
  /** The operator console's key: every read scope it uses, and projections.admin for rebuilds. */
  console: string;
}

/** What the console calls (apps/console): sessions, ledger, traces, transcripts, recordings, projections. */
export const CONSOLE_SCOPES = [
  'analytics.read',
  'traces.read',
  'conversations.read',
  'recordings.read',
  'projections.admin',
] as const;

/**
 * The demo tenant (the oldest tenant marked `demo`) and its project with this slug: reused when
 * they exist, created otherwise. The project shows callerNumber filtering and stored payloads,
 * so both are switched on; the tenant gets the call-recording feature for the recordings key.
 */
export async function ensureDemoProject(store: AuthStore, slug: string): Promise<DemoProject> {
  const found0 = (await store.listTenants()).find((t) => t.features[DEMO_FEATURE] === true);
  // A demo tenant made before call recording existed gets the feature now.
  const existing =
    found0 && found0.features.callRecording !== true
      ? await store.setTenantFeatures(found0.id, { callRecording: true })
      : found0;
  const tenant =
    existing ??
    (await store.createTenant({
      name: DEMO_TENANT_NAME,
      features: { [DEMO_FEATURE]: true, callRecording: true },
    }));
  const found = existing ? await store.findProject(slug, { tenantId: tenant.id }) : null;
  const project =
    found ??
    (await store.createProject({
      tenantId: tenant.id,
      slug,
      name: `Demo (${slug})`,
      settings: { reporting: { identityFields: true }, payloads: { store: true } },
    }));
  return { tenant, project, reused: { tenant: existing !== undefined, project: found !== null } };
}

/**
 * Three new keys, one per scope, and the console's (keys are shown once, so a reused project gets
 * new ones).
 */
export async function createDemoKeys(store: AuthStore, projectId: string): Promise<DemoKeys> {
  const make = async (scopes: readonly string[], name: string) =>
    (await store.createApiKey({ projectId, scopes: [...scopes], name })).key;
  return {
    analytics: await make(['analytics.read'], 'demo analytics.read'),
    ingest: await make(['ingest.write'], 'demo ingest.write'),
    recordings: await make(['recordings.read'], 'demo recordings.read'),
    console: await make(CONSOLE_SCOPES, 'demo console'),
  };
}
