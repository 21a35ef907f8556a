/**
 * One public API's own OpenAPI description, cut from the whole document (spec 000 §9.3: the
 * recordings API description is version 1.0.0, apart from the product's version).
 */
export interface ApiDescriptionOptions {
  /** The URL segment: served at `/openapi/<name>.json`. */
  name: string;
  /** The API's operations: those tagged with this tag. */
  tag: string;
  title: string;
  /** The API's own version (semver), independent of the product's. */
  version: string;
  description?: string;
}

type Json = Record<string, unknown>;

const isRecord = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/** Every `$ref` string anywhere under `value`. */
function refsIn(value: unknown, into: Set<string> = new Set()): Set<string> {
  if (Array.isArray(value)) for (const item of value) refsIn(item, into);
  else if (isRecord(value)) {
    for (const [key, item] of Object.entries(value)) {
      if (key === '$ref' && typeof item === 'string') into.add(item);
      else refsIn(item, into);
    }
  }
  return into;
}

/** The tagged operations of each path, or nothing when a path has none. */
function taggedPaths(paths: Json, tag: string): Json {
  const kept: Json = {};
  for (const [path, item] of Object.entries(paths)) {
    if (!isRecord(item)) continue;
    const operations = Object.entries(item).filter(
      ([method, operation]) =>
        HTTP_METHODS.has(method) &&
        isRecord(operation) &&
        Array.isArray(operation.tags) &&
        operation.tags.includes(tag),
    );
    if (operations.length > 0) kept[path] = Object.fromEntries(operations);
  }
  return kept;
}

/**
 * The components the kept paths reach, followed transitively through `#/components/<kind>/<name>`
 * references, plus the security schemes their operations name: nothing of the other APIs.
 */
function reachableComponents(components: Json, paths: Json): Json {
  const kept: Record<string, Json> = {};
  const pending = [...refsIn(paths)];
  const seen = new Set<string>();
  while (pending.length > 0) {
    const ref = pending.pop() as string;
    if (seen.has(ref)) continue;
    seen.add(ref);
    const match = /^#\/components\/([^/]+)\/([^/]+)$/.exec(ref);
    if (match === null) continue;
    const [, kind = '', name = ''] = match;
    const group = components[kind];
    if (!isRecord(group) || group[name] === undefined) continue;
    kept[kind] ??= {};
    (kept[kind] as Json)[name] = group[name];
    pending.push(...refsIn(group[name]));
  }
  const schemes = isRecord(components.securitySchemes) ? components.securitySchemes : {};
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item as Json)) {
      const security = isRecord(operation) && Array.isArray(operation.security) ? operation.security : [];
      for (const requirement of security) {
        for (const scheme of Object.keys(isRecord(requirement) ? requirement : {})) {
          if (schemes[scheme] === undefined) continue;
          kept.securitySchemes ??= {};
          kept.securitySchemes[scheme] = schemes[scheme];
        }
      }
    }
  }
  return kept;
}

/**
 * The description of one API: `document` (the whole OpenAPI 3.1 document) reduced to the
 * operations tagged `options.tag` and the components they use, with the API's own title and
 * version.
 */
export function apiDescription(document: Json, options: ApiDescriptionOptions): Json {
  const paths = taggedPaths(isRecord(document.paths) ? document.paths : {}, options.tag);
  const components = reachableComponents(isRecord(document.components) ? document.components : {}, paths);
  const tags = Array.isArray(document.tags)
    ? document.tags.filter((t) => isRecord(t) && t.name === options.tag)
    : [];
  return {
    openapi: document.openapi,
    info: {
      title: options.title,
      version: options.version,
      ...(options.description === undefined ? {} : { description: options.description }),
    },
    ...(tags.length > 0 ? { tags } : {}),
    paths,
    ...(Object.keys(components).length > 0 ? { components } : {}),
  };
}
