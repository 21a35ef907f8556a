import type { AuthStore, Project } from '@parley/auth';
import { UsageError } from '../system.js';
import { formatTable } from '../table.js';
import type { CliContext } from './context.js';
import { formatTime, printJson, withAuthStore } from './tenants.js';

/** A project named by id or slug on the command line, or a usage error. */
export async function resolveProject(store: AuthStore, idOrSlug: string): Promise<Project> {
  const project = await store.findProject(idOrSlug);
  if (!project) throw new UsageError(`no project with id or slug ${JSON.stringify(idOrSlug)}`);
  return project;
}

export async function projectsCreateCommand(
  ctx: CliContext,
  options: { tenant: string; slug: string; name?: string; json?: boolean },
): Promise<void> {
  const project = await withAuthStore(ctx, (store) =>
    store.createProject({ tenantId: options.tenant, slug: options.slug, name: options.name }),
  );
  if (options.json) printJson(ctx, project);
  else ctx.out.write(`created project ${project.id} (${project.slug}) in tenant ${project.tenantId}\n`);
}

export async function projectsListCommand(
  ctx: CliContext,
  options: { tenant?: string; json?: boolean },
): Promise<void> {
  const projects = await withAuthStore(ctx, (store) => store.listProjects({ tenantId: options.tenant }));
  if (options.json) {
    printJson(ctx, projects);
    return;
  }
  ctx.out.write(
    formatTable(
      projects.map((p) => ({
        id: p.id,
        tenant: p.tenantId,
        slug: p.slug,
        name: p.name,
        environments: p.environments.join(','),
        created: formatTime(p.createdAt),
      })),
    ),
  );
}
