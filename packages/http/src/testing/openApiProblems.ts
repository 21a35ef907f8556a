import { createRequire } from 'node:module';
import type { FastifyInstance, RouteOptions } from 'fastify';

// ajv and ajv-formats are Fastify's own validator; the OAS 3.1 schema is the
// official one (spec.openapis.org/oas/3.1/schema/2022-10-07), kept beside the code.
const require = createRequire(import.meta.url);
const Ajv2020 = require('ajv/dist/2020').default as new (
  options: object,
) => {
  compile(schema: object): ((data: unknown) => boolean) & { errors?: unknown[] | null };
  addFormat(name: string, format: boolean): void;
};
const addFormats = require('ajv-formats').default as (ajv: object) => void;
// ajv resolves `$dynamicRef: "#meta"` against the wrong scope; in this schema
// it only ever means the plain `$defs/schema` (any object or boolean), so a
// static $ref is the same check.
const oasSchema = JSON.parse(
  JSON.stringify(require('../openapi/oas-3.1.schema.json')).replaceAll(
    '{"$dynamicRef":"#meta"}',
    '{"$ref":"#/$defs/schema"}',
  ),
) as object;

let validate: ReturnType<InstanceType<typeof Ajv2020>['compile']> | undefined;

/**
 * Every way an OpenAPI document can be wrong that the tests check, as
 * readable lines (empty: the document is fine): not OpenAPI 3.1 by the
 * official schema, a `$ref` to nothing, a registered route without its path.
 */
export function openApiProblems(
  document: unknown,
  routes: ReadonlyArray<{ method: string; url: string }>,
): string[] {
  const problems: string[] = [];
  if (validate === undefined) {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addFormat('media-range', true);
    validate = ajv.compile(oasSchema);
  }
  if (!validate(document)) problems.push(`not OpenAPI 3.1: ${JSON.stringify(validate.errors)}`);

  for (const ref of refsIn(document)) {
    if (!ref.startsWith('#/') || resolvePointer(document, ref.slice(1)) === undefined) {
      problems.push(`unresolved $ref ${ref}`);
    }
  }

  const paths = (document as { paths?: Record<string, Record<string, unknown>> }).paths ?? {};
  for (const route of routes) {
    const path = route.url.replace(/:(\w+)/g, '{$1}');
    if (paths[path]?.[route.method.toLowerCase()] === undefined) {
      problems.push(`route ${route.method} ${route.url} missing from paths`);
    }
  }
  return problems;
}

/** Records the routes an app registers (call before registering them), for openApiProblems. */
export function recordRoutes(app: FastifyInstance): Array<{ method: string; url: string }> {
  const routes: Array<{ method: string; url: string }> = [];
  app.addHook('onRoute', (route: RouteOptions) => {
    for (const method of [route.method].flat()) {
      if (method !== 'HEAD' && route.schema?.hide !== true) routes.push({ method, url: route.url });
    }
  });
  return routes;
}

function refsIn(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) refsIn(item, found);
  else if (typeof value === 'object' && value !== null) {
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string') found.push(child);
      else refsIn(child, found);
    }
  }
  return found;
}

function resolvePointer(document: unknown, pointer: string): unknown {
  let node: unknown = document;
  for (const raw of pointer.split('/').slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}
