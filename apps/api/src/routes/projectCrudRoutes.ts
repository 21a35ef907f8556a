import { addRoute, type RouteShapes } from '@parley/http';
import type { FastifyInstance, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { z } from 'zod';

export const projectParams = z.object({ projectId: z.string().min(1).max(256) });
export const itemParams = projectParams.extend({ id: z.string().min(1).max(64) });
type ProjectParams = z.output<typeof projectParams>;
type ItemParams = z.output<typeof itemParams>;
const listQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});

/** A store of a project's resources, as the shared routes use it: its page names the items `Many`. */
export interface ProjectCrudStore<Item, Many extends string> {
  list(
    projectId: string,
    page: { limit: number; offset: number },
  ): Promise<{ total: number } & { [K in Many]: Item[] }>;
  get(projectId: string, id: string): Promise<Item | null>;
  delete(projectId: string, id: string): Promise<boolean>;
}

/** Credentials, OpenAPI security and tags, the error responses and the permission checks of a resource. */
export interface ProjectResourceAccess {
  common: { tags: string[]; security: Array<Record<string, string[]>> };
  errors: RouteShapes<undefined, undefined, undefined, undefined>['response'];
  read: preHandlerAsyncHookHandler;
  write: preHandlerAsyncHookHandler;
}

export interface ProjectCrudResource<Item, Body, Many extends string> {
  /** `/api/projects/:projectId/<resources>`; one resource is `${base}/:id`. */
  base: string;
  /**
   * `operation`: the operation ids' stem (list…s, get…, delete…); `label`: the summaries' noun;
   * `one`, `many`: the answers' keys, `{ success, [one]: … }` and `{ success, [many]: [...], pagination }`.
   */
  names: { operation: string; label: string; one: string; many: Many };
  /** The item's body, from the stored item, and the answer of GET `/:id` (`{ success, [one] }` and more). */
  item: { body: z.ZodType<Body>; toBody(item: Item): Body; response: z.ZodType };
  store(): ProjectCrudStore<Item, Many>;
  notFound(id: string): Error;
  /** Added to the list and delete summaries. */
  notes?: { list?: string; delete?: string };
}

/** A create or change route of a resource: what differs per resource; the answer is never cached. */
export interface ProjectCrudWrite<B extends z.ZodType, P> {
  summary: string;
  description: string;
  body: B;
  /** The answers beside the resource's errors (the success status's, and any the write adds). */
  response: RouteShapes<undefined, undefined, undefined, undefined>['response'];
  save(request: FastifyRequest<{ Params: P; Body: z.output<B> }>): Promise<unknown>;
}

/**
 * The list, show and delete routes every project resource managed over the API has the same way
 * (channel connections, webhook subscriptions): a page by limit/offset (oldest first), one by id
 * (404 from `notFound`), delete (204, 404); create (201) and change (200) with the body and the
 * saving the resource gives. Answers are never cached. Each registers where it is called, so a
 * resource keeps its routes (and its OpenAPI paths) in its own order.
 */
export function projectCrudRoutes<Item, Body, Many extends string>(
  app: FastifyInstance,
  access: ProjectResourceAccess,
  resource: ProjectCrudResource<Item, Body, Many>,
) {
  const { common, errors } = access;
  const { base, names, store, notFound } = resource;
  const { toBody } = resource.item;
  const many = z.object({
    success: z.literal(true),
    [names.many]: z.array(resource.item.body),
    pagination: z.object({ total: z.int(), limit: z.int(), offset: z.int() }),
  });
  return {
    list(): void {
      addRoute(app, {
        ...common,
        method: 'GET',
        url: base,
        summary: `List a project's ${names.label}s (oldest first${resource.notes?.list ?? ''})`,
        operationId: `list${names.operation}s`,
        params: projectParams,
        querystring: listQuery,
        response: { 200: many, ...errors },
        preHandler: access.read,
        handler: async (request, reply) => {
          const { limit, offset } = request.query;
          const page = await store().list(request.params.projectId, { limit, offset });
          reply.header('cache-control', 'no-store');
          return {
            success: true,
            [names.many]: (page[names.many] as Item[]).map(toBody),
            pagination: { total: page.total, limit, offset },
          };
        },
      });
    },
    get(): void {
      addRoute(app, {
        ...common,
        method: 'GET',
        url: `${base}/:id`,
        summary: `Show one ${names.label}`,
        operationId: `get${names.operation}`,
        params: itemParams,
        response: { 200: resource.item.response, ...errors },
        preHandler: access.read,
        handler: async (request, reply) => {
          const item = await store().get(request.params.projectId, request.params.id);
          if (item === null) throw notFound(request.params.id);
          reply.header('cache-control', 'no-store');
          return { success: true, [names.one]: toBody(item) };
        },
      });
    },
    create<B extends z.ZodType>(write: ProjectCrudWrite<B, ProjectParams>): void {
      addRoute(app, {
        ...common,
        method: 'POST',
        url: base,
        summary: write.summary,
        description: write.description,
        operationId: `create${names.operation}`,
        params: projectParams,
        body: write.body,
        response: { ...errors, ...write.response },
        preHandler: access.write,
        handler: async (request, reply) => {
          // addRoute's Out<B> is z.output<B> for any B given; TypeScript cannot see that of a generic B.
          const answer = await write.save(
            request as FastifyRequest<{ Params: ProjectParams; Body: z.output<B> }>,
          );
          reply.status(201).header('cache-control', 'no-store');
          return answer;
        },
      });
    },
    update<B extends z.ZodType>(write: ProjectCrudWrite<B, ItemParams>): void {
      addRoute(app, {
        ...common,
        method: 'PATCH',
        url: `${base}/:id`,
        summary: write.summary,
        description: write.description,
        operationId: `update${names.operation}`,
        params: itemParams,
        body: write.body,
        response: { ...errors, ...write.response },
        preHandler: access.write,
        handler: async (request, reply) => {
          const answer = await write.save(
            request as FastifyRequest<{ Params: ItemParams; Body: z.output<B> }>,
          );
          reply.header('cache-control', 'no-store');
          return answer;
        },
      });
    },
    delete(): void {
      addRoute(app, {
        ...common,
        method: 'DELETE',
        url: `${base}/:id`,
        summary: `Delete a ${names.label}${resource.notes?.delete ?? ''}`,
        operationId: `delete${names.operation}`,
        params: itemParams,
        response: { 204: z.null().describe('Deleted'), ...errors },
        preHandler: access.write,
        handler: async (request, reply) => {
          const deleted = await store().delete(request.params.projectId, request.params.id);
          if (!deleted) throw notFound(request.params.id);
          reply.status(204);
          return null;
        },
      });
    },
  };
}
