import type { Pool } from '@parley/platform';
import {
  PG_FOREIGN_KEY_VIOLATION,
  PG_UNIQUE_VIOLATION,
  pgErrorCode,
  projectAmbiguous,
  projectNotFound,
  projectSlugTaken,
  tenantNotFound,
  validationError,
} from './errors.js';
import { ID_PREFIXES, newProjectId } from './ids.js';
import { ENVIRONMENT_NAMES, type EnvironmentName, type Project, type ProjectSettings } from './types.js';
import { checkEnvironments, checkName, checkSlug, isPlainObject } from './validation.js';

interface ProjectRow {
  id: string;
  tenant_id: string;
  slug: string;
  name: string;
  settings: ProjectSettings;
  environments: string[] | null;
  created_at: Date;
}

const SELECT = `
  select p.id, p.tenant_id, p.slug, p.name, p.settings, p.created_at,
         array(select e.name from project_environments e where e.project_id = p.id) as environments
  from projects p`;

const toProject = (r: ProjectRow): Project => ({
  id: r.id,
  tenantId: r.tenant_id,
  slug: r.slug,
  name: r.name,
  settings: r.settings,
  environments: ENVIRONMENT_NAMES.filter((n) => r.environments?.includes(n)),
  createdAt: r.created_at,
});

export interface CreateProjectInput {
  tenantId: string;
  slug: string;
  /** Defaults to the slug. */
  name?: string;
  /** Defaults to all four: dev, staging, production, working-copy. */
  environments?: readonly EnvironmentName[];
  settings?: ProjectSettings;
}

export function createProjectQueries(pool: Pool) {
  async function getProject(id: string): Promise<Project | null> {
    const { rows } = await pool.query<ProjectRow>(`${SELECT} where p.id = $1`, [id]);
    return rows[0] ? toProject(rows[0]) : null;
  }

  return {
    async createProject(input: CreateProjectInput): Promise<Project> {
      const slug = checkSlug(input.slug);
      const name = checkName('project name', input.name ?? slug);
      const environments = checkEnvironments(input.environments ?? ENVIRONMENT_NAMES);
      const settings = input.settings ?? {};
      if (!isPlainObject(settings)) throw validationError('settings must be a JSON object');
      const id = newProjectId();
      try {
        // One statement, so the project never exists without its environments.
        await pool.query(
          `with p as (
             insert into projects (id, tenant_id, slug, name, settings) values ($1, $2, $3, $4, $5)
             returning id
           )
           insert into project_environments (project_id, name) select p.id, e from p, unnest($6::text[]) e`,
          [id, input.tenantId, slug, name, JSON.stringify(settings), environments],
        );
      } catch (err) {
        const { code, constraint } = pgErrorCode(err);
        if (code === PG_UNIQUE_VIOLATION && constraint === 'projects_tenant_id_slug_key') {
          throw projectSlugTaken(input.tenantId, slug);
        }
        if (code === PG_FOREIGN_KEY_VIOLATION) throw tenantNotFound(input.tenantId);
        throw err;
      }
      return (await getProject(id))!;
    },

    getProject,

    /**
     * A project by id, or by slug (within `tenantId` when given). A slug used
     * by several tenants is refused rather than guessed.
     */
    async findProject(idOrSlug: string, options: { tenantId?: string } = {}): Promise<Project | null> {
      if (idOrSlug.startsWith(ID_PREFIXES.project)) {
        const project = await getProject(idOrSlug);
        return project && (options.tenantId === undefined || project.tenantId === options.tenantId)
          ? project
          : null;
      }
      const { rows } = await pool.query<ProjectRow>(
        `${SELECT} where p.slug = $1 and ($2::text is null or p.tenant_id = $2) order by p.created_at limit 2`,
        [idOrSlug, options.tenantId ?? null],
      );
      if (rows.length > 1) {
        const { rows: count } = await pool.query<{ n: number }>(
          'select count(*)::int as n from projects where slug = $1',
          [idOrSlug],
        );
        throw projectAmbiguous(idOrSlug, count[0]?.n ?? rows.length);
      }
      return rows[0] ? toProject(rows[0]) : null;
    },

    async listProjects(options: { tenantId?: string } = {}): Promise<Project[]> {
      const { rows } = await pool.query<ProjectRow>(
        `${SELECT} where $1::text is null or p.tenant_id = $1 order by p.created_at, p.id`,
        [options.tenantId ?? null],
      );
      return rows.map(toProject);
    },

    /** Merges the given settings into the project's (top-level keys replaced). */
    async setProjectSettings(id: string, settings: ProjectSettings): Promise<Project> {
      if (!isPlainObject(settings)) throw validationError('settings must be a JSON object');
      const { rowCount } = await pool.query(
        'update projects set settings = settings || $2::jsonb where id = $1',
        [id, JSON.stringify(settings)],
      );
      if (rowCount === 0) throw projectNotFound(id);
      return (await getProject(id))!;
    },
  };
}
