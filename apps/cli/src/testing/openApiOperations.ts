import type { Schema } from './schemaArbitrary.js';

/**
 * Test-only: the operations of an OpenAPI 3.1 document (what /openapi.json serves), each with what
 * a generated request needs: its parameters by place, its JSON or form body, its credentials and
 * the responses it documents.
 */
export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  schema: Schema;
}

export interface Operation {
  /** `GET /api/v1/x/{id}`: for messages. */
  id: string;
  method: string;
  /** The OpenAPI path, `{name}` placeholders. */
  path: string;
  operationId: string | undefined;
  parameters: Parameter[];
  /** The body's media type and schema (the first one documented), if it takes one. */
  body: { mediaType: string; schema: Schema; required: boolean } | undefined;
  /** Security scheme names, any of which the operation takes (empty: public). */
  security: string[];
  /** Documented responses by status (`200`, `4XX`, `default`). */
  responses: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components?: { schemas?: Record<string, Schema> };
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

export function operationsOf(document: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (operation === undefined) continue;
      const content = (
        operation.requestBody as { content?: Record<string, { schema?: Schema }>; required?: boolean }
      )?.content;
      const [mediaType, media] = Object.entries(content ?? {})[0] ?? [];
      operations.push({
        id: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        operationId: operation.operationId as string | undefined,
        parameters: ((operation.parameters ?? []) as Parameter[]).map((p) => ({
          ...p,
          required: p.required === true || p.in === 'path',
          schema: p.schema ?? {},
        })),
        body:
          mediaType === undefined
            ? undefined
            : {
                mediaType,
                schema: media?.schema ?? {},
                required: (operation.requestBody as { required?: boolean }).required === true,
              },
        security: ((operation.security ?? []) as Array<Record<string, unknown>>).flatMap((s) =>
          Object.keys(s),
        ),
        responses: (operation.responses ?? {}) as Operation['responses'],
      });
    }
  }
  return operations;
}

/** The path with its parameters filled in, each percent-encoded. */
export function fillPath(path: string, values: Record<string, string>): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(values[name] ?? ''));
}

/** A JSON pointer `#/components/schemas/X` of the document, resolved. */
export function resolverOf(document: OpenApiDocument): (ref: string) => Schema | undefined {
  return (ref) => {
    const match = /^#\/components\/schemas\/(.+)$/.exec(ref);
    return match?.[1] === undefined
      ? undefined
      : document.components?.schemas?.[decodeURIComponent(match[1])];
  };
}
