import type { z } from 'zod';
import { type JsonSchema, jsonSchemaOf } from './jsonSchemaOf.js';

/**
 * A response documented with its own media types (text/csv, text/event-stream, text/plain, a
 * platform's XML…) instead of the default application/json: `content` maps each media type (or
 * range, `audio/*`) to the shape of its body. Use as a status of addRoute's `response`.
 */
export function mediaResponse(
  description: string,
  content: Record<string, z.ZodType | JsonSchema>,
): JsonSchema {
  return {
    description,
    content: Object.fromEntries(
      Object.entries(content).map(([mediaType, shape]) => [
        mediaType,
        { schema: jsonSchemaOf(shape, 'output') },
      ]),
    ),
  };
}

/** The body of a text response: a string (a CSV document, an event stream, a challenge). */
export const textBody: JsonSchema = { type: 'string' };

/** The bytes of a binary response. */
export const binaryBody: JsonSchema = { type: 'string', format: 'binary' };
