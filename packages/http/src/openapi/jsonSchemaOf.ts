import { z } from 'zod';

export type JsonSchema = Record<string, unknown>;

/**
 * A zod schema as the JSON schema OpenAPI 3.1 embeds (draft 2020-12, no
 * `$schema` key). Requests are documented as they are sent (`input`: before
 * transforms and defaults), responses as they are sent back (`output`).
 * Parts zod cannot express (a transform's result) become `{}`.
 */
export function jsonSchemaOf(schema: z.ZodType | JsonSchema, io: 'input' | 'output'): JsonSchema {
  if (!(schema instanceof z.ZodType)) return schema;
  const { $schema: _ignored, ...json } = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    reused: 'inline',
  });
  return json as JsonSchema;
}
